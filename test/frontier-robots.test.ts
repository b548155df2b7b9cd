import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Frontier, uniqueKeyOf } from '../src/frontier/frontier.js';
import { FrontierJournal } from '../src/frontier/journal.js';
import { RobotsCache } from '../src/frontier/robots.js';
import { FetchGate } from '../src/fetch/gate/gate.js';
import { gatedFetchText } from '../src/fetch/gate/gated-request.js';

// Two loopback origins: one with a robots.txt (Crawl-delay 2, /private/ disallowed), one without.
let withRobots = '';
let without = '';
const robotsHits: string[] = [];
const servers: http.Server[] = [];

async function serve(handler: http.RequestListener): Promise<string> {
  const s = http.createServer(handler);
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  withRobots = await serve((req, res) => {
    if (req.url === '/robots.txt') {
      robotsHits.push('with');
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('User-agent: *\nCrawl-delay: 2\nDisallow: /private/\n');
    } else res.end('ok');
  });
  without = await serve((req, res) => {
    if (req.url === '/robots.txt') robotsHits.push('without');
    res.writeHead(404);
    res.end('no');
  });
});
afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
});

describe('RobotsCache', () => {
  it('reads Disallow and Crawl-delay, fetches robots.txt once per origin, and allows all when it is missing', async () => {
    const rc = new RobotsCache();
    await Promise.all([rc.load(`${withRobots}/a`), rc.load(`${withRobots}/b`), rc.load(`${without}/c`)]);
    expect(robotsHits.filter((h) => h === 'with')).toHaveLength(1);
    expect(rc.isAllowed(`${withRobots}/private/x.html`)).toBe(false);
    expect(rc.isAllowed(`${withRobots}/public/x.html`)).toBe(true);
    expect(rc.crawlDelayMs(new URL(withRobots).host)).toBe(2000);
    expect(rc.isAllowed(`${without}/private/x.html`)).toBe(true);
    expect(rc.crawlDelayMs(new URL(without).host)).toBeUndefined();
  });

  it('treats an unreachable origin as disallow-all (RFC 9309), and asks again later', async () => {
    let now = 1_000;
    const rc = new RobotsCache({ timeoutMs: 500, retryAfterMs: 60_000, now: () => now });
    const info = await rc.load('http://127.0.0.1:1/x');
    expect(info?.status).toBe(0);
    expect(rc.isAllowed('http://127.0.0.1:1/private/x')).toBe(false);
    expect(await rc.block('http://127.0.0.1:1/y')).toMatch(/disallow all/);
    expect(rc.isLoaded('http://127.0.0.1:1/y')).toBe(true);
    now += 60_001;
    expect(rc.isLoaded('http://127.0.0.1:1/y')).toBe(false);
  });

  it('5xx = disallow all until it recovers; 404 = allow all', async () => {
    let status = 500;
    let now = 0;
    const rc = new RobotsCache({ retryAfterMs: 1000, now: () => now, fetchText: async (url) => (url.includes('four') ? { status: 404, text: '' } : { status, text: 'User-agent: *\nDisallow: /private/\n' }) });
    await rc.load('http://five.example/a');
    await rc.load('http://four.example/a');
    expect(rc.isAllowed('http://five.example/public')).toBe(false);
    expect(rc.isAllowed('http://four.example/private/x')).toBe(true);
    status = 200;
    now = 1001;
    await rc.load('http://five.example/a');
    expect(rc.isAllowed('http://five.example/public')).toBe(true);
    expect(rc.isAllowed('http://five.example/private/x')).toBe(false);
  });
});

