/**
 * Where the article starts and ends inside the page, for the main text: teaser <article>s of other
 * posts beside the one holding the headline, and the header lines Readability keeps above a repeat
 * of the headline, and the bylines and datelines on top of the text.
 */
import { breadcrumb } from './title.js';

const squeeze = (s: string | null | undefined) => (s ?? '').replace(/[\s\u00a0\u3000]+/g, '');

/** A title shorter than this (non-space characters) does not identify the headline element. */
const MIN_HEADLINE_KEY_CHARS = 8;
/** An <article> holding this many <article>s is a list of teasers, whatever its length. */
const MIN_TEASER_LIST = 2;

/**
 * Articles beside the one that holds the page's headline: teasers of other posts ("you may also
 * like", a list of other stories) set as <article> elements of their own. The headline is the
 * <h1>/<h2> that shows the page's title, else the first <h1> (a front-page teaser may hold an <h1>
 * of its own). Removed before Readability, which would otherwise keep their common parent with
 * the article (the tree is read for links and dates before this).
 */
export function dropOtherArticles(doc: Document, title: string): void {
  if (!doc.body) return;
  const key = squeeze(title);
  const headline = (key.length >= MIN_HEADLINE_KEY_CHARS ? Array.from(doc.body.querySelectorAll('h1, h2')).find((h) => squeeze(h.textContent).includes(key)) : undefined)
    ?? doc.body.querySelector('h1');
  const main = headline?.closest('article');
  if (!main) return;
  const mainChars = squeeze(main.textContent).length;
  for (const a of Array.from(doc.body.querySelectorAll('article'))) {
    if (!a.parentNode || a.contains(main) || main.contains(a)) continue;
    // Longer than the headline's article and not a list of articles itself: the body, set apart from a header article.
    if (squeeze(a.textContent).length > mainChars && a.querySelectorAll('article').length < MIN_TEASER_LIST) continue;
    a.parentNode.removeChild(a);
  }
}

/** Lines of Readability's output among which a repeat of the headline is looked for. */
const HEADLINE_LINES = 8;

/**
 * The headline is the page's title, not its text; what Readability keeps above it (a sign-in
 * link, a section label, the page's URL, a breadcrumb) is the site's header. When one of the
 * first lines repeats the title, it and the lines above it go.
 */
export function belowHeadline(text: string, title: string): string {
  const key = squeeze(title);
  if (key.length < MIN_HEADLINE_KEY_CHARS) return text;
  const lines = text.split('\n');
  const i = lines.slice(0, HEADLINE_LINES).findIndex((l) => squeeze(l) === key);
  return i < 0 || i === lines.length - 1 ? text : lines.slice(i + 1).join('\n');
}

/** A line stating who wrote it or when (`By HNN Staff | November 18, 2019 at 2:26 PM`, `2005-04-05 06:40更新 来源：…`). */
const STAMP_LINE = /^(?:by\s|posted\b|published\b|updated\b|last updated\b|作者[:：]|来源[:：]|发布时间|发表时间|更新时间|记者\s)|(?<!\d)(?:19|20)\d\d\s*[-/.年]\s*\d{1,2}\s*[-/.月]\s*\d{1,2}|\b(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\.? \d{1,2},? (?:19|20)\d\d\b/i;
/** A stamp line is short; longer lines are text that happens to mention a date. */
const MAX_STAMP_LINE_CHARS = 90;
/** Stamp lines are looked for only among the first lines of the main text. */
const LEADING_LINES = 4;

/**
 * Bylines, datelines and breadcrumbs Readability keeps at the top of the article are metadata, not
 * text (the publish time is read separately): drop such short lines among the first few. The lines around
 * them stay: a headline above a byline is part of the text on some sites' gold and not on others'.
 */
export function trimLeadingStamps(text: string): string {
  const lines = text.split('\n');
  const n = Math.min(LEADING_LINES, lines.length - 1);
  // Sentence punctuation marks running text that starts with a date (`2020年11月18日上午，得知…`).
  // A breadcrumb (`当前位置：首页->军事技术`) is navigation, wherever among them it sits.
  const kept = lines.filter((l, i) => i >= n || ((l.length > MAX_STAMP_LINE_CHARS || !STAMP_LINE.test(l) || /[，。！？；]|[a-z]{3}\. [A-Z]/.test(l)) && !breadcrumb(l)));
  return kept.length === lines.length ? text : kept.join('\n');
}
