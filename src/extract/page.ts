/**
 * One call from rendered HTML to everything the pipeline needs (PageAnalysis). The document is
 * parsed once; metadata, publish time and links are read from the untouched tree first, because
 * Readability mutates it (and drops comment sections, which reply extraction needs).
 */
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import { DEFAULT_TIME_ZONE } from './dates.js';
import { canonicalUrl, extractLinks, metaRefresh } from './links.js';
import { extractPublishTime } from './publish.js';
import { cleanTitle, headlineAbove, looksLikeSiteName } from './title.js';
import type { AnalyzeInput, PageAnalysis } from './types.js';

export { cleanTitle } from './title.js';
export { extractPublishTime, urlDate } from './publish.js';
export { extractLinks, canonicalUrl, metaRefresh, documentBase } from './links.js';
export { parseDateText } from './dates.js';
export { decodeHtml, isHtmlResponse, detectCharset } from './encoding.js';

export interface AnalyzeOptions {
  /** Called with the parsed, still untouched document before Readability mutates it. */
  onDocument?: (doc: Document) => void;
  /** Stage timings in ms are added here when given (for the benchmark). */
  timings?: Record<string, number>;
}

const norm = (s: string | null | undefined) => (s ?? '').replace(/[\s\u00a0\u3000]+/g, ' ').trim();
const HAN = /[\u3400-\u9fff]/g;

/** Share of Han characters among letters: decides CJK tuning and the default time zone. */
function hanShare(s: string): number {
  const han = (s.match(HAN) ?? []).length;
  const latin = (s.match(/[A-Za-z]/g) ?? []).length;
  return han + latin === 0 ? 0 : han / (han + latin / 5);
}

/**
 * linkedom rather than jsdom: jsdom parses every stylesheet and style attribute (css-tree), which
 * dominated the time and threw on some pages' CSS; we only read the tree, and URLs are resolved
 * by us against the page URL. Measured in bench/extract.ts (see the report).
 */
export function parseHtml(html: string, _url?: string): Document {
  const doc = parseHTML(html).document as unknown as Document;
  if (doc.documentElement?.tagName.toUpperCase() === 'HTML') return doc;
  // linkedom builds no implied <html><body> (it is not an HTML5 tree builder): saved pages and
  // fragments that start with another tag would end up outside <body>. Wrap them, as a browser would.
  return parseHTML(`<!DOCTYPE html><html><head></head><body>${html.replace(/<!DOCTYPE[^>]*>/i, '')}</body></html>`).document as unknown as Document;
}

const BLOCKS = /^(P|DIV|LI|TR|TD|TH|TABLE|H[1-6]|SECTION|ARTICLE|HEADER|FOOTER|BLOCKQUOTE|PRE|UL|OL|DL|DT|DD|FIGURE|FIGCAPTION|CENTER|FORM|MAIN|ASIDE|NAV)$/;

/** Visible text with paragraph breaks (textContent glues `a</p><p>b` into one word). */
export function blockText(root: Node): string {
  const parts: string[] = [];
  const walk = (n: Node) => {
    for (let c = n.firstChild; c; c = c.nextSibling) {
      if (c.nodeType === 3) parts.push((c.nodeValue ?? '').replace(/[\s\u00a0]+/g, ' '));
      else if (c.nodeType === 1) {
        const tag = (c as Element).tagName.toUpperCase();
        if (tag === 'SCRIPT' || tag === 'STYLE' || tag === 'NOSCRIPT' || tag === 'TEMPLATE') continue;
        if (tag === 'BR') { parts.push('\n'); continue; }
        const block = BLOCKS.test(tag);
        if (block) parts.push('\n');
        walk(c);
        if (block) parts.push('\n');
      }
    }
  };
  walk(root);
  return parts.join('')
    .split('\n')
    .map((l) => l.replace(/[ \t\u3000]+/g, ' ').trim())
    .filter((l) => l.length > 0)
    .join('\n');
}

function now(): number {
  return performance.now();
}

