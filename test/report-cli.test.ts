/** CLI of the observability features, as a subprocess: --report regenerates, bad input is one line. */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = mkdtempSync(join(tmpdir(), 'fc-report-cli-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

type Out = { code?: number; stdout: string; stderr: string };
const cli = (args: string[], env: NodeJS.ProcessEnv = process.env): Promise<Out> =>
  run('npx', ['tsx', 'src/cli/main.ts', ...args], { env }).then(
    (r) => ({ code: 0, ...r }),
    (e: Out) => e,
  );
const errorLines = (s: string) => s.split('\n').filter((l) => l.startsWith('error:'));

describe('npm start -- --report', () => {
  it('regenerates the latest run, or says which runs exist', async () => {
    mkdirSync(join(root, 'runs', '20240101-000000'), { recursive: true });
    const entry = { time: '2024-01-01T00:00:00Z', url: 'http://a.test/', status: 200, depth: 0, decision: 'saved', relevance: 0.9 };
    writeFileSync(join(root, 'runs', '20240101-000000', 'crawl-log.jsonl'), JSON.stringify(entry) + '\n');
    const ok = await cli(['--report', '--storage', root]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/Report written: .*report\/index\.html/);
    expect(readFileSync(join(root, 'report', 'index.html'), 'utf8')).toContain('data-stat="fetched">1<');
    // Exports after the fact: the run's relevant pages as JSON Lines and CSV.
    const ex = await cli(['--report', '20240101-000000', '--export', 'jsonl,csv', '--storage', root]);
    expect(ex.code).toBe(0);
    expect(ex.stdout).toContain(`Export written: ${join(root, 'exports', '20240101-000000.jsonl')}`);
    const rec = JSON.parse(readFileSync(join(root, 'exports', '20240101-000000.jsonl'), 'utf8').trim()) as Record<string, unknown>;
    expect(rec).toMatchObject({ url: 'http://a.test/', relevance: 0.9 });
    expect(readFileSync(join(root, 'exports', '20240101-000000.csv'), 'utf8')).toMatch(/^\uFEFFtitle,url,publishTime,topic,relevance,text\n,http:\/\/a\.test\/,,,0\.9,\n$/);
    const bad = await cli(['--report', 'nope', '--storage', root]);
    expect(bad.code).toBe(2);
    expect(errorLines(bad.stderr)).toEqual([`error: no run "nope" in ${join(root, 'runs')} (recent runs: 20240101-000000)`]);
  });
});

describe('one-line user errors', () => {
  it('a bad --trace mode', async () => {
    const r = await cli(['-t', '地震', '-s', 'http://127.0.0.1:9/', '--trace', 'sometimes', '--storage', root]);
    expect(r.code).toBe(2);
    expect(errorLines(r.stderr)).toEqual(['error: command line: trace: expected all, failures or sample:N (N ≥ 1)']);
  });
  it('--headed without a display says how to get one', async () => {
    const env = { ...process.env };
    delete env.DISPLAY;
    const r = await cli(['--headed', '-n', '1', '--storage', root], env);
    expect(r.code).toBe(2);
    expect(errorLines(r.stderr)).toEqual(['error: --headed needs a display and $DISPLAY is not set: run it under a virtual one, e.g. xvfb-run -a npm start -- --headed …']);
  });
});
