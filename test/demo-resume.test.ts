/**
 * The demo (`npm start` with no arguments) stopped and resumed the way a user meets it, through
 * the CLI in child processes: at the memory ceiling (a clean stop: exit code 3, state saved, the
 * command that continues it printed), and by kill -9 of its whole process group. `--resume`
 * serves the demo's test web again at the same origins, so the rest of the budget is fetched
 * (before, every URL the run had queued failed as a refused connection).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { uniqueKeyOf } from '../src/frontier/url-key.js';
import { CrawlLog, type CrawlLogEntry } from '../src/store/crawl-log.js';
import type { RunStateData } from '../src/store/run-state.js';
import { killGroupWhen } from './helpers/kill.js';

const root = join(import.meta.dirname, '..');
const BUDGET = 14;
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function cli(cwd: string, args: string[]): ChildProcess {
  // detached: its own process group, so a kill reaches the gate proxy child too.
  return spawn(process.execPath, ['--import', pathToFileURL(join(root, 'node_modules/tsx/dist/loader.mjs')).href, join(root, 'src/cli/main.ts'), ...args], {
    cwd,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, CI: '1' },
  });
}

function exited(p: ChildProcess): Promise<{ code: number | null; out: string; err: string }> {
  let out = '';
  let err = '';
  p.stdout!.on('data', (d) => (out += d));
  p.stderr!.on('data', (d) => (err += d));
  return new Promise((r) => p.on('exit', (code) => r({ code, out, err })));
}

const runDirOf = (dir: string) => {
  const runs = join(dir, 'storage', 'runs');
  const ids = existsSync(runs) ? readdirSync(runs) : [];
  return ids.length === 1 ? join(runs, ids[0]) : undefined;
};
const logOf = (dir: string): CrawlLogEntry[] => {
  const r = runDirOf(dir);
  return r ? CrawlLog.read(join(r, 'crawl-log.jsonl')) : [];
};
const demoFlags = ['--max-pages', String(BUDGET), '--fetcher', 'http', '--concurrency', '2'];

/** The whole run's log after the resume: the budget exactly, nothing twice, nothing refused by a dead test web. */
function expectCompleteRun(dir: string, origins: Record<string, string>) {
  const log = logOf(dir);
  expect(log).toHaveLength(BUDGET);
  expect(new Set(log.map((e) => uniqueKeyOf(e.url))).size).toBe(BUDGET);
  const hosts = new Set(Object.values(origins).map((o) => new URL(o).host));
  for (const e of log) expect(hosts.has(new URL(e.url).host), e.url).toBe(true);
  const dead = log.filter((e) => e.decision === 'failed' && /ECONNREFUSED|refused|not fetched|socket/i.test(e.reason ?? ''));
  expect(dead).toEqual([]);
  expect(log.filter((e) => e.decision === 'saved').length).toBeGreaterThan(0);
}

describe('the demo, stopped and resumed', () => {
  it('stops cleanly at the memory ceiling (exit 3, state saved, the command to continue), and --resume restarts the test web and finishes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'demo-memory-'));
    dirs.push(dir);
    // 1 MB: below any Node process, so the crawl stops after its first logged page.
    const first = await exited(cli(dir, [...demoFlags, '--max-rss-mb', '1']));
    expect(first.code, first.err).toBe(3);
    expect(first.out).toMatch(/stopped\s+memory ceiling \((?:process tree|Node process) \d+ MB resident, ceiling 1 MB\)/);
    const hint = /Continue it with:\s+npm start -- (--resume \S+(?: --storage \S+)? --max-rss-mb 2)\n/.exec(first.err);
    expect(hint, first.err).not.toBeNull();
    expect(first.err).not.toMatch(/\n\s+at /); // no stack trace
    const runDir = runDirOf(dir)!;
    const state = JSON.parse(readFileSync(join(runDir, 'state.json'), 'utf8')) as RunStateData;
    expect(state.status).toBe('interrupted');
    expect(hint![1]).toContain(`--resume ${state.runId}`);
    const before = logOf(dir).length;
    expect(before).toBeGreaterThanOrEqual(1);
    expect(before).toBeLessThan(BUDGET);
    const origins = (JSON.parse(readFileSync(join(runDir, 'testweb.json'), 'utf8')) as { origins: Record<string, string> }).origins;
    // The printed command, with the ceiling lifted (the suggested doubling of 1 MB would stop it again).
    const second = await exited(cli(dir, [...hint![1].split(' '), '--max-rss-mb', '0']));
    expect(second.code, second.err).toBe(0);
    expect(second.err).toContain('Started the local test web again');
    for (const o of Object.values(origins)) expect(second.err).toContain(o);
    expectCompleteRun(dir, origins);
    expect((JSON.parse(readFileSync(join(runDir, 'state.json'), 'utf8')) as RunStateData).status).toBe('finished');
  }, 600_000);

  it('after kill -9 of the whole demo, --resume serves the test web at the same origins and fetches the rest', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'demo-kill-'));
    dirs.push(dir);
    const first = cli(dir, demoFlags);
    const firstDone = exited(first);
    await killGroupWhen(first, () => logOf(dir).length >= 4, 'the demo');
    expect((await firstDone).code).toBeNull(); // killed
    expect(logOf(dir).length).toBeLessThan(BUDGET);
    const origins = (JSON.parse(readFileSync(join(runDirOf(dir)!, 'testweb.json'), 'utf8')) as { origins: Record<string, string> }).origins;
    const second = await exited(cli(dir, ['--resume']));
    expect(second.code, second.err).toBe(0);
    expect(second.err).toContain('Started the local test web again');
    expectCompleteRun(dir, origins);
  }, 600_000);
});
