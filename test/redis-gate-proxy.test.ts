/**
 * The browser's redirect hops in a Redis crawl: Chromium's requests go through each worker's
 * gate proxy process (src/fetch/gate/gate-proxy-process.ts), so a hop is paced there, not by the
 * queue. Several workers, each with its own frontier connection and its own gate proxy process,
 * on a real redis-server and real loopback servers: pages on three hosts all redirect to one
 * host that has pages of its own in the queue too. What that host's server logs is the test:
 * no two arrivals closer than the per-host delay, whichever worker sent them, hop or page —
 * with a client speaking to the proxies as Chromium does, and with real Chromium.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium } from 'playwright';
import { browserLaunchOptions } from '../src/fetch/browser.js';
import { startGateProxyProcess } from '../src/fetch/gate/gate-proxy-process.js';
import type { GateProxy } from '../src/fetch/gate/gate-proxy.js';
import { RedisCrawl, RedisFrontier } from '../src/cluster/redis-frontier.js';
import { RobotsCache } from '../src/frontier/robots.js';
import { redisMissing, startRedis, type LocalRedis } from '../src/testweb/redis-server.js';

const missing = redisMissing();
if (missing) console.warn(missing);

const DELAY = 250;
const WORKERS = 3;
let redis: LocalRedis;
const servers: http.Server[] = [];
/** Arrivals at the hop target's server. */
const targetHits: { at: number; path: string }[] = [];
const open: { close(): Promise<unknown> }[] = [];

async function serve(handler: http.RequestListener): Promise<string> {
  const s = http.createServer(handler);
  await new Promise<void>((ok) => s.listen(0, '127.0.0.1', ok));
  servers.push(s);
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
}

/** GET through the proxy as Chromium does (absolute URL, proxy credentials), following redirects through it too. */
async function getThrough(proxy: GateProxy, url: string): Promise<number[]> {
  const statuses: number[] = [];
  for (let hop = 0; hop < 5; hop++) {
    const { hostname: host, port } = new URL(proxy.server);
    const res = await new Promise<http.IncomingMessage>((ok, no) =>
      http
        .get({ host, port, path: url, headers: { host: new URL(url).host, 'proxy-authorization': `Basic ${Buffer.from(`${proxy.username}:${proxy.password}`).toString('base64')}` } }, ok)
        .on('error', no),
    );
    res.resume();
    await new Promise((ok) => res.on('end', ok));
    statuses.push(res.statusCode ?? 0);
    const loc = res.headers.location;
    if (!loc || (res.statusCode ?? 0) < 300 || (res.statusCode ?? 0) >= 400) return statuses;
    url = new URL(loc, url).href;
  }
  return statuses;
}

