/**
 * The library's crawl() (src/crawl/api.ts) through the package entry (src/index.ts), on the local
 * test web in headless Chromium: relevant pages by `for await` and by `onPage` are the dataset's
 * pages; the process is left alone (no SIGINT handler, Crawlee's log level untouched, nothing
 * printed); reply threads are on by default; CRAWLEE_STORAGE_DIR is the storage folder when
 * none is given; leaving the loop early stops the crawl.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { log as crawleeLog, LogLevel } from 'crawlee';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, crawl, startTestWeb, type CrawlConfigInput, type CrawlResult, type RelevantPage, type TestWeb } from '../src/index.js';

let web: TestWeb;
let storage: string;
const config = (extra: Partial<CrawlConfigInput> = {}): CrawlConfigInput => ({
  topics: [{ keywords: web.demo.keywords, seeds: web.demo.seeds }],
  allowPrivate: web.sites.map((s) => s.origin), // the test web's loopback sites
  maxPages: 30,
  maxConcurrency: 2,
  ...extra,
});

describe('crawl() as a library', () => {
  let result: CrawlResult;
  const iterated: RelevantPage[] = [];
  const called: RelevantPage[] = [];
  const sigintDuring: NodeJS.SignalsListener[][] = [];
  const printed: string[] = [];
  const sigintBefore = process.listeners('SIGINT');

  beforeAll(async () => {
    web = await startTestWeb({});
    storage = mkdtempSync(join(tmpdir(), 'fc-lib-'));
    crawleeLog.setLevel(LogLevel.DEBUG); // the user's choice, which the crawl must keep (and not print by)
    process.env.CRAWLEE_STORAGE_DIR = storage; // no storageDir in the config: this is the folder
    const write = { out: process.stdout.write, err: process.stderr.write };
    const spy = (w: typeof process.stdout.write) =>
      function (this: NodeJS.WriteStream, chunk: unknown, ...rest: unknown[]) {
        printed.push(String(chunk));
        return (w as (...a: unknown[]) => boolean).call(this, chunk, ...rest);
      } as typeof process.stdout.write;
    process.stdout.write = spy(write.out);
    process.stderr.write = spy(write.err);
    try {
      const run = crawl(config(), {
        truth: (u) => web.isRelevant(u, web.demo.topic),
        now: () => web.clock.now(),
        onPage: (p) => {
          called.push(p);
          sigintDuring.push(process.listeners('SIGINT').filter((f) => !sigintBefore.includes(f)));
        },
      });
      for await (const page of run) iterated.push(page);
      result = await run;
    } finally {
      process.stdout.write = write.out;
      process.stderr.write = write.err;
      delete process.env.CRAWLEE_STORAGE_DIR;
    }
  }, 300_000);

  afterAll(async () => {
    crawleeLog.setLevel(LogLevel.INFO);
    await web?.close();
  });

  it('crawls the budget and finds relevant pages', () => {
    expect(result.fetched).toBe(30);
    expect(result.relevant).toBeGreaterThan(0);
    expect(result.truthHarvestRate).toBeGreaterThan(0.2);
  });

  it('iterates exactly the relevant pages saved in the dataset, with text and title', () => {
    const files = readdirSync(result.datasetDir).filter((f) => f.endsWith('.json'));
    const saved = files.map((f) => JSON.parse(readFileSync(join(result.datasetDir, f), 'utf8')) as RelevantPage);
    expect(iterated.length).toBe(result.relevant);
    expect(iterated.map((p) => p.url).sort()).toEqual(saved.map((p) => p.url).sort());
    expect(called.map((p) => p.url)).toEqual(iterated.map((p) => p.url));
    for (const p of iterated) {
      if (web.truth(p.url)?.kind === 'article') expect(p.title).toBeTruthy();
      expect(p.text.length).toBeGreaterThan(0);
      expect(p.topic).toBe(web.demo.keywords.join(' '));
      expect(p.relevance).toBeGreaterThan(0);
    }
    // Judged relevant, and relevant by the test web's ground truth too for a good share of them.
    expect(iterated.filter((p) => web.isRelevant(p.url, web.demo.topic)).length).toBeGreaterThanOrEqual(iterated.length / 3);
  });

  it('leaves the process alone: no SIGINT handler, Crawlee log level kept, nothing printed', () => {
    expect(sigintDuring.length).toBeGreaterThan(0);
    // The one listener added while crawling is Crawlee's own crawler's (any Crawlee program has it:
    // it aborts the crawler's pool); the engine's Ctrl-C handler is the CLI's only.
    for (const added of sigintDuring) {
      expect(added.length).toBeLessThanOrEqual(1);
      for (const f of added) expect(f.toString()).toContain('_pauseOnMigration');
    }
    expect(process.listeners('SIGINT')).toEqual(sigintBefore);
    expect(crawleeLog.getLevel()).toBe(LogLevel.DEBUG);
    expect(printed.filter((chunk) => chunk !== '')).toEqual([]); // an empty write prints nothing
  });

  it('tracks reply threads by default, as the config says', () => {
    expect(result.counts.threadsFound).toBeGreaterThan(0);
    expect(existsSync(join(result.runDir, 'threads.json'))).toBe(true);
  });

  it('stores under CRAWLEE_STORAGE_DIR when the config names no storage folder', () => {
    expect(result.runDir.startsWith(join(storage, 'runs'))).toBe(true);
    expect(result.datasetDir.startsWith(join(storage, 'datasets'))).toBe(true);
  });

  it('stops the crawl when the loop is left early', async () => {
    const run = crawl(config({ storageDir: storage, maxPages: 200, threads: { enabled: false } }), { runId: 'left-early' });
    let n = 0;
    for await (const page of run) {
      expect(page.url).toBeTruthy();
      if (++n === 2) break;
    }
    const r = await run;
    expect(r.stopReason).toMatch(/^interrupted/);
    expect(r.fetched).toBeLessThan(200);
    expect(r.counts.threadsFound).toBeUndefined(); // threads.enabled false: no plugin
  });

  it('stops on an aborted signal, and rejects with the error an onPage callback threw', async () => {
    const http = () => config({ storageDir: storage, maxPages: 200, fetcher: 'http', threads: { enabled: false } });
    const aborted = new AbortController();
    aborted.abort();
    const none = await crawl(http(), { runId: 'aborted', signal: aborted.signal });
    expect(none.fetched).toBe(0);
    expect(none.stopReason).toMatch(/^interrupted/);

    const run = crawl(http(), {
      runId: 'callback-throws',
      onPage: () => {
        throw new Error('the caller gave up');
      },
    });
    await expect(run.result).rejects.toThrow('the caller gave up');
    // The crawl ended cleanly all the same: its state says where it stopped.
    const state = JSON.parse(readFileSync(join(storage, 'runs', 'callback-throws', 'state.json'), 'utf8')) as { status: string; counters: { fetched: number } };
    expect(state.status).toBe('interrupted');
    expect(state.counters.fetched).toBeLessThan(200);
  });

  it('rejects a config mistake at once, before anything starts', () => {
    expect(() => crawl({ topics: [{ keywords: ['x'] }], maxPages: -1 })).toThrow(ConfigError);
  });
});
