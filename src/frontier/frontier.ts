/**
 * The frontier: our scheduler, handed to Crawlee as `requestQueue` (it implements
 * IRequestManager). It always hands out the best-scored eligible URL.
 *
 * Layout: one indexed max-heap of URLs per host, and a heap of hosts keyed by each host's best
 * URL score. Politeness (a minimum delay and a concurrency cap per host) then only skips
 * *hosts*, never pops and re-pushes URLs, and every operation stays O(log n) even when scores
 * change after enqueueing (METHODS §3: new in-links, feedback and IPageRank re-score URLs).
 */
import {
  Request,
  type AddRequestsBatchedResult,
  type IRequestManager,
  type RequestOptions,
  type RequestQueueOperationInfo,
  type RequestsLike,
  type Source,
} from 'crawlee';
import { IndexedMaxHeap } from './heap.js';
import type { FrontierJournal, FrontierSnapshot, JournalOp } from './journal.js';
import type { RobotsCache } from './robots.js';

export type ScoreComponents = Record<string, number>;

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
}

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
  robots?: Pick<RobotsCache, 'isLoaded' | 'load' | 'isAllowed' | 'crawlDelayMs'>;
  /** Journal of operations for crash safety (src/frontier/journal.ts). */
  journal?: FrontierJournal;
  /** Snapshot when the journal holds more operations than max(this, 4 × queued URLs). */
  snapshotEveryOps?: number;
}

/** What happened to an offered URL. */
export type OfferResult = 'queued' | 'rescored' | 'duplicate' | 'too-deep';

export function uniqueKeyOf(url: string): string {
  return Request.computeUniqueKey({ url, method: 'GET' });
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '';
  }
}

export class Frontier implements IRequestManager {
  private readonly entries = new Map<string, QueuedUrl>();
  private readonly urlHeaps = new Map<string, IndexedMaxHeap>();
  private readonly hostHeap = new IndexedMaxHeap();
  /** Every unique key ever queued: de-duplication outlives the entry. */
  private readonly seen = new Set<string>();
  private readonly inProgress = new Map<string, Request>();
  /** Requests Crawlee gave back for a retry: handed out again as the same object. */
  private readonly reclaimed = new Map<string, Request>();
  private readonly inFlightPerHost = new Map<string, number>();
  private readonly lastFetchPerHost = new Map<string, number>();
  private handedOut = 0;
  /** Better-scored hosts skipped for politeness at the last pick (for `--explain`). */
  private lastSkippedHosts = 0;
  private revisitCount = 0;
  private sequence = 0;
  private handled = 0;
  private readonly opts: Required<Omit<FrontierOptions, 'hostDelayMs' | 'robots' | 'journal'>> & Pick<FrontierOptions, 'hostDelayMs' | 'robots' | 'journal'>;
  /** Entries handed out and not finished, by key (snapshots put them back in the queue). */
  private readonly inFlightEntries = new Map<string, QueuedUrl>();
  /** Why a key was dropped (robots, filters, hard focus), for `--explain`. */
  private readonly dropReasons = new Map<string, string>();
  /** Called with each URL as it is handed out, for the crawl log and `--explain`. */
  onHandOut?: (entry: QueuedUrl) => void;
  /** Called when a URL is dropped at hand-out time (robots.txt): it is not fetched and not counted. */
  onDrop?: (entry: QueuedUrl, reason: string) => void;

  constructor(options: FrontierOptions = {}) {
    this.opts = {
      maxPages: options.maxPages ?? 0,
      maxDepth: options.maxDepth ?? Number.POSITIVE_INFINITY,
      perHostDelayMs: options.perHostDelayMs ?? 0,
      perHostConcurrency: options.perHostConcurrency ?? Number.POSITIVE_INFINITY,
      hostDelayMs: options.hostDelayMs,
      now: options.now ?? Date.now,
      robots: options.robots,
      journal: options.journal,
      snapshotEveryOps: options.snapshotEveryOps ?? 50_000,
    };
  }

  private log(op: JournalOp): void {
    this.opts.journal?.write(op);
  }

  /** Write journalled operations now (the engine calls it before appending to the crawl log). */
  flush(): void {
    this.opts.journal?.flush();
  }