describe('Frontier with robots.txt', () => {
  it('drops disallowed URLs before hand-out, without spending the page budget', async () => {
    let now = 5000;
    const f = new Frontier({ maxPages: 2, robots: new RobotsCache(), now: () => now });
    const dropped: string[] = [];
    f.onDrop = (e, why) => dropped.push(`${new URL(e.url).pathname} ${why}`);
    f.offer({ url: `${withRobots}/private/1`, depth: 1, score: 0.9 });
    f.offer({ url: `${withRobots}/private/2`, depth: 1, score: 0.8 });
    f.offer({ url: `${without}/private/3`, depth: 1, score: 0.7 });
    f.offer({ url: `${withRobots}/ok`, depth: 1, score: 0.1 });
    const a = await f.requestManager.fetchNextRequest();
    await f.requestManager.markRequestHandled(a!);
    // Fetching robots.txt was itself a request to that host: its Crawl-delay runs from there.
    expect(await f.requestManager.fetchNextRequest()).toBeNull();
    now += 2000;
    const b = await f.requestManager.fetchNextRequest();
    expect([a!.url, b!.url]).toEqual([`${without}/private/3`, `${withRobots}/ok`]);
    expect(dropped).toEqual(['/private/1 robots.txt', '/private/2 robots.txt']);
    expect(f.pagesHandedOut).toBe(2);
    expect(f.dropReason(uniqueKeyOf(`${withRobots}/private/1`))).toBe('robots.txt');
  });

  it('never hands out past the budget while a robots.txt is being fetched', async () => {
    // Two slots ask at once at the budget's edge, both waiting for a new origin's robots.txt:
    // once the first has handed out the last page, the second must find the budget spent.
    const rc = new RobotsCache();
    await rc.load(`${without}/`);
    const f = new Frontier({ maxPages: 1, robots: rc, perHostDelayMs: 0, perHostConcurrency: 2 });
    f.offer({ url: `${withRobots}/fresh-origin`, depth: 1, score: 0.9 });
    f.offer({ url: `${without}/known-origin`, depth: 1, score: 0.2 });
    f.offer({ url: `${without}/known-origin-2`, depth: 1, score: 0.1 });
    // both pick the best, whose robots.txt is not loaded yet, and wait for it; then one hands out
    // a page (the other origin's: the fresh one's Crawl-delay runs from its robots.txt) and the
    // other finds the budget spent
    const got = await Promise.all([f.next(), f.next()]);
    expect(got.filter((e) => e !== null).map((e) => e!.url)).toEqual([`${without}/known-origin`]);
    expect(f.pagesHandedOut).toBe(1);
  });

  it('honours Crawl-delay, counted from the end of the previous request to that host', async () => {
    let now = 10_000;
    const rc = new RobotsCache();
    await rc.load(`${withRobots}/`);
    const f = new Frontier({ robots: rc, perHostDelayMs: 100, now: () => now });
    f.offer({ url: `${withRobots}/1`, depth: 1, score: 0.9 });
    f.offer({ url: `${withRobots}/2`, depth: 1, score: 0.8 });
    const r1 = await f.requestManager.fetchNextRequest();
    expect(await f.requestManager.fetchNextRequest()).toBeNull(); // one at a time on a delayed host
    now += 500; // the request took 500 ms
    await f.requestManager.markRequestHandled(r1!);
    expect(f.nextEligibleInMs()).toBe(2000);
    now += 1999;
    expect(await f.requestManager.fetchNextRequest()).toBeNull();
    now += 1;
    expect((await f.requestManager.fetchNextRequest())!.url).toBe(`${withRobots}/2`);
  });
});

describe('Frontier journal and restore', () => {
  const dir = mkdtempSync(join(tmpdir(), 'frontier-journal-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('rebuilds queue, scores, seen set and budget after a crash; unfinished requests go back unless logged as fetched', async () => {
    const j = new FrontierJournal(dir);
    const f = new Frontier({ maxPages: 10, journal: j });
    for (let i = 0; i < 5; i++) f.offer({ url: `http://a.test/${i}`, depth: 1, score: i / 10 });
    f.rescore(uniqueKeyOf('http://a.test/0'), 0.95, { boosted: 1 });
    f.drop(uniqueKeyOf('http://a.test/1'), 'tunnel-spent');
    const r1 = await f.requestManager.fetchNextRequest(); // a.test/0 (0.95)
    await f.requestManager.markRequestHandled(r1!);
    f.snapshotNow(); // later operations go to the next journal generation
    const r2 = await f.requestManager.fetchNextRequest(); // a.test/4, finished and logged but 'f' lost
    const r3 = await f.requestManager.fetchNextRequest(); // a.test/3, in flight at the crash
    f.offer({ url: 'http://a.test/5', depth: 2, score: 0.05 });
    f.flush();
    expect([r1!.url, r2!.url, r3!.url]).toEqual(['http://a.test/0', 'http://a.test/4', 'http://a.test/3']);
    // kill -9: no close(); a new process reads the files.
    const state = FrontierJournal.read(dir);
    expect(state.snapshot).toBeDefined();
    const g = new Frontier({ maxPages: 10 });
    const logged = new Set([uniqueKeyOf('http://a.test/0'), uniqueKeyOf('http://a.test/4')]);
    const r = g.restore(state, (k) => logged.has(k));
    expect(r.requeued).toBe(1);
    expect(g.pagesHandedOut).toBe(2);
    expect([...g.queued()].map((e) => e.url).sort()).toEqual(['http://a.test/2', 'http://a.test/3', 'http://a.test/5']);
    expect(g.offer({ url: 'http://a.test/1', depth: 1, score: 1 })).toBe('duplicate');
    expect(g.offer({ url: 'http://a.test/4', depth: 1, score: 1 })).toBe('duplicate');
    expect(g.dropReason(uniqueKeyOf('http://a.test/1'))).toBe('tunnel-spent');
    const order: string[] = [];
    for (let q = await g.requestManager.fetchNextRequest(); q; q = await g.requestManager.fetchNextRequest()) {
      order.push(q.url);
      await g.requestManager.markRequestHandled(q);
    }
    expect(order).toEqual(['http://a.test/3', 'http://a.test/2', 'http://a.test/5']);
    j.close();
  });
});

