import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findRunToResume } from '../src/crawl/resume.js';
import { listRuns } from '../src/report/write.js';
import { latestRun, resolveRun, RunDir } from '../src/store/run-dir.js';

const root = mkdtempSync(join(tmpdir(), 'fc-rundir-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function run(id: string, startedAt: string | undefined, fetched: number): void {
  const r = new RunDir(root, id);
  mkdirSync(r.dir, { recursive: true });
  if (startedAt) writeFileSync(r.file('state'), JSON.stringify({ runId: id, startedAt }));
  writeFileSync(r.file('crawlLog'), Array.from({ length: fetched }, (_, i) => JSON.stringify({ time: startedAt ?? `2020-01-0${i + 1}T00:00:00Z`, url: `http://a.test/${i}` }) + '\n').join(''));
}

describe('run folder', () => {
  it('one "latest run" for --resume, --explain and --report: the last started run that fetched a page', () => {
    run('b-older', '2024-01-01T00:00:00.000Z', 3);
    run('a-newer', '2024-02-01T00:00:00.000Z', 2); // sorts first by id, but started later
    run('z-failed-at-start', '2024-03-01T00:00:00.000Z', 0); // started last, never fetched
    run('no-state', undefined, 1); // started = its first fetch (2020): oldest
    expect(listRuns(root)).toEqual(['a-newer', 'b-older', 'no-state']);
    expect(latestRun(root)).toBe('a-newer');
    expect(findRunToResume(root)).toBe('a-newer');
    expect(resolveRun(root, undefined, '--explain')).toBe('a-newer');
  });

  it('names a missing run and the recent ones in one line', () => {
    expect(() => resolveRun(root, 'nope', '--explain')).toThrow(/^--explain: no run "nope" in .*runs \(recent runs: a-newer, b-older, no-state\)$/);
    expect(() => resolveRun(join(root, 'empty'), undefined, '--resume')).toThrow(/^--resume: no earlier run in .*empty\/runs to resume$/);
  });
});
