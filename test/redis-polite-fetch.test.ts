/**
 * Requests that are not pages (comment APIs, src/crawl/polite-fetch.ts) from several workers of
 * one Redis crawl, on a real loopback server and a real redis-server: what the server logs is
 * the test — gaps between any two requests to the host, whichever worker sent them and whether
 * they were pages or comment-API requests, are never shorter than the per-host delay.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPoliteFetch } from '../src/crawl/polite-fetch.js';
import { FetchGate } from '../src/fetch/gate/gate.js';
import { RedisCrawl, RedisFrontier } from '../src/cluster/redis-frontier.js';
import { redisMissing, startRedis, type LocalRedis } from '../src/testweb/redis-server.js';

const missing = redisMissing();
if (missing) console.warn(missing);

const DELAY = 200;
let redis: LocalRedis;
let server: http.Server;
let origin: string;
const hits: { at: number; path: string }[] = [];
const open: RedisFrontier[] = [];

describe.skipIf(!!missing)('comment-API requests of several Redis workers (real redis-server, loopback server)', () => {
  beforeAll(async () => {
    redis = await startRedis();
    server = http.createServer((req, res) => {
      hits.push({ at: Date.now(), path: req.url ?? '' });
      // A little latency, so requests of different workers would overlap if nothing held them apart.
      setTimeout(() => res.end(JSON.stringify({ total: 0, comments: [] })), 30);
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }, 60_000);
  afterAll(async () => {
    for (const f of open) await f.close().catch(() => undefined);
    server?.closeAllConnections();
    await new Promise((ok) => server?.close(ok));
    await redis?.stop();
  });

  it('keeps the per-host delay between every request the server sees, pages and comment APIs of all workers alike', async () => {
    const workers: RedisFrontier[] = [];
    for (let i = 0; i < 3; i++) {
      const crawl = await RedisCrawl.join({ url: redis.url, crawlId: 'api', worker: i > 0, settings: { maxPages: 0, perHostDelayMs: DELAY, perHostConcurrency: 2 }, log: () => undefined });
      if (i === 0) await crawl.markSeeded();
      else await crawl.waitForSeeds();
      const f = new RedisFrontier(crawl, { log: () => undefined });
      open.push(f);
      workers.push(f);
    }
    const gate = new FetchGate({ seedUrls: [`${origin}/`] });
    const fetches = workers.map((f) => createPoliteFetch({ gate, politeness: f.politeness, sharedHosts: f.sharedHosts, maxWaitMs: 120_000 }));
    // Pages of the host queued in the shared frontier, fetched by the first worker meanwhile.
    for (let p = 0; p < 3; p++) workers[0].offer({ url: `${origin}/page-${p}.html`, depth: 1, score: 1 });
    const pages = (async () => {
      for (let fetched = 0; fetched < 3; ) {
        const e = await workers[0].next();
        if (!e) {
          await new Promise((ok) => setTimeout(ok, 20)); // the host is held or waiting its delay
          continue;
        }
        await new Promise<void>((ok, no) => http.get(e.url, (r) => r.resume().on('end', ok)).on('error', no));
        await workers[0].finish(e.uniqueKey, e.url);
        fetched++;
      }
    })();
    const before = hits.length;
    const results = await Promise.all([
      ...fetches.flatMap((fetch, w) => Array.from({ length: 3 }, (_, k) => fetch({ url: `${origin}/api/comments?w=${w}&page=${k}`, kind: 'comment-api' }))),
      pages,
    ]);
    for (const r of results.slice(0, 9)) expect(r).toMatchObject({ ok: true, status: 200 });
    const seen = hits.slice(before);
    expect(seen.filter((h) => h.path.startsWith('/api/comments')).length).toBe(9);
    expect(seen.filter((h) => h.path.startsWith('/page-')).length).toBe(3);
    const sorted = seen.map((h) => h.at).sort((a, b) => a - b);
    const gaps = sorted.slice(1).map((t, i) => t - sorted[i]);
    // One request at a time with a delay, counted from the previous request's end (≥ DELAY between arrivals).
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(DELAY);
  }, 120_000);
});
