/**
 * The frontier: our scheduler. It always hands out the best-scored URL whose host may be
 * fetched now. Parts (the contract is written at the top of ./types.ts):
 *   - the back end (./queue.ts, BestFirstQueue): best-first order, de-duplication, drops;
 *     changed only through `apply(op)`, which live calls and journal replay share;
 *   - host politeness (./politeness.ts): per-host delay and concurrency, robots.txt Crawl-delay;
 *   - the robots.txt gate (./robots.ts), checked at hand-out so a disallowed URL costs no budget;
 *   - the journal (./journal.ts): every applied op, for `--resume` and `--explain`;
 *   - Crawlee's IRequestManager (./request-manager.ts): `frontier.requestManager`.
 */
import { BestFirstQueue } from './queue.js';
import { HostPoliteness } from './politeness.js';
import { FrontierRequestManager, type HandOutSource } from './request-manager.js';
import type { RobotsCache } from './robots.js';
import type { FrontierLog, FrontierOp, FrontierSnapshot, FrontierState, OfferResult, QueuedUrl, ScoreComponents } from './types.js';
import { hostOf, uniqueKeyOf } from './url-key.js';
import { lifted, requeued } from './score-floor.js';
import { FetchOrder } from './fetch-order.js';

export type { FrontierBackend, FrontierLog, FrontierOp, FrontierSnapshot, FrontierState, JournalOp, OfferResult, QueuedUrl, ScoreComponents } from './types.js';
export { hostOf, uniqueKeyOf } from './url-key.js';
export { FrontierRequestManager, type HandOutSource } from './request-manager.js';

/**
 * What a crawl (the engine, routePage, plugins) uses of a frontier: the in-memory `Frontier`
 * below, or the Redis one shared by several workers (./redis.ts). Mutators answer at once; a
 * shared back end sends them in order and settles them before the page's `finish`.
 */
export interface CrawlFrontier extends HandOutSource {
  offerRevisit(item: { url: string; depth: number; score: number; components?: ScoreComponents }): string;
  rescore(uniqueKey: string, score: number, components?: ScoreComponents): boolean;
  drop(uniqueKey: string, reason?: string): boolean;
  markSeen(uniqueKeys: Iterable<string>): void;
  /** Persist what was applied so far (before the crawl log gets a line that depends on it). */
  flush(): void;
  hasSeen(url: string): boolean;
  readonly pagesHandedOut: number;
  /** Pages handed out and not finished, by all workers (a shared back end: as of its last answer). */
  readonly pagesInFlight: number;
  readonly requestManager: FrontierRequestManager;
  /** This process's per-host pacing, which requests that are not pages (src/crawl/polite-fetch.ts) share with its pages. */
  readonly politeness: HostPoliteness;
  onHandOut?: (entry: QueuedUrl) => void;
  onDrop?: (entry: QueuedUrl, reason: string) => void;
}

/** Options of a `Frontier`: budget, depth, politeness, robots, journal. */
export interface FrontierOptions {
  /** Pages to hand out in total; the queue itself is never capped. 0 = unlimited. */
  maxPages?: number;
  /** URLs deeper than this (link hops from a seed) are not queued. */
  maxDepth?: number;
  /** Minimum milliseconds between two hand-outs to one host. */
  perHostDelayMs?: number;
  /** At most this many requests in flight per host. */
  perHostConcurrency?: number;
  /** A longer per-host delay (robots.txt Crawl-delay), in milliseconds. */
  hostDelayMs?: (host: string) => number | undefined;
  /** Clock, injectable for tests. */
  now?: () => number;
  /** robots.txt gate: consulted before a URL is handed out; its Crawl-delay adds to hostDelayMs. */
  robots?: Pick<RobotsCache, 'isLoaded' | 'load' | 'isAllowed' | 'crawlDelayMs'> & Partial<Pick<RobotsCache, 'refusal'>>;
  /** Journal of operations for crash safety (src/frontier/journal.ts). */
  journal?: FrontierLog;
  /** Snapshot when the journal holds more operations than max(this, 4 × queued URLs). */
  snapshotEveryOps?: number;
  /**
   * Choose URLs in an order that does not depend on timing (./fetch-order.ts), this many ahead
   * of the routing (the crawl's concurrency); the engine then routes pages through `order.run`.
   */
  orderedWindow?: number;
}

