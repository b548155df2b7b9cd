/**
 * The near-duplicate index across `--resume`, end to end on the local test web: the
 * CLI crawls from an on-topic forum thread in a child process, is killed with SIGKILL once the
 * thread page is logged, and is resumed. The thread's "only this author" views fetched after
 * the resume are near-duplicates of the thread page saved before the kill, so no page saved
 * after the resume is the same page (by the test web's own routing, `pageOf`) as one saved
 * before; and every page has the decision the same crawl without the kill gives it. (Before the
 * index was restored, the resumed crawl had forgotten the thread's text and saved its views.)
 * One fetch at a time over plain HTTP, so both crawls fetch the same pages in the same order.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { NEAR_DUPLICATE_FILE } from '../src/crawl/near-duplicate-journal.js';
import { CrawlLog } from '../src/store/crawl-log.js';
import { RunDir } from '../src/store/run-dir.js';
import { startTestWeb, type TestWeb } from '../src/testweb/index.js';
import { threadWithAuthorViews } from './helpers/author-views.js';
import { cliChild, crawlLogLines, exited, firstRunDir } from './helpers/cli-child.js';
import { killGroupWhen } from './helpers/kill.js';

const BUDGET = 30;
let web: TestWeb;
let dir: string;
let thread = '';

const cli = (args: string[]) => cliChild(dir, args);

beforeAll(async () => {
  web = await startTestWeb({ latencyMs: 60 });
  thread = await threadWithAuthorViews(web);
  dir = mkdtempSync(join(tmpdir(), 'fc-neardup-resume-'));
  writeFileSync(
    join(dir, 'crawl.json'),
    JSON.stringify({ topics: [{ keywords: web.demo.keywords, seeds: [thread] }], allowPrivate: web.sites.map((s) => s.origin), maxPages: BUDGET, maxDepth: 1, maxConcurrency: 1, fetcher: 'http' }),
  );
});
afterAll(async () => {
  await web?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** URLs of the run's dataset items (what the user gets). */
function datasetUrls(storage: string, runDir: string): string[] {
  const d = new RunDir(storage, basename(runDir)).datasetDir;
  return existsSync(d) ? readdirSync(d).filter((f) => f.endsWith('.json')).map((f) => (JSON.parse(readFileSync(join(d, f), 'utf8')) as { url: string }).url) : [];
}

it('a page saved before a kill -9 still has its near-duplicates recognised after --resume', async () => {
  expect(thread, 'an on-topic thread with three authors on the test web').not.toBe('');
  const whole = await exited(cli(['--config', 'crawl.json', '--storage', 'whole']));
  expect(whole.code, whole.out).toBe(0);

  const first = cli(['--config', 'crawl.json', '--storage', 'stopped']);
  const firstDone = exited(first);
  await killGroupWhen(first, () => crawlLogLines(join(dir, 'stopped')) >= 1, 'the first crawl');
  expect((await firstDone).code).toBeNull();
  const runDir = firstRunDir(join(dir, 'stopped'))!;
  const before = CrawlLog.read(join(runDir, 'crawl-log.jsonl')).length;
  expect(before).toBeLessThan(5);
  expect(existsSync(join(runDir, NEAR_DUPLICATE_FILE))).toBe(true);
  const second = await exited(cli(['--resume', '--storage', 'stopped']));
  expect(second.code, second.out).toBe(0);

  const log = CrawlLog.read(join(runDir, 'crawl-log.jsonl'));
  const a = CrawlLog.read(join(firstRunDir(join(dir, 'whole'))!, 'crawl-log.jsonl'));
  expect(log.length).toBe(a.length);
  const savedBefore = log.slice(0, before).filter((e) => e.decision === 'saved');
  expect(savedBefore.map((e) => e.url)).toContain(thread);
  const after = log.slice(before);
  // The evidence: views of the thread fetched after the resume, called near-duplicates of it.
  const threadPage = web.pageOf(thread);
  const views = after.filter((e) => e.url !== thread && web.pageOf(e.url) === threadPage && e.decision !== 'failed');
  expect(views.length, 'views of the seed thread fetched after the resume').toBeGreaterThan(0);
  for (const v of views) expect(v.reason, v.url).toContain(`near-duplicate of ${thread}`);
  // No page saved after the resume is a page saved before it (the test web's routing says which are one page).
  const pagesBefore = new Set(savedBefore.map((e) => web.pageOf(e.url) ?? e.url));
  for (const e of after.filter((e) => e.decision === 'saved')) expect(pagesBefore.has(web.pageOf(e.url) ?? e.url), e.url).toBe(false);
  // Nor in the dataset: one URL per page. (The same URL twice is another matter: an item written
  // just before the kill whose crawl-log line was not, fetched and saved again by the resume.)
  const urls = [...new Set(datasetUrls(join(dir, 'stopped'), runDir))];
  const items = urls.map((u) => web.pageOf(u) ?? u);
  expect(items.length).toBeGreaterThan(0);
  expect(new Set(items).size, urls.join('\n')).toBe(items.length);
  // The same decisions as the crawl without the kill.
  const decided = (e: (typeof a)[number]) => ({ url: e.url, decision: e.decision, reason: e.reason });
  expect(log.map(decided)).toEqual(a.map(decided));
}, 300_000);
