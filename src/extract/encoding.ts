/**
 * Bytes → HTML string, and the "is this HTML at all" test. Decoding order follows the HTML
 * standard's encoding sniffing in simplified form: BOM, HTTP charset, <meta charset> in the first
 * 4 KB, then statistical detection (chardet) for pages that declare nothing.
 */
import chardet from 'chardet';
import iconv from 'iconv-lite';

/** GB2312/GBK pages routinely use GBK-only characters; GB18030 is the superset that decodes all. */
function canonicalCharset(name: string): string | null {
  const n = name.trim().toLowerCase().replace(/^["']|["']$/g, '');
  if (!n) return null;
  if (/^(gb2312|gbk|gb_2312-80|x-gbk|cp936|windows-936|euc-cn|gb18030)$/.test(n)) return 'gb18030';
  if (/^(big5|big5-hkscs|x-x-big5|cp950)$/.test(n)) return 'big5hkscs';
  if (n === 'utf8') return 'utf-8';
  return iconv.encodingExists(n) ? n : null;
}

export function charsetFromContentType(contentType?: string): string | null {
  const m = /charset\s*=\s*["']?([\w.:-]+)/i.exec(contentType ?? '');
  return m ? canonicalCharset(m[1]!) : null;
}

/** `<meta charset=x>` or `<meta http-equiv=Content-Type content="...; charset=x">` in the head. */
export function charsetFromMeta(head: string): string | null {
  const m = /<meta[^>]+charset\s*=\s*["']?\s*([\w.:-]+)/i.exec(head);
  return m ? canonicalCharset(m[1]!) : null;
}

function bomCharset(b: Uint8Array): { charset: string; skip: number } | null {
  if (b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) return { charset: 'utf-8', skip: 3 };
  if (b[0] === 0xff && b[1] === 0xfe) return { charset: 'utf-16le', skip: 2 };
  if (b[0] === 0xfe && b[1] === 0xff) return { charset: 'utf-16be', skip: 2 };
  return null;
}

const utf8Strict = new TextDecoder('utf-8', { fatal: true });
/** Non-ASCII present, and every byte sequence valid UTF-8. */
function looksUtf8(bytes: Uint8Array): boolean {
  if (!bytes.some((b) => b >= 0x80)) return false;
  try {
    utf8Strict.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** Which charset decodeHtml would use, and why (for the CLI and debugging). */
export function detectCharset(bytes: Uint8Array, contentType?: string): { charset: string; source: 'bom' | 'http' | 'meta' | 'detected' | 'default' } {
  const bom = bomCharset(bytes);
  if (bom) return { charset: bom.charset, source: 'bom' };
  const http = charsetFromContentType(contentType);
  if (http) return { charset: http, source: 'http' };
  const head = Buffer.from(bytes.subarray(0, 4096)).toString('latin1');
  // Saved and re-served pages are often transcoded to UTF-8 but keep their old declaration;
  // text in a legacy encoding practically never forms valid multi-byte UTF-8, so valid UTF-8 wins.
  if (looksUtf8(bytes)) return { charset: 'utf-8', source: 'detected' };
  const meta = charsetFromMeta(head);
  // A UTF-16 meta in an 8-bit-readable head is a lie (the standard says treat it as UTF-8).
  if (meta) return { charset: meta.startsWith('utf-16') ? 'utf-8' : meta, source: 'meta' };
  const guess = chardet.detect(bytes.subarray(0, 65536));
  const c = guess ? canonicalCharset(guess) : null;
  if (c) return { charset: c, source: 'detected' };
  return { charset: 'utf-8', source: 'default' };
}

/** Decode raw HTML bytes using the HTTP charset, then <meta charset>, then detection. */
export function decodeHtml(bytes: Uint8Array, contentType?: string): string {
  const bom = bomCharset(bytes);
  const { charset } = detectCharset(bytes, contentType);
  return iconv.decode(Buffer.from(bytes.subarray(bom?.skip ?? 0)), charset);
}

const HTML_TYPES = /^(text\/html|application\/xhtml\+xml)\b/i;
/** Types that might carry HTML under a vague label, so we sniff their bytes. */
const VAGUE_TYPES = /^(text\/plain|application\/octet-stream|application\/unknown|unknown\/unknown|\*\/\*)?$/i;

/**
 * Whether a response should be analysed as HTML: an HTML content type, or a missing/vague one
 * whose first bytes look like markup (servers mislabel pages as text/plain or octet-stream).
 */
export function isHtmlResponse(contentType: string | undefined | null, firstBytes?: Uint8Array | string): boolean {
  const type = (contentType ?? '').split(';')[0]!.trim();
  if (HTML_TYPES.test(type)) return true;
  if (!VAGUE_TYPES.test(type)) return false;
  if (firstBytes === undefined) return false;
  const head = (typeof firstBytes === 'string' ? firstBytes.slice(0, 1024)
    : Buffer.from(firstBytes.subarray(0, 1024)).toString('latin1'))
    .replace(/^(\xef\xbb\xbf|\ufeff)/, '')
    .replace(/^\s+/, '')
    .replace(/^(<!--[\s\S]*?-->\s*)+/, '')
    .toLowerCase();
  return /^<(!doctype html|html|head|body|title|meta|script|div|p|table|a|h1|iframe|frameset|br|style|font|b|!--)[\s>/]/.test(head);
}

/**
 * The Content-Type a browser should be given for an HTML document, when it differs from the
 * server's: a page that declares no charset in its header (or declares one in its markup that its
 * bytes contradict) and is valid UTF-8 is decoded as UTF-8 here (detectCharset), while Chromium
 * falls back to windows-1252 or the markup's label and renders mojibake, which scripts then build
 * on and the analysis of the rendering reads. With the charset in the header the two agree.
 * Undefined when the header stands (not HTML, a charset declared in it, a BOM, or not UTF-8).
 */
export function contentTypeForBrowser(contentType: string | undefined, body: Uint8Array): string | undefined {
  const type = (contentType ?? '').split(';')[0]!.trim();
  if (!HTML_TYPES.test(type) || /charset\s*=/i.test(contentType ?? '') || bomCharset(body)) return undefined;
  const { charset, source } = detectCharset(body, contentType);
  return charset === 'utf-8' && source === 'detected' ? `${contentType}; charset=utf-8` : undefined;
}