/** The crawl's frontier: a best-first queue of scored URLs with per-host politeness, robots.txt and a journal; `requestManager` is Crawlee's view of it. */
export class Frontier implements CrawlFrontier {
  readonly backend = new BestFirstQueue();
  readonly politeness: HostPoliteness;
  /** Crawlee's view of this frontier: pass it as the crawler's `requestManager`. */
  readonly requestManager: FrontierRequestManager;
  private maxPages: number;
  private readonly maxDepth: number;
  private readonly robots?: FrontierOptions['robots'];
  private readonly journal?: FrontierLog;
  private readonly snapshotEveryOps: number;
  /** Called with each URL as it is handed out, for the crawl log and `--explain`. */
  onHandOut?: (entry: QueuedUrl) => void;
  /** Called when a URL is dropped at hand-out time (robots.txt): it is not fetched and not counted. */
  onDrop?: (entry: QueuedUrl, reason: string) => void;
  /** The timing-free fetch order, when `orderedWindow` is set. */
  readonly order?: FetchOrder;

  constructor(options: FrontierOptions = {}) {
    this.maxPages = options.maxPages ?? 0;
    this.maxDepth = options.maxDepth ?? Number.POSITIVE_INFINITY;
    this.robots = options.robots;
    this.journal = options.journal;
    this.snapshotEveryOps = options.snapshotEveryOps ?? 50_000;
    const robots = options.robots;
    this.politeness = new HostPoliteness({
      perHostDelayMs: options.perHostDelayMs,
      perHostConcurrency: options.perHostConcurrency,
      hostDelayMs: (host) => Math.max(options.hostDelayMs?.(host) ?? 0, robots?.crawlDelayMs(host) ?? 0),
      now: options.now,
    });
    this.requestManager = new FrontierRequestManager(this);
    if (options.orderedWindow) this.order = new FetchOrder(this, options.orderedWindow, options.perHostConcurrency ?? Number.POSITIVE_INFINITY);
  }

  /** The one way state changes: applied to the back end, then journalled. */
  private do(op: FrontierOp): void {
    this.backend.apply(op);
    this.journal?.write(op);
  }

  /** Write journalled operations now (the engine calls it before appending to the crawl log). */
  flush(): void {
    this.journal?.flush();
  }

  /**
   * Offer a URL with its score. A new URL is queued; a queued one takes the new score
   * (re-prioritised in place; latest wins) unless it holds a band offer's floor, which a score
   * may not go below, and an offer with a floor only raises (./score-floor.ts); a URL already
   * handed out is a duplicate.
   */
  offer(item: Omit<QueuedUrl, 'uniqueKey' | 'queuedAt'> & { uniqueKey?: string }): OfferResult {
    const uniqueKey = item.uniqueKey ?? uniqueKeyOf(item.url);
    const existing = this.backend.get(uniqueKey);
    if (existing) {
      this.do({ o: 'q', e: { ...requeued(existing, item), depth: Math.min(existing.depth, item.depth) } });
      return 'rescored';
    }
    if (this.backend.hasSeen(uniqueKey)) return 'duplicate';
    if (item.depth > this.maxDepth) return 'too-deep';
    this.do({ o: 'q', e: lifted({ ...item, uniqueKey, queuedAt: this.backend.sequence }) });
    return 'queued';
  }

  /**
   * Queue an already-fetched URL again (a hot reply thread, METHODS §4). Each revisit is its own
   * entry with a distinct key, so de-duplication of discovery is untouched; it competes with
   * discovery by score and uses the same page budget.
   */
  offerRevisit(item: { url: string; depth: number; score: number; components?: ScoreComponents }): string {
    const uniqueKey = `${uniqueKeyOf(item.url)}#revisit-${this.backend.revisitCount + 1}`;
    this.do({ o: 'q', e: { ...item, uniqueKey, revisit: true, queuedAt: this.backend.sequence } });
    return uniqueKey;
  }

