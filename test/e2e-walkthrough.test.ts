/**
 * On the local test web: the fixed fetch order gives the same crawl twice however long each
 * page takes; the offline example config names the test web as `npm run testweb -- --port N`
 * serves it; a search provider that fails does not stop a topic with seeds of its own.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { parseConfig } from '../src/config/schema.js';
import { runCrawl, type CrawlPlugin } from '../src/crawl/engine.js';
import { discoverSeeds } from '../src/crawl/seeding.js';
import { ProgressReporter } from '../src/report/progress.js';
import { CrawlLog } from '../src/store/crawl-log.js';
import { startTestWeb, type TestWeb } from '../src/testweb/index.js';
import { Rng } from '../src/util/rng.js';

let web: TestWeb;
const storage = mkdtempSync(join(tmpdir(), 'e2e-walkthrough-'));
beforeAll(async () => {
  web = await startTestWeb({});
});
afterAll(async () => {
  await web?.close();
  rmSync(storage, { recursive: true, force: true });
});

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/** A plugin that holds each page for a random time (its own seed): pages finish in a different order on each crawl. */
function jitter(seed: number): CrawlPlugin {
  const rng = new Rng(seed);
  return {
    name: 'jitter',
    async onPage() {
      await sleep(rng.int(0, 6) * 15);
    },
  };
}

async function crawl(fetchOrder: 'fixed' | 'as-finished', seed: number) {
  const config = parseConfig({
    topics: [{ keywords: web.demo.keywords, seeds: web.demo.seeds }],
    maxPages: 30,
    maxConcurrency: 4,
    fetcher: 'http',
    fetchOrder,
    storageDir: join(storage, `${fetchOrder}-${seed}`),
    allowPrivate: web.sites.map((s) => s.origin),
  });
  const r = await runCrawl({ config, plugins: [jitter(seed)], progress: new ProgressReporter({ quiet: true }), truth: (u) => web.isRelevant(u, web.demo.topic) });
  return { result: r, log: CrawlLog.read(r.logPath).map((e) => `${e.url} ${e.decision}`) };
}

describe('fixed fetch order on the test web', () => {
  it('two crawls whose pages take different times fetch the same URLs in the same order, with the same counts', async () => {
    const a = await crawl('fixed', 1);
    const b = await crawl('fixed', 2);
    expect(a.log).toHaveLength(30);
    expect(b.log).toEqual(a.log);
    expect(b.result.counts.relevant).toBe(a.result.counts.relevant);
    expect(b.result.truthHarvestRate).toBe(a.result.truthHarvestRate);
  }, 600_000);
});

describe('the offline example config', () => {
  it('names the test web exactly as `npm run testweb -- --port N` serves it', async () => {
    const port = await freePort();
    const served = await startTestWeb({ port });
    try {
      const text = readFileSync(join(import.meta.dirname, '..', 'docs', 'examples', 'testweb.yaml'), 'utf8').replaceAll(':8480', `:${port}`);
      const config = parseConfig(parseYaml(text));
      expect(config.topics[0].seeds).toEqual(served.demo.seeds);
      expect(config.allowPrivate).toEqual(served.sites.map((s) => s.origin));
      const search = served.sites.find((s) => s.kind === 'search')!.origin;
      expect(config.topics[0].search?.urlTemplate).toBe(`${search}/s?wd={q}`);
    } finally {
      await served.close();
    }
  });
});

describe('a search provider that fails, on a topic with seeds of its own', () => {
  it('warns once (its URL said once) and seeds the crawl with the given seeds', async () => {
    const port = await freePort(); // nothing listens: the results page cannot be opened
    const config = parseConfig({
      topics: [{ keywords: ['地震'], seeds: web.demo.seeds, search: { provider: 'testweb', urlTemplate: `http://127.0.0.1:${port}/s?wd={q}` } }],
      storageDir: storage,
    });
    const logs: string[] = [];
    const seeds = await discoverSeeds(config, { log: (l) => logs.push(l), timeoutMs: 20_000 });
    expect(seeds).toEqual([web.demo.seeds]);
    const warning = logs.find((l) => l.startsWith('warning: search provider "testweb" could not open'));
    expect(warning, logs.join('\n')).toBeDefined();
    expect(warning!.split(`127.0.0.1:${port}`).length - 1).toBe(1);
    expect(warning).toMatch(/crawling from the topic's 2 given seed\(s\)/);
  }, 120_000);
});
