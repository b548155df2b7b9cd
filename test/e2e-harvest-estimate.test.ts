/**
 * The crawler's self-reported harvest is honest: the demo as a user runs it
 * (`npm start`, no arguments: the local test web in real Chromium, combined, 200 pages), through
 * the CLI in a child process. At the end its judged harvest is within 3 points of the test web's
 * ground truth counted each page once (src/cli/demo.ts `demoTruth`: the crawler does not count a
 * forum thread's author views again, src/text/near-duplicate.ts), and its harvest estimate (a held-back sample judged again at the end,
 * src/topic/harvest-sample.ts) has a 90% interval that holds the truth and says it is not.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { CrawlResult } from '../src/crawl/types.js';

const root = join(import.meta.dirname, '..');
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function cli(cwd: string, args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  const p = spawn(process.execPath, ['--import', pathToFileURL(join(root, 'node_modules/tsx/dist/loader.mjs')).href, join(root, 'src/cli/main.ts'), ...args], {
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, CI: '1' },
  });
  let out = '';
  let err = '';
  p.stdout.on('data', (d) => (out += d));
  p.stderr.on('data', (d) => (err += d));
  return new Promise((r) => p.on('exit', (code) => r({ code, out, err })));
}

describe('the demo reports its harvest honestly', () => {
  it('judged harvest within 3 points of the truth at 200 pages; the estimate interval holds the truth', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fc-harvest-'));
    dirs.push(dir);
    const json = await cli(dir, ['--json']);
    expect(json.code, json.err.slice(-2000)).toBe(0);
    const r = JSON.parse(json.out) as CrawlResult;
    expect(r.counts.fetched).toBe(200);
    const truth = r.truthHarvestRate!;
    expect(truth).toBeGreaterThan(0);
    expect(Math.abs(r.harvestRate - truth), `judged ${r.harvestRate} truth ${truth}`).toBeLessThanOrEqual(0.03);
    const e = r.harvestEstimate!;
    expect(e.pages).toBe(200);
    expect(e.sampled).toBeGreaterThan(0);
    expect(e.low, `estimate ${JSON.stringify(e)} truth ${truth}`).toBeLessThanOrEqual(truth);
    expect(e.high, `estimate ${JSON.stringify(e)} truth ${truth}`).toBeGreaterThanOrEqual(truth);
    // An interval, not a point: the sample's own uncertainty is in it.
    expect(e.high - e.low).toBeGreaterThan(0.02);
  }, 1_200_000);
});