  /** Change a queued URL's score (not below a band offer's floor); false when it is not queued (fetched, dropped or unknown). */
  rescore(uniqueKey: string, score: number, components?: ScoreComponents): boolean {
    const existing = this.backend.get(uniqueKey);
    if (!existing) return false;
    const e = requeued(existing, { score, components });
    if (e.score === score) this.do({ o: 's', k: uniqueKey, s: score, c: components });
    else if (e.score !== existing.score) this.do({ o: 'q', e }); // lifted back to its floor
    return true;
  }

  /** Remove a queued URL (hard focus, site cutoff). It stays "seen", so it is not queued again. */
  drop(uniqueKey: string, reason = 'dropped'): boolean {
    const entry = this.backend.get(uniqueKey);
    if (!entry) return false;
    this.do({ o: 'x', k: uniqueKey, r: reason, u: entry.url });
    return true;
  }

  /** Mark keys as already fetched (redirect targets, resume). */
  markSeen(uniqueKeys: Iterable<string>): void {
    for (const k of uniqueKeys) if (!this.backend.hasSeen(k)) this.do({ o: 'n', k });
  }

  /** Why a URL was dropped, if it was. */
  dropReason(uniqueKey: string): string | undefined {
    return this.backend.dropReason(uniqueKey);
  }

  get(uniqueKey: string): QueuedUrl | undefined {
    return this.backend.get(uniqueKey);
  }

  /** Queued URLs, for state snapshots and reports. */
  queued(): Iterable<QueuedUrl> {
    return this.backend.queued();
  }

  hasSeen(url: string): boolean {
    return this.backend.hasSeen(uniqueKeyOf(url));
  }

  get size(): number {
    return this.backend.size;
  }

  get pagesHandedOut(): number {
    return this.backend.handedOut;
  }

  get pagesInFlight(): number {
    return this.backend.inFlightCount;
  }

  /** The page budget now (0 = unlimited). */
  get budget(): number {
    return this.maxPages;
  }

  /** Change the page budget while the crawl runs (a user raising it from the dashboard); 0 = unlimited. */
  setBudget(maxPages: number): void {
    this.maxPages = maxPages;
  }

  private budgetLeft(): boolean {
    return this.maxPages === 0 || this.backend.handedOut < this.maxPages;
  }

  hasSeenKey(uniqueKey: string): boolean {
    return this.backend.hasSeen(uniqueKey);
  }

  requestStarted(url: string): void {
    this.politeness.started(hostOf(url));
  }

  requestEnded(url: string): void {
    this.politeness.ended(hostOf(url));
  }

  /** May a request to this URL's host start now? */
  mayFetchNow(url: string): boolean {
    return this.politeness.wait(hostOf(url)) === 0;
  }

  /** Earliest time (ms) at which some queued host becomes eligible; for waiting loops. */
  nextEligibleInMs(): number {
    const now = this.politeness.now();
    let min = Number.POSITIVE_INFINITY;
    for (const host of this.backend.hosts()) min = Math.min(min, this.politeness.wait(host, now));
    return min;
  }

  private pickEligible(): { entry: QueuedUrl; skippedHosts: number } | undefined {
    const now = this.politeness.now();
    return this.backend.pickBest((host) => this.politeness.wait(host, now) === 0);
  }

  /** True when `next()` would return null now (politeness waits count as empty). */
  hasNothingToHandOut(): boolean {
    if (this.order?.active) return this.order.hasNothingToHandOut();
    return !this.budgetLeft() || this.pickEligible() === undefined;
  }

  /** Budget spent or queue empty (URLs in flight are the caller's to count). */
  isExhausted(): boolean {
    if (this.order?.active) return this.order.isExhausted();
    return this.nothingLeftToChoose();
  }

  /** Budget spent or queue empty. */
  nothingLeftToChoose(): boolean {
    return !this.budgetLeft() || this.backend.size === 0;
  }

