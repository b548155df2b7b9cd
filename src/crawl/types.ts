import type { HarvestEstimate } from '../topic/page-classifier.js';
/**
 * The engine's public shapes: what a plugin sees and may do, a crawl's options and its result
 * (kept apart from the engine so plugins and the library read them without the engine's code).
 */
import type { Page } from 'playwright';
import type { Request } from 'crawlee';
import type { CrawlSharing, SharingStart } from '../cluster/sharing.js';
import type { CrawlConfig } from '../config/schema.js';
import type { PageAnalysis } from '../extract/types.js';
import type { RenderedPage } from '../fetch/crawler.js';
import type { CrawlFrontier } from '../frontier/frontier.js';
import type { ProgressReporter, ProgressStats } from '../report/progress.js';
import type { RunCounts } from '../store/counts.js';
import type { CrawlLogEntry } from '../store/crawl-log.js';
import type { PageJudge, Verdict } from '../judge/judge.js';
import type { PoliteFetch } from './polite-fetch.js';
import type { CrawlControl } from './steering.js';

/** What a plugin sees of each analysed HTML page, after relevance and scoring. */
export interface PageEvent {
  rendered: RenderedPage;
  analysis: PageAnalysis;
  verdict: Verdict;
  entry: CrawlLogEntry;
}

/** Live handles a plugin may use (the frontier for revisits, the progress line for messages). */
export interface CrawlContext {
  config: CrawlConfig;
  runId: string;
  runDir: string;
  storageDir: string;
  frontier: CrawlFrontier;
  progress: ProgressReporter;
  /**
   * The crawl's polite, gated fetching for requests that are not pages (comment-API pages):
   * gate, robots.txt, the frontier's per-host delay, limits, and the sub-request log
   * (src/crawl/polite-fetch.ts). Absent outside a crawl (unit tests).
   */
  fetch?: PoliteFetch;
  /**
   * The crawl's link graph as the scorer knows it (with a scorer shared through Redis, every
   * worker's pages): a fetched page's out-links in page order, and whether a URL was fetched.
   * Absent outside a crawl (unit tests).
   */
  links?: CrawlLinks;
  /** The crawl's page judge (the user's labels teach it: src/crawl/labels.ts). Absent outside a crawl. */
  judge?: PageJudge;
  /** Steering the crawl: pause, resume, stop, budget, blocks (src/crawl/steering.ts). Absent outside a crawl. */
  control?: CrawlControl;
}

/** Read access to the scorer's link graph (`CrawlContext.links`). */
export interface CrawlLinks {
  /** A fetched page's out-links in page order; undefined when the page was not fetched (or not yet taken in). */
  outLinks(url: string): Iterable<string> | undefined;
  fetched(url: string): boolean;
  /** A fetched page's verdict as the scorer took it in (relevant or a topical list); undefined when not fetched. */
  relevant(url: string): boolean | undefined;
}

/**
 * Features that ride along a crawl (reply threads, traces, the report) attach here rather than
 * editing the engine: data still flows one way, plugins observe and add.
 */
export interface CrawlPlugin {
  name: string;
  beforeRun?(ctx: CrawlContext): Promise<void> | void;
  /** Navigation hooks on the browser page (tracing, response capture). */
  preNavigation?(page: Page, request: Request): Promise<void> | void;
  postNavigation?(page: Page, request: Request, failed: boolean): Promise<void> | void;
  /** Before a browser page closes (every attempt, failed or not); keep it short (Crawlee closes pages within 5 s). */
  pageClosing?(page: Page): Promise<void> | void;
  /** Ask for one browser context per page (per-page traces). */
  isolatePages?: boolean;
  onPage?(event: PageEvent, ctx: CrawlContext): Promise<void> | void;
  onRecord?(entry: CrawlLogEntry, ctx: CrawlContext): void;
  /** Add fields to an analysed page's crawl-log line before it is written (threads: the reply matcher that decided). */
  annotate?(entry: CrawlLogEntry, page: RenderedPage): void;
  afterRun?(result: CrawlResult, ctx: CrawlContext): Promise<void> | void;
  /** Lines for the end-of-crawl summary. */
  summary?(): string[];
  /** Fields this plugin adds to the progress line. */
  progress?(): Partial<ProgressStats>;
  /** Counts this plugin owns (reply threads found and hot), read by the progress line, summary, `--json` and state.json alike. */
  counts?(): Partial<RunCounts>;
}

