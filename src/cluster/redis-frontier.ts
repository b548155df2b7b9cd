/**
 * The frontier on Redis: one crawl shared by several workers (processes on one machine or many),
 * after scrapy-redis and Frontera. The in-memory `Frontier` (src/frontier/frontier.ts) stays the default;
 * this is the same `CrawlFrontier` contract with its state in Redis, changed only by the Lua
 * scripts of ./redis-scripts.ts (each atomic, so no two workers ever race on a read-modify-write).
 *
 * What is shared (in Redis): the queue (per-host sorted sets), de-duplication (the seen set),
 * the page budget, the per-host schedule (delay and robots.txt Crawl-delay, on Redis's clock),
 * robots.txt itself (fetched once per origin for all workers), drops, and leases. What each worker
 * keeps: its scorer (see docs/workers.md), its crawl log, dataset, thread
 * store and report under its own run folder `runs/<crawl-id>.w<N>/`.
 *
 * Why the in-memory back end's `apply(op)` is not reused: hand-out must pick the best host that
 * may go now *and* lease its URL in one step across processes, so politeness moves into Redis
 * with the queue (a `pickBest(eligible)` callback cannot run inside Redis).
 *
 * Leases: a handed-out URL is leased for `leaseMs`, renewed by its worker every third of that
 * (from a thread of its own, ./redis-lease-heartbeat.ts, so a busy main thread keeps its leases).
 * A worker killed with -9 stops renewing; its URLs go back to the queue (and their pages back
 * to the budget) when any worker next asks for work. A URL finished is never handed out again.
 * The mutators the engine calls while routing a page (offer, rescore, drop, markSeen) answer at
 * once and are sent in order on one connection; `finish` waits for them, so a page's links are
 * in Redis before its lease ends: a crash between the two re-fetches the page, never loses links.
 *
 * Long because: the CrawlFrontier contract in full (hand-out with robots.txt, leases, finish,
 * retries, the mutators, status, the shared scorer's and judge's streams) over one connection.
 */
import type { CrawlFrontier } from '../frontier/frontier.js';
import type { RedisCrawl } from './redis-crawl.js';
import { HOLD_MS, SharedHostPoliteness } from './redis-politeness.js';
import { FrontierRequestManager } from '../frontier/request-manager.js';
import { startLeaseHeartbeat, type LeaseHeartbeat } from './redis-lease-heartbeat.js';
import type { SharedInputStream } from './redis-input-stream.js';
import { SharedScorerState, type SnapshotPolicy } from './redis-scorer-state.js';
import { sharedJudgeInputs } from './redis-judge-inputs.js';
import { REDIS_SCRIPTS } from './redis-scripts.js';
import type { RobotsCache } from '../frontier/robots.js';
import type { JudgedPage } from '../judge/judge.js';
import type { FetchedPage } from '../score/types.js';
import type { OfferResult, QueuedUrl, ScoreComponents } from '../frontier/types.js';
import { hostOf, uniqueKeyOf } from '../frontier/url-key.js';
import { commandName } from '../util/command-name.js';

export { RedisCrawl, crawlPrefix, type JoinOptions, type SharedCrawlSettings } from './redis-crawl.js';

interface StoredEntry extends QueuedUrl {
  host: string;
  /** The worker whose score the entry holds. */
  w: string;
  v?: number; // with shared scorers: the scorer inputs taken in by the scorer that set the score
}