  /**
   * Hand out the best URL whose host may be fetched now, or null (queue empty, budget spent, or
   * every queued host waiting). robots.txt is fetched once per origin on the way; a disallowed
   * URL is dropped here, before it costs a page of the budget.
   */
  async next(): Promise<QueuedUrl | null> {
    if (this.order?.active) return this.order.next();
    // The host's request starts in the same turn as the choice: with an await between them a
    // concurrent next() could choose the same host inside its per-host delay.
    return this.select(
      (host) => this.politeness.wait(host) === 0,
      (host) => this.politeness.started(host),
    );
  }

  /**
   * Choose the best URL whose host `eligible` accepts and journal it as handed out (robots.txt
   * checked on the way), or null; `onChosen` starts its host's request in the same turn (or the caller does, later).
   */
  async select(eligible: (host: string) => boolean, onChosen?: (host: string) => void): Promise<QueuedUrl | null> {
    let picked: { entry: QueuedUrl; skippedHosts: number } | undefined;
    for (;;) {
      // Checked on every pass: another call may have spent the budget while this one waited
      // for a robots.txt (clean-clone CI: a resumed crawl of 30 pages fetched 31).
      if (!this.budgetLeft()) return null;
      picked = this.backend.pickBest(eligible);
      if (!picked) return null;
      const { entry } = picked;
      const robots = this.robots;
      if (!robots || entry.revisit) break;
      if (!robots.isLoaded(entry.url)) {
        // Fetch robots.txt once per origin, then pick again: its Crawl-delay may now apply.
        const info = await robots.load(entry.url);
        if (info && info.status > 0) this.politeness.touchedOnce(hostOf(entry.url)); // robots.txt itself was a request
        continue;
      }
      if (robots.isAllowed(entry.url)) break;
      const reason = robots.refusal?.(entry.url) ?? 'robots.txt';
      this.do({ o: 'x', k: entry.uniqueKey, r: reason, u: entry.url });
      this.onDrop?.(entry, reason);
    }
    const { entry, skippedHosts } = picked;
    this.do({ o: 'h', k: entry.uniqueKey, n: this.backend.handedOut + 1, ...(skippedHosts ? { sk: skippedHosts } : {}) });
    this.flush();
    onChosen?.(hostOf(entry.url));
    this.onHandOut?.(entry);
    return entry;
  }

  /** A handed-out URL is done (fetched or failed for good). */
  /** `ended`: the host's request was already counted as ended (`requestEnded`, at the fetch's end). */
  finish(uniqueKey: string, url: string, ended = false): void {
    if (!ended) this.politeness.ended(hostOf(url));
    this.do({ o: 'f', k: uniqueKey });
    this.flush();
    this.maybeSnapshot();
  }

  // ---- crash safety ------------------------------------------------------------------

  /** The whole frontier as plain data (queued, in flight, seen, dropped). */
  snapshotState(): FrontierState {
    return this.backend.snapshot();
  }

  private maybeSnapshot(force = false): void {
    const j = this.journal;
    if (!j) return;
    if (force || j.opsSinceSnapshot > Math.max(this.snapshotEveryOps, 4 * this.backend.size)) j.snapshot(this.backend.snapshot());
  }

  /** Write a snapshot now (end of run, after a resume). */
  snapshotNow(): void {
    this.maybeSnapshot(true);
  }

  /**
   * Rebuild the frontier after a crash from a snapshot and the journal after it (replayed
   * through the same `apply` as live calls). URLs handed out but not finished go back into the
   * queue, except those `isDone` says were fetched (the crawl log is the record of fetched
   * pages). Returns how many were put back.
   */
  restore(state: { snapshot?: FrontierSnapshot; ops: FrontierOp[] }, isDone: (key: string, url: string) => boolean): { requeued: number; queued: number } {
    if (state.snapshot) this.backend.load(state.snapshot);
    for (const op of state.ops) this.backend.apply(op);
    let requeued = 0;
    for (const e of this.backend.inFlightEntriesList()) {
      // Fetched (the crawl log says so): finished. Not journalled: the snapshot below covers it.
      if (isDone(e.uniqueKey, e.url)) this.backend.apply({ o: 'f', k: e.uniqueKey });
      else if (this.backend.requeueInFlight(e.uniqueKey)) requeued++;
    }
    this.maybeSnapshot(true);
    return { requeued, queued: this.backend.size };
  }
}
