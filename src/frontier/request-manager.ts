/**
 * Crawlee's IRequestManager over a Frontier (pass `frontier.requestManager` as the crawler's
 * `requestManager` option). Thin on purpose: it turns queue entries into Crawlee `Request`s and
 * back, and keeps the Request objects Crawlee gives back for a retry; choosing, politeness,
 * robots and the journal are the Frontier's.
 */
import {
  Request,
  type AddRequestsBatchedResult,
  type IRequestManager,
  type RequestOptions,
  type RequestQueueOperationInfo,
  type RequestsLike,
  type Source,
} from '@crawlee/core';
import type { OfferResult, QueuedUrl } from './types.js';
import { uniqueKeyOf } from './url-key.js';
import { crawlUserData, type CrawlUserData } from './user-data.js';

/** What the adapter needs of a frontier (the Frontier class in ./frontier.ts provides it). */
export interface HandOutSource {
  next(): Promise<QueuedUrl | null>;
  /** May return a promise (a shared back end, ./redis.ts): awaited before Crawlee hears the request is done. */
  finish(uniqueKey: string, url: string, ended?: boolean): void | Promise<void>;
  offer(item: Omit<QueuedUrl, 'uniqueKey' | 'queuedAt'> & { uniqueKey?: string }): OfferResult;
  get(uniqueKey: string): QueuedUrl | undefined;
  hasSeenKey(uniqueKey: string): boolean;
  mayFetchNow(url: string): boolean;
  /** Politeness bookkeeping for a request handed out again after a retry, or given back. */
  requestStarted(url: string): void;
  requestEnded(url: string): void;
  hasNothingToHandOut(): boolean | Promise<boolean>;
  isExhausted(): boolean | Promise<boolean>;
  readonly size: number;
}

/** Crawlee's request manager over a Frontier (pass `frontier.requestManager` to a Crawlee crawler). */
export class FrontierRequestManager implements IRequestManager {
  private readonly inProgress = new Map<string, Request>();
  /** Requests Crawlee gave back for a retry: handed out again as the same object. */
  private readonly reclaimed = new Map<string, Request>();
  private handled = 0;
  /**
   * Set by the engine when crawl-log lines are written behind the fetch slot
   * (src/store/write-behind.ts): what a page's finish waits for (its line on disk). Finished in
   * the journal but missing from the log, a page would be lost to `--resume` after a crash; so it
   * stays in flight until its line is written, and a crash before that fetches it again. Its
   * host counts the request as ended at once (a held host slot made the focused order staler).
   * Local frontier only: a shared (Redis) lease must end with the finish itself.
   */
  finishAfter?: (uniqueKey: string) => Promise<void> | undefined;
  /** A request Crawlee gave back is handed out again (the gate proxy notes it as a page navigation, as at hand-out). */
  onRetry?: (url: string) => void;
  private readonly finishing = new Set<Promise<void>>();
  private finishError?: Error;
  /**
   * Paused (a user's pause, src/crawl/steering.ts): nothing is handed out and the crawl is
   * not finished, so Crawlee's pool idles; requests in flight end as usual.
   */
  paused = false;

  constructor(private readonly frontier: HandOutSource) {}

  get inProgressCount(): number {
    return this.inProgress.size;
  }

  async fetchNextRequest<T extends Record<string, any> = CrawlUserData>(): Promise<Request<T> | null> {
    if (this.paused) return null;
    for (const [key, req] of this.reclaimed) {
      if (!this.frontier.mayFetchNow(req.url)) continue;
      this.reclaimed.delete(key);
      this.inProgress.set(key, req);
      this.frontier.requestStarted(req.url);
      this.onRetry?.(req.url);
      return req as unknown as Request<T>;
    }
    const entry = await this.frontier.next();
    if (!entry) return null;
    const userData: CrawlUserData = {
      depth: entry.depth,
      parentUrl: entry.parentUrl,
      anchorText: entry.anchorText,
      revisit: entry.revisit,
      score: entry.score,
      components: entry.components,
    };
    const request = new Request<CrawlUserData>({ url: entry.url, uniqueKey: entry.uniqueKey, userData });
    request.crawlDepth = entry.depth;
    this.inProgress.set(entry.uniqueKey, request as unknown as Request);
    return request as unknown as Request<T>;
  }

  async markRequestHandled(request: Request): Promise<RequestQueueOperationInfo | null> {
    if (!this.inProgress.delete(request.uniqueKey)) return null;
    this.handled++;
    const logged = this.finishAfter?.(request.uniqueKey);
    if (!logged) await this.frontier.finish(request.uniqueKey, request.url);
    else {
      this.frontier.requestEnded(request.url);
      const finished: Promise<void> = logged
        .then(() => this.frontier.finish(request.uniqueKey, request.url, true))
        .catch((e) => void (this.finishError ??= e as Error))
        .finally(() => this.finishing.delete(finished));
      this.finishing.add(finished);
    }
    return info(request.uniqueKey);
  }

  /** Wait for the finishes still waiting on their log line (the crawl's end); throws the first that failed. */
  async settled(): Promise<void> {
    while (this.finishing.size) await Promise.all([...this.finishing]);
    if (this.finishError) throw this.finishError;
  }

  async reclaimRequest(request: Request): Promise<RequestQueueOperationInfo | null> {
    if (!this.inProgress.delete(request.uniqueKey)) return null;
    this.frontier.requestEnded(request.url);
    this.reclaimed.set(request.uniqueKey, request);
    return info(request.uniqueKey);
  }

  /** True when fetchNextRequest would return null now (politeness waits count as empty). */
  async isEmpty(): Promise<boolean> {
    if (this.paused) return true;
    if (this.reclaimed.size > 0) return false;
    return await this.frontier.hasNothingToHandOut();
  }

  async isFinished(): Promise<boolean> {
    if (this.paused) return false;
    if (this.inProgress.size > 0 || this.reclaimed.size > 0) return false;
    return await this.frontier.isExhausted();
  }

  async handledCount(): Promise<number> {
    return this.handled;
  }

  getTotalCount(): number {
    return this.handled + this.inProgress.size + this.reclaimed.size + this.frontier.size;
  }

  getPendingCount(): number {
    return this.frontier.size + this.reclaimed.size;
  }

  /** Crawlee's own addRequests path (e.g. `enqueueLinks`); scores from userData. */
  async addRequest(source: Source): Promise<RequestQueueOperationInfo> {
    const opts: RequestOptions = typeof source === 'string' ? { url: source } : (source as RequestOptions);
    const m = crawlUserData(opts);
    const uniqueKey = opts.uniqueKey ?? uniqueKeyOf(opts.url);
    const present = this.frontier.hasSeenKey(uniqueKey);
    this.frontier.offer({ url: opts.url, uniqueKey, depth: m.depth, parentUrl: m.parentUrl, score: m.score ?? 1 });
    return { ...info(uniqueKey), wasAlreadyHandled: present && !this.frontier.get(uniqueKey), wasAlreadyPresent: present };
  }

  async addRequestsBatched(requests: RequestsLike): Promise<AddRequestsBatchedResult> {
    const processedRequests: RequestQueueOperationInfo[] = [];
    for await (const r of requests as AsyncIterable<Source> | Iterable<Source>) processedRequests.push(await this.addRequest(r));
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

function info(uniqueKey: string): RequestQueueOperationInfo {
  return { requestId: uniqueKey, uniqueKey, wasAlreadyHandled: false, wasAlreadyPresent: true, forefront: false };
}
