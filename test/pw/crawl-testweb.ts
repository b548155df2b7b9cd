/**
 * Helper for report.spec.ts (run with tsx in a child process, so the spec stays independent of
 * the crawler's module loading): crawls the local test web with the HTTP fetcher, writes the
 * report through the report plugin, and prints what the spec checks as one JSON line.
 */
import { parseConfig } from '../../src/config/schema.js';
import { runCrawl } from '../../src/crawl/engine.js';
import { ProgressReporter } from '../../src/report/progress.js';
import { reportPlugin } from '../../src/plugins/report.js';
import { CrawlLog } from '../../src/store/crawl-log.js';
import { startTestWeb } from '../../src/testweb/index.js';

const storageDir = process.argv[2];
const maxPages = Number(process.argv[3] ?? 40);
const strategy = (process.argv[4] ?? 'combined') as 'combined';
const web = await startTestWeb({});
try {
  const config = parseConfig({ topics: [{ keywords: web.demo.keywords, seeds: web.demo.seeds }], allowPrivate: web.sites.map((s) => s.origin), storageDir, maxPages, fetcher: 'http', strategy });
  const plugin = reportPlugin(['csv']);
  const result = await runCrawl({ config, plugins: [plugin], truth: (u) => web.isRelevant(u, web.demo.topic), progress: new ProgressReporter({ quiet: true }) });
  const log = CrawlLog.read(result.logPath);
  const hosts = [...new Set(log.map((e) => new URL(e.url).host))];
  console.log(JSON.stringify({ runId: result.runId, strategy, fetched: result.fetched, relevant: result.relevant, failed: result.failed, logLines: log.length, hosts, firstHostCount: log.filter((e) => new URL(e.url).host === hosts[0]).length, summary: plugin.summary() }));
} finally {
  await web.close();
}
