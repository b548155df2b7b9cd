/**
 * Near-duplicate pages in a crawl: a forum thread's "only this author" views show a
 * subset of the thread page's posts. Crawled with the HTTP fetcher on the local test web, from a
 * thread page: its views are logged as near-duplicates of it, not relevant, and not saved.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { parseConfig } from '../src/config/schema.js';
import { runCrawl } from '../src/crawl/engine.js';
import { ProgressReporter } from '../src/report/progress.js';
import { CrawlLog } from '../src/store/crawl-log.js';
import { startTestWeb, type TestWeb } from '../src/testweb/index.js';
import { threadWithAuthorViews } from './helpers/author-views.js';

let web: TestWeb | undefined;
let dir = '';
afterAll(async () => {
  await web?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

it('a thread page\'s "only this author" views are near-duplicates of it: not relevant, not saved', async () => {
  web = await startTestWeb({});
  const w = web;
  const thread = await threadWithAuthorViews(w);
  expect(thread, 'an on-topic thread with three authors on the test web').not.toBe('');
  dir = mkdtempSync(join(tmpdir(), 'fc-neardup-'));
  const config = parseConfig({
    topics: [{ keywords: w.demo.keywords, seeds: [thread] }],
    allowPrivate: w.sites.map((s) => s.origin),
    storageDir: dir,
    maxPages: 40,
    maxDepth: 1,
    fetcher: 'http',
  });
  const result = await runCrawl({ config, progress: new ProgressReporter({ quiet: true }) });
  const log = CrawlLog.read(result.logPath);
  const saved = existsSync(result.datasetDir)
    ? readdirSync(result.datasetDir).filter((f) => f.endsWith('.json')).map((f) => (JSON.parse(readFileSync(join(result.datasetDir, f), 'utf8')) as { url: string }).url)
    : [];
  const threadPage = w.pageOf(thread);
  const views = log.filter((e) => e.url.includes('authorid=') && w.pageOf(e.url) === threadPage && e.decision !== 'failed');
  expect(views.length, 'author views of the seed thread fetched').toBeGreaterThan(0);
  for (const v of views) {
    expect(v.relevant, v.url).toBe(false);
    expect(v.decision, v.url).toBe('recorded');
    expect(v.reason, v.url).toContain(`near-duplicate of ${thread}`);
    expect(saved).not.toContain(v.url);
  }
  // The thread page itself is the relevant page, saved once.
  expect(saved).toContain(thread);
}, 300_000);
