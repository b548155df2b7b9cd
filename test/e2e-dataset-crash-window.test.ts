/**
 * Nothing saved twice, nothing lost, across the dataset's crash window (src/store/dataset-tail.ts):
 * the CLI crawls the test web in a child process, and the test kills it from outside with SIGKILL
 * while a dataset item is on disk and that item's crawl-log line is not (no hook in the product:
 * the test watches the dataset folder, freezes the crawl's process group with SIGSTOP each time a
 * new item file appears, and kills it when the crawl log lacks that item's line, else lets it go
 * on with SIGCONT). Then `--resume` finishes the run. The page of that item is not in the crawl
 * log, so the resume fetches it again: the dataset must hold it once, and hold every page the
 * crawl log says was saved, exactly the pages the same crawl saves without the kill. One fetch at
 * a time in the browser, so both crawls fetch the same pages in the same order.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, watch, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
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

const ITEM_FILE = /^\d+\.json$/;
/** Item files in a dataset folder (a file torn by the kill counts: it was being written). */
const itemFiles = (d: string) => (existsSync(d) ? readdirSync(d).filter((f) => ITEM_FILE.test(f)).sort() : []);

/** Resolves once `ok()` holds, checking every 20 ms; rejects after `limitMs` (a generous limit, not a timing). */
async function until(ok: () => boolean, limitMs: number, what: string): Promise<void> {
  const end = Date.now() + limitMs;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`not within ${limitMs} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The process is stopped (state T in /proc): it has left any system call, so what it wrote is on disk and it writes nothing more. */
const stopped = (pid: number) => {
  try {
    return /^\d+ \(.*\) [tT] /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true; // gone
  }
};

/**
 * Kill `child` (the CLI, leader of its own process group: Chromium goes too, as in a crash) with
 * SIGKILL while the dataset holds an item whose crawl-log line is not written, from the `from`-th
 * item on: each time a new item file appears the group is frozen (SIGSTOP) and the crawl log read;
 * the window open, SIGKILL; closed (the line came first), SIGCONT and wait for the next item.
 * Undefined when the crawl ends first (every line came before the test could look); rejects when
 * nothing happens within `limitMs`.
 */
async function killInWindow(child: ChildProcess, storage: string, from: number, limitMs: number): Promise<{ items: number; lines: number; tries: number } | undefined> {
  const pid = child.pid!;
  let done = false;
  child.once('exit', () => (done = true));
  await until(() => done || (firstRunDir(storage) !== undefined && existsSync(new RunDir(storage, basename(firstRunDir(storage)!)).datasetDir)), limitMs, 'the run\'s dataset folder');
  if (done) return undefined;
  const runDir = firstRunDir(storage)!;
  const datasetDir = new RunDir(storage, basename(runDir)).datasetDir;
  return new Promise((resolve, reject) => {
    let inspected = from - 1;
    let tries = 0;
    const timer = setTimeout(() => finish(new Error(`no crash window caught within ${limitMs} ms (${tries} item(s) inspected)`)), limitMs);
    const watcher = watch(datasetDir, () => check());
    child.once('exit', () => finish(undefined));
    function finish(e: Error | undefined) {
      clearTimeout(timer);
      watcher.close();
      if (e) reject(e);
      else resolve(undefined);
    }
    function check() {
      if (done || itemFiles(datasetDir).length <= inspected) return;
      process.kill(-pid, 'SIGSTOP');
      const wait = Date.now() + 60_000;
      while (!stopped(pid) && Date.now() < wait); // a few microseconds to milliseconds; the limit is generous
      const items = itemFiles(datasetDir).length;
      const lines = CrawlLog.read(join(runDir, 'crawl-log.jsonl')).filter((e) => e.decision === 'saved').length;
      tries++;
      if (items > lines) {
        process.kill(-pid, 'SIGKILL');
        done = true;
        clearTimeout(timer);
        watcher.close();
        resolve({ items, lines, tries });
        return;
      }
      inspected = items;
      process.kill(-pid, 'SIGCONT');
    }
    check();
  });
}

it('an item written just before a kill -9, without its crawl-log line, is in the dataset once after --resume', async () => {
  const whole = await exited(cliChild(dir, ['--config', 'crawl.json', '--storage', 'whole']));
  expect(whole.code, whole.out).toBe(0);
  const wholeSaved = savedUrls(join(dir, 'whole'));
  expect(wholeSaved.length, 'the crawl saves more than two pages').toBeGreaterThan(2);
  expect(datasetUrls(join(dir, 'whole')).sort()).toEqual([...wholeSaved].sort());

  // The window is a few milliseconds per item, so a crawl may end before it is caught (seen: caught
  // on the 1st, 1st, 1st and 4th item); then another crawl, each in a storage folder of its own.
  let stopped = '';
  let window: { items: number; lines: number; tries: number } | undefined;
  let killed: { code: number | null; out: string } | undefined;
  for (let attempt = 1; attempt <= 3 && !window; attempt++) {
    stopped = join(dir, `stopped-${attempt}`);
    const child = cliChild(dir, ['--config', 'crawl.json', '--storage', `stopped-${attempt}`]);
    const exit = exited(child);
    window = await killInWindow(child, stopped, 2, 240_000);
    killed = await exit;
  }
  expect(window, 'the crash window was caught in one of 3 crawls').toBeDefined();
  expect(killed!.code, killed!.out).toBeNull(); // died by the signal
  // The window was open: items on disk past the crawl log's saved lines (the last one possibly torn by the kill).
  const itemsAtKill = itemFiles(new RunDir(stopped, basename(firstRunDir(stopped)!)).datasetDir);
  const savedAtKill = savedUrls(stopped);
  expect(itemsAtKill.length, `caught on item ${window!.tries}`).toBe(window!.items);
  expect(savedAtKill.length).toBe(window!.lines);
  expect(itemsAtKill.length).toBeGreaterThan(savedAtKill.length);
  expect(itemsAtKill.length).toBeGreaterThanOrEqual(2);

  const resumed = await exited(cliChild(dir, ['--resume', '--storage', basename(stopped)]));
  expect(resumed.code, resumed.out).toBe(0);
  const items = datasetUrls(stopped);
  const saved = savedUrls(stopped);
  // Each page at most once (by URL), and the crawl log's saved pages are exactly the dataset's.
  expect(new Set(items).size, items.join('\n')).toBe(items.length);
  expect([...items].sort()).toEqual([...saved].sort());
  // The pages saved before the kill are still there, and the items without a line were dropped and their pages fetched again.
  expect(items.slice(0, savedAtKill.length)).toEqual(savedAtKill);
  // None lost: the pages the crawl without the kill saves.
  expect([...items].sort()).toEqual([...wholeSaved].sort());
  expect(resumed.out).toMatch(new RegExp(`Dataset: ${itemsAtKill.length - savedAtKill.length} item\\(s\\) written without a crawl-log line`));
}, 600_000);