export interface CrawlOptions {
  config: CrawlConfig;
  /** Ground-truth label of a URL, when the crawl runs on a labelled web (test web, benchmarks). */
  truth?: (url: string) => boolean;
  /** Live progress (default: a status line on stderr). */
  progress?: ProgressReporter;
  plugins?: CrawlPlugin[];
  /** Run id; default a timestamp. */
  runId?: string;
  /** Continue an earlier run: true = the latest in the storage folder, or its run id (src/crawl/resume.ts). */
  resume?: boolean | string;
  /** Origin of the local test web's search site, for the `testweb` search provider. */
  testwebOrigin?: string;
  /** `--watch`: no page budget, Crawlee keepAlive; runs until Ctrl-C or the time limit (plugins keep offering revisits). */
  watch?: boolean;
  /** Each relevant page as it is saved (the dataset record itself), awaited; a throw is logged, never a crash. */
  onRelevantPage?(page: RelevantPage): Promise<void> | void;
  /** Aborting stops the crawl cleanly (what was fetched is kept; the run can be resumed). */
  signal?: AbortSignal;
  /** Ctrl-C stops the crawl (default true: the CLI owns its process; the library passes false). */
  handleSigint?: boolean;
  /**
   * Turn Crawlee's global log off (default true: the CLI keeps the terminal for progress, Crawlee's
   * errors are in the crawl log). The library passes false: Crawlee's log level is its user's.
   */
  silenceCrawleeLog?: boolean;
  /**
   * A crawl shared with other processes: the CLI and the library pass src/cluster/open.ts
   * `openSharing` (a Redis frontier when the config names one). Joined before the run folder is
   * locked. Default: a crawl of its own (a config naming a Redis frontier then fails at once).
   */
  sharing?: (start: SharingStart) => Promise<CrawlSharing>;
}

/** A relevant page: the record saved in the run's dataset (one JSON file per page). */
export interface RelevantPage {
  url: string;
  title: string;
  /** ISO 8601, when the page states one. */
  publishTime?: string;
  /** The topic's name (config `topics[].name`, else its keywords). */
  topic: string;
  /** Relevance to that topic, 0–1 (METHODS §1–2). */
  relevance: number;
  /** The frontier score the URL was fetched with. */
  score?: number;
  text: string;
  fetchedAt: string;
}

/** What a finished crawl returns: counts, harvest, where its run folder and dataset are. */
export interface CrawlResult {
  runId: string;
  runDir: string;
  datasetDir: string;
  logPath: string;
  fetched: number;
  relevant: number;
  failed: number;
  /** Every count, from the one tally (src/store/counts.ts); fetched/relevant/failed above are copies. */
  counts: RunCounts;
  /** Relevant (as judged by the crawler) / fetched. */
  harvestRate: number;
  /** The learned judge's own estimate of the harvest, with a 90% interval (src/topic/page-classifier.ts). */
  harvestEstimate?: HarvestEstimate;
  /** Relevant by ground truth / fetched, when a truth function was given. */
  truthHarvestRate?: number;
  /** Ground-truth harvest-rate curve: value after each fetched page. */
  truthCurve?: number[];
  /** Where the handler's time went, summed over pages (benchmarks; fetch/render is the rest of the wall time). */
  timings?: CrawlTimings;
  /** This run's time (a resumed run: since the resume). */
  elapsedMs: number;
  /** Pages this run fetched: `fetched` less those a resumed run had fetched before. */
  fetchedThisRun: number;
  /** This run's pages over this run's time. */
  pagesPerSecond: number;
  frontierSize: number;
  stopReason: string;
  /** Set when the crawl stopped at the memory ceiling (config maxRssMb): resident MB of what passed it (the process tree: Node, Chromium, the gate proxy; or Node's own process past its heap's ceiling) and the ceiling. State is saved; `--resume` continues. */
  memoryStop?: { rssMb: number; ceilingMb: number; of: 'process tree' | 'Node process' };
  /** Extra summary lines from plugins. */
  summaryLines: string[];
}

/** Milliseconds spent per stage in the page handler, summed over all HTML pages. */
export interface CrawlTimings {
  pages: number;
  extractMs: number;
  /** Tokenizing and relevance (the topic model). */
  judgeMs: number;
  scoreMs: number;
  frontierMs: number;
  /** Dataset, crawl log and plugins' record hooks. */
  storeMs: number;
}
