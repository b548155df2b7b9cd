/**
 * Helper for dashboard.spec.ts (run with tsx in a child process): crawls the local test web with
 * the HTTP fetcher and the dashboard on, slowly enough (a per-host delay) for a browser to watch
 * and steer it. Prints one JSON line when the dashboard listens ({ url, runDir, storage }) and one
 * when the crawl ends (its result); stdin closing stops nothing, the spec stops it from the page.
 */
import { parseConfig } from '../../src/config/schema.js';
import { runCrawl } from '../../src/crawl/engine.js';
import { configPlugins } from '../../src/crawl/config-plugins.js';
import { ProgressReporter } from '../../src/report/progress.js';
import { startTestWeb } from '../../src/testweb/index.js';

const storageDir = process.argv[2];
const maxPages = Number(process.argv[3] ?? 60);
const resume = process.argv[4] === 'resume';
// The resumed crawl must find the same web at the same origins: its queue holds their URLs.
const port = Number(process.argv[5] ?? 0) || undefined;
const web = await startTestWeb({ port });
try {
  const config = parseConfig({
    topics: [{ keywords: web.demo.keywords, seeds: web.demo.seeds }],
    allowPrivate: web.sites.map((s) => s.origin),
    storageDir,
    maxPages,
    fetcher: 'http',
    perHostDelayMs: 700,
    maxConcurrency: 2,
    ...(resume ? {} : { dashboard: 0 }),
  });
  const plugins = await configPlugins(config, { onDashboard: (url) => console.log(JSON.stringify({ url, sites: web.sites.map((s) => ({ name: s.name, origin: s.origin })) })) });
  const result = await runCrawl({ config, plugins, resume: resume || undefined, truth: (u) => web.isRelevant(u, web.demo.topic), progress: new ProgressReporter({ quiet: true }), handleSigint: false });
  console.log(JSON.stringify({ done: true, runId: result.runId, runDir: result.runDir, fetched: result.fetched, fetchedThisRun: result.fetchedThisRun, stopReason: result.stopReason, summary: result.summaryLines }));
} finally {
  await web.close();
}