export interface RedisFrontierOptions {
  maxDepth?: number;
  /** How long a handed-out URL stays leased without renewal (ms). */
  leaseMs?: number;
  /** Leases that may expire on one URL before it is dropped (a page that kills its workers). */
  maxTries?: number;
  robots?: Pick<RobotsCache, 'isLoaded' | 'load' | 'isAllowed' | 'crawlDelayMs' | 'block'> & Partial<Pick<RobotsCache, 'refusal'>>;
  log?: (line: string) => void;
  /** How long a request that is not a page holds its host if its worker dies (ms, default 60 s). */
  holdMs?: number;
  /**
   * The workers share their scorers' inputs (./redis-scorer-pages.ts): every scorer has the
   * whole crawl's evidence, so a re-prioritisation from any worker wins ("latest wins"), a
   * demotion included. Without it a worker's score only raises another worker's (max).
   * `revive` brings a page's dates back from JSON; the rest, when to snapshot (./redis-scorer-state.ts; tests).
   */
  shareScorer?: { revive: (p: FetchedPage) => FetchedPage } & SnapshotPolicy & { chunk?: number };
  /**
   * The workers share what their page judges learn (./redis-judge-inputs.ts): every judge takes
   * in every page of the crawl (IDF, seed set and its growth, term models, classifier).
   */
  shareJudge?: boolean;
}

/** Crawl-wide numbers, from the last script that returned them. */
export interface SharedStatus {
  exists: boolean;
  handedOut: number;
  queued: number;
  leases: number;
  readyHosts: number;
  maxPages: number;
  finished: number;
  /** The first worker's seeds are in (before that, an empty queue is not the end). */
  seeded: boolean;
}

export class RedisFrontier implements CrawlFrontier {
  readonly requestManager: FrontierRequestManager;
  /**
   * This worker's own pacing of its pages and of the requests that are not pages, and the way
   * those requests take their host's slot in Redis for all workers: redirect hops through
   * `holdHop` (the HTTP and adaptive fetchers' own, and the gate proxy's for the browser),
   * comment APIs through `sharedHosts` (src/crawl/polite-fetch.ts). Pages are scheduled in Redis.
   */
  readonly politeness: SharedHostPoliteness;
  onHandOut?: (entry: QueuedUrl) => void;
  onDrop?: (entry: QueuedUrl, reason: string) => void;
  private readonly maxDepth: number;
  private readonly leaseMs: number;
  private readonly maxTries: number;
  private readonly log: (line: string) => void;
  /** URLs this worker holds a lease on. */
  private readonly leased = new Map<string, StoredEntry>();
  /** Keys this worker finished. */
  private readonly done = new Set<string>();
  /** Hosts of requests given back for a retry: not before this time (local clock). */
  private readonly pausedUntil = new Map<string, number>();
  /** Mutators sent and not yet answered. */
  private readonly pending = new Set<Promise<unknown>>();
  private failure?: Error;
  private revisits = 0;
  private status: SharedStatus = { exists: true, handedOut: 0, queued: 0, leases: 0, readyHosts: 0, maxPages: 0, finished: 0, seeded: false };
  private lastEnd: 'budget' | 'empty' | 'gone' | undefined;
  private readonly heartbeat: LeaseHeartbeat;
  /** With shareScorer: the scorer inputs' stream, the evidence count and the snapshot (./redis-scorer-state.ts). */
  readonly scorerSync?: SharedScorerState;
  private readonly judgeInputs?: SharedInputStream<JudgedPage>;
  /** Whose score an entry holds, for the re-prioritisation rule: this worker, or all of them alike. */
  private readonly scoreOwner: string;

  constructor(
    readonly crawl: RedisCrawl,
    private readonly o: RedisFrontierOptions = {},
  ) {
    this.maxDepth = o.maxDepth ?? Number.POSITIVE_INFINITY;
    this.leaseMs = o.leaseMs ?? 30_000;
    this.maxTries = o.maxTries ?? 3;
    this.log = o.log ?? ((l) => process.stderr.write(`${l}\n`));
    this.requestManager = new FrontierRequestManager(this);
    if (o.shareScorer) this.scorerSync = new SharedScorerState(crawl.redis, `${crawl.prefix}pages`, crawl.workerId, o.shareScorer.revive, this.log, o.shareScorer);
    if (o.shareJudge) this.judgeInputs = sharedJudgeInputs(crawl.redis, crawl.prefix, crawl.workerId);
    this.scoreOwner = o.shareScorer ? 'shared' : crawl.workerId;
    const s = crawl.settings;
    this.politeness = new SharedHostPoliteness(
      { perHostDelayMs: s.perHostDelayMs, perHostConcurrency: s.perHostConcurrency, hostDelayMs: (host) => o.robots?.crawlDelayMs(host) },
      { crawl, robots: o.robots, holdMs: o.holdMs ?? HOLD_MS, send: (p) => this.send(p) },
    );
    this.heartbeat = startLeaseHeartbeat({
      url: crawl.url,
      prefix: crawl.prefix,
      workerId: crawl.workerId,
      leaseMs: this.leaseMs,
      lua: REDIS_SCRIPTS.fcRenew,
      onLost: (keys) => {
        for (const k of keys) {
          const e = this.leased.get(k);
          if (e) this.log(`warning: the lease on ${e.url} expired before this worker finished it (the worker was stalled); another worker may fetch it`);
        }
      },
    });
  }