  /**
   * Offer a URL with its score. A new URL is queued; a queued one takes the new score
   * (re-prioritised in place); a URL already handed out is a duplicate.
   */
  offer(item: Omit<QueuedUrl, 'uniqueKey' | 'queuedAt'> & { uniqueKey?: string }): OfferResult {
    const uniqueKey = item.uniqueKey ?? uniqueKeyOf(item.url);
    const existing = this.entries.get(uniqueKey);
    if (existing) {
      existing.score = item.score;
      existing.components = item.components;
      if (item.depth < existing.depth) existing.depth = item.depth;
      this.setScore(existing);
      this.log({ o: 'q', e: existing });
      return 'rescored';
    }
    if (this.seen.has(uniqueKey)) return 'duplicate';
    if (item.depth > this.opts.maxDepth) return 'too-deep';
    const entry: QueuedUrl = { ...item, uniqueKey, queuedAt: this.sequence++ };
    this.seen.add(uniqueKey);
    this.entries.set(uniqueKey, entry);
    this.setScore(entry);
    this.log({ o: 'q', e: entry });
    return 'queued';
  }

  /**
   * Queue an already-fetched URL again (a hot reply thread, METHODS §4). Each revisit is its own
   * entry with a distinct key, so de-duplication of discovery is untouched; it competes with
   * discovery by score and uses the same page budget.
   */
  offerRevisit(item: { url: string; depth: number; score: number; components?: ScoreComponents }): string {
    const uniqueKey = `${uniqueKeyOf(item.url)}#revisit-${++this.revisitCount}`;
    const entry: QueuedUrl = { ...item, uniqueKey, revisit: true, queuedAt: this.sequence++ };
    this.entries.set(uniqueKey, entry);
    this.setScore(entry);
    this.log({ o: 'q', e: entry });
    return uniqueKey;
  }

  /** Change a queued URL's score; false when it is not queued (fetched, dropped or unknown). */
  rescore(uniqueKey: string, score: number, components?: ScoreComponents): boolean {
    const entry = this.entries.get(uniqueKey);
    if (!entry) return false;
    entry.score = score;
    if (components) entry.components = components;
    this.setScore(entry);
    this.log({ o: 's', k: uniqueKey, s: score, c: components });
    return true;
  }

  /** Remove a queued URL (hard focus, site cutoff). It stays "seen", so it is not queued again. */
  drop(uniqueKey: string, reason = 'dropped'): boolean {
    const entry = this.entries.get(uniqueKey);
    if (!entry) return false;
    this.removeEntry(entry);
    this.dropReasons.set(uniqueKey, reason);
    this.log({ o: 'x', k: uniqueKey, r: reason, u: entry.url });
    return true;
  }

  /** Why a URL was dropped, if it was. */
  dropReason(uniqueKey: string): string | undefined {
    return this.dropReasons.get(uniqueKey);
  }

  get(uniqueKey: string): QueuedUrl | undefined {
    return this.entries.get(uniqueKey);
  }

  /** Queued URLs, for state snapshots and reports. */
  queued(): IterableIterator<QueuedUrl> {
    return this.entries.values();
  }

  hasSeen(url: string): boolean {
    return this.seen.has(uniqueKeyOf(url));
  }

  /** Mark keys as already fetched (used when resuming a crawl). */
  markSeen(uniqueKeys: Iterable<string>): void {
    for (const k of uniqueKeys) {
      if (this.seen.has(k)) continue;
      this.seen.add(k);
      this.log({ o: 'n', k });
    }
  }

  get size(): number {
    return this.entries.size;
  }

  get pagesHandedOut(): number {
    return this.handedOut;
  }

  set pagesHandedOutOffset(n: number) {
    this.handedOut = n;
  }

  get inProgressCount(): number {
    return this.inProgress.size;
  }

  private budgetLeft(): boolean {
    return this.opts.maxPages === 0 || this.handedOut < this.opts.maxPages;
  }

  private setScore(entry: QueuedUrl): void {
    const host = hostOf(entry.url);
    let heap = this.urlHeaps.get(host);
    if (!heap) {
      heap = new IndexedMaxHeap();
      this.urlHeaps.set(host, heap);
    }
    // Ties go to the older URL: a tiny age bonus keeps equal scores FIFO.
    heap.set(entry.uniqueKey, tieBreak(entry.score, entry.queuedAt));
    this.hostHeap.set(host, heap.peek()!.score);
  }

