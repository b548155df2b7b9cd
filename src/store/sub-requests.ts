/**
 * The sub-request log (runs/<id>/subrequests.jsonl): one JSON line per request that is not a
 * page of the frontier (comment-API pages of reply threads), fetched, failed or refused, with its
 * reason. Kept apart from the crawl log, which is one line per page of the budget (counts,
 * harvest rate, --resume and the kill soak read it as such); written the same crash-safe way.
 */
import { JsonLinesWriter, readJsonLines } from './jsonl.js';

export interface SubRequestRecord {
  time: string;
  url: string;
  /** The page the request was made for. */
  parent?: string;
  /** What it is (`comment-api`). */
  kind: string;
  outcome: 'fetched' | 'failed' | 'refused';
  status?: number;
  reason?: string;
  bytes?: number;
  /** Milliseconds waited for the host's delay before it was sent. */
  waitedMs?: number;
}

export interface SubRequestCounts {
  fetched: number;
  failed: number;
  refused: number;
}

export function countSubRequests(records: readonly Pick<SubRequestRecord, 'outcome'>[]): SubRequestCounts {
  const c: SubRequestCounts = { fetched: 0, failed: 0, refused: 0 };
  for (const r of records) if (r.outcome in c) c[r.outcome]++;
  return c;
}

export class SubRequestLog extends JsonLinesWriter<SubRequestRecord> {
  /** Read a log back; a torn last line (crash mid-write) is skipped. */
  static read(path: string): SubRequestRecord[] {
    return readJsonLines<SubRequestRecord>(path);
  }
}