  private send(p: Promise<unknown>): void {
    const tracked = p.catch((e: Error) => {
      this.failure ??= e;
    });
    this.pending.add(tracked);
    void tracked.finally(() => this.pending.delete(tracked));
  }

  /** Wait for every mutator sent so far; rethrow the first that failed. */
  private async settle(): Promise<void> {
    while (this.pending.size) await Promise.all([...this.pending]);
    if (this.failure) throw this.failure;
  }

  private entry(item: Omit<QueuedUrl, 'uniqueKey' | 'queuedAt'> & { uniqueKey: string }): string {
    const e: Omit<StoredEntry, 'queuedAt'> = { ...item, host: hostOf(item.url), w: this.scoreOwner, v: this.scorerSync?.evidence };
    return JSON.stringify(e);
  }

  offer(item: Omit<QueuedUrl, 'uniqueKey' | 'queuedAt'> & { uniqueKey?: string }): OfferResult {
    const uniqueKey = item.uniqueKey ?? uniqueKeyOf(item.url);
    if (item.depth > this.maxDepth) return 'too-deep';
    this.send(this.crawl.call('fcOffer', uniqueKey, this.entry({ ...item, uniqueKey }), 'offer'));
    // Queued, re-prioritised or a duplicate: Redis decides; callers only act on 'too-deep'.
    return 'queued';
  }

  offerRevisit(item: { url: string; depth: number; score: number; components?: ScoreComponents }): string {
    const uniqueKey = `${uniqueKeyOf(item.url)}#revisit-w${this.crawl.workerNumber}-${++this.revisits}`;
    this.send(this.crawl.call('fcOffer', uniqueKey, this.entry({ ...item, uniqueKey, revisit: true }), 'offer'));
    return uniqueKey;
  }

  rescore(uniqueKey: string, score: number, components?: ScoreComponents): boolean {
    this.send(this.crawl.call('fcOffer', uniqueKey, JSON.stringify({ score, components, w: this.scoreOwner, v: this.scorerSync?.evidence }), 'rescore'));
    return true;
  }

  drop(uniqueKey: string, reason = 'dropped'): boolean {
    this.send(this.crawl.call('fcDrop', uniqueKey, reason));
    return true;
  }

  markSeen(uniqueKeys: Iterable<string>): void {
    const keys = [...uniqueKeys];
    if (keys.length) this.send(this.crawl.redis.sadd(`${this.crawl.prefix}seen`, ...keys));
  }

  /** The seeds are offered: from now on an empty queue with no leases out ends the crawl. */
  markSeeded(): void {
    this.send(this.crawl.markSeeded());
  }

  /**
   * The host schedule in Redis for requests that are not pages (src/crawl/polite-fetch.ts's
   * `sharedHosts`): they take their host's slot under the hand-out's rules, for all workers.
   */
  get sharedHosts(): SharedHostPoliteness {
    return this.politeness;
  }

  /** robots.txt for a request the queue did not hand out (./redis-politeness.ts). */
  robotsBlock(url: string): Promise<string | undefined> {
    return this.politeness.robotsBlock(url);
  }

