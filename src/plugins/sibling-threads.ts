/**
 * A relevant forum thread's sibling threads (METHODS §4 follows a thread's pagination; this
 * follows the listing it was found on: the reply plugin keeps its next `max` unfetched threads
 * offered, `max` = threads.siblingThreads × the crawl's pages in flight). A board links its threads from a
 * page that is itself no document (a list of titles, judged not relevant), so the scorer ranks
 * every thread link low (parent priority ≈ 0) and their place among the crawl's leftovers moves
 * with its learned weights: in the Redis bench's test-web crawls the threads after the board
 * varied 4–13 of ~60 pages, one worker or four, and that was most of the pairs' noise. Once a
 * thread from the board is judged relevant, the board's next unfetched threads are offered in the
 * thread-page band, as many as the crawl has pages in flight (so every fetch slot can walk: one
 * thread at a time kept one of one worker's two slots busy, one of four workers' eight); each
 * relevant one brings the next, and so on. Two off-topic siblings in a row end the walk (one
 * misjudged thread does not: the judge's recall on threads was 79–93% in those crawls), so a
 * mixed board costs about as many pages as are in flight, plus two, per relevant thread.
 *
 * The first thread comes the same way: a page that lists at least `LISTING_THREADS` threads of
 * one template (and is none itself), reached from a page judged relevant (the board linked from
 * the topic's special page), is probed with its first unfetched thread in the same band, as the
 * walk's first step (a misjudged probe is one miss).
 *
 * Siblings are the listing's links that the same reply template recognises as a thread page
 * (its `url` pattern) with another thread id, on the same host; the listing must not be a page
 * of that template itself (a thread linking to another thread is no listing). Which links the
 * listing has comes from the scorer's link graph, which holds every worker's pages when the
 * scorer is shared through Redis (src/cluster/redis-scorer-pages.ts).
 */
import { threadIdFor } from '../extract/replies/matchers.js';
import type { ReplyMatcher } from '../extract/replies/types.js';

export interface SiblingQuery {
  /** The relevant thread page just fetched (its frontier URL). */
  pageUrl: string;
  /** The page that linked to it. */
  parentUrl: string;
  /** The parent's out-links in page order. */
  parentLinks: Iterable<string>;
  /** The template that recognised the page (one with a `url` pattern; others have no siblings). */
  matcher: Pick<ReplyMatcher, 'url' | 'threadId'>;
  /** Fetched by the crawl (any worker). */
  fetched: (url: string) => boolean;
  /** Thread ids not to return (none by default: the reply plugin's walk offers its window again). */
  offered?: ReadonlySet<string>;
  /** How many to return. */
  max: number;
}

/** The parent's next unfetched sibling threads (first link of each thread id, in page order): `{url, id}`. */
export function siblingThreads(q: SiblingQuery): { url: string; id: string }[] {
  if (q.max <= 0 || !q.matcher.url) return [];
  const isThread = new RegExp(q.matcher.url, 'i');
  if (isThread.test(q.parentUrl)) return [];
  let host: string;
  try {
    host = new URL(q.pageUrl).host;
  } catch {
    return [];
  }
  const own = threadIdFor(q.matcher.threadId, q.pageUrl);
  const seen = new Set<string>([own]);
  const out: { url: string; id: string }[] = [];
  for (const url of q.parentLinks) {
    if (!isThread.test(url)) continue;
    let h: string;
    try {
      h = new URL(url).host;
    } catch {
      continue;
    }
    if (h !== host) continue;
    const id = threadIdFor(q.matcher.threadId, url);
    if (seen.has(id)) continue;
    seen.add(id);
    if (q.offered?.has(id) || q.fetched(url)) continue;
    out.push({ url, id });
    if (out.length >= q.max) break;
  }
  return out;
}

/** Threads of one template a page must list to be probed as a listing (a board). */
export const LISTING_THREADS = 3;

/** The first template (with a `url` pattern) of which the page lists at least `min` threads on its own host; the page is none of its pages. */
export function listingTemplate<M extends Pick<ReplyMatcher, 'url' | 'threadId'>>(pageUrl: string, links: Iterable<string>, matchers: readonly M[], min = LISTING_THREADS): M | undefined {
  let host: string;
  try {
    host = new URL(pageUrl).host;
  } catch {
    return undefined;
  }
  const list = [...links].filter((u) => {
    try {
      return new URL(u).host === host;
    } catch {
      return false;
    }
  });
  for (const m of matchers) {
    if (!m.url) continue;
    const re = new RegExp(m.url, 'i');
    if (re.test(pageUrl)) continue;
    const ids = new Set<string>();
    for (const u of list) if (re.test(u)) ids.add(threadIdFor(m.threadId, u));
    if (ids.size >= min) return m;
  }
  return undefined;
}
