/**
 * One call from rendered HTML to everything the pipeline needs (PageAnalysis). The document is
 * parsed once; metadata, publish time and links are read from the untouched tree first, because
 * Readability mutates it (and drops comment sections, which reply extraction needs).
 */
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import { repairCommentEnds } from './comments.js';
import { DEFAULT_TIME_ZONE } from './dates.js';
import { canonicalUrl, extractLinks, metaRefresh } from './links.js';
import { countElements, DEFAULT_ANALYSIS_LIMITS, thousands, type AnalysisLimits } from './limits.js';
import { pruneLinkLists } from './link-lists.js';
import { belowHeadline, dropOtherArticles, trimLeadingStamps } from './article-bounds.js';
import { extractPublishTime } from './publish.js';
import { cleanTitle, crumbHeadline, dropCategoryTag, fullerShownLine, headlineAbove, looksLikeSiteName, mainTextStart, NAME_LIKE_WEIGHT, shownNear, titleWeight } from './title.js';
import type { AnalyzeInput, PageAnalysis } from './types.js';
import { CJK_HAN_SHARE, hanShare, scriptLanguage, visibleSample } from './language.js';
import { noteWork, profiling, timed } from '../util/stage-profile.js';

export { cleanTitle } from './title.js';
export { extractPublishTime, urlDate } from './publish.js';
export { extractLinks, canonicalUrl, metaRefresh, documentBase } from './links.js';
export { parseDateText } from './dates.js';
export { scriptLanguage } from './language.js';
export { decodeHtml, isHtmlResponse, detectCharset } from './encoding.js';
export { pruneLinkLists } from './link-lists.js';
export { DEFAULT_ANALYSIS_LIMITS, type AnalysisLimits } from './limits.js';

/** Options of `analyzePage`: analysis limits and hooks for timing and the parsed document. */
export interface AnalyzeOptions {
  /** Called with the parsed, still untouched document before Readability mutates it. */
  onDocument?: (doc: Document) => void;
  /** Stage timings in ms are added here when given (for the benchmark). */
  timings?: Record<string, number>;
  /** Bounds on what is read of a huge page (./limits.ts); each one that cuts the page is said in `bounded`. */
  limits?: Partial<AnalysisLimits>;
}

const norm = (s: string | null | undefined) => (s ?? '').replace(/[\s\u00a0\u3000]+/g, ' ').trim();
/**
 * linkedom rather than jsdom: jsdom parses every stylesheet and style attribute (css-tree), which
 * dominated the time and threw on some pages' CSS; we only read the tree, and URLs are resolved
 * by us against the page URL. Measured in bench/extract.ts (see the report).
 */
export function parseHtml(source: string, _url?: string): Document {
  const html = repairCommentEnds(source);
  const doc = parseHTML(html).document as unknown as Document;
  // linkedom builds no implied <html><body> (it is not an HTML5 tree builder): saved pages and
  // fragments that start with another tag would end up outside <body>. Wrap them, as a browser would.
  const out = doc.documentElement?.tagName.toUpperCase() === 'HTML' ? mergeStrayBodies(doc)
    : parseHTML(`<!DOCTYPE html><html><head></head><body>${html.replace(/<!DOCTYPE[^>]*>/i, '')}</body></html>`).document as unknown as Document;
  // linkedom ends a text node at every character reference (`4.&thinsp;2.&thinsp;2022` is five
  // nodes), a browser makes one: rules that read text node by node (dates, labels) need the one.
  out.documentElement?.normalize();
  return out;
}

const HEAD_ONLY = new Set(['HEAD', 'STYLE', 'SCRIPT', 'LINK', 'META', 'TITLE', 'BASE', 'NOSCRIPT', 'TEMPLATE']);

/**
 * linkedom opens a new <body> for every `<body>` tag and leaves content after `</body>` or behind
 * a stray `<style>` outside the body; its `document.body` getter then adds yet another, empty body
 * right after <head>, and the page reads as blank. A browser keeps one body: merge every body and
 * stray content into the first, placed right after <head>.
 */
