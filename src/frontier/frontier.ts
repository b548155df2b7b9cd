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
  private revisitCount = 0;
  private sequence = 0;
  private handled = 0;
  private readonly opts: Required<Omit<FrontierOptions, 'hostDelayMs'>> & Pick<FrontierOptions, 'hostDelayMs'>;
  /** Called with each URL as it is handed out, for the crawl log and `--explain`. */
  onHandOut?: (entry: QueuedUrl) => void;

  constructor(options: FrontierOptions = {}) {
    this.opts = {
      maxPages: options.maxPages ?? 0,
      maxDepth: options.maxDepth ?? Number.POSITIVE_INFINITY,
      perHostDelayMs: options.perHostDelayMs ?? 0,
      perHostConcurrency: options.perHostConcurrency ?? Number.POSITIVE_INFINITY,
      hostDelayMs: options.hostDelayMs,
      now: options.now ?? Date.now,
    };
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
      return 'rescored';
    }
    if (this.seen.has(uniqueKey)) return 'duplicate';
    if (item.depth > this.opts.maxDepth) return 'too-deep';
    const entry: QueuedUrl = { ...item, uniqueKey, queuedAt: this.sequence++ };
    this.seen.add(uniqueKey);
    this.entries.set(uniqueKey, entry);
    this.setScore(entry);
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
    return uniqueKey;
  }

  /** Change a queued URL's score; false when it is not queued (fetched, dropped or unknown). */
  rescore(uniqueKey: string, score: number, components?: ScoreComponents): boolean {
    const entry = this.entries.get(uniqueKey);
    if (!entry) return false;
    entry.score = score;
    if (components) entry.components = components;
    this.setScore(entry);
    return true;
  }

  /** Remove a queued URL (hard focus, site cutoff). It stays "seen", so it is not queued again. */
  drop(uniqueKey: string): boolean {
    const entry = this.entries.get(uniqueKey);
    if (!entry) return false;
    this.removeEntry(entry);
    return true;
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
    for (const k of uniqueKeys) this.seen.add(k);
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
    const delay = Math.max(this.opts.perHostDelayMs, this.opts.hostDelayMs?.(host) ?? 0);
    const last = this.lastFetchPerHost.get(host);
    if (last === undefined || delay === 0) return 0;
    return Math.max(0, last + delay - now);
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
    const entry = this.pickEligible();
    if (!entry) return null;
    this.removeEntry(entry);
    this.handedOut++;
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
