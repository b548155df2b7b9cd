/**
 * The outside baseline: plain Crawlee. Its own RequestQueue (FIFO, uniqueKey dedupe), the same
 * downloader glue and handler work as ours (src/fetch/crawler.ts, then analyzePage for the
 * links), and enqueueLinks-style following of every link the page has, with the same budget.
 * No relevance, no scoring, no frontier: what a crawler built on Crawlee does out of the box.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { log as crawleeLog, LogLevel, RequestQueue } from 'crawlee';
import { analyzePage } from '../src/extract/page.js';
import { browserLaunchOptions } from '../src/fetch/browser.js';
import { createBrowserFetcher, createHttpFetcher, crawleeConfig, type Fetcher } from '../src/fetch/crawler.js';

export interface BaselineOptions {
  seeds: string[];
  maxPages: number;
  maxConcurrency: number;
  fetcher: 'browser' | 'http';
  storageDir: string;
  truth: (url: string) => boolean;
  respectRobotsTxt?: boolean;
}

export interface BaselineResult {
  fetched: number;
  truthCurve: number[];
  truthHarvestRate: number;
  elapsedMs: number;
  pagesPerSecond: number;
  /** Handler time spent in analyzePage (extraction), summed over pages. */
  extractMs: number;
}

let runs = 0;

export async function runCrawleeBaseline(opts: BaselineOptions): Promise<BaselineResult> {
  crawleeLog.setLevel(LogLevel.WARNING);
  const storageDir = join(opts.storageDir, `crawlee-baseline-${process.pid}-${++runs}`);
  const queue = await RequestQueue.open(`baseline-${runs}`, { config: crawleeConfig(storageDir) });
  await queue.addRequests(opts.seeds.map((url) => ({ url })));
  const truthCurve: number[] = [];
  let hits = 0;
  let extractMs = 0;
  let crawler: Fetcher | undefined;
  // Crawlee's maxRequestsPerCrawl counts started requests; counting handled pages instead makes
  // the baseline's budget mean exactly what ours means (pages recorded), in-flight extras ignored.
  const record = (url: string) => {
    if (truthCurve.length >= opts.maxPages) return false;
    if (opts.truth(url)) hits++;
    truthCurve.push(hits / (truthCurve.length + 1));
    if (truthCurve.length >= opts.maxPages) crawler?.stop('budget reached');
    return true;
  };
  const common = {
    requestManager: queue,
    maxConcurrency: opts.maxConcurrency,
    navigationTimeoutSecs: 30,
    maxRequestRetries: 1,
    storageDir,
    respectRobotsTxt: opts.respectRobotsTxt ?? true,
    onPage: async (page: { request: { url: string }; url: string; html?: string; fetchedAt: Date }) => {
      if (!record(page.request.url) || page.html === undefined) return;
      const t = performance.now();
      const analysis = analyzePage({ html: page.html, url: page.url, fetchedAt: page.fetchedAt });
      extractMs += performance.now() - t;
      await queue.addRequests(analysis.links.filter((l) => /^https?:/.test(l.url)).map((l) => ({ url: l.url })));
    },
    onFailure: async (request: { url: string }) => {
      record(request.url);
    },
  };
  crawler =
    opts.fetcher === 'browser'
      ? createBrowserFetcher({ ...common, launchOptions: (await browserLaunchOptions()).launchOptions })
      : createHttpFetcher(common);
  const started = Date.now();
  try {
    await crawler.run();
  } finally {
    await queue.drop().catch(() => undefined);
    rmSync(storageDir, { recursive: true, force: true });
  }
  const elapsedMs = Date.now() - started;
  return {
    fetched: truthCurve.length,
    truthCurve,
    truthHarvestRate: truthCurve.length ? hits / truthCurve.length : 0,
    elapsedMs,
    pagesPerSecond: truthCurve.length / (elapsedMs / 1000),
    extractMs,
  };
}
