/**
 * The frontier's contract and shared data types (no imports from other frontier modules, so the
 * queue, the journal and the adapter all depend on this file and never on each other in a cycle).
 *
 * ## The frontier as parts (after Scrapy's scheduler and Crawlee's request managers)
 *
 *   Frontier (frontier.ts)            what the engine, plugins and benchmarks call
 *    ├─ FrontierBackend               the queue state: best-first order, de-duplication, drops,
 *    │    BestFirstQueue (queue.ts)     in-flight entries; changed ONLY through apply(op)
 *    ├─ HostPoliteness (politeness.ts) per-host delay and concurrency: which hosts may go now
 *    ├─ robots gate (robots.ts)       checked at hand-out; a disallowed URL is dropped, never fetched
 *    └─ FrontierLog (journal.ts)      every applied op, appended for crash recovery
 *   FrontierRequestManager (request-manager.ts)  Crawlee's IRequestManager over a Frontier
 *
 * Every change of queue state is one `FrontierOp`. A live call (offer, drop, hand-out…) decides
 * the op, applies it to the back end and writes the same op to the log; `--resume` and
 * `--explain` replay the log through the same `apply`. So an operation is written once.
 *
 * ## What a back end implements (`FrontierBackend`)
 *
 * - `apply(op)`: the only mutator. Must be deterministic in (state, op): replaying the ops of a
 *   run onto its last snapshot gives the state the run had.
 * - `pickBest(eligible)`: the best-scored queued entry whose host `eligible(host)` accepts (ties:
 *   the older `queuedAt`), plus how many better-scored hosts were skipped. Must not change state.
 * - reads: `get`, `hasSeen`, `dropReason`, `queued()`, `hosts()`, `size`, counters.
 * - `snapshot()` / `load(snapshot)`: the whole state as plain data.
 *
 * The Redis frontier (./redis.ts, several workers) is not a `FrontierBackend`: its hand-out must
 * pick the best host that may go now *and* lease that host's best URL in one atomic step shared
 * by every worker, so politeness, the budget and leases live in Redis with the queue (Lua
 * scripts, ./redis-scripts.ts) and a local `pickBest(eligible)` callback has no place. It
 * implements the crawl-facing `CrawlFrontier` (./frontier.ts) instead: mutators answer at once
 * and are sent in order on one connection; the hand-out path (`next`, `finish`, Crawlee's
 * request-manager calls) is async and awaits them. Entries carry the same fields (`QueuedUrl`).
 *
 * ## Offers of a queued URL, both back ends
 *
 * An offer that carries a `floor` (a plugin's band offer) only raises: the URL keeps the higher
 * floor and at least its score. A score without one (the scorer's offers and re-scores) is taken
 * by the back end's rule (in memory latest wins; in Redis ownership and the stale-score rule)
 * and lifted back to the floor if it fell below (./score-floor.ts, `fcOffer` in
 * ./redis-scripts.ts; test/frontier-floor.test.ts runs one scenario on both).
 */

export type ScoreComponents = Record<string, number>;

/**
 * The least score a queued URL keeps: a plugin's band offer (a relevant thread's other pages,
 * sibling threads; src/score/bands.ts). The scorer's offers and re-scores may raise the URL
 * above it, never lower it below (./score-floor.ts; both back ends).
 */
export interface ScoreFloor {
  score: number;
  components?: ScoreComponents;
}

/** One URL waiting in the frontier. */
export interface QueuedUrl {
  url: string;
  uniqueKey: string;
  depth: number;
  parentUrl?: string;
  /** Anchor text of the link it was found by: part of the page's vector once fetched (METHODS §0). */
  anchorText?: string;
  score: number;
  components?: ScoreComponents;
  /** A re-fetch of a known page for new replies (METHODS §4), not a discovery. */
  revisit?: boolean;
  /** Queue order (a counter); ties in score go to the older URL. */
  queuedAt: number;
  /** A band offer's floor under the score (./score-floor.ts). */
  floor?: ScoreFloor;
}

/** What happened to an offered URL. */
export type OfferResult = 'queued' | 'rescored' | 'duplicate' | 'too-deep';

/**
 * One change of frontier state. Short field names: these are the journal's lines (a crawl of a
 * million URLs writes millions of them).
 */
export type FrontierOp =
  /** queued, or re-queued with a new score/depth (the full entry) */
  | { o: 'q'; e: QueuedUrl }
  /** rescored in place */
  | { o: 's'; k: string; s: number; c?: ScoreComponents }
  /** dropped (filter, hard focus, robots.txt…) */
  | { o: 'x'; k: string; r?: string; u?: string }
  /** marked seen without queueing (redirect targets, resume) */
  | { o: 'n'; k: string }
  /** handed out to the fetcher (n = pages handed out so far, sk = better hosts skipped for politeness) */
  | { o: 'h'; k: string; n: number; sk?: number }
  /** finished (handled, successfully or not) */
  | { o: 'f'; k: string };

/** The journal's name for an op (kept: the journal files and --explain speak of it). */
export type JournalOp = FrontierOp;

/** The whole queue state at one moment, as plain data. */
export interface FrontierSnapshot {
  version: 1;
  gen: number;
  sequence: number;
  revisitCount: number;
  handedOut: number;
  /** Queued URLs. */
  entries: QueuedUrl[];
  /** Handed out and not finished when the snapshot was taken. */
  inFlight: QueuedUrl[];
  /** Unique keys seen that are neither queued nor in flight. */
  seen: string[];
  /** Keys dropped, with reasons (for --explain). */
  dropped: [string, string][];
}

export type FrontierState = Omit<FrontierSnapshot, 'gen' | 'version'>;

/** The queue state a Frontier runs on. See the contract at the top of this file. */
export interface FrontierBackend {
  /** The only mutator: live calls and journal replay both come through here. */
  apply(op: FrontierOp): void;
  /** Best queued entry on a host `eligible` accepts, and how many better hosts were skipped. */
  pickBest(eligible: (host: string) => boolean): { entry: QueuedUrl; skippedHosts: number } | undefined;
  get(uniqueKey: string): QueuedUrl | undefined;
  /** An entry handed out and not finished. */
  inFlight(uniqueKey: string): QueuedUrl | undefined;
  hasSeen(uniqueKey: string): boolean;
  dropReason(uniqueKey: string): string | undefined;
  queued(): Iterable<QueuedUrl>;
  /** Hosts with queued URLs. */
  hosts(): Iterable<string>;
  /** Queued URLs. */
  readonly size: number;
  /** Pages handed out so far (the page budget counts these). */
  readonly handedOut: number;
  /** Next queue-order number (`queuedAt` of the next new entry). */
  readonly sequence: number;
  /** Revisit entries created so far (their keys are numbered). */
  readonly revisitCount: number;
  snapshot(): FrontierState;
  /** Replace the state with a snapshot's (before replaying the ops written after it). */
  load(state: FrontierState): void;
}

/** Where applied ops are persisted (src/frontier/journal.ts for one machine). */
export interface FrontierLog {
  write(op: FrontierOp): void;
  /** Persist buffered ops (called before anything that depends on them, e.g. the crawl log). */
  flush(): void;
  /** Ops written since the last snapshot (drives compaction). */
  readonly opsSinceSnapshot: number;
  snapshot(state: FrontierState): void;
}