  private removeEntry(entry: QueuedUrl): void {
    const host = hostOf(entry.url);
    const heap = this.urlHeaps.get(host);
    this.entries.delete(entry.uniqueKey);
    if (!heap) return;
    heap.remove(entry.uniqueKey);
    const top = heap.peek();
    if (top) this.hostHeap.set(host, top.score);
    else {
      this.hostHeap.remove(host);
      this.urlHeaps.delete(host);
    }
  }

  /** Milliseconds until this host may be fetched again (0 = now). */
  private hostWait(host: string, now: number): number {
    if ((this.inFlightPerHost.get(host) ?? 0) >= this.opts.perHostConcurrency) return Number.POSITIVE_INFINITY;
    const delay = this.delayOf(host);
    // With a delay, one request at a time, and the delay counts from the previous request's
    // end: gaps between requests as the server sees them are then never shorter than it.
    if (delay > 0 && (this.inFlightPerHost.get(host) ?? 0) > 0) return Number.POSITIVE_INFINITY;
    const last = this.lastFetchPerHost.get(host);
    if (last === undefined || delay === 0) return 0;
    return Math.max(0, last + delay - now);
  }

  private delayOf(host: string): number {
    return Math.max(this.opts.perHostDelayMs, this.opts.hostDelayMs?.(host) ?? 0, this.opts.robots?.crawlDelayMs(host) ?? 0);
  }

  /** The best URL whose host may be fetched now, or undefined. */
  private pickEligible(): QueuedUrl | undefined {
    const now = this.opts.now();
    const skipped: { key: string; score: number }[] = [];
    let found: QueuedUrl | undefined;
    while (this.hostHeap.size > 0) {
      const top = this.hostHeap.pop()!;
      skipped.push(top);
      if (this.hostWait(top.key, now) > 0) continue;
      const best = this.urlHeaps.get(top.key)!.peek()!;
      found = this.entries.get(best.key);
      this.lastSkippedHosts = skipped.length - 1;
      break;
    }
    for (const s of skipped) this.hostHeap.set(s.key, s.score);
    return found;
  }

  /** Earliest time (ms) at which some queued host becomes eligible; for waiting loops. */
  nextEligibleInMs(): number {
    const now = this.opts.now();
    let min = Number.POSITIVE_INFINITY;
    for (const host of this.urlHeaps.keys()) min = Math.min(min, this.hostWait(host, now));
    return min;
  }

  private noteHandOut(url: string): void {
    const host = hostOf(url);
    this.inFlightPerHost.set(host, (this.inFlightPerHost.get(host) ?? 0) + 1);
    this.lastFetchPerHost.set(host, this.opts.now());
  }

  private noteDone(request: Request): void {
    const host = hostOf(request.url);
    const n = (this.inFlightPerHost.get(host) ?? 1) - 1;
    if (n <= 0) this.inFlightPerHost.delete(host);
    else this.inFlightPerHost.set(host, n);
    if (this.delayOf(host) > 0) this.lastFetchPerHost.set(host, Math.max(this.lastFetchPerHost.get(host) ?? 0, this.opts.now()));
  }

  // ---- crash safety ------------------------------------------------------------------

  /** The whole frontier as plain data (queued, in flight, seen, dropped). */
  snapshotState(): Omit<FrontierSnapshot, 'gen' | 'version'> {
    const seen: string[] = [];
    for (const k of this.seen) if (!this.entries.has(k) && !this.inFlightEntries.has(k)) seen.push(k);
    return {
      sequence: this.sequence,
      revisitCount: this.revisitCount,
      handedOut: this.handedOut,
      entries: [...this.entries.values()],
      inFlight: [...this.inFlightEntries.values()],
      seen,
      dropped: [...this.dropReasons],
    };
  }

  private maybeSnapshot(force = false): void {
    const j = this.opts.journal;
    if (!j) return;
    if (force || j.opsSinceSnapshot > Math.max(this.opts.snapshotEveryOps, 4 * this.entries.size)) j.snapshot(this.snapshotState());
  }

  /** Write a snapshot now (end of run, after a resume). */
  snapshotNow(): void {
    this.maybeSnapshot(true);
  }

