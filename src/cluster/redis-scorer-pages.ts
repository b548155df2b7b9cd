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
 * append per page, read once by each worker, and a worker that joins late restores the latest
 * snapshot of a scorer's state and replays the stream after it (./redis-scorer-state.ts). What
 * this costs: each worker runs the scorer on every page of the crawl (not only its own), and
 * Redis keeps the inputs since the latest snapshot (the older ones gzipped,
 * ./redis-scorer-snapshot.ts) and the snapshot.
 *
 * The scores the scorer returns for another worker's page's links are not sent to the frontier:
 * that worker sent its own (from the same state, give or take the pages in flight); its other
 * re-scores are (`replayOthers`). Re-prioritisation is "latest wins" then.
 */
import type { ScoreUpdate } from '../score/types.js';
import type { SharedScorerState, SyncedScorer } from './redis-scorer-state.js';
import { uniqueKeyOf } from '../frontier/url-key.js';

/** What `replayOthers` needs of the Redis frontier. */
export interface ReplayTarget {
  readonly scorerSync?: SharedScorerState;
  drop(uniqueKey: string, reason?: string): unknown;
  rescore(uniqueKey: string, score: number, components?: ScoreUpdate['breakdown']['components']): unknown;
}

/**
 * Feed the other workers' pages published since the last call into this worker's scorer (with
 * shareScorer; a worker joining late restores the crawl's scorer snapshot first,
 * ./redis-scorer-state.ts). The scores of their links are theirs to send; what the scorer
 * re-scores beyond them is this worker's to send: the periodic re-scoring of every queued URL
 * (METHODS §3.5's cycle, every N pages the scorer takes in, replayed ones included) fires on
 * whichever page reaches N, so with 4 workers three cycles in four fell on another worker's page
 * and were lost, leaving stale scores in the queue.
 */
export async function replayOthers(frontier: ReplayTarget, scorer: SyncedScorer, skip: (url: string) => boolean): Promise<void> {
  await frontier.scorerSync?.catchUp(scorer, (page, updates) => {
    const theirs = new Set(page.links.map((l) => l.url));
    for (const u of updates) {
      if (theirs.has(u.url) || skip(u.url)) continue;
      if (u.drop) frontier.drop(uniqueKeyOf(u.url), u.reason);
      else frontier.rescore(uniqueKeyOf(u.url), u.score, u.breakdown.components);
    }
  });
}
