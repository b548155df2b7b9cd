/**
 * The engine: wires the stages together and owns the data flow, one way per page:
 * frontier → fetch (browser) → extract → topic (relevance) → score → frontier, and
 * store / report on the side. Stage logic lives in its own module; a crawl's lifecycle is
 * ./session.ts (open, run, close), each page's way ./page-handler.ts, its stops
 * ./stop-controller.ts; this file joins the crawl's sharing (src/cluster/, given by the caller) and
 * takes the storage lock.
 */
import '../fetch/loopback-only.js'; // first: before Crawlee's browser pool opens its proxy
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ProgressReporter } from '../report/progress.js';
import { lockStorage } from '../store/storage-lock.js';
import { CrawlSession } from './session.js';

export type { CrawlContext, CrawlOptions, CrawlPlugin, CrawlResult, CrawlTimings, PageEvent, RelevantPage } from './types.js';
import type { CrawlOptions, CrawlResult } from './types.js';

export async function runCrawl(options: CrawlOptions): Promise<CrawlResult> {
  const { config } = options;
  const progress = options.progress ?? new ProgressReporter();
  const plugins = options.plugins ?? [];
  const started = Date.now();
  const storageDir = resolve(config.storageDir);
  const resumeFrom = options.resume ?? (config.resume || undefined);
  // A crawl shared with other processes (src/cluster/): joined first, as it may name this
  // process's run folder (a Redis crawl's worker: `runs/<crawl-id>.w<N>`, locked alone, so
  // workers on one machine share a storage folder).
  const sharing = options.sharing && (await options.sharing({ config, watch: options.watch, resume: options.resume, log: (l) => progress.log(l) }));
  const lockDir = sharing?.runId ? join(storageDir, 'runs', sharing.runId) : storageDir;
  if (sharing?.runId) mkdirSync(lockDir, { recursive: true });
  try {
    // One crawl per storage folder (src/store/storage-lock.ts); released when the crawl ends.
    const unlock = await lockStorage(lockDir, { runId: sharing?.runId ?? (typeof resumeFrom === 'string' ? resumeFrom : options.runId) });
    try {
      const session = await CrawlSession.open({ options, storageDir, resumeFrom, started, progress, plugins, sharing });
      try {
        await session.run();
      } finally {
        await session.close();
      }
      return await session.finish();
    } finally {
      await unlock();
    }
  } finally {
    await sharing?.leave();
  }
}