/** Analyse one rendered HTML page: clean title, main text, publish time, links and metadata. */
export function analyzePage(input: AnalyzeInput, opts: AnalyzeOptions = {}): PageAnalysis {
  const t = opts.timings;
  let t0 = now();
  const doc = parseHtml(input.html, input.url);
  if (t) t.parse = (t.parse ?? 0) + now() - (t0);
  t0 = now();

  const lang = doc.documentElement?.getAttribute('lang')?.trim() || undefined;
  const rawTitle = norm(doc.querySelector('title')?.textContent) || norm(doc.querySelector('meta[property="og:title"]')?.getAttribute('content'));
  const h1s = Array.from(doc.querySelectorAll('h1')).map((h) => norm(h.textContent)).filter(Boolean).slice(0, 5);
  const headings = Array.from(doc.querySelectorAll('h1, h2, h3')).map((h) => norm(h.textContent)).filter(Boolean).slice(0, 50);
  const siteName = norm(doc.querySelector('meta[property="og:site_name"]')?.getAttribute('content')) || undefined;
  let host: string | undefined;
  try {
    host = new URL(input.url).hostname;
  } catch {
    host = undefined;
  }
  let title = cleanTitle(rawTitle || h1s[0] || '', h1s, siteName, { host });
  if (looksLikeSiteName(title, siteName, host)) {
    // The <title> names only the site: take the first heading that is not the site's name too.
    const usable = (h: string) => h.replace(/\s/g, '').length >= 4 && h.length <= 80 && !looksLikeSiteName(h, siteName, host);
    // Old table layouts mark the headline only by class (`<td class=bt_title>`).
    const alt = headings.find(usable) ?? Array.from(doc.querySelectorAll('[class*=title],[class*=Title],[id*=title],[id*=Title]'))
      .map((e) => norm(e.textContent)).find(usable);
    if (alt) title = cleanTitle(alt, [], siteName, { host });
  }
  // Still only a site name: remember the visible lines (Readability mutates the tree) to find
  // the headline above the main text once it is known.
  const siteOnlyLines = looksLikeSiteName(title, siteName, host) && doc.body ? blockText(doc.body).split('\n') : undefined;
  const cjk = /^zh|^ja/i.test(lang ?? '') || hanShare(rawTitle + ' ' + (doc.body?.textContent ?? '').slice(0, 2000)) > 0.5;
  // Chinese pages default to Asia/Shanghai (the brief's rule); Japanese/Korean ones to their own zone.
  const timeZone = input.timeZone
    ?? (/^ja/i.test(lang ?? '') ? 'Asia/Tokyo' : /^ko/i.test(lang ?? '') ? 'Asia/Seoul' : cjk ? DEFAULT_TIME_ZONE : 'UTC');
  if (t) t.meta = (t.meta ?? 0) + now() - t0;

  t0 = now();
  const publishTime = extractPublishTime(doc, input.url, input.fetchedAt, timeZone, title);
  if (t) t.date = (t.date ?? 0) + now() - t0;
  t0 = now();
  const links = extractLinks(doc, input.url);
  const canonical = canonicalUrl(doc, input.url);
  const refresh = metaRefresh(doc, input.url);
  if (t) t.links = (t.links ?? 0) + now() - t0;

  opts.onDocument?.(doc);

  t0 = now();
  const text = mainText(doc, cjk);
  if (t) t.readability = (t.readability ?? 0) + now() - t0;
  if (siteOnlyLines) title = headlineAbove(siteOnlyLines, text, siteName, host) ?? title;

  const out: PageAnalysis = { url: input.url, title, text, headings, links };
  if (canonical) out.canonicalUrl = canonical;
  if (publishTime) out.publishTime = publishTime;
  if (lang) out.lang = lang;
  if (refresh) out.metaRefresh = refresh;
  return out;
}

/** Readability's main text, with CJK tuning (its 500-char threshold is ~250 English words). */
export function mainText(doc: Document, cjk: boolean): string {
  let el: Element | null = null;
  try {
    const article = new Readability(doc, {
      charThreshold: cjk ? 150 : 500,
      serializer: (e: Node) => e as unknown as string,
    }).parse();
    el = (article?.content as unknown as Element | undefined) ?? null;
  } catch {
    el = null; // Readability throws on some degenerate documents; fall through to body text
  }
  if (el) {
    pruneLinkLists(el);
    return blockText(el);
  }
  return doc.body ? blockText(doc.body) : '';
}

const nonSpace = (s: string | null | undefined) => (s ?? '').replace(/[\s\u00a0\u3000]+/g, '').length;

/**
 * Portals and blogs keep "related" link lists, archives and calendars inside the container
 * Readability keeps (its conditional cleaning spares blocks with enough commas, and Chinese link
 * lists are full of them). Drop blocks over 60% link text, and calendars. Measured on both
 * benchmarks: AEB F1 0.952 → 0.958, zh 0.935 → 0.939 (0.5 was slightly worse on both).
 */
export function pruneLinkLists(root: Element): void {
  const blocks = Array.from(root.querySelectorAll('ul,ol,dl,table,div,section,aside,nav,form,p'));
  for (const b of blocks) {
    if (!b.parentNode) continue;
    const total = nonSpace(b.textContent);
    if (total === 0) continue;
    let linked = 0;
    for (const a of Array.from(b.getElementsByTagName('a'))) linked += nonSpace(a.textContent);
    const calendar = b.tagName.toUpperCase() === 'TABLE' && b.getElementsByTagName('td').length >= 15 && total / b.getElementsByTagName('td').length <= 3;
    if (linked / total > 0.6 || calendar) b.parentNode.removeChild(b);
  }
}
