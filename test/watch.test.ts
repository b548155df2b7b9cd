/**
 * `npm start -- --watch` as a child process (real Chromium, the test web's forum): it keeps
 * running past its page budget, and Ctrl-C (SIGINT) stops it cleanly: exit 0, run marked
 * interrupted, thread store and crawl log complete and readable.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestWeb, type TestWeb } from '../src/testweb/index.js';

const root = join(import.meta.dirname, '..');
let web: TestWeb;
let dir: string;

beforeAll(async () => {
  web = await startTestWeb({});
  dir = mkdtempSync(join(tmpdir(), 'watch-'));
});
afterAll(async () => {
  await web?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const lines = (p: string) => (existsSync(p) ? readFileSync(p, 'utf8').split('\n').filter(Boolean) : []);

describe('--watch', () => {
  it('crawls past its budget until SIGINT, then exits 0 with the thread store and crawl log intact', async () => {
    const forum = web.sites.find((s) => s.kind === 'forum')!.origin;
    const args = ['--topic', '地震 救援', '--seeds', `${forum}/forum.php`, '--allow-domain', new URL(forum).host, '--max-pages', '2', '--concurrency', '1', '--storage', dir, '--watch'];
    const child = spawn(process.execPath, ['--import', pathToFileURL(join(root, 'node_modules/tsx/dist/loader.mjs')).href, join(root, 'src/cli/main.ts'), ...args], {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const exited = new Promise<number | null>((res) => child.on('exit', (code) => res(code)));
    // Wait until more pages than the budget (2) are in the crawl log: --watch has no page budget.
    const logPath = () => {
      const runs = existsSync(join(dir, 'runs')) ? readdirSync(join(dir, 'runs')) : [];
      return runs.length ? join(dir, 'runs', runs[0], 'crawl-log.jsonl') : '';
    };
    const deadline = Date.now() + 120_000;
    while (Date.now() < deadline && (!logPath() || lines(logPath()).length < 5)) await new Promise((r) => setTimeout(r, 200));
    expect(lines(logPath()).length, err).toBeGreaterThanOrEqual(5);
    child.kill('SIGINT');
    const code = await exited;
    expect(code, err).toBe(0);
    const runDir = join(logPath(), '..');
    const log = lines(logPath()).map((l) => JSON.parse(l) as { url: string });
    expect(log.length).toBeGreaterThanOrEqual(5);
    const state = JSON.parse(readFileSync(join(runDir, 'state.json'), 'utf8')) as { status: string; counters: { fetched: number } };
    expect(state.status).toBe('interrupted');
    expect(state.counters.fetched).toBe(log.length);
    const threads = JSON.parse(readFileSync(join(runDir, 'threads.json'), 'utf8')) as { threads: Record<string, { visits: unknown[] }> };
    // Every thread page in the log was recorded in the store before the exit (nothing lost).
    const threadPages = log.filter((e) => /thread-\d+-\d+-\d+\.html|mod=viewthread/.test(e.url)).length;
    const visits = Object.values(threads.threads).reduce((s, t) => s + t.visits.length, 0);
    expect(visits).toBe(threadPages);
    expect(out).toMatch(/reply threads\s+\d+ found/);
  }, 180_000);
});
