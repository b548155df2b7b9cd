/**
 * The scorer's state shared by the workers of a Redis crawl: every worker publishes the scorer's
 * input of each page it fetched (the same plain `FetchedPage` that `scorer-pages.jsonl` keeps for
 * `--resume`) to one Redis stream, and feeds the other workers' pages into its own scorer before
 * it scores a page of its own. Scoring is a pure function of those inputs (src/score/scorer.ts),
 * so each worker's scorer holds the whole crawl's link graph and in-link evidence, parent
 * relevance, tunnel buffers, relevance-feedback runs, site table, dead links, IPageRank and the
 * learned weights and link ranker — as one process would, up to the order pages arrive in.
 *
 * Why a stream of inputs rather than the scorer's state in Redis: the state is large, changes on
 * every page and is read for every link (hundreds of reads per page); the inputs are one small
 * append per page, read once by each worker, and a worker that joins late replays the stream
 * from its start, exactly as `--resume` replays its log. What this costs: each worker runs the
 * scorer on every page of the crawl (not only its own), and Redis keeps every fetched page's
 * input (its links' URLs, anchors and contexts), the older ones gzipped (./redis-scorer-snapshot.ts).
 *
 * The scores the scorer returns for another worker's page's links are not sent to the frontier:
 * that worker sent its own (from the same state, give or take the pages in flight); its other
 * re-scores are (`replayOthers`). Re-prioritisation is "latest wins" then.
 */
import type { Redis } from 'ioredis';
import type { FetchedPage, ScoreUpdate } from '../score/types.js';
import { ArchivedInputStream } from './redis-scorer-snapshot.js';
import { uniqueKeyOf } from './url-key.js';

/**
 * The scorer inputs' stream (`fc:{id}:pages`), its older entries archived gzipped and trimmed
 * (./redis-scorer-snapshot.ts); `revive`: back from JSON to the scorer's types (dates), src/crawl/resume.ts's reviveScorerInput.
 */
export function sharedScorerPages(redis: Redis, prefix: string, workerId: string, revive: (p: FetchedPage) => FetchedPage = (p) => p): ArchivedInputStream<FetchedPage> {
  return new ArchivedInputStream<FetchedPage>(redis, `${prefix}pages`, workerId, (raw) => revive(raw as FetchedPage));
}

/** What `replayOthers` needs of the Redis frontier. */
export interface ReplayTarget {
  othersScorerInputs(): Promise<FetchedPage[]>;
  drop(uniqueKey: string, reason?: string): unknown;
  rescore(uniqueKey: string, score: number, components?: ScoreUpdate['breakdown']['components']): unknown;
  tookInOthersPage(): void;
}

/**
 * Feed the other workers' pages published since the last call into this worker's scorer (with
 * shareScorer). The scores of their links are theirs to send; what the scorer re-scores beyond
 * them is this worker's to send: the periodic re-scoring of every queued URL (METHODS §3.5's
 * cycle, every N pages the scorer takes in, replayed ones included) fires on whichever page
 * reaches N, so with 4 workers three cycles in four fell on another worker's page and were
 * lost, leaving stale scores in the queue.
 */
export async function replayOthers(frontier: ReplayTarget, scorer: { onPageFetched(p: FetchedPage): ScoreUpdate[] }, skip: (url: string) => boolean): Promise<void> {
  for (const page of await frontier.othersScorerInputs()) {
    const theirs = new Set(page.links.map((l) => l.url));
    frontier.tookInOthersPage();
    for (const u of scorer.onPageFetched(page)) {
      if (theirs.has(u.url) || skip(u.url)) continue;
      if (u.drop) frontier.drop(uniqueKeyOf(u.url), u.reason);
      else frontier.rescore(uniqueKeyOf(u.url), u.score, u.breakdown.components);
    }
  }
}
