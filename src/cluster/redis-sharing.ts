/**
 * A worker of a crawl shared through Redis (docs/workers.md), as the engine sees it
 * (./sharing.ts `CrawlSharing`): the crawl joined (./redis-crawl.ts), the queue in Redis
 * (./redis-frontier.ts), robots.txt fetched once per origin for all workers, the per-host
 * schedule for requests that are not pages, the near-duplicate index (./redis-near-duplicate.ts)
 * and, as the config asks, the scorers' inputs (./redis-scorer-pages.ts) and the judges'
 * (./redis-judge-inputs.ts) replayed before each page is routed.
 */
import type { CrawlConfig } from '../config/schema.js';
import { UserError } from '../config/errors.js';
import type { CrawlFrontier } from '../frontier/frontier.js';
import type { PageJudge } from '../judge/judge.js';
import type { FetchedPage, Scorer } from '../score/types.js';
import { RedisCrawl, RedisFrontier } from './redis-frontier.js';
import { SharedNearDuplicates } from './redis-near-duplicate.js';
import { replayOthers } from './redis-scorer-pages.js';
import type { CrawlSharing, FrontierParts, NearDuplicates, RobotsFetch, SharedHostSlots, SharingStart } from './sharing.js';

export class RedisSharing implements CrawlSharing {
  readonly journalsState = false;
  readonly slotWaitsForLine = true;
  /** The workers share one near-duplicate index. */
  private readonly nearDuplicateIndex: SharedNearDuplicates;
  private frontier: RedisFrontier | undefined;

  private constructor(
    readonly crawl: RedisCrawl,
    private readonly config: CrawlConfig,
  ) {
    this.nearDuplicateIndex = new SharedNearDuplicates(crawl.redis, crawl.prefix);
  }

  /** Joins the crawl named by the config's `frontier` (the first worker creates it). */
  static async join(start: SharingStart): Promise<RedisSharing> {
    const { config } = start;
    const f = config.frontier;
    if (start.resume ?? config.resume) throw new UserError("--resume does not apply to a Redis frontier: the crawl's state is in Redis; start the worker again with --worker");
    const crawl = await RedisCrawl.join({
      url: f.url!,
      crawlId: f.crawlId!,
      worker: f.worker,
      settings: { maxPages: start.watch ? 0 : config.maxPages, perHostDelayMs: config.perHostDelayMs, perHostConcurrency: config.perHostConcurrency },
      log: start.log,
    });
    start.log(`Worker ${crawl.workerNumber} of crawl "${crawl.crawlId}" at ${f.url}${f.worker ? ' (joined)' : ''}: run folder runs/${crawl.runId}`);
    return new RedisSharing(crawl, config);
  }

  /** `runs/<crawl-id>.w<N>`: each worker's own run folder, locked alone, so workers on one machine share a storage folder. */
  get runId(): string {
    return this.crawl.runId;
  }

  /** A joining worker does not seed the crawl. */
  get seeds(): boolean {
    return !this.config.frontier.worker;
  }

  robotsFetch(fetch: RobotsFetch): RobotsFetch {
    return this.crawl.sharedRobotsFetch(fetch);
  }

  async openFrontier(parts: FrontierParts): Promise<CrawlFrontier> {
    const { config } = this;
    this.frontier = new RedisFrontier(this.crawl, {
      maxDepth: config.maxDepth,
      leaseMs: config.frontier.leaseSecs * 1000,
      robots: parts.robots,
      log: parts.log,
      shareScorer: config.frontier.shareScorer ? { revive: parts.revive } : undefined,
      shareJudge: config.frontier.shareJudge,
    });
    return this.frontier;
  }

  /** The workers share what robots.txt says and when it was fetched. */
  get robotsBlock(): ((url: string) => Promise<string | undefined>) | undefined {
    const frontier = this.frontier;
    return frontier && ((url) => frontier.robotsBlock(url));
  }

  get sharedHosts(): SharedHostSlots | undefined {
    return this.frontier?.sharedHosts;
  }

  /** A browser's redirect hop takes its host's slot for all workers. */
  get holdHop(): ((host: string, own: number, maxWaitMs: number) => Promise<(() => void) | undefined>) | undefined {
    const frontier = this.frontier;
    return frontier && ((host, own, maxWaitMs) => frontier.politeness.holdHop(host, own, maxWaitMs));
  }

  /** With shareJudge: what the judge learns from here on goes to the others (each learned the user's negative pages itself). */
  shareJudge(judge: PageJudge): void {
    const frontier = this.frontier;
    if (frontier && this.config.frontier.shareJudge) judge.onInput = (input) => frontier.shareJudgeInput(input);
  }

  seeded(): void {
    if (this.seeds) this.frontier?.markSeeded();
  }

  /** A joined worker is ready to fetch: now it waits for the first worker's seeds (its start-up overlapped the seeding instead of following it). */
  async waitForSeeds(): Promise<void> {
    if (this.config.frontier.worker) await this.crawl.waitForSeeds();
  }

  /**
   * Other workers' pages first (with shareScorer): this page's links are scored with the whole
   * crawl's evidence (their links' scores were sent by their own workers); then what their judges
   * learned from their pages (with shareJudge), before this page is judged; then the shared
   * near-duplicate index's answer.
   */
  async beforeRoute(scorer: Scorer, judge: PageJudge, isSeed: (url: string) => boolean, page: { url: string; text: string; id: string } | undefined): Promise<NearDuplicates> {
    const frontier = this.frontier!;
    await replayOthers(frontier, scorer, isSeed);
    for (const input of await frontier.othersJudgeInputs()) judge.replay(input);
    const duplicateOf = page ? await this.nearDuplicateIndex.check(page.url, page.text, page.id) : undefined;
    return { check: () => duplicateOf };
  }

  shareScorerInput(input: FetchedPage): void {
    this.frontier?.shareScorerInput(input);
  }

  stopReason(fetchedHere: number): string | undefined {
    return this.frontier?.stopReason(fetchedHere);
  }

  async close(log: (line: string) => void): Promise<void> {
    const n = this.nearDuplicateIndex.stats;
    log(`Near-duplicates shared through Redis: ${n.checked} pages checked, ${n.calls} round trips, ${n.readFromOthers} sketches read from other workers`);
    await this.frontier?.close();
  }

  async leave(): Promise<void> {
    await this.crawl.close();
  }
}
