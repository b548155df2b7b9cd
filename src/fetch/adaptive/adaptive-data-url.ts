/**
 * How a page's script names the API it fetches its data from, learnt from one recorded request
 * so the next page of the same kind can be served without the browser (./adaptive-data.ts):
 * - `literal`: the URL is written in the page (`fetch('/api/article/123.json')`): found again on
 *   the next page by the same shape, its id-like runs generalised;
 * - `tokens`: the URL is built from tokens of the page's URL (`/news/n123.shtml` → `…?aid=123`) or
 *   of a `data-*` attribute in its HTML (`data-aid="123"`): the same tokens substituted.
 * Several candidates are kept; the next rendered pages keep those that name the request the
 * browser really made. Pure string work: the page's script is never run.
 */

type UrlPart = string | { url: number } | { attr: string };
export type UrlTemplate = { kind: 'literal'; re: string } | { kind: 'tokens'; parts: UrlPart[] };

const TOKEN = /[A-Za-z0-9]+/g;
const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const idLike = (t: string) => t.length >= 3 && (/\d/.test(t) || t.length >= 8);

function pageTokens(pageUrl: string): string[] {
  const u = new URL(pageUrl);
  // whole runs and the digit runs inside them (`n472803` and `472803`), in order
  return [...safeDecode(u.pathname + u.search).matchAll(TOKEN)].flatMap((m) => {
    const digits = [...m[0].matchAll(/\d+/g)].map((d) => d[0]).filter((d) => d !== m[0]);
    return [m[0], ...digits];
  });
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** The API URL as the page would write it: path and query on the page's own origin, else absolute. */
function relativeForm(apiUrl: string, pageUrl: string): string {
  const a = new URL(apiUrl);
  return a.origin === new URL(pageUrl).origin ? a.pathname + a.search : a.href;
}

/** Replace whole-token occurrences of `token` in `parts`' literal strings by `slot`. */
function substitute(parts: UrlPart[], token: string, slot: UrlPart): UrlPart[] {
  const re = new RegExp(`(?<![A-Za-z0-9])${escapeRe(token)}(?![A-Za-z0-9])`, 'g');
  return parts.flatMap((p) => {
    if (typeof p !== 'string') return [p];
    const out: UrlPart[] = [];
    let last = 0;
    for (const m of p.matchAll(re)) {
      out.push(p.slice(last, m.index), slot);
      last = m.index! + m[0].length;
    }
    out.push(p.slice(last));
    return out.filter((x) => x !== '');
  });
}

const DATA_ATTR = /\s(data-[\w-]+)\s*=\s*["']([A-Za-z0-9_-]{3,})["']/g;

/** Candidate templates for `apiUrl`, requested by the page at `pageUrl` whose HTTP HTML is `html`. */
export function learnUrlTemplates(apiUrl: string, pageUrl: string, html: string): UrlTemplate[] {
  const out: UrlTemplate[] = [];
  const form = relativeForm(apiUrl, pageUrl);
  for (const f of new Set([form, apiUrl, form.replace(/&/g, '&amp;')])) {
    if (html.includes(`"${f}"`) || html.includes(`'${f}'`)) {
      out.push({ kind: 'literal', re: `(["'])(${escapeRe(f).replace(/[A-Za-z0-9_-]*\d[A-Za-z0-9_-]*/g, '[A-Za-z0-9_-]+')})\\1` });
      break;
    }
  }
  const fromUrl = pageTokens(pageUrl)
    .map((t, i) => ({ t, i }))
    .filter(({ t }) => idLike(t))
    .sort((a, b) => b.t.length - a.t.length);
  let byUrl: UrlPart[] = [form];
  for (const { t, i } of fromUrl) byUrl = substitute(byUrl, t, { url: i });
  if (byUrl.some((p) => typeof p !== 'string')) out.push({ kind: 'tokens', parts: byUrl });
  let byAttr: UrlPart[] = [form];
  const attrs = new Map<string, string>();
  for (const m of html.matchAll(DATA_ATTR)) if (!attrs.has(m[1].toLowerCase()) && /\d/.test(m[2])) attrs.set(m[1].toLowerCase(), m[2]);
  for (const [name, value] of [...attrs].sort((a, b) => b[1].length - a[1].length)) byAttr = substitute(byAttr, value, { attr: name });
  if (byAttr.some((p) => typeof p !== 'string')) out.push({ kind: 'tokens', parts: byAttr });
  // the same URL on every page (a config or list endpoint)
  out.push({ kind: 'tokens', parts: [form] });
  return out;
}

/** The URL a template names on the page at `pageUrl` with HTML `html`, or undefined when the page does not name exactly one. */
export function urlFromTemplate(t: UrlTemplate, pageUrl: string, html: string): string | undefined {
  let s: string;
  if (t.kind === 'literal') {
    const found = new Set([...html.matchAll(new RegExp(t.re, 'g'))].map((m) => m[2].replace(/&amp;/g, '&')));
    if (found.size !== 1) return undefined;
    s = [...found][0];
  } else {
    const tokens = pageTokens(pageUrl);
    const parts: string[] = [];
    for (const p of t.parts) {
      if (typeof p === 'string') parts.push(p);
      else if ('url' in p) {
        if (tokens[p.url] === undefined) return undefined;
        parts.push(encodeURIComponent(tokens[p.url]));
      } else {
        const m = new RegExp(`\\s${escapeRe(p.attr)}\\s*=\\s*["']([^"']*)["']`, 'i').exec(html);
        if (!m) return undefined;
        parts.push(encodeURIComponent(m[1]));
      }
    }
    s = parts.join('');
  }
  try {
    return new URL(s, pageUrl).href;
  } catch {
    return undefined;
  }
}

/** Describe a template in words (crawl log, --explain). */
export function describeTemplate(t: UrlTemplate): string {
  if (t.kind === 'literal') return 'the URL written in the page';
  const slots = t.parts.filter((p) => typeof p !== 'string');
  if (!slots.length) return `the fixed URL ${t.parts.join('')}`;
  return t.parts.map((p) => (typeof p === 'string' ? p : 'url' in p ? `{page URL token ${p.url}}` : `{${p.attr}}`)).join('');
}
