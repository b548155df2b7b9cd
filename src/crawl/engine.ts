/**
 * The engine: wires the stages together and owns the data flow, one way per page:
 * frontier → fetch (browser) → extract → topic (relevance) → score → frontier, and
 * store / report on the side. Stage logic lives in its own module; a crawl's lifecycle is
 * ./session.ts (open, run, close), each page's way ./page-handler.ts, its stops
 * ./stop-controller.ts; this file takes the storage lock and, for a worker, joins the shared crawl.
 */
import '../fetch/loopback-only.js'; // first: before Crawlee's browser pool opens its proxy
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ProgressReporter } from '../report/progress.js';
import { lockStorage } from '../store/storage-lock.js';
import { UserError } from '../config/errors.js';
import type { RedisCrawl } from '../frontier/redis.js';
import { CrawlSession } from './session.js';

export type { CrawlContext, CrawlOptions, CrawlPlugin, CrawlResult, CrawlTimings, PageEvent, RelevantPage } from './types.js';
import type { CrawlOptions, CrawlResult } from './types.js';

export async function runCrawl(options: CrawlOptions): Promise<CrawlResult> {
  const { config } = options;
  const progress = options.progress ?? new ProgressReporter();
  const plugins = options.plugins ?? [];
  const started = Date.now();
  const storageDir = resolve(config.storageDir);
  void config;
  const resumeFrom = options.resume ?? (config.resume || undefined);
  // A worker of a crawl shared through Redis (src/frontier/redis.ts): its own run folder
  // `runs/<crawl-id>.w<N>`, locked alone, so workers on one machine share a storage folder.
  const shared = config.frontier.url ? await joinSharedCrawl(options, progress) : undefined;
  const lockDir = shared ? join(storageDir, 'runs', shared.runId) : storageDir;
  if (shared) mkdirSync(lockDir, { recursive: true });
  // One crawl per storage folder (src/store/storage-lock.ts); released when the crawl ends.
  const unlock = await lockStorage(lockDir, { runId: shared?.runId ?? (typeof resumeFrom === 'string' ? resumeFrom : options.runId) });
  try {
    const session = await CrawlSession.open({ options, storageDir, resumeFrom, started, progress, plugins, shared });
    try {
      await session.run();
    } finally {
      await session.close();
    }
    return await session.finish();
  } finally {
    await unlock();
    await shared?.close();
  }
}

async function joinSharedCrawl(options: CrawlOptions, progress: ProgressReporter): Promise<RedisCrawl> {
  const { config } = options;
  const f = config.frontier;
  if (options.resume ?? config.resume) throw new UserError('--resume does not apply to a Redis frontier: the crawl\'s state is in Redis; start the worker again with --worker');
  const { RedisCrawl } = await import('../frontier/redis.js');
  const crawl = await RedisCrawl.join({
    url: f.url!,
    crawlId: f.crawlId!,
    worker: f.worker,
    settings: { maxPages: options.watch ? 0 : config.maxPages, perHostDelayMs: config.perHostDelayMs, perHostConcurrency: config.perHostConcurrency },
    log: (l) => progress.log(l),
  });
  progress.log(`Worker ${crawl.workerNumber} of crawl "${crawl.crawlId}" at ${f.url}${f.worker ? ' (joined)' : ''}: run folder runs/${crawl.runId}`);
  return crawl;
}