  /**
   * Rebuild the frontier after a crash from a snapshot and the journal after it. URLs handed
   * out but not finished go back into the queue, except those `isDone` says were fetched (the
   * crawl log is the record of fetched pages). Returns how many were put back.
   */
  restore(state: { snapshot?: FrontierSnapshot; ops: JournalOp[] }, isDone: (key: string, url: string) => boolean): { requeued: number; queued: number } {
    const inFlight = new Map<string, QueuedUrl>();
    const put = (e: QueuedUrl) => {
      this.seen.add(e.uniqueKey);
      const old = this.entries.get(e.uniqueKey);
      if (old) Object.assign(old, e);
      else this.entries.set(e.uniqueKey, { ...e });
      this.setScore(this.entries.get(e.uniqueKey)!);
    };
    const snap = state.snapshot;
    if (snap) {
      this.sequence = snap.sequence;
      this.revisitCount = snap.revisitCount;
      this.handedOut = snap.handedOut;
      for (const e of snap.entries) put(e);
      for (const e of snap.inFlight) {
        this.seen.add(e.uniqueKey);
        inFlight.set(e.uniqueKey, e);
      }
      for (const k of snap.seen) this.seen.add(k);
      for (const [k, r] of snap.dropped) {
        this.seen.add(k);
        this.dropReasons.set(k, r);
      }
    }
    for (const op of state.ops) {
      switch (op.o) {
        case 'q':
          put(op.e);
          this.sequence = Math.max(this.sequence, op.e.queuedAt + 1);
          if (op.e.revisit) this.revisitCount++;
          break;
        case 's': {
          const e = this.entries.get(op.k);
          if (e) {
            e.score = op.s;
            if (op.c) e.components = op.c;
            this.setScore(e);
          }
          break;
        }
        case 'x': {
          const e = this.entries.get(op.k);
          if (e) this.removeEntry(e);
          this.seen.add(op.k);
          this.dropReasons.set(op.k, op.r ?? 'dropped');
          break;
        }
        case 'n':
          this.seen.add(op.k);
          break;
        case 'h': {
          const e = this.entries.get(op.k);
          if (e) {
            this.removeEntry(e);
            inFlight.set(op.k, e);
          }
          this.handedOut = op.n;
          break;
        }
        case 'f':
          inFlight.delete(op.k);
          break;
      }
    }
    let requeued = 0;
    for (const e of inFlight.values()) {
      if (isDone(e.uniqueKey, e.url)) continue;
      put(e);
      this.handedOut--;
      requeued++;
    }
    this.maybeSnapshot(true);
    return { requeued, queued: this.entries.size };
  }

  // ---- IRequestManager ---------------------------------------------------------------

  async fetchNextRequest<T extends Record<string, any> = Record<string, any>>(): Promise<Request<T> | null> {
    for (const [key, req] of this.reclaimed) {
      if (this.hostWait(hostOf(req.url), this.opts.now()) > 0) continue;
      this.reclaimed.delete(key);
      this.inProgress.set(key, req);
      this.noteHandOut(req.url);
      return req as unknown as Request<T>;
    }
    if (!this.budgetLeft()) return null;
    let entry: QueuedUrl | undefined;
    for (;;) {
      entry = this.pickEligible();
      if (!entry) return null;
      const robots = this.opts.robots;
      if (!robots || entry.revisit) break;
      if (!robots.isLoaded(entry.url)) {
        // Fetch robots.txt once per origin, then pick again: its Crawl-delay may now apply.
        const info = await robots.load(entry.url);
        const host = hostOf(entry.url);
        if (info && info.status > 0 && this.delayOf(host) > 0 && !this.lastFetchPerHost.has(host)) {
          this.lastFetchPerHost.set(host, this.opts.now()); // robots.txt itself was a request
        }
        continue;
      }
      if (robots.isAllowed(entry.url)) break;
      // Disallowed: dropped before hand-out, so it never costs a page of the budget.
      this.removeEntry(entry);
      this.dropReasons.set(entry.uniqueKey, 'robots.txt');
      this.log({ o: 'x', k: entry.uniqueKey, r: 'robots.txt', u: entry.url });
      this.onDrop?.(entry, 'robots.txt');
    }
    this.removeEntry(entry);
    this.handedOut++;
    this.inFlightEntries.set(entry.uniqueKey, entry);
    this.log({ o: 'h', k: entry.uniqueKey, n: this.handedOut, ...(this.lastSkippedHosts ? { sk: this.lastSkippedHosts } : {}) });
    this.flush();
    const request = new Request<T>({
      url: entry.url,
      uniqueKey: entry.uniqueKey,
      userData: {
        depth: entry.depth,
        parentUrl: entry.parentUrl,
        anchorText: entry.anchorText,
        revisit: entry.revisit,
        score: entry.score,
        components: entry.components,
      } as unknown as T,
    });
    request.crawlDepth = entry.depth;
    this.inProgress.set(entry.uniqueKey, request as unknown as Request);
    this.noteHandOut(entry.url);
    this.onHandOut?.(entry);
    return request;
  }

