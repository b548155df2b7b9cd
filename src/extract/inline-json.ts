/**
 * JSON a page carries inline for its scripts to put into the DOM (hydration data): a
 * `<script type="application/json">` (Next.js `__NEXT_DATA__`, …) or a script assigning an object
 * or array literal to a variable (`var ARTICLE_DATA = {…}`, `window.__INITIAL_STATE__ = {…}`,
 * `X = JSON.parse("…")`). Read with JSON.parse only: page scripts are never run outside the
 * browser (hostile web: no eval, no vm, no jsdom scripts), so a literal that is JavaScript but
 * not JSON (unquoted keys, a Nuxt function call) is simply not data here.
 *
 * Each block has a key that names it the same way on every page of a site (the script's id, the
 * variable's name, or the position among JSON scripts without an id): the adaptive fetcher's data
 * path (src/fetch/adaptive/adaptive-data.ts) learns the key on one page and reads the same block on the next.
 */

export interface InlineJson {
  /** `script#__NEXT_DATA__`, `json-script:2`, `var ARTICLE_DATA`. */
  key: string;
  json: unknown;
}

const SCRIPT = /<script\b([^>]*)>([\s\S]*?)<\/script\s*>/gi;
const ASSIGN = /(?:\b(?:var|let|const)\s+|\bwindow\s*\.\s*|\bwindow\s*\[\s*["'])([A-Za-z_$][\w$]*)(?:["']\s*\])?\s*=\s*(JSON\.parse\s*\(\s*")?/g;
/** JSON a page may carry that is not its content (analytics, ads): never worth reading. */
const MAX_BLOCK_CHARS = 5_000_000;

const attr = (attrs: string, name: string) => new RegExp(`\\b${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>]+))`, 'i').exec(attrs)?.slice(1).find((x) => x !== undefined);

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** End of the JSON value starting at `start` (`{` or `[`), counting brackets outside strings; -1 when it does not close. */
function literalEnd(s: string, start: number): number {
  let depth = 0;
  for (let i = start; i < s.length; i++) {
    const c = s[i];
    if (c === '"') {
      for (i++; i < s.length && s[i] !== '"'; i++) if (s[i] === '\\') i++;
    } else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      if (--depth === 0) return i + 1;
    }
  }
  return -1;
}

/** End of a double-quoted string literal starting after its opening quote at `start`; -1 when open. */
function stringEnd(s: string, start: number): number {
  for (let i = start; i < s.length; i++) {
    if (s[i] === '\\') i++;
    else if (s[i] === '"') return i;
  }
  return -1;
}

/** The JSON blocks of a page's inline scripts, in document order. */
export function inlineJsonOf(html: string): InlineJson[] {
  const out: InlineJson[] = [];
  const seen = new Set<string>();
  let jsonScripts = 0;
  for (const m of html.matchAll(SCRIPT)) {
    const attrs = m[1];
    const body = m[2];
    if (body.length > MAX_BLOCK_CHARS || !body.trim()) continue;
    const type = (attr(attrs, 'type') ?? '').toLowerCase();
    if (type && /json/.test(type)) {
      const json = parse(body.trim());
      const id = attr(attrs, 'id');
      const key = id ? `script#${id}` : `json-script:${jsonScripts}`;
      jsonScripts++;
      if (json !== undefined && typeof json === 'object' && !seen.has(key)) {
        seen.add(key);
        out.push({ key, json });
      }
      continue;
    }
    if (type && !/javascript|ecmascript|module/.test(type)) continue;
    for (const a of body.matchAll(ASSIGN)) {
      const key = `var ${a[1]}`;
      if (seen.has(key)) continue;
      const at = a.index! + a[0].length;
      let json: unknown;
      if (a[2]) {
        // JSON.parse("…"): the string literal is itself JSON syntax when it uses only JSON escapes
        const end = stringEnd(body, at);
        const text = end < 0 ? undefined : parse(body.slice(at - 1, end + 1));
        json = typeof text === 'string' ? parse(text) : undefined;
      } else if (body[at] === '{' || body[at] === '[') {
        const end = literalEnd(body, at);
        json = end < 0 ? undefined : parse(body.slice(at, end));
      }
      if (json !== undefined && typeof json === 'object' && json !== null) {
        seen.add(key);
        out.push({ key, json });
      }
    }
  }
  return out;
}