  /** Publish this worker's scorer input of a page for the other workers (with shareScorer). */
  shareScorerInput(page: FetchedPage): void {
    if (this.scorerSync) this.send(this.scorerSync.publish(page));
  }

  /** This worker's scorer took in another worker's page (`replayOthers` counts them itself). */
  tookInOthersPage(): void { if (this.scorerSync) this.scorerSync.evidence++; }

  /** The other workers' scorer inputs since the last call (with shareScorer), each returned once to overlapping callers. */
  async othersScorerInputs(): Promise<FetchedPage[]> {
    return this.scorerSync ? this.scorerSync.stream.pull() : [];
  }

  /** Publish what this worker's judge learned from a page for the other workers (with shareJudge). */
  shareJudgeInput(input: JudgedPage): void {
    if (this.judgeInputs) this.send(this.judgeInputs.publish(input));
  }

  /** What the other workers' judges learned from their pages since the last call (with shareJudge), each returned once. */
  async othersJudgeInputs(): Promise<JudgedPage[]> {
    return this.judgeInputs ? this.judgeInputs.pull() : [];
  }

  flush(): void {} // mutators are on the wire in order already; Redis applies them before anything sent later

  /** Entries live in Redis; the engine's callers treat unknown as "not queued here". */
  get(): QueuedUrl | undefined {
    return undefined;
  }

  /** URLs this worker fetched (Redis de-duplicates every offer anyway). */
  hasSeen(url: string): boolean {
    return this.done.has(uniqueKeyOf(url));
  }

  hasSeenKey(uniqueKey: string): boolean {
    return this.done.has(uniqueKey);
  }

  /** Queued URLs of the whole crawl, as of the last answer from Redis. */
  get size(): number {
    return this.status.queued;
  }

  /** Pages handed out by all workers, as of the last answer from Redis. */
  get pagesHandedOut(): number {
    return this.status.handedOut;
  }

  /** Pages leased by all workers as of the last status answer (at least this worker's own). */
  get pagesInFlight(): number { return Math.max(this.status.leases, this.leased.size); }

  /** Resolves once leases are being renewed (the heartbeat thread is connected). */
  leasesRenewable(): Promise<void> {
    return this.heartbeat.ready;
  }

  get shared(): SharedStatus {
    return { ...this.status };
  }

  async next(): Promise<QueuedUrl | null> {
    await this.settle();
    const robots = this.o.robots;
    for (;;) {
      const [kind, handed, queued, payload] = (await this.crawl.call('fcHandout', this.crawl.workerId, this.leaseMs, this.maxTries)) as [string, number, number, string];
      this.status.handedOut = Number(handed);
      this.status.queued = Number(queued);
      if (kind !== 'ok') {
        this.lastEnd = kind as 'budget' | 'empty';
        return null;
      }
      const e = JSON.parse(payload) as StoredEntry;
      this.leased.set(e.uniqueKey, e);
      this.heartbeat.add(e.uniqueKey);
      if (robots && !e.revisit) {
        if (!robots.isLoaded(e.url)) {
          // robots.txt once per origin for the whole crawl; its Crawl-delay then binds every worker.
          const fetchedHere = await this.crawl.loadRobots(robots, e.url);
          const wait = Number(await this.crawl.call('fcCrawlDelay', e.host, robots.crawlDelayMs(e.host) ?? 0));
          if (fetchedHere || wait > 0) {
            // That request reached the host (this worker's, or another's for a redirect hop while
            // this URL was being handed out), or the delay just learned is not over: hand it back.
            await this.giveBack(e, fetchedHere, '');
            continue;
          }
        }
        if (!robots.isAllowed(e.url)) {
          const reason = robots.refusal?.(e.url) ?? 'robots.txt';
          await this.giveBack(e, false, reason);
          this.onDrop?.(e, reason);
          continue;
        }
      }
      this.politeness.started(e.host);
      this.onHandOut?.(e);
      return e;
    }
  }

