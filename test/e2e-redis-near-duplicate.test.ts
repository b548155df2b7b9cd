/**
 * Near-duplicates across the workers of one Redis crawl: two CLI workers crawl
 * the local test web from on-topic forum threads through a real redis-server on a loopback port
 * (HTTP fetcher). A thread page fetched by one worker makes its "only this author" views
 * near-duplicates for the other, so no two pages saved by the crawl are one page (by the test
 * web's own routing, `pageOf`). (With an index per worker, a view fetched by the other worker
 * was saved beside its thread.)
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CrawlLog, type CrawlLogEntry } from '../src/store/crawl-log.js';
import { redisMissing, startRedis, type LocalRedis } from '../src/testweb/redis-server.js';
import { startTestWeb, type TestWeb } from '../src/testweb/index.js';
import { threadsWithAuthorViews } from './helpers/author-views.js';
import { cliChild, exited } from './helpers/cli-child.js';

const missing = redisMissing();
if (missing) console.warn(missing);

const WORKERS = 3;
let redis: LocalRedis;
let web: TestWeb;
let dir: string;
let threads: string[] = [];

describe.skipIf(!!missing)('near-duplicates across Redis workers (real redis-server, CLI workers)', () => {
  beforeAll(async () => {
    redis = await startRedis({});
    // Slow enough answers that the joined workers take part before the first one is done.
    web = await startTestWeb({ latencyMs: 200 });
    threads = await threadsWithAuthorViews(web, 4);
    dir = mkdtempSync(join(tmpdir(), 'e2e-redis-neardup-'));
    writeFileSync(
      join(dir, 'crawl.json'),
      JSON.stringify({ topics: [{ keywords: web.demo.keywords, seeds: threads }], allowPrivate: web.sites.map((s) => s.origin), maxPages: 60, maxDepth: 1, maxConcurrency: 1, fetcher: 'http', perHostDelayMs: 0 }),
    );
  }, 60_000);
  afterAll(async () => {
    await web?.close();
    await redis?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it(`${WORKERS} workers: no two saved pages are near-duplicates, and views of another worker's thread are called so`, async () => {
    expect(threads.length, 'on-topic threads with three authors on the test web').toBeGreaterThanOrEqual(2);
    const args = (join: boolean) => ['--config', 'crawl.json', '--storage', 'storage', '--frontier', redis.url, '--crawl-id', 'nd', ...(join ? ['--worker'] : [])];
    const runs = [exited(cliChild(dir, args(false))), ...Array.from({ length: WORKERS - 1 }, () => exited(cliChild(dir, args(true))))];
    const done = await Promise.all(runs);
    for (const d of done) expect(d.code, d.out).toBe(0);
    // What sharing cost: each worker says how many pages it checked and its round trips to Redis.
    for (const d of done) console.log(/Near-duplicates shared through Redis: .*/.exec(d.out)?.[0]);

    const runsDir = join(dir, 'storage', 'runs');
    const logs = new Map<string, CrawlLogEntry[]>();
    for (const d of readdirSync(runsDir)) if (existsSync(join(runsDir, d, 'crawl-log.jsonl'))) logs.set(d, CrawlLog.read(join(runsDir, d, 'crawl-log.jsonl')));
    expect(logs.size).toBe(WORKERS);
    const fetchedBy = new Map<string, string>();
    for (const [w, entries] of logs) for (const e of entries) fetchedBy.set(e.url, w);
    // The evidence: a page called a near-duplicate of a page another worker fetched.
    const across = [...logs].flatMap(([w, entries]) =>
      entries.filter((e) => {
        const of = /near-duplicate of (\S+)/.exec(e.reason ?? '')?.[1];
        return of !== undefined && fetchedBy.get(of) !== undefined && fetchedBy.get(of) !== w;
      }),
    );
    expect(across.length, 'near-duplicates of another worker\'s page').toBeGreaterThan(0);
    // No two saved pages, whichever workers saved them, are one page.
    const saved = [...logs.values()].flat().filter((e) => e.decision === 'saved');
    expect(saved.length).toBeGreaterThanOrEqual(threads.length);
    const pages = saved.map((e) => web.pageOf(e.url) ?? e.url);
    const twice = pages.filter((p, i) => pages.indexOf(p) !== i);
    expect(twice, saved.map((e) => e.url).join('\n')).toEqual([]);
  }, 300_000);
});
