/**
 * The memory ceiling (`--max-rss-mb`) counts the crawl's whole process tree: a browser crawl of
 * the test web whose Node process stays well under the ceiling is stopped, resumably, because
 * its Chromium and gate proxy processes take it over.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config/schema.js';
import { runCrawl } from '../src/crawl/engine.js';
import { ProgressReporter } from '../src/report/progress.js';
import { startTestWeb, type TestWeb } from '../src/testweb/index.js';

let web: TestWeb;
let storage: string;

beforeAll(async () => {
  web = await startTestWeb({});
  storage = mkdtempSync(join(tmpdir(), 'fc-ceiling-'));
});
afterAll(async () => {
  await web?.close();
  rmSync(storage, { recursive: true, force: true });
});

describe('the memory ceiling of a browser crawl', () => {
  it('stops the crawl when Node and Chromium together pass it, though Node alone does not', async () => {
    const MB = 1024 * 1024;
    // Chromium alone (browser, zygote, GPU, network service, a renderer) is several hundred MB.
    const ceilingMb = Math.round(process.memoryUsage.rss() / MB) + 250;
    const config = parseConfig({
      topics: [{ keywords: web.demo.keywords, seeds: web.demo.seeds }],
      allowPrivate: web.sites.map((s) => s.origin),
      fetcher: 'browser',
      maxPages: 40,
      maxConcurrency: 2,
      maxRssMb: ceilingMb,
      storageDir: storage,
    });
    const r = await runCrawl({ config, progress: new ProgressReporter({ quiet: true }), handleSigint: false });
    expect(r.memoryStop).toMatchObject({ of: 'process tree', ceilingMb });
    expect(r.memoryStop!.rssMb).toBeGreaterThan(ceilingMb);
    expect(Math.round(process.memoryUsage.rss() / MB)).toBeLessThan(ceilingMb);
    expect(r.stopReason).toMatch(/^memory ceiling \(process tree \d+ MB resident, ceiling \d+ MB\)$/);
    expect(r.fetched).toBeGreaterThan(0);
    expect(r.fetched).toBeLessThan(40);
  }, 240_000);
});
