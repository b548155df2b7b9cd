/**
 * A worker of a crawl shared through Redis appends each of its crawl-log lines to the crawl's
 * shared log (src/cluster/redis-crawl-log.ts), so a dashboard on any worker or one watching from
 * outside sees every worker's pages. Added by configPlugins whenever the frontier is in Redis.
 */
import { SharedCrawlLog } from '../cluster/redis-crawl-log.js';
import type { CrawlPlugin } from '../crawl/types.js';

export function sharedLogPlugin(url: string, crawlId: string): CrawlPlugin {
  let log: SharedCrawlLog | undefined;
  let worker = '';
  const sends = new Set<Promise<unknown>>();
  return {
    name: 'shared-log',
    beforeRun(ctx) {
      log = SharedCrawlLog.open(url, crawlId);
      worker = ctx.runId;
    },
    onRecord(entry) {
      if (!log) return;
      // A line that cannot reach Redis is still in the worker's own log file: the shared one is for watching.
      const p = log.append(entry, worker).catch(() => undefined);
      sends.add(p);
      void p.finally(() => sends.delete(p));
    },
    async afterRun() {
      await Promise.all(sends);
      await log?.close();
      log = undefined;
    },
  };
}
