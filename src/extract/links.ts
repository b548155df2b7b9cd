/**
 * Outlinks with the extended metadata the link scores use (METHODS §3.1, §3.6): anchor text,
 * title/alt, and about 50 characters of text either side. One walk builds the page's visible text
 * and records where each link starts and ends in it, so context costs O(page) for all links.
 */
import type { LinkInfo, LinkTag } from './types.js';

export const CONTEXT_CHARS = 50;

const SKIP = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'HEAD', 'SELECT', 'TEXTAREA']);
const BLOCK = /^(P|DIV|LI|UL|OL|TR|TD|TH|TABLE|H[1-6]|BR|SECTION|ARTICLE|HEADER|FOOTER|NAV|ASIDE|DD|DT|DL|BLOCKQUOTE|PRE|FORM|HR|MAIN|FIGURE|FIGCAPTION)$/;
const TAG_ATTR: Record<string, [LinkTag, string]> = {
  A: ['a', 'href'], AREA: ['area', 'href'], FRAME: ['frame', 'src'], IFRAME: ['iframe', 'src'], IMG: ['img', 'src'],
};

const norm = (s: string | null | undefined) => (s ?? '').replace(/[\s\u00a0\u3000]+/g, ' ').trim();

/** The document's base: `<base href>` resolved against the page URL, else the page URL. */
export function documentBase(doc: Document, pageUrl: string): string {
  const href = doc.querySelector('base[href]')?.getAttribute('href');
  if (href) {
    try {
      return new URL(href.trim(), pageUrl).href;
    } catch {
      // an unparsable base is ignored, as browsers do
    }
  }
  return pageUrl;
}

/** Absolute http(s) URL without fragment, or null for javascript:, mailto:, data: and junk. */
export function resolveLink(raw: string | null, base: string): string | null {
  const v = (raw ?? '').trim();
  if (!v || v.startsWith('#')) return null;
  try {
    const u = new URL(v, base);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
    u.hash = '';
    return u.href;
  } catch {
    return null;
  }
}

interface Pending { el: Element; tag: LinkTag; url: string; start: number; end: number; imgAlt?: string }

/**
 * Every outlink of `a`, `area`, `frame`, `iframe` and `img` (images for the link graph), or the
 * first `maxLinks` of them: the walk then ends once the last one's context after it is read.
 */
export function extractLinks(doc: Document, baseUrl: string, maxLinks = Infinity): LinkInfo[] {
  const base = documentBase(doc, baseUrl);
  // The page text is built from parts with its length and last character tracked: asking a string
  // grown by += for endsWith() flattens it each time, which made a 1 MB page take 40 s.
  const parts: string[] = [];
  let length = 0;
  let endsWithSpace = true; // true for the empty text: no leading space is ever added
  const push = (t: string) => {
    if (!t) return;
    parts.push(t);
    length += t.length;
    endsWithSpace = t.endsWith(' ');
  };
  const space = () => {
    if (!endsWithSpace) push(' ');
  };
  const found: Pending[] = [];
  let openAnchor: Pending | null = null; // innermost <a> being walked, for its image's alt
  const append = (t: string) => {
    if (!t) return;
    if (/^\s/.test(t)) space();
    push(norm(t));
    if (/\s$/.test(t)) space();
  };
  let stopAt = Infinity; // text length after which nothing more is needed (maxLinks found)
  const walk = (n: Node) => {
    for (let c = n.firstChild; c && length < stopAt; c = c.nextSibling) {
      if (c.nodeType === 3) {
        append(c.nodeValue ?? '');
        continue;
      }
      if (c.nodeType !== 1) continue;
      const el = c as Element;
      const tagName = el.tagName.toUpperCase();
      if (SKIP.has(tagName)) continue;
      const spec = TAG_ATTR[tagName];
      const block = BLOCK.test(tagName);
      if (block) space();
      let pending: Pending | null = null;
      // css-select queries per link cost more than the whole walk on linkedom; note alts here.
      if (tagName === 'IMG' && openAnchor && openAnchor.imgAlt === undefined) {
        const alt = el.getAttribute('alt');
        if (alt) openAnchor.imgAlt = alt;
      }
      if (spec && found.length < maxLinks) {
        const url = resolveLink(el.getAttribute(spec[1]), base);
        // rel=nofollow: the site asks crawlers not to follow (a wiki's external links, comment spam).
        if (url && !(spec[0] !== 'img' && /(^|\s)nofollow(\s|$)/i.test(el.getAttribute('rel') ?? ''))) {
          pending = { el, tag: spec[0], url, start: length, end: length };
          found.push(pending);
        }
      }
      const outer = openAnchor;
      if (pending?.tag === 'a') openAnchor = pending;
      walk(el);
      openAnchor = outer;
      if (pending) {
        pending.end = length;
        if (found.length >= maxLinks) stopAt = length + CONTEXT_CHARS;
      }
      if (block) space();
    }
  };
  // Frames live outside <body> in a frameset document.
  walk(doc.documentElement ?? doc);
  const text = parts.join('');

  return found.map(({ el, tag, url, start, end, imgAlt }) => {
    let title = norm(el.getAttribute('title'));
    if (!title && (tag === 'img' || tag === 'area')) title = norm(el.getAttribute('alt'));
    if (!title && tag === 'a') title = norm(imgAlt);
    const anchorText = tag === 'a' || tag === 'area' ? norm(text.slice(start, end)) || (tag === 'area' ? norm(el.getAttribute('alt')) : '') : '';
    return {
      url,
      tag,
      anchorText,
      title,
      contextBefore: text.slice(Math.max(0, start - CONTEXT_CHARS), start).trim(),
      contextAfter: text.slice(end, end + CONTEXT_CHARS).trim(),
    };
  });
}

/** `<link rel=canonical>` resolved, or undefined. */
export function canonicalUrl(doc: Document, baseUrl: string): string | undefined {
  const href = doc.querySelector('link[rel~="canonical" i][href]')?.getAttribute('href');
  return resolveLink(href ?? null, documentBase(doc, baseUrl)) ?? undefined;
}

/** Target of `<meta http-equiv=refresh content="5; url=...">`, resolved, or undefined. */
export function metaRefresh(doc: Document, baseUrl: string): string | undefined {
  for (const m of Array.from(doc.querySelectorAll('meta[http-equiv][content]'))) {
    if ((m.getAttribute('http-equiv') ?? '').toLowerCase() !== 'refresh') continue;
    const r = /^\s*\d*\.?\d*\s*[;,]?\s*(?:url\s*=\s*)?['"]?([^'"]+?)['"]?\s*$/i.exec(m.getAttribute('content') ?? '');
    if (r?.[1]) return resolveLink(r[1], documentBase(doc, baseUrl)) ?? undefined;
  }
  return undefined;
}
