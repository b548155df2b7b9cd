/**
 * Crash safety, the way a user meets it: the CLI crawls the test web in a child process, is
 * killed with SIGKILL mid-crawl (browser included), and `--resume` finishes the run. From the
 * crawl log: no URL fetched twice, and together exactly the budget, as an uninterrupted crawl.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueKeyOf } from '../src/frontier/frontier.js';
import { CrawlLog } from '../src/store/crawl-log.js';
import { startTestWeb, type TestWeb } from '../src/testweb/index.js';
import { cliChild, crawlLogLines, exited, firstRunDir } from './helpers/cli-child.js';
import { killGroupWhen } from './helpers/kill.js';

const BUDGET = 24;
let web: TestWeb;
let dir: string;

const cli = (args: string[]) => cliChild(dir, args);

const logPath = () => {
  const d = firstRunDir(join(dir, 'storage'));
  return d && join(d, 'crawl-log.jsonl');
};
const logLines = () => crawlLogLines(join(dir, 'storage'));

beforeAll(async () => {
  web = await startTestWeb({ slowPageMs: 500 });
  dir = mkdtempSync(join(tmpdir(), 'resume-'));
  writeFileSync(
    join(dir, 'crawl.json'),
    JSON.stringify({ topics: [{ keywords: web.demo.keywords, seeds: web.demo.seeds }], allowPrivate: web.sites.map((s) => s.origin), maxPages: BUDGET, maxConcurrency: 3, storageDir: join(dir, 'storage') }),
  );
});
afterAll(async () => {
  await web?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('resume after kill -9', () => {
  it('says so in one line when there is nothing to resume', async () => {
    const r = await exited(cli(['--resume', '--storage', 'empty-storage']));
    expect(r.code).toBe(2);
    expect(r.out.trim()).toMatch(/^error: --resume: no earlier run in .*empty-storage\/runs to resume$/);
  }, 30_000);

  it('continues the killed run: no URL fetched twice, none lost, the budget exactly spent', async () => {
    const first = cli(['--config', 'crawl.json']);
    const firstDone = exited(first);
    // Wait until a third of the budget is in the log, then kill the whole process group.
    await killGroupWhen(first, () => logLines() >= BUDGET / 3, 'the first crawl');
    const killed = await firstDone;
    expect(killed.code).toBeNull(); // died by signal
    const before = logLines();
    expect(before).toBeLessThan(BUDGET);

    const second = await exited(cli(['--resume', '--storage', 'storage']));
    expect(second.out).toMatch(/Resum/);
    expect(second.code, second.out).toBe(0);

    const log = CrawlLog.read(logPath()!);
    const keys = log.map((e) => uniqueKeyOf(e.url));
    expect(new Set(keys).size).toBe(keys.length); // nothing fetched twice
    expect(log.length).toBe(BUDGET); // nothing lost: the budget, as an uninterrupted crawl spends it
    expect(log.length).toBeGreaterThan(before);
  }, 150_000);
});
