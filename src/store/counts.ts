/**
 * The one definition of every count a user reads: pages fetched, relevant, failed (by reason),
 * reply threads found and hot. The engine tallies crawl-log entries with `CountTally` as it
 * records them (progress line, summary, `--json`, state.json), and the report tallies the same
 * crawl log with the same class afterwards, so they cannot disagree on what a word means.
 */
import type { CrawlLogEntry } from './crawl-log.js';
import type { ThreadRecord } from './threads.js';
import { isHot } from '../score/hotness.js';

/** The counts a crawl reports (fetched, relevant, failed by reason, threads), one definition for the summary, progress line and report. */
export interface RunCounts {
  /** Crawl-log lines: every fetch, revisits and failures included. */
  fetched: number;
  /** Pages judged relevant (decision `saved`, stored in the dataset). */
  relevant: number;
  /** Fetches that failed: no response, or an HTTP status ≥ 400 (see failureReason). */
  failed: number;
  /** `failed` split by reason (`HTTP 404`, `timeout`, …); sums to `failed`. */
  failedByReason: Record<string, number>;
  /** Fetched pages relevant by ground truth, on a labelled web. */
  truthRelevant?: number;
  /** Reply threads in the run's thread store, when threads are tracked. */
  threadsFound?: number;
  /** Threads whose hotness at their latest visit is above the hot threshold (METHODS §4). */
  hotThreads?: number;
  /** Requests that are not pages (comment-API pages; runs/<id>/subrequests.jsonl), by outcome. */
  subRequests?: { fetched: number; failed: number; refused: number };
  /** Revisits of reply threads fetched (included in `fetched`), when threads are tracked. */
  revisits?: number;
  /** Replies the revisits found that earlier visits had not seen, when threads are tracked. */
  newReplies?: number;
}

/** An IPv4 address or a bracketless IPv6 one (captured, so `split` keeps it). */
const ADDRESS = /(\b\d{1,3}(?:\.\d{1,3}){3}\b|(?<![\w:])(?:[0-9a-f]{0,4}:){2,7}[0-9a-f]{0,4}(?![\w:]))/i;

/**
 * Why a fetch counts as failed, or undefined when it did not fail. An HTTP error status is its
 * own reason whatever the page said; otherwise the error message with URLs and numbers blanked,
 * so one reason groups many pages.
 */
export function failureReason(e: Pick<CrawlLogEntry, 'decision' | 'status' | 'reason'>): string | undefined {
  if (e.status >= 400) return `HTTP ${e.status}`;
  if (e.decision !== 'failed') return undefined;
  // Addresses stay as they are (a reason names the address the gate refused); other numbers group.
  const msg = (e.reason ?? 'unknown error')
    .replace(/https?:\/\/\S+/g, 'URL')
    .split(ADDRESS)
    .map((part, i) => (i % 2 ? part : part.replace(/\d+(\.\d+)?/g, 'N')))
    .join('');
  if (/timeout|timed out/i.test(msg)) return 'timeout';
  return msg.slice(0, 120);
}

/** Running counts over crawl-log entries, in log order. */
export class CountTally {
  fetched = 0;
  relevant = 0;
  failed = 0;
  truthRelevant = 0;
  labelled = false;
  readonly failedByReason: Record<string, number> = {};

  constructor(from?: Partial<RunCounts>) {
    if (!from) return;
    this.fetched = from.fetched ?? 0;
    this.relevant = from.relevant ?? 0;
    this.failed = from.failed ?? 0;
    Object.assign(this.failedByReason, from.failedByReason ?? {});
    if (from.truthRelevant !== undefined) {
      this.truthRelevant = from.truthRelevant;
      this.labelled = true;
    }
  }

  add(e: CrawlLogEntry): void {
    this.fetched++;
    if (e.decision === 'saved') this.relevant++;
    const why = failureReason(e);
    if (why !== undefined) {
      this.failed++;
      this.failedByReason[why] = (this.failedByReason[why] ?? 0) + 1;
    }
    if (e.truth !== undefined) this.labelled = true;
    if (e.truth) this.truthRelevant++;
  }

  counts(): RunCounts {
    return {
      fetched: this.fetched,
      relevant: this.relevant,
      failed: this.failed,
      failedByReason: { ...this.failedByReason },
      ...(this.labelled ? { truthRelevant: this.truthRelevant } : {}),
    };
  }
}

/** Counts of a crawl log read back from disk. */
export function countLog(log: readonly CrawlLogEntry[]): RunCounts {
  const t = new CountTally();
  for (const e of log) t.add(e);
  return t.counts();
}

/** Hotness of a thread at its latest visit (what the crawler last measured). */
export function latestHotness(t: Pick<ThreadRecord, 'hotness'>): number {
  return t.hotness[t.hotness.length - 1]?.h ?? 0;
}

/** Threads found and hot, from a thread store's records. */
export function countThreads(threads: readonly Pick<ThreadRecord, 'hotness' | 'confidence'>[], hotThreshold: number, minConfidence = 0): { threadsFound: number; hotThreads: number } {
  return { threadsFound: threads.length, hotThreads: threads.filter((t) => isHot(latestHotness(t), hotThreshold) && (t.confidence ?? 1) >= minConfidence).length };
}

export function harvestRate(c: Pick<RunCounts, 'fetched' | 'relevant'>): number {
  return c.fetched ? c.relevant / c.fetched : 0;
}

/** `HTTP 404 ×2, timeout ×1`, largest first. */
export function formatFailures(byReason: Record<string, number>, limit = 4): string {
  const list = Object.entries(byReason).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  const shown = list.slice(0, limit).map(([r, n]) => `${r} ×${n}`);
  if (list.length > limit) shown.push(`${list.length - limit} more reasons`);
  return shown.join(', ');
}
