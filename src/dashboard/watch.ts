/**
 * Watching a crawl shared through Redis from outside (`npm start -- --dashboard [PORT] --frontier
 * redis://… --crawl-id NAME`, no topic): the dashboard's page for the whole crawl, every worker's
 * pages read from the shared crawl log and the crawl-wide counts from the frontier's state in
 * Redis. It steers nothing (a worker's own dashboard does) and runs until Ctrl-C or the signal.
 */
import { UserError } from '../config/errors.js';
import { commandName } from '../util/command-name.js';
import { SharedCrawlLog } from '../cluster/redis-crawl-log.js';
import { dashboardPage } from './page.js';
import { startDashboardServer } from './server.js';
import { DashboardState } from './state.js';

export interface WatchOptions {
  url: string;
  crawlId: string;
  /** Port on 127.0.0.1 (0: any free port). */
  port: number;
  intervalMs?: number;
  onListening(url: string): void;
  /** Ends the watch (default: Ctrl-C). */
  signal?: AbortSignal;
}

export async function watchSharedCrawl(o: WatchOptions): Promise<void> {
  const log = SharedCrawlLog.open(o.url, o.crawlId);
  try {
    let status = await log.status().catch((e: Error) => {
      throw new UserError(`cannot reach Redis at ${o.url}: ${e.message}`);
    });
    if (!status.exists) throw new UserError(`no crawl "${o.crawlId}" in Redis at ${o.url}: start one with --frontier ${o.url} --crawl-id ${o.crawlId} and a topic`);
    const state = new DashboardState();
    const tick = async () => {
      for (const { entry } of await log.read()) state.add(entry);
      status = await log.status();
      state.sample(process.memoryUsage().rss / 2 ** 20);
    };
    await tick();
    const server = await startDashboardServer({
      port: o.port,
      intervalMs: o.intervalMs,
      page: () => dashboardPage({ runId: o.crawlId, topics: `crawl "${o.crawlId}", all workers, watched from outside` }),
      view: () =>
        state.view({
          labels: [],
          steering: [],
          control: { paused: false, stopping: false, budget: status.maxPages, blocks: [] },
          frontierTop: [],
          frontierSize: status.queued,
          inFlight: status.leased,
          memory: { rssMb: process.memoryUsage().rss / 2 ** 20, heapMb: process.memoryUsage().heapUsed / 2 ** 20 },
          ended: status.exists ? undefined : 'the crawl is gone from Redis',
        }),
      action: () => {
        throw new UserError("watching from outside steers nothing: open a worker's own dashboard (--dashboard on a worker) to steer");
      },
      explain: (url) => `--explain reads a worker's run folder: run ${commandName()} --explain ${url} --storage DIR on the worker's machine`,
    });
    o.onListening(server.url);
    const sampler = setInterval(() => void tick().catch(() => undefined), o.intervalMs ?? 1000);
    await new Promise<void>((done) => {
      const end = () => done();
      if (o.signal) o.signal.aborted ? end() : o.signal.addEventListener('abort', end, { once: true });
      else process.once('SIGINT', end);
    });
    clearInterval(sampler);
    await server.close();
  } finally {
    await log.close();
  }
}
