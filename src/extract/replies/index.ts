/**
 * Reply-thread extraction (METHODS §4): a page matching a reply template yields its posts
 * (author, time, text), the reply count and the thread's other pages.
 * Order: user matchers, built-in templates, generic repeated-block detector; XHR comment JSON
 * adds to whatever the HTML gave (or forms the thread alone, for comment widgets).
 */
import type { ExtractThreadInput, Post, ReplyMatcher, ThreadExtract } from './types.js';
import { BUILTIN_MATCHERS, applyMatcher, collectPageUrls, threadIdFor } from './matchers.js';
import { detectRepeatedPosts } from './generic.js';
import { commentsFromXhr } from './xhr.js';
import { cleanText, pageBody, parseDocument } from './dom.js';
import { pageDayFirst } from './time.js';

export type { ExtractThreadInput, Post, ReplyMatcher, ReplySignal, ThreadEvidence, ThreadExtract, XhrCapture } from './types.js';
export { BUILTIN_MATCHERS } from './matchers.js';
export { loadMatchers, parseMatchers, MatcherFileError, replyMatcherSchema } from './load.js';
export { resolveTimeText } from './time.js';

export const DEFAULT_TIME_ZONE = 'Asia/Shanghai';
/** Matchers whose posts are all replies to something else (an article): no opening post to subtract. */
const COMMENT_MATCHERS = new Set(['wordpress-comments', 'xhr-comments', 'generic-comments']);

/**
 * A template matched the page's URL and its post markup, both written for one forum engine: as
 * sure as the extractor gets (not 1: a template can match a look-alike page).
 */
const TEMPLATE_CONFIDENCE = 0.95;
/** Comment JSON captured from the page's own API calls, with author/time/text fields named as such. */
const XHR_CONFIDENCE = 0.9;

const PAGER_CLASS = /pag(e|es|ing|ination|er|enav|elink)|(^|\s)pg(\s|$)|pagenav|pagelist/i;
const NEXT_TEXT = /^(\d+|next|next page|weiter|suivant|下一页|下页|›|»|>|>>|→|next\s*[›»>→])$/i;

/** Pagination links for forums no template knows: rel=next, or numbered/next links in a pager. */
function genericPageUrls(doc: Document, url: string): string[] {
  const links: Element[] = Array.from(doc.querySelectorAll('a[rel="next"], link[rel="next"]'));
  for (const a of Array.from(doc.querySelectorAll('a[href]'))) {
    const text = cleanText(a.textContent);
    if (!NEXT_TEXT.test(text)) continue;
    let p: Element | null = a.parentElement;
    for (let i = 0; p && i < 4; i++, p = p.parentElement) {
      if (PAGER_CLASS.test(`${p.getAttribute('class') ?? ''} ${p.getAttribute('id') ?? ''}`)) {
        links.push(a);
        break;
      }
    }
  }
  return collectPageUrls(links, url);
}

function postKey(p: Post): string {
  return p.floor !== undefined ? `#${p.floor}` : `${p.author}\u0000${p.time ?? ''}\u0000${p.text}`;
}

export function extractThread(input: ExtractThreadInput): ThreadExtract | null {
  const timeZone = input.timeZone ?? DEFAULT_TIME_ZONE;
  const ref = input.fetchedAt;
  const doc = parseDocument(input.html);
  const dayFirst = pageDayFirst(pageBody(doc).textContent ?? '', doc.documentElement?.getAttribute('lang'));
  const off = new Set(input.disabledMatchers ?? []);
  const matchers: ReplyMatcher[] = [...(input.matchers ?? []), ...BUILTIN_MATCHERS.filter((m) => !off.has(m.name))];

  let result: ThreadExtract | null = null;
  let total: number | undefined;
  for (const m of matchers) {
    const r = applyMatcher(m, doc, input.url, ref, timeZone, dayFirst);
    if (!r) continue;
    const evidence = { structure: `${r.posts.length} posts matched template ${m.name} (${m.post})`, signals: ['template' as const] };
    result = { matcher: m.name, confidence: TEMPLATE_CONFIDENCE, evidence, threadId: r.threadId, posts: r.posts, replyCount: 0, pageUrls: r.pageUrls };
    total = r.total;
    break;
  }
  if (!result) {
    const g = detectRepeatedPosts(doc, ref, timeZone, dayFirst);
    if (g) {
      result = {
        matcher: g.comments ? 'generic-comments' : 'generic',
        confidence: g.confidence,
        evidence: g.evidence,
        threadId: threadIdFor(undefined, input.url),
        posts: g.posts,
        replyCount: 0,
        pageUrls: genericPageUrls(doc, input.url),
      };
    }
  }
  const xhr = input.xhr?.length ? commentsFromXhr(input.xhr, ref, timeZone) : null;
  if (xhr) {
    if (!result) {
      result = { matcher: 'xhr-comments', confidence: XHR_CONFIDENCE, evidence: { structure: '', signals: [] }, threadId: threadIdFor(undefined, input.url), posts: [], replyCount: 0, pageUrls: [] };
    }
    const fromApi = `${xhr.posts.length} comments from the page's comment API (author, time and text fields)`;
    result.evidence = {
      structure: result.evidence.structure ? `${result.evidence.structure}; ${fromApi}` : fromApi,
      signals: [...new Set([...result.evidence.signals, 'comment-api' as const])],
    };
    const seen = new Set(result.posts.map(postKey));
    for (const p of xhr.posts) {
      if (!seen.has(postKey(p))) {
        seen.add(postKey(p));
        result.posts.push(p);
      }
    }
    result.pageUrls = [...new Set([...result.pageUrls, ...xhr.pageUrls])];
    if (xhr.total !== undefined) total = Math.max(total ?? 0, xhr.total);
  }
  if (!result) return null;
  const opening = COMMENT_MATCHERS.has(result.matcher) || (result.posts[0]?.floor ?? 1) > 1 ? 0 : 1;
  result.replyCount = total ?? Math.max(0, result.posts.length - opening);
  return result;
}
