/**
 * Nothing saved twice, nothing lost, across the dataset's crash window (src/store/dataset-tail.ts):
 * the CLI crawls the test web in a child process that kills itself with SIGKILL right after its
 * second dataset item is on disk and before that item's crawl-log line (the test hook
 * FC_TEST_KILL_AFTER_ITEMS), then `--resume` finishes the run. The page of that item is not in
 * the crawl log, so the resume fetches it again: the dataset must hold it once, and hold every
 * page the crawl log says was saved, exactly the pages the same crawl saves without the kill.
 * One fetch at a time in the browser, so both crawls fetch the same pages in the same order.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CrawlLog } from '../src/store/crawl-log.js';
import { RunDir } from '../src/store/run-dir.js';
import { startTestWeb, type TestWeb } from '../src/testweb/index.js';
import { cliChild, exited, firstRunDir } from './helpers/cli-child.js';

const BUDGET = 16;
let web: TestWeb;
let dir: string;

beforeAll(async () => {
  web = await startTestWeb({ latencyMs: 20 });
  dir = mkdtempSync(join(tmpdir(), 'fc-dataset-window-'));
  writeFileSync(
    join(dir, 'crawl.json'),
    JSON.stringify({ topics: [{ keywords: web.demo.keywords, seeds: web.demo.seeds }], allowPrivate: web.sites.map((s) => s.origin), maxPages: BUDGET, maxConcurrency: 1 }),
  );
});
afterAll(async () => {
  await web?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** URLs of the run's dataset items, in file order. */
function datasetUrls(storage: string): string[] {
  const d = new RunDir(storage, basename(firstRunDir(storage)!)).datasetDir;
  return existsSync(d)
    ? readdirSync(d)
        .filter((f) => f.endsWith('.json'))
        .sort()
        .map((f) => (JSON.parse(readFileSync(join(d, f), 'utf8')) as { url: string }).url)
    : [];
}
const savedUrls = (storage: string) => CrawlLog.read(join(firstRunDir(storage)!, 'crawl-log.jsonl')).filter((e) => e.decision === 'saved').map((e) => e.url);

it('an item written just before a kill -9, without its crawl-log line, is in the dataset once after --resume', async () => {
  const whole = await exited(cliChild(dir, ['--config', 'crawl.json', '--storage', 'whole']));
  expect(whole.code, whole.out).toBe(0);
  const wholeSaved = savedUrls(join(dir, 'whole'));
  expect(wholeSaved.length, 'the crawl saves more than two pages').toBeGreaterThan(2);
  expect(datasetUrls(join(dir, 'whole')).sort()).toEqual([...wholeSaved].sort());

  const stopped = join(dir, 'stopped');
  const killed = await exited(cliChild(dir, ['--config', 'crawl.json', '--storage', 'stopped'], { FC_TEST_KILL_AFTER_ITEMS: '2' }));
  expect(killed.code, killed.out).toBeNull(); // died by the signal
  // The window is open: two items on disk, the second one's page not in the crawl log.
  const itemsAtKill = datasetUrls(stopped);
  expect(itemsAtKill).toHaveLength(2);
  expect(savedUrls(stopped)).toEqual(itemsAtKill.slice(0, 1));

  const resumed = await exited(cliChild(dir, ['--resume', '--storage', 'stopped']));
  expect(resumed.code, resumed.out).toBe(0);
  const items = datasetUrls(stopped);
  const saved = savedUrls(stopped);
  // Each page at most once (by URL), and the crawl log's saved pages are exactly the dataset's.
  expect(new Set(items).size, items.join('\n')).toBe(items.length);
  expect([...items].sort()).toEqual([...saved].sort());
  expect(items).toContain(itemsAtKill[1]);
  // None lost: the pages the crawl without the kill saves.
  expect([...items].sort()).toEqual([...wholeSaved].sort());
  expect(resumed.out).toMatch(/Dataset: 1 item\(s\) written without a crawl-log line/);
}, 300_000);
