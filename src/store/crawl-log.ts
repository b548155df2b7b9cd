/**
 * The crawl log: one JSON line per fetched URL, relevant or not, so a user can audit a crawl
 * and compute its harvest rate with their own labels. Written synchronously (src/store/jsonl.ts).
 */
import { JsonLinesWriter, readJsonLines } from './jsonl.js';
import type { ThreadEvidence } from '../extract/replies/types.js';

export type CrawlDecision =
  | 'saved' // relevant: stored in the dataset, links followed
  | 'recorded' // irrelevant: recorded here only, links follow the tunnelling rule
  | 'failed' // network error, HTTP error after retries, navigation error
  | 'not-html' // a response we do not analyse (recorded by content type)
  | 'out-of-window' // published outside the topic's time window (METHODS §3.4)
  | 'revisit'; // a thread re-fetched for new replies

/** One line of a run's crawl log (crawl-log.jsonl): one fetch, its outcome, verdict and timings. */
export interface CrawlLogEntry {
  time: string;
  url: string;
  /** HTTP status, or 0 when no response arrived. */
  status: number;
  depth: number;
  parent?: string;
  relevance?: number;
  relevant?: boolean;
  topic?: string;
  /** The frontier score the URL was fetched with, and its named components. */
  score?: number;
  components?: Record<string, number>;
  decision: CrawlDecision;
  reason?: string;
  title?: string;
  publishTime?: string;
  contentType?: string;
  /** The page is a reply thread: which matcher decided (a template's name, `generic`, …) and how sure it is. */
  thread?: { matcher: string; confidence: number; evidence?: ThreadEvidence };
  /** `fetcher: adaptive`: fetched over plain HTTP or rendered in the browser, and why (src/fetch/adaptive/adaptive.ts). */
  fetchedWith?: 'http' | 'http+data' | 'browser';
  fetchWhy?: string;
  /** Rendered pages: how the page settled before it was read (src/fetch/page-load.ts settlePage). */
  settled?: string;
  /** Rendered pages: the analysis was made from the rendered DOM or from the document as served (the rendering was the browser's error page, or held much less main text). */
  analysedFrom?: 'served' | 'rendered';
  /** Ground-truth label when the crawl runs on a labelled web (test web, benchmarks). */
  truth?: boolean;
}

export class CrawlLog extends JsonLinesWriter<CrawlLogEntry> {
  /** Read a log back; a torn last line (crash mid-write) is skipped. */
  static read(path: string): CrawlLogEntry[] {
    return readJsonLines<CrawlLogEntry>(path);
  }
}