describe('one apply for live calls and replay', () => {
  it('a frontier replayed from its journal alone has the live state, for a random mix of operations', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'frontier-apply-'));
    try {
      const j = new FrontierJournal(dir);
      const live = new Frontier({ journal: j, snapshotEveryOps: 1e9 });
      let x = 7;
      const rnd = (n: number) => ((x = (x * 1103515245 + 12345) % 2 ** 31), x % n);
      const url = () => `http://h${rnd(4)}.test/${rnd(60)}`;
      const inFlight: Awaited<ReturnType<typeof live.requestManager.fetchNextRequest>>[] = [];
      for (let i = 0; i < 600; i++) {
        const op = rnd(7);
        if (op <= 1) live.offer({ url: url(), depth: rnd(3), score: rnd(100) / 100, components: { c: rnd(5) } });
        else if (op === 2) live.rescore(uniqueKeyOf(url()), rnd(100) / 100);
        else if (op === 3) live.drop(uniqueKeyOf(url()), 'test');
        else if (op === 4) live.offerRevisit({ url: url(), depth: 1, score: rnd(100) / 100 });
        else if (op === 5) inFlight.push(await live.requestManager.fetchNextRequest());
        else {
          const r = inFlight.shift();
          if (r) await live.requestManager.markRequestHandled(r);
        }
      }
      live.flush();
      const replayed = new Frontier();
      replayed.backend.load({ sequence: 0, revisitCount: 0, handedOut: 0, entries: [], inFlight: [], seen: [], dropped: [] });
      for (const op of FrontierJournal.read(dir).ops) replayed.backend.apply(op);
      const norm = (s: ReturnType<Frontier['snapshotState']>) => ({
        ...s,
        entries: [...s.entries].sort((a, b) => a.uniqueKey.localeCompare(b.uniqueKey)),
        inFlight: [...s.inFlight].sort((a, b) => a.uniqueKey.localeCompare(b.uniqueKey)),
        seen: [...s.seen].sort(),
        dropped: [...s.dropped].sort(),
      });
      expect(live.snapshotState().entries.length).toBeGreaterThan(5);
      expect(norm(replayed.snapshotState())).toEqual(norm(live.snapshotState()));
      j.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a host that gives no answer is named for what it is, not robots.txt', () => {
  it('a name that does not resolve, and a loopback port with nothing listening, are tallied by their failure', async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const deadOrigin = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise<void>((r) => closed.close(() => r()));
    const gate = new FetchGate({ seedUrls: [deadOrigin, without] });
    const rc = new RobotsCache({ fetchText: (url, timeoutMs) => gatedFetchText(gate, url, { timeoutMs }) });
    const f = new Frontier({ robots: rc, perHostDelayMs: 0 });
    const dropped: string[] = [];
    f.onDrop = (e, why) => dropped.push(`${new URL(e.url).host} ${why}`);
    f.offer({ url: 'http://no-such-host.invalid/a', depth: 1, score: 0.9 });
    f.offer({ url: `${deadOrigin}/b`, depth: 1, score: 0.8 });
    f.offer({ url: `${without}/c`, depth: 1, score: 0.1 });
    const got = await f.requestManager.fetchNextRequest();
    expect(got?.url).toBe(`${without}/c`);
    expect(dropped).toEqual(['no-such-host.invalid host not found (DNS)', `${new URL(deadOrigin).host} connection refused`]);
    expect(f.dropReason(uniqueKeyOf('http://no-such-host.invalid/a'))).toBe('host not found (DNS)');
    expect(await rc.block('http://no-such-host.invalid/x')).toMatch(/^host not found \(DNS\): robots\.txt had no answer/);
    // A robots.txt that answers 5xx is still the robots.txt rule.
    expect(rc.refusal(`${without}/c`)).toBe('robots.txt');
  });
});
