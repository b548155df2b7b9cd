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
 * scorer on every page of the crawl (not only its own), and Redis keeps one entry per fetched
 * page (its links' URLs, anchors and contexts).
 *
 * The scores the scorer returns for another worker's page's links are not sent to the frontier:
 * that worker sent its own (from the same state, give or take the pages in flight); its other
 * re-scores are (`replayOthers`). Re-prioritisation is "latest wins" then.
 */
import type { Redis } from 'ioredis';
import type { FetchedPage, ScoreUpdate } from '../score/types.js';
import { uniqueKeyOf } from './url-key.js';

/** Entries read per round trip. */
const BATCH = 500;

export class SharedScorerPages {
  private readonly key: string;
  /** The last stream id read ('0' = from the start: a late worker replays everything). */
  private lastId = '0';
  /** Other workers' pages fed into this worker's scorer. */
  replayed = 0;

  constructor(
    private readonly redis: Redis,
    prefix: string,
    private readonly workerId: string,
    /** Back from JSON to the scorer's types (dates): src/crawl/resume.ts's reviveScorerInput. */
    private readonly revive: (p: FetchedPage) => FetchedPage = (p) => p,
  ) {
    this.key = `${prefix}pages`;
  }

  /** Publish one page's scorer input (sent at once; Redis keeps the order of one connection). */
  publish(page: FetchedPage): Promise<unknown> {
    return this.redis.xadd(this.key, '*', 'w', this.workerId, 'p', JSON.stringify(page));
  }

  /** The other workers' pages published since the last call, in stream order. */
  async pull(): Promise<FetchedPage[]> {
    const out: FetchedPage[] = [];
    for (;;) {
      const r = (await this.redis.xread('COUNT', BATCH, 'STREAMS', this.key, this.lastId)) as [string, [string, string[]][]][] | null;
      const entries = r?.[0]?.[1] ?? [];
      for (const [id, fields] of entries) {
        this.lastId = id;
        const f: Record<string, string> = {};
        for (let i = 0; i + 1 < fields.length; i += 2) f[fields[i]] = fields[i + 1];
        if (f.w === this.workerId || !f.p) continue;
        out.push(this.revive(JSON.parse(f.p) as FetchedPage));
      }
      if (entries.length < BATCH) break;
    }
    this.replayed += out.length;
    return out;
  }
}

/** What `replayOthers` needs of the Redis frontier. */
export interface ReplayTarget {
  othersScorerInputs(): Promise<FetchedPage[]>;
  drop(uniqueKey: string, reason?: string): unknown;
  rescore(uniqueKey: string, score: number, components?: ScoreUpdate['breakdown']['components']): unknown;
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
    for (const u of scorer.onPageFetched(page)) {
      if (theirs.has(u.url) || skip(u.url)) continue;
      if (u.drop) frontier.drop(uniqueKeyOf(u.url), u.reason);
      else frontier.rescore(uniqueKeyOf(u.url), u.score, u.breakdown.components);
    }
  }
}
