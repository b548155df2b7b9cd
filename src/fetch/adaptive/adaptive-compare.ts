/**
 * The adaptive fetcher's evidence (src/fetch/adaptive/adaptive-policy.ts decides with it): what a focused
 * crawler reads from a page, and whether the HTTP page gives the same as the rendered one — main
 * text by character shingles, out-links, title, publish time, reply threads incl. XHR comments.
 */
import { DEFAULT_TIME_ZONE, extractThread } from '../../extract/replies/index.js';
import { commentsFromXhr } from '../../extract/replies/xhr.js';
import type { PageAnalysis } from '../../extract/types.js';
import type { RenderedPage } from '../crawler.js';

/** What a focused crawler reads from a page; the comparison works on these. */
export interface PageSignals {
  text: string;
  title: string;
  publishTime?: string;
  links: string[];
  /** Posts of the reply thread found in the DOM (and, in the browser, in captured XHR JSON). */
  replies: number;
  /** Of those, how many came from XHR JSON. */
  xhrReplies: number;
}

export function signalsOf(analysis: PageAnalysis, html: string, xhr: RenderedPage['xhrJson'], fetchedAt: Date): PageSignals {
  let replies = 0;
  let xhrReplies = 0;
  try {
    replies = extractThread({ html, url: analysis.url, fetchedAt, xhr })?.posts.length ?? 0;
    // Comments that came as JSON (a comment widget's API): counted apart, they mean "browser".
    if (xhr.length) xhrReplies = commentsFromXhr(xhr, fetchedAt, DEFAULT_TIME_ZONE)?.posts.length ?? 0;
  } catch {
    // a thread matcher failing on odd markup: no thread on either side
  }
  return {
    text: analysis.text,
    title: analysis.title,
    publishTime: analysis.publishTime?.iso,
    links: [...new Set(analysis.links.map((l) => l.url))],
    replies,
    xhrReplies,
  };
}

/** Character k-shingles of a text, whitespace removed (CJK has no word spaces; k = 5 ≈ two words). */
export function shingles(text: string, k = 5): Set<string> {
  const s = text.replace(/\s+/g, '');
  const out = new Set<string>();
  if (s.length > 0 && s.length < k) out.add(s);
  for (let i = 0; i + k <= s.length; i++) out.add(s.slice(i, i + k));
  return out;
}

/** F1 of two shingle sets (Dice coefficient); both empty = 1. */
export function shingleF1(a: string, b: string, k = 5): number {
  const A = shingles(a, k);
  const B = shingles(b, k);
  if (A.size === 0 && B.size === 0) return 1;
  if (A.size === 0 || B.size === 0) return 0;
  let common = 0;
  const [small, large] = A.size <= B.size ? [A, B] : [B, A];
  for (const x of small) if (large.has(x)) common++;
  return (2 * common) / (A.size + B.size);
}

export interface ComparisonLimits {
  /** Main text shingle F1 at least this. */
  minTextF1: number;
  /** Share of the browser's out-links the HTTP page also has, at least this. */
  minLinkRecall: number;
}

export interface Comparison {
  equivalent: boolean;
  textF1: number;
  linkRecall: number;
  /** What differed, in words (empty when equivalent). */
  differences: string[];
}

/** Does the HTTP page give the same analysis as the rendered one? (The decision rule's evidence.) */
export function compareRenderings(http: PageSignals, browser: PageSignals, limits: ComparisonLimits): Comparison {
  const differences: string[] = [];
  const textF1 = shingleF1(http.text, browser.text);
  if (textF1 < limits.minTextF1) differences.push(`main text differs (shingle F1 ${textF1.toFixed(2)}; HTTP ${http.text.length} chars, browser ${browser.text.length})`);
  const have = new Set(http.links);
  const missing = browser.links.filter((l) => !have.has(l)).length;
  const linkRecall = browser.links.length ? 1 - missing / browser.links.length : 1;
  if (linkRecall < limits.minLinkRecall) differences.push(`out-links missing over HTTP (${missing} of ${browser.links.length})`);
  if (http.title.trim() !== browser.title.trim()) differences.push('title differs');
  if ((http.publishTime ?? '') !== (browser.publishTime ?? '')) differences.push(`publish time differs (${http.publishTime ?? 'none'} vs ${browser.publishTime ?? 'none'})`);
  // (the data path feeds the API's JSON to the HTTP side too: the same comments, no difference)
  if (browser.xhrReplies > http.xhrReplies) differences.push(`comments arrive by XHR (${browser.xhrReplies})`);
  else if (browser.replies > http.replies) differences.push(`replies rendered by JavaScript (${browser.replies} vs ${http.replies})`);
  return { equivalent: differences.length === 0, textF1, linkRecall, differences };
}