  private async giveBack(e: StoredEntry, touched: boolean, dropReason: string): Promise<void> {
    this.leased.delete(e.uniqueKey);
    this.heartbeat.remove(e.uniqueKey);
    await this.crawl.call('fcGiveback', e.uniqueKey, this.crawl.workerId, touched ? '1' : '0', dropReason);
  }

  async finish(uniqueKey: string, url: string): Promise<void> {
    await this.settle(); // the page's links and drops are in Redis before its lease ends
    const r = await this.crawl.call('fcFinish', uniqueKey, this.crawl.workerId);
    const e = this.leased.get(uniqueKey);
    this.leased.delete(uniqueKey);
    this.heartbeat.remove(uniqueKey);
    this.pausedUntil.delete(e?.host ?? hostOf(url));
    this.politeness.ended(e?.host ?? hostOf(url));
    this.done.add(uniqueKey);
    if (r === 'taken') this.log(`warning: ${url} finished after its lease expired; another worker holds it now`);
  }

  mayFetchNow(url: string): boolean {
    return Date.now() >= (this.pausedUntil.get(hostOf(url)) ?? 0);
  }

  /** A retried request starts again under the lease this worker still holds. */
  requestStarted(url: string): void {
    this.politeness.started(hostOf(url));
  }

  /** A request given back to Crawlee for a retry: the host waits its delay, for every worker. */
  requestEnded(url: string): void {
    this.politeness.ended(hostOf(url));
    const e = [...this.leased.values()].find((x) => x.url === url);
    if (!e) return;
    this.pausedUntil.set(e.host, Number.POSITIVE_INFINITY);
    this.send(
      this.crawl.call('fcPause', e.uniqueKey, this.crawl.workerId).then((d) => {
        this.pausedUntil.set(e.host, Date.now() + Math.max(0, Number(d)));
      }),
    );
  }

  private async refresh(): Promise<SharedStatus> {
    const r = (await this.crawl.call('fcStatus', this.maxTries)) as (number | string)[];
    if (!Number(r[0])) {
      if (this.lastEnd !== 'gone') this.log(`crawl "${this.crawl.crawlId}" is gone from Redis at ${this.crawl.url} (restarted without persistence, or deleted): this worker stops`);
      this.lastEnd = 'gone';
      this.status.exists = false;
      return this.status;
    }
    const [, handedOut, queued, leases, readyHosts, maxPages, finished, seeded] = r.map(Number);
    this.status = { exists: true, handedOut, queued, leases, readyHosts, maxPages, finished, seeded: seeded === 1 };
    return this.status;
  }

  private budgetSpent(s: SharedStatus): boolean {
    return s.maxPages > 0 && s.handedOut >= s.maxPages;
  }

  async hasNothingToHandOut(): Promise<boolean> {
    const s = await this.refresh();
    return !s.exists || this.budgetSpent(s) || s.readyHosts === 0;
  }

  /** Over for everyone: budget spent or queue empty, no URL leased anywhere (a leased page may yet add links or come back). */
  async isExhausted(): Promise<boolean> {
    const s = await this.refresh();
    if (!s.exists) return true;
    return s.seeded && (this.budgetSpent(s) || s.queued === 0) && s.leases === 0;
  }

  /** Why the shared crawl ended, for the summary. */
  stopReason(fetchedHere: number): string {
    const s = this.status;
    const mine = `this worker fetched ${fetchedHere}; all workers' report: ${commandName()} --report ${this.crawl.crawlId}`;
    if (this.lastEnd === 'gone') return `crawl "${this.crawl.crawlId}" disappeared from Redis (${mine})`;
    if (this.budgetSpent(s)) return `shared page budget reached: ${s.handedOut} pages by all workers of crawl "${this.crawl.crawlId}" (${mine})`;
    return `shared frontier empty: ${s.handedOut} pages by all workers of crawl "${this.crawl.crawlId}" (${mine})`;
  }

  async close(): Promise<void> {
    await this.scorerSync?.idle(); // a snapshot being written goes in whole
    await this.heartbeat.close();
    await this.settle().catch(() => undefined);
    await this.crawl.close();
  }
}