  async markRequestHandled(request: Request): Promise<RequestQueueOperationInfo | null> {
    if (!this.inProgress.delete(request.uniqueKey)) return null;
    this.noteDone(request);
    this.handled++;
    this.inFlightEntries.delete(request.uniqueKey);
    this.log({ o: 'f', k: request.uniqueKey });
    this.flush();
    this.maybeSnapshot();
    return { requestId: request.uniqueKey, uniqueKey: request.uniqueKey, wasAlreadyHandled: false, wasAlreadyPresent: true, forefront: false };
  }

  async reclaimRequest(request: Request): Promise<RequestQueueOperationInfo | null> {
    if (!this.inProgress.delete(request.uniqueKey)) return null;
    this.noteDone(request);
    this.reclaimed.set(request.uniqueKey, request);
    return { requestId: request.uniqueKey, uniqueKey: request.uniqueKey, wasAlreadyHandled: false, wasAlreadyPresent: true, forefront: false };
  }

  /** True when fetchNextRequest would return null now (politeness waits count as empty). */
  async isEmpty(): Promise<boolean> {
    if (this.reclaimed.size > 0) return false;
    if (!this.budgetLeft()) return true;
    return this.pickEligible() === undefined;
  }

  async isFinished(): Promise<boolean> {
    if (this.inProgress.size > 0 || this.reclaimed.size > 0) return false;
    return !this.budgetLeft() || this.entries.size === 0;
  }

  async handledCount(): Promise<number> {
    return this.handled;
  }

  getTotalCount(): number {
    return this.handled + this.inProgress.size + this.reclaimed.size + this.entries.size;
  }

  getPendingCount(): number {
    return this.entries.size + this.reclaimed.size;
  }

  /** Crawlee's own addRequests path (seeds given to crawler.run()); scores from userData. */
  async addRequest(source: Source): Promise<RequestQueueOperationInfo> {
    const opts: RequestOptions = typeof source === 'string' ? { url: source } : (source as RequestOptions);
    const userData = (opts.userData ?? {}) as { score?: number; depth?: number; parentUrl?: string };
    const uniqueKey = opts.uniqueKey ?? uniqueKeyOf(opts.url);
    const present = this.seen.has(uniqueKey);
    this.offer({ url: opts.url, uniqueKey, depth: userData.depth ?? 0, parentUrl: userData.parentUrl, score: userData.score ?? 1 });
    return { requestId: uniqueKey, uniqueKey, wasAlreadyHandled: present && !this.entries.has(uniqueKey), wasAlreadyPresent: present, forefront: false };
  }

  async addRequestsBatched(requests: RequestsLike): Promise<AddRequestsBatchedResult> {
    const processedRequests: RequestQueueOperationInfo[] = [];
    for await (const r of requests as AsyncIterable<Source> | Iterable<Source>) {
      processedRequests.push(await this.addRequest(r));
    }
    return { addedRequests: processedRequests, waitForAllRequestsToBeAdded: Promise.resolve([]) } as unknown as AddRequestsBatchedResult;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Request> {
    for (;;) {
      const r = await this.fetchNextRequest();
      if (!r) return;
      yield r;
    }
  }
}

/**
 * Equal scores are served oldest first. Folding the queue order into the key keeps one heap;
 * at 1e-12 per URL even a million URLs shift a score by only 1e-6.
 */
function tieBreak(score: number, sequence: number): number {
  return score - sequence * 1e-12;
}