describe.skipIf(!!missing)("browser redirect hops of several Redis workers (gate proxy processes, real redis-server)", () => {
  let target: string;
  let sources: string[];
  beforeAll(async () => {
    redis = await startRedis();
    target = await serve((req, res) => {
      targetHits.push({ at: Date.now(), path: req.url ?? '' });
      // A little latency, so requests of different workers would overlap if nothing held them apart.
      setTimeout(() => res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>page</body></html>'), 30);
    });
    sources = [];
    for (let i = 0; i < WORKERS; i++) sources.push(await serve((req, res) => res.writeHead(302, { location: `${target}/landed${req.url}` }).end()));
  }, 60_000);
  afterAll(async () => {
    for (const o of open.reverse()) await o.close().catch(() => undefined);
    for (const s of servers) {
      s.closeAllConnections();
      await new Promise((ok) => s.close(ok));
    }
    await redis?.stop();
  });

  /** WORKERS workers of crawl `id`, each with its own frontier connection and gate proxy process, and the queue filled. */
  async function crawlWorkers(id: string): Promise<{ frontier: RedisFrontier; proxy: GateProxy }[]> {
    const workers: { frontier: RedisFrontier; proxy: GateProxy }[] = [];
    for (let i = 0; i < WORKERS; i++) {
      const crawl = await RedisCrawl.join({ url: redis.url, crawlId: id, worker: i > 0, settings: { maxPages: 0, perHostDelayMs: DELAY, perHostConcurrency: 2 }, log: () => undefined });
      if (i === 0) await crawl.markSeeded();
      else await crawl.waitForSeeds();
      const frontier = new RedisFrontier(crawl, { log: () => undefined });
      open.push(frontier);
      const proxy = await startGateProxyProcess({
        gate: { seedUrls: [...sources, target].map((o) => `${o}/`) },
        maxRedirects: 5,
        timeoutMs: 60_000,
        hostDelayMs: () => DELAY,
        holdHop: (host, own, maxWaitMs) => frontier.politeness.holdHop(host, own, maxWaitMs),
      });
      open.push(proxy);
      frontier.onHandOut = (e) => proxy.noteNavigation(e.url);
      workers.push({ frontier, proxy });
    }
    // Redirecting pages on each source host (handed out at once, one per worker) and pages of the target itself.
    for (const [i, s] of sources.entries()) for (let k = 0; k < 2; k++) workers[0].frontier.offer({ url: `${s}/${id}/from-${i}-${k}`, depth: 1, score: 2 });
    for (let k = 0; k < 3; k++) workers[0].frontier.offer({ url: `${target}/own-${id}-${k}`, depth: 1, score: 1 });
    return workers;
  }

  /** Every worker fetches what the frontier hands it until the crawl is over; returns what each fetch got. */
  async function crawl<T>(workers: { frontier: RedisFrontier; proxy: GateProxy }[], fetch: (w: number, url: string) => Promise<T>): Promise<T[]> {
    const got: T[] = [];
    await Promise.all(
      workers.map(async ({ frontier }, w) => {
        for (;;) {
          const e = await frontier.next();
          if (!e) {
            if (await frontier.isExhausted()) return;
            await new Promise((ok) => setTimeout(ok, 20)); // hosts held or waiting their delay
            continue;
          }
          got.push(await fetch(w, e.url));
          await frontier.finish(e.uniqueKey, e.url);
        }
      }),
    );
    return got;
  }

  /**
   * The target server's arrivals of crawl `id` (documents: anything else Chromium might ask the
   * host for, a favicon, is a page's sub-request and not paced): all there, never closer than the delay.
   */
  function expectPaced(id: string): void {
    const hits = targetHits.filter((h) => h.path.includes(`${id}/`) || h.path.includes(`own-${id}-`));
    expect(hits.filter((h) => h.path.startsWith('/landed/')).length).toBe(WORKERS * 2);
    expect(hits.filter((h) => h.path.startsWith('/own-')).length).toBe(3);
    const sorted = hits.map((h) => h.at).sort((a, b) => a - b);
    const gaps = sorted.slice(1).map((t, i) => t - sorted[i]);
    // One request at a time with a delay, counted from the previous request's end (≥ DELAY between arrivals).
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(DELAY);
  }

  it("keeps the per-host delay between every request the hop target's server sees, hops of all workers and its own pages alike", async () => {
    const workers = await crawlWorkers('http');
    const fetched = await crawl(workers, (w, url) => getThrough(workers[w].proxy, url));
    // Every redirect was followed to a page, every page of the target fetched.
    expect(fetched.filter((s) => s.join() === '302,200').length).toBe(WORKERS * 2);
    expect(fetched.filter((s) => s.join() === '200').length).toBe(3);
    expectPaced('http');
  }, 180_000);

  it('a host first met through redirect hops: its robots.txt counts as a request and its Crawl-delay binds every worker', async () => {
    // Arrivals at a host with Crawl-delay: 1 that no hand-out has reached: the three workers'
    // first contact with it is a redirect hop, whose robots.txt check fetches its robots.txt.
    const hits: { at: number; path: string }[] = [];
    const delayed = await serve((req, res) => {
      hits.push({ at: Date.now(), path: req.url ?? '' });
      if (req.url === '/robots.txt') return res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nCrawl-delay: 1\n');
      res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>page</body></html>');
    });
    const froms: string[] = [];
    for (let i = 0; i < WORKERS; i++) froms.push(await serve((req, res) => (req.url === '/robots.txt' ? res.writeHead(404).end() : res.writeHead(302, { location: `${delayed}/landed${req.url}` }).end())));
    const workers: { frontier: RedisFrontier; proxy: GateProxy }[] = [];
    for (let i = 0; i < WORKERS; i++) {
      const crawl = await RedisCrawl.join({ url: redis.url, crawlId: 'first-met', worker: i > 0, settings: { maxPages: 0, perHostDelayMs: DELAY, perHostConcurrency: 2 }, log: () => undefined });
      if (i === 0) await crawl.markSeeded();
      else await crawl.waitForSeeds();
      const fetchText = async (url: string) => {
        const r = await fetch(url);
        return { status: r.status, text: await r.text() };
      };
      const robots = new RobotsCache({ userAgent: 'focused-crawler', fetchText: crawl.sharedRobotsFetch(fetchText) });
      const frontier = new RedisFrontier(crawl, { robots, log: () => undefined });
      open.push(frontier);
      const proxy = await startGateProxyProcess({
        gate: { seedUrls: [...froms, delayed].map((o) => `${o}/`) },
        maxRedirects: 5,
        timeoutMs: 60_000,
        robotsBlock: (url) => frontier.robotsBlock(url),
        hostDelayMs: (host) => frontier.politeness.delayOf(host),
        holdHop: (host, own, maxWaitMs) => frontier.politeness.holdHop(host, own, maxWaitMs),
      });
      open.push(proxy);
      frontier.onHandOut = (e) => proxy.noteNavigation(e.url);
      workers.push({ frontier, proxy });
    }
    // The redirecting pages first (one per worker at once): no hand-out has reached the host.
    for (const [i, s] of froms.entries()) workers[0].frontier.offer({ url: `${s}/hop-${i}`, depth: 1, score: 2 });
    const fetched = await crawl(workers, (w, url) => getThrough(workers[w].proxy, url));
    expect(fetched.filter((s) => s.join() === '302,200').length).toBe(WORKERS);
    // Then the host's own pages, handed out by the schedule the hops left in Redis.
    for (let k = 0; k < 2; k++) workers[0].frontier.offer({ url: `${delayed}/own-${k}`, depth: 1, score: 1 });
    await crawl(workers, (w, url) => getThrough(workers[w].proxy, url));
    expect(hits.filter((h) => h.path === '/robots.txt').length).toBe(1);
    expect(hits.filter((h) => h.path.startsWith('/landed/')).length).toBe(WORKERS);
    expect(hits.filter((h) => h.path.startsWith('/own-')).length).toBe(2);
    const gaps = hits.slice(1).map((h, i) => `${hits[i].path} → ${h.path}: ${h.at - hits[i].at} ms`).filter((g) => Number(g.split(': ')[1].split(' ')[0]) < 1000);
    expect(gaps).toEqual([]);
  }, 180_000);

  it('does the same for real Chromium, each worker\'s browser context going through its own gate proxy process', async () => {
    const workers = await crawlWorkers('chromium');
    const browser = await chromium.launch((await browserLaunchOptions()).launchOptions);
    try {
      // As the crawler launches it (src/crawl/engine.ts): the gate proxy for loopback too.
      const pages = await Promise.all(
        workers.map(async ({ proxy }) => {
          const context = await browser.newContext({ proxy: { server: proxy.server, username: proxy.username, password: proxy.password, bypass: '<-loopback>' } });
          return context.newPage();
        }),
      );
      const landed = await crawl(workers, async (w, url) => {
        const res = await pages[w].goto(url);
        return `${res?.request().redirectedFrom() ? 'hop ' : ''}${res?.status()}`;
      });
      expect(landed.filter((s) => s === 'hop 200').length).toBe(WORKERS * 2);
      expect(landed.filter((s) => s === '200').length).toBe(3);
      expectPaced('chromium');
    } finally {
      await browser.close();
    }
  }, 240_000);
});
