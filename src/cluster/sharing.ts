/**
 * What a crawl shares with the other processes of the same crawl, behind one interface: the
 * engine (src/crawl/session.ts, src/crawl/page-handler.ts) calls these hooks at fixed points of a
 * crawl and of each page, and never asks which implementation it holds. A crawl of its own gets
 * `LocalSharing` (every hook a no-op or the in-process answer); the workers of a crawl shared
 * through Redis get `RedisSharing` (./redis-sharing.ts), which keeps the queue, robots.txt, the
 * per-host schedule, the near-duplicate index and the scorers' and judges' inputs in Redis
 * (docs/workers.md), as scrapy-redis keeps its shared state behind the scheduler and dupe filter.
 *
 * The CLI and the library pass the engine ./open.ts `openSharing` (`CrawlOptions.sharing`).
 */
import type { CrawlConfig } from '../config/schema.js';
import type { CrawlFrontier } from '../frontier/frontier.js';
import type { RobotsCache, RobotsOptions } from '../frontier/robots.js';
import type { PageJudge } from '../judge/judge.js';
import type { FetchedPage, Scorer } from '../score/types.js';

/** Fetches a robots.txt body (src/frontier/robots.ts `fetchText`). */
export type RobotsFetch = NonNullable<RobotsOptions['fetchText']>;

/** A page's text checked against the crawl's earlier pages: the earlier page's URL, or undefined (src/crawl/route.ts `NearDuplicateCheck`). */
export interface NearDuplicates {
  check(url: string, text: string, id: string): string | undefined;
}

/** A host's slot in a schedule shared with other processes, for requests that are not pages (src/crawl/polite-fetch.ts `sharedHosts`). */
export interface SharedHostSlots {
  hold(host: string, own: number): Promise<{ token: string } | { waitMs: number }>;
  release(token: string): Promise<void>;
}

/** What the engine gives `openFrontier`: the parts a shared frontier works with, and its own frontier's maker. */
export interface FrontierParts {
  robots: RobotsCache | undefined;
  log: (line: string) => void;
  /** A scorer input back from JSON (its dates revived), for other workers' pages. */
  revive: (page: FetchedPage) => FetchedPage;
  /** The crawl's own in-memory frontier, made when the crawl has nobody to share with. */
  local: () => CrawlFrontier;
}

/** Where a shared crawl is joined from: the engine's options, read before the run folder is locked. */
export interface SharingStart {
  config: CrawlConfig;
  watch?: boolean;
  resume?: boolean | string;
  log: (line: string) => void;
}

export interface CrawlSharing {
  /** This process's run id when the shared crawl names it (a worker's `<crawl-id>.w<N>`); undefined: the crawl's own. */
  readonly runId: string | undefined;
  /** This process offers the seeds (false: a worker joining a crawl another process seeds). */
  readonly seeds: boolean;
  /**
   * The crawl's learned state (the judge's inputs, the near-duplicate index) is journalled in the
   * run folder for `--resume`; false when it lives with the other processes instead.
   */
  readonly journalsState: boolean;
  /** A page's frontier slot is released only once its crawl-log line is written (the line must be down before another process may take the page). */
  readonly slotWaitsForLine: boolean;
  /** robots.txt fetched through this (shared: once per origin for all processes). */
  robotsFetch(fetch: RobotsFetch): RobotsFetch;
  /** The frontier: the shared one, or `parts.local()`. */
  openFrontier(parts: FrontierParts): Promise<CrawlFrontier>;
  /** robots.txt's verdict for a request the queue did not hand out (redirect hops, comment APIs), when the shared schedule gives it; undefined: the crawl's own check. */
  readonly robotsBlock: ((url: string) => Promise<string | undefined>) | undefined;
  /** The host schedule shared with other processes, for requests that are not pages. */
  readonly sharedHosts: SharedHostSlots | undefined;
  /** A browser's redirect hop takes its host's slot in the shared schedule (src/fetch/gate/gate-proxy.ts `holdHop`). */
  readonly holdHop: ((host: string, own: number, maxWaitMs: number) => Promise<(() => void) | undefined>) | undefined;
  /** The judge's inputs go to the other processes from here on. */
  shareJudge(judge: PageJudge): void;
  /** The seeds are offered. */
  seeded(): void;
  /** Ready to fetch: waits until the crawl is seeded (by whichever process seeds it). */
  waitForSeeds(): Promise<void>;
  /**
   * Before a page is routed: what the other processes' pages taught their scorers and judges,
   * taken in first, and the shared near-duplicate index's answer for the page (the route itself
   * is synchronous; `page` undefined: the page is not checked). Undefined: nothing to wait for,
   * the page is routed at once with the crawl's own index (a crawl of its own does not yield
   * between a page's analysis and its route, so its fetch order stays what it was).
   */
  beforeRoute(scorer: Scorer, judge: PageJudge, isSeed: (url: string) => boolean, page: { url: string; text: string; id: string } | undefined): Promise<NearDuplicates> | undefined;
  /** A page's scorer input, for the other processes' scorers. */
  shareScorerInput(input: FetchedPage): void;
  /** Why the crawl ended when the shared crawl decides it (budget or queue of all processes); undefined: the crawl's own reason. */
  stopReason(fetchedHere: number): string | undefined;
  /** The crawl is over: what is in flight is sent, the frontier closed (its notices to `log`). */
  close(log: (line: string) => void): Promise<void>;
  /** The process leaves the shared crawl (after its run folder is unlocked); safe after `close` and without it. */
  leave(): Promise<void>;
}

/** A crawl of its own: nothing to share. */
export class LocalSharing implements CrawlSharing {
  readonly runId = undefined;
  readonly seeds = true;
  readonly journalsState = true;
  readonly slotWaitsForLine = false;
  readonly robotsBlock = undefined;
  readonly sharedHosts = undefined;
  readonly holdHop = undefined;

  /** `config` names no Redis frontier (else the CLI or library must pass `openSharing`). */
  constructor(config?: CrawlConfig) {
    if (config?.frontier.url) throw new Error('a crawl on a Redis frontier needs CrawlOptions.sharing (src/cluster/open.ts openSharing)');
  }

  robotsFetch(fetch: RobotsFetch): RobotsFetch {
    return fetch;
  }
  async openFrontier(parts: FrontierParts): Promise<CrawlFrontier> {
    return parts.local();
  }
  shareJudge(): void {}
  seeded(): void {}
  async waitForSeeds(): Promise<void> {}
  beforeRoute(): undefined {
    return undefined;
  }
  shareScorerInput(): void {}
  stopReason(): string | undefined {
    return undefined;
  }
  async close(): Promise<void> {}
  async leave(): Promise<void> {}
}