function mergeStrayBodies(doc: Document): Document {
  const html = doc.documentElement;
  const kids = Array.from(html.children);
  const body = kids.find((k) => k.tagName.toUpperCase() === 'BODY');
  const head = kids.find((k) => k.tagName.toUpperCase() === 'HEAD');
  if (!body || (kids.length <= 2 && (!head || head.nextElementSibling === body))) return doc;
  const firstInBody = body.firstChild;
  let afterBody = false;
  for (const k of kids) {
    if (k === body) { afterBody = true; continue; }
    const tag = k.tagName.toUpperCase();
    if (tag === 'BODY') {
      while (k.firstChild) body.appendChild(k.firstChild);
      k.remove();
    } else if (!HEAD_ONLY.has(tag)) {
      if (afterBody) body.appendChild(k);
      else body.insertBefore(k, firstInBody);
    }
  }
  if (head && head.nextElementSibling !== body) html.insertBefore(body, head.nextSibling);
  return doc;
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
        if (tag === 'SCRIPT' || tag === 'STYLE' || tag === 'NOSCRIPT' || tag === 'TEMPLATE' || tag === 'TITLE') continue;
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

/** h1s considered for the title: pages with more are lists, and the first few carry the headline. */
const MAX_H1S = 5;
/** Headings reported with the page (and searched for a headline when <title> names the site). */
const MAX_HEADINGS = 50;
/** A heading or `*title*` element shorter than this (non-space characters) is a label, not a headline. */
const MIN_FALLBACK_TITLE_CHARS = 4;
/** ... and longer than this (characters) is a paragraph. */
const MAX_FALLBACK_TITLE_CHARS = 80;

/** Analyse one rendered HTML page: clean title, main text, publish time, links and metadata. */
export function analyzePage(input: AnalyzeInput, opts: AnalyzeOptions = {}): PageAnalysis {
  return timed('analysis (rest)', () => analyze(input, opts));
}

/** One analysis's stages, as stages of the crawl's profile when one is on (../util/stage-profile.ts). */
function stageSink(): Record<string, number> | undefined {
  return profiling() ? {} : undefined;
}

function analyze(input: AnalyzeInput, opts: AnalyzeOptions): PageAnalysis {
  const sink = opts.timings ? undefined : stageSink();
  const t = opts.timings ?? sink;
  try {
    return analyzeTimed(input, opts, t);
  } finally {
    if (sink) for (const [k, ms] of Object.entries(sink)) noteWork(`analysis: ${k}`, ms);
  }
}

function analyzeTimed(input: AnalyzeInput, opts: AnalyzeOptions, t: Record<string, number> | undefined): PageAnalysis {
  let t0 = now();
  const limits = { ...DEFAULT_ANALYSIS_LIMITS, ...opts.limits };
  const bounded: string[] = [];
  let html = input.html;
  if (html.length > limits.maxHtmlChars) {
    bounded.push(`${thousands(html.length)} characters of HTML: the first ${thousands(limits.maxHtmlChars)} analysed`);
    html = html.slice(0, limits.maxHtmlChars);
  }
  const doc = parseHtml(html, input.url);
  const readability = countElements(doc.documentElement, limits.maxElements) <= limits.maxElements;
  if (!readability) bounded.push(`over ${thousands(limits.maxElements)} elements: main text read without Readability`);
  if (t) t.parse = (t.parse ?? 0) + now() - (t0);
  t0 = now();

  const declaredLang = doc.documentElement?.getAttribute('lang')?.trim()
    || doc.querySelector('meta[http-equiv="content-language" i]')?.getAttribute('content')?.split(',')[0]?.trim() || undefined;
  const rawTitle = norm(doc.querySelector('title')?.textContent) || norm(doc.querySelector('meta[property="og:title"]')?.getAttribute('content'));
  const h1s = Array.from(doc.querySelectorAll('h1')).map((h) => norm(h.textContent)).filter(Boolean).slice(0, MAX_H1S);
  const headings = Array.from(doc.querySelectorAll('h1, h2, h3')).map((h) => norm(h.textContent)).filter(Boolean).slice(0, MAX_HEADINGS);
  const siteName = norm(doc.querySelector('meta[property="og:site_name"]')?.getAttribute('content')) || undefined;
  let host: string | undefined;
  try {
    host = new URL(input.url).hostname;
  } catch {
    host = undefined;
  }
  let title = cleanTitle(rawTitle || h1s[0] || '', h1s, siteName, { host });
  const siteOnly = looksLikeSiteName(title, siteName, host);
  let fallbackTitle: string | undefined;
  if (siteOnly) {
    // The <title> names only the site: the first heading that is not the site's name too.
    // A sentence (`欢迎加入本站邮件列表，…。请在表格中填入…`) is a notice, not a headline.
    const usable = (h: string) => h.replace(/\s/g, '').length >= MIN_FALLBACK_TITLE_CHARS && h.length <= MAX_FALLBACK_TITLE_CHARS
      && !/。(?=.)/.test(h) && !looksLikeSiteName(h, siteName, host);
    // Old table layouts mark the headline only by class (`<td class=bt_title>`).
    const alt = headings.find(usable) ?? Array.from(doc.querySelectorAll('[class*=title],[class*=Title],[id*=title],[id*=Title]'))
      .map((e) => norm(e.textContent)).find(usable);
    if (alt) fallbackTitle = cleanTitle(alt, [], siteName, { host });
  }
  const sample = rawTitle + ' ' + visibleSample(doc.body);
  // A declared language that contradicts the script (`<html lang="en">` on a Chinese template) loses.
  const scriptLang = scriptLanguage(sample);
  const lang = scriptLang && !/^(zh|ja|ko)/i.test(declaredLang ?? '') ? scriptLang : declaredLang ?? scriptLang;
  const cjk = /^zh|^ja/i.test(lang ?? '') || hanShare(sample) > CJK_HAN_SHARE;
  // The visible lines, read before Readability mutates the tree: the title is checked against
  // what the page shows above its main text once that is known.
  // Not needed when the title is the page's own non-trivial <h1> (the walk costs ~15 ms on a large page).
  const trusted = h1s.includes(title) && titleWeight(title) > NAME_LIKE_WEIGHT;
  const bodyLines = (siteOnly || (cjk && !trusted)) && doc.body ? blockText(doc.body).split('\n') : [];
  // Chinese pages default to Asia/Shanghai (the brief's rule); Japanese/Korean ones to their own zone.
  const timeZone = input.timeZone
    ?? (/^ja/i.test(lang ?? '') ? 'Asia/Tokyo' : /^ko/i.test(lang ?? '') ? 'Asia/Seoul' : cjk ? DEFAULT_TIME_ZONE : 'UTC');
  if (t) t.meta = (t.meta ?? 0) + now() - t0;

  t0 = now();
  const publishTime = extractPublishTime(doc, input.url, input.fetchedAt, timeZone, title);
  if (t) t.date = (t.date ?? 0) + now() - t0;
  t0 = now();
  // One more than the limit: whether the page had more is known without reading them all.
  const links = extractLinks(doc, input.url, limits.maxLinks + 1);
  if (links.length > limits.maxLinks) {
    links.length = limits.maxLinks;
    bounded.push(`over ${thousands(limits.maxLinks)} links: the first ${thousands(limits.maxLinks)} taken`);
  }
  const canonical = canonicalUrl(doc, input.url);
  const refresh = metaRefresh(doc, input.url);
  if (t) t.links = (t.links ?? 0) + now() - t0;

  opts.onDocument?.(doc);

  t0 = now();
  const text = mainText(doc, cjk, readability, title);
  if (t) t.readability = (t.readability ?? 0) + now() - t0;
  // Chinese layouts only: there the headline above a dateline is the norm and <title> often names
  // only the site or column; on the English benchmark pages <title>/h1 are reliable and the same
  // rules picked bylines and contact lines (14 of 181 titles changed, nearly all for the worse).
  if (cjk) title = chooseTitle({ title, fallbackTitle, siteOnly, h1s, bodyLines, text, siteName, host });
  else if (siteOnly) title = fallbackTitle ?? headlineAbove(bodyLines, text, siteName, host)?.line ?? title;

  const out: PageAnalysis = { url: input.url, title, text, headings, links };
  if (canonical) out.canonicalUrl = canonical;
  if (publishTime) out.publishTime = publishTime;
  if (lang) out.lang = lang;
  if (refresh) out.metaRefresh = refresh;
  if (bounded.length) out.bounded = bounded;
  return out;
}

/** Lines above the main text's first line in which the title counts as shown with the article. */
const TITLE_NEAR_LINES = 15;
/** The shortest headline taken from the main text's first line when the page offers no other title (`犬儒病(上)`). */
const SHORT_HEADLINE_WEIGHT = 3;

/**
 * The title, checked against what the page shows above its main text:
 * - a <title> that names only the site gives way to the headline line above the text, else to
 *   the first heading or `*title*`-classed element that is not the site's name;
 * - a title not shown near the article (a blog's name in its <h1>, a generic `<title>`) gives way
 *   to the headline line above the text when that line is followed by a dateline, or when the
 *   title is as short as a name;
 * - a title the page shows inside a fuller headline block takes that block.
 */
function chooseTitle(c: {
  title: string; fallbackTitle?: string; siteOnly: boolean; h1s: string[]; bodyLines: string[]; text: string; siteName?: string; host?: string;
}): string {
  const at = mainTextStart(c.bodyLines, c.text);
  const titleShown = at >= 0 && shownNear(c.bodyLines, at, c.title, TITLE_NEAR_LINES);
  const crumb = crumbHeadline(c.bodyLines, at, c.siteOnly ? '' : c.title, TITLE_NEAR_LINES, titleShown);
  if (crumb) return crumb;
  // A title that is only a name or label the page does not show with the article (`显示`): the
  // main text's first line may be a headline shorter than we would otherwise take.
  const nameLike = titleWeight(c.title) <= NAME_LIKE_WEIGHT;
  const firstLineMin = !c.siteOnly && nameLike && !titleShown ? SHORT_HEADLINE_WEIGHT : undefined;
  const above = at >= 0 ? headlineAbove(c.bodyLines, c.text, c.siteName, c.host, firstLineMin) : undefined;
  let title = c.title;
  // A line that still carries separators (`栏目 | 标题`) is cleaned like a <title>.
  const aboveLine = above && /[|｜_]/.test(above.line) ? cleanTitle(above.line, [], c.siteName, { host: c.host }) : above?.line;
  if (c.siteOnly) {
    const fb = c.fallbackTitle;
    title = (above?.dated ? aboveLine : undefined)
      ?? (fb && at >= 0 && shownNear(c.bodyLines, at, fb, TITLE_NEAR_LINES) ? fb : aboveLine ?? fb ?? title);
  } else if (aboveLine && aboveLine !== title) {
    // An <h1> title is the page's own headline unless it is as short as a name (a blog's <h1>).
    if ((nameLike && above!.dated) || (!titleShown && (nameLike || (above!.dated && !c.h1s.includes(title))))) title = aboveLine;
  }
  title = (at >= 0 ? fullerShownLine(c.bodyLines, at, title, TITLE_NEAR_LINES, c.siteName, c.host) : undefined) ?? title;
  return dropCategoryTag(title, c.bodyLines);
}

/** Readability's default: an article has at least this many characters (~100 English words). */
const READABILITY_CHAR_THRESHOLD = 500;
/** The same amount of text in Chinese: a Han character carries about what 3 Latin letters do. */
const CJK_CHAR_THRESHOLD = 150;
/** Readability keeping this many posts of a list means it took the list, not one article. */
const MIN_KEPT_POSTS = 2;

/**
 * Readability's main text, with CJK tuning (its 500-char threshold, in Han characters, is a long
 * article). Without Readability (a page over the element limit): the body's text, link lists and
 * captions dropped.
 */
export function mainText(doc: Document, cjk: boolean, readability = true, title = ''): string {
  // Read before Readability mutates the tree: the bodies of a list of posts, if this is one.
  // One walk over the elements (css-select's substring selectors cost ~17 ms a page on linkedom).
  const posts = markCaptionsAndFindPosts(doc);
  dropOtherArticles(doc, title);
  if (!readability) return doc.body ? prunedText(doc.body) : '';
  const leadPost = posts.length >= MIN_LIST_POSTS && posts.slice(0, 2).every((p) => datedPost(p, posts)) ? blockText(posts[0]!) : '';
  // Readability strips class names and unwraps or renames elements: posts are found again by text.
  const postProbes = leadPost ? posts.map((p) => squeeze(p.textContent).slice(0, POST_PROBE_CHARS)).filter(Boolean) : [];
  let el: Element | null = null;
  try {
    const article = new Readability(doc, {
      charThreshold: cjk ? CJK_CHAR_THRESHOLD : READABILITY_CHAR_THRESHOLD,
      serializer: (e: Node) => e as unknown as string,
    }).parse();
    el = (article?.content as unknown as Element | undefined) ?? null;
  } catch {
    el = null; // Readability throws on some degenerate documents; fall through to body text
  }
  if (el) {
    // A blog's front or archive page: Readability keeps several posts (and may drop the first
    // one's body for its pictures). The first (newest) post is the page's article; the others have their
    // own pages, reached through their links.
    if (leadPost) {
      const kept = squeeze(el.textContent);
      if (postProbes.filter((p) => kept.includes(p)).length >= MIN_KEPT_POSTS) return trimLeadingStamps(leadPost);
    }
    return belowHeadline(prunedText(el), title);
  }
  return doc.body ? blockText(doc.body) : '';
}

function prunedText(container: Element): string {
  pruneLinkLists(container);
  pruneCaptions(container);
  return trimLeadingStamps(blockText(container));
}

const squeeze = (s: string | null | undefined) => (s ?? '').replace(/[\s\u00a0\u3000]+/g, '');
/** Characters of a post's text that identify it in Readability's output. */
const POST_PROBE_CHARS = 30;
/** A page with this many post bodies is a list of posts (a blog's front or archive page). */
const MIN_LIST_POSTS = 3;
/** Class names blog engines give a post's body (`post-body`, `entry-content`, `postbody`). */
const POST_BODY_CLASS = /^(?:post|entry)[-_]?(?:body|content|text)$/i;

const POST_DATE = /(?<!\d)(?:19|20)\d\d\s*[-/.年]\s*\d{1,2}\s*[-/.月]\s*\d{1,2}|\b(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\.? \d{1,2},? (?:19|20)\d\d\b|\b\d{1,2}\/\d{1,2}\/(?:19|20)\d\d\b/i;

/**
 * Whether a post body sits in a post of its own with a date beside it (a header or footer
 * stamp): so are the posts of a list, not the chunks one article is split into (`post-text`
 * blocks between pictures).
 */
function datedPost(body: Element, all: Element[]): boolean {
  let box: Element = body;
  while (box.parentElement && !all.some((o) => o !== body && box.parentElement!.contains(o))) box = box.parentElement;
  const around = (box.textContent ?? '').replace(body.textContent ?? '', ' ');
  return POST_DATE.test(around);
}

/** Image captions and credits (by class or id): what a picture shows or who took it, not the article's text. */
const CAPTION_NAME = /caption|credit/i;
const CAPTION_MARK = 'data-fc-caption';

/**
 * Mark captions before Readability strips the class names that identify them, and return the
 * elements holding the body of a blog post (class `post-body`, `entry-content`, …), in document
 * order, none nested in another.
 */
function markCaptionsAndFindPosts(doc: Document): Element[] {
  const posts: Element[] = [];
  if (!doc.body) return posts;
  const visit = (parent: Element, inPost: boolean) => {
    for (let e = parent.firstElementChild; e; e = e.nextElementSibling) {
      const cls = e.getAttribute('class') ?? '';
      if (e.tagName.toUpperCase() === 'FIGCAPTION' || CAPTION_NAME.test(cls) || /caption/i.test(e.getAttribute('id') ?? '')) e.setAttribute(CAPTION_MARK, '');
      const post = !inPost && cls !== '' && /post|entry/i.test(cls) && cls.split(/\s+/).some((c) => POST_BODY_CLASS.test(c)) && nonSpace(e.textContent) > 0;
      if (post) posts.push(e);
      visit(e, inPost || post);
    }
  };
  visit(doc.body, false);
  return posts;
}

/** Drop captions and photo credits inside the kept container (the Zyte gold, and trafilatura's default, leave them out). */
export function pruneCaptions(root: Element): void {
  for (const c of Array.from(root.querySelectorAll(`figcaption, [${CAPTION_MARK}]`))) if (c.parentNode && c !== root) c.parentNode.removeChild(c);
}

const nonSpace = (s: string | null | undefined) => (s ?? '').replace(/[\s\u00a0\u3000]+/g, '').length;
