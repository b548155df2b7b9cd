/**
 * The crawl's polite fetching for requests that are not pages (src/crawl/polite-fetch.ts), on
 * real loopback servers with the real fetch gate and the frontier's HostPoliteness: per-host
 * delay shared with pages, robots.txt, forbidden addresses and redirect hops refused with a
 * reason (and never reaching the server), a page's own sub-requests not blocked by the page
 * itself, and every request in the sub-request log.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPoliteFetch, crawlPoliteFetch } from '../src/crawl/polite-fetch.js';
import { countSubRequests, type SubRequestRecord } from '../src/store/sub-requests.js';
import { FetchGate } from '../src/fetch/gate/gate.js';
import { HostPoliteness } from '../src/frontier/politeness.js';
import { readJsonLines } from '../src/store/jsonl.js';

interface Hit {
  at: number;
  path: string;
  ua: string;
}

async function server(handler: (req: http.IncomingMessage, res: http.ServerResponse) => void): Promise<{ origin: string; hits: Hit[]; close(): Promise<void> }> {
  const hits: Hit[] = [];
  const s = http.createServer((req, res) => {
    hits.push({ at: Date.now(), path: req.url ?? '', ua: String(req.headers['user-agent'] ?? '') });
    handler(req, res);
  });
  await new Promise<void>((ok) => s.listen(0, '127.0.0.1', ok));
  const { port } = s.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    hits,
    close: () =>
      new Promise<void>((ok) => {
        s.close(() => ok());
        s.closeAllConnections();
      }),
  };
}

let api: Awaited<ReturnType<typeof server>>;
let honeypot: Awaited<ReturnType<typeof server>>;
let dir: string;

beforeAll(async () => {
  honeypot = await server((_req, res) => res.end('secret'));
  api = await server((req, res) => {
    if (req.url?.startsWith('/to-honeypot')) {
      res.writeHead(302, { location: `${honeypot.origin}/admin` });
      return res.end();
    }
    if (req.url?.startsWith('/hop')) {
      res.writeHead(301, { location: '/api/comments?page=9' });
      return res.end();
    }
    if (req.url?.startsWith('/missing')) {
      res.writeHead(404);
      return res.end();
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ path: req.url }));
  });
  dir = mkdtempSync(join(tmpdir(), 'polite-fetch-'));
});

afterAll(async () => {
  await api?.close();
  await honeypot?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The gate as a crawl of `api` builds it: the seed's exact origin may be private, nothing else. */
const crawlGate = () => new FetchGate({ seedUrls: [`${api.origin}/`] });
const gaps = (hits: Hit[]) => hits.slice(1).map((h, i) => h.at - hits[i].at);

describe('polite fetch', () => {
  it('paces requests to one host by the per-host delay, in the same state the frontier hands pages out by', async () => {
    const politeness = new HostPoliteness({ perHostDelayMs: 300 });
    const fetch = createPoliteFetch({ gate: crawlGate(), politeness });
    const host = new URL(api.origin).host;
    const before = api.hits.length;
    // A page of this host is in flight (handed out by the frontier): sub-requests wait for it to end.
    politeness.started(host);
    let pageEnded = 0;
    setTimeout(() => {
      pageEnded = Date.now();
      politeness.ended(host);
    }, 200);
    const rs = await Promise.all([1, 2, 3].map((n) => fetch({ url: `${api.origin}/api/comments?page=${n}`, kind: 'comment-api' })));
    expect(rs.every((r) => r.ok)).toBe(true);
    const hits = api.hits.slice(before);
    expect(hits).toHaveLength(3);
    expect(hits[0].at - pageEnded).toBeGreaterThanOrEqual(300 - 5);
    for (const g of gaps(hits)) expect(g).toBeGreaterThanOrEqual(300 - 5);
    // While a sub-request was under way the frontier saw the host as busy; now the delay runs from its end.
    expect(politeness.wait(host)).toBeGreaterThan(0);
    expect(hits.every((h) => h.ua.includes('focused-crawler'))).toBe(true);
  });

  it("a page's own sub-requests are not held up by the page itself; the delay counts from its fetch", async () => {
    const politeness = new HostPoliteness({ perHostDelayMs: 250 });
    const fetch = createPoliteFetch({ gate: crawlGate(), politeness, maxWaitMs: 60_000 });
    const host = new URL(api.origin).host;
    politeness.started(host); // the page, still in its handler
    const fetchedAt = new Date();
    const before = api.hits.length;
    const r = await fetch({ url: `${api.origin}/api/comments?page=2`, kind: 'comment-api', parent: { url: `${api.origin}/article.html`, fetchedAt } });
    expect(r.ok).toBe(true);
    expect(api.hits[before].at - fetchedAt.getTime()).toBeGreaterThanOrEqual(250 - 5);
    politeness.ended(host);
  });

  it('gives up on a host that stays busy, with a reason, instead of waiting for ever', async () => {
    const politeness = new HostPoliteness({ perHostDelayMs: 100 });
    const fetch = createPoliteFetch({ gate: crawlGate(), politeness, maxWaitMs: 150 });
    const host = new URL(api.origin).host;
    politeness.started(host); // another page's request that does not end
    const before = api.hits.length;
    const r = await fetch({ url: `${api.origin}/api/comments?page=3`, kind: 'comment-api' });
    expect(r).toMatchObject({ ok: false, refused: false });
    expect(!r.ok && r.reason).toMatch(/host busy/);
    expect(api.hits.length).toBe(before);
    politeness.ended(host);
    // A delay longer than the request may wait (a page's comment budget) is not waited out.
    const slow = createPoliteFetch({ gate: crawlGate(), politeness: new HostPoliteness({ perHostDelayMs: 600_000 }) });
    expect((await slow({ url: `${api.origin}/api/comments?page=4`, kind: 'comment-api' })).ok).toBe(true);
    const next = await slow({ url: `${api.origin}/api/comments?page=5`, kind: 'comment-api', maxWaitMs: 100 });
    expect(next).toMatchObject({ ok: false, refused: false });
    expect(!next.ok && next.reason).toMatch(/would not be free .* within 0\.1 s/);
    expect(api.hits.filter((h) => h.path.endsWith('page=5'))).toEqual([]);
  });

  it('refuses what robots.txt disallows, forbidden addresses and schemes, and redirect hops to them, with reasons, before any request', async () => {
    const records: SubRequestRecord[] = [];
    const fetch = createPoliteFetch({
      gate: crawlGate(),
      politeness: new HostPoliteness(),
      robotsBlock: async (url) => (new URL(url).pathname.startsWith('/private-api') ? 'robots: disallowed by robots.txt' : undefined),
      record: (r) => records.push(r),
    });
    const apiBefore = api.hits.length;
    const cases: [string, RegExp][] = [
      [`${api.origin}/private-api/comments?page=2`, /^robots: disallowed/],
      ['http://169.254.169.254/latest/meta-data/?page=2', /private-address: cloud metadata/],
      ['http://[::ffff:a9fe:a9fe]/api/comments?page=2', /private-address: cloud metadata/],
      [`${honeypot.origin}/api/comments?page=2`, /private-address: .*loopback/],
      ['http://0x7f000001:1/api/comments?page=2', /private-address: .*loopback/],
      ['file:///etc/passwd', /^scheme/],
    ];
    for (const [url, reason] of cases) {
      const r = await fetch({ url, kind: 'comment-api', parent: { url: `${api.origin}/a.html`, fetchedAt: new Date() } });
      expect(r.ok, url).toBe(false);
      expect(!r.ok && r.refused, url).toBe(true);
      expect(!r.ok && r.reason, url).toMatch(reason);
    }
    expect(api.hits.length).toBe(apiBefore); // the robots-disallowed path was never requested
    // A redirect hop to a forbidden address: the first request is made, the hop is refused.
    const hop = await fetch({ url: `${api.origin}/to-honeypot?page=2`, kind: 'comment-api' });
    expect(hop).toMatchObject({ ok: false, refused: true });
    expect(!hop.ok && hop.reason).toMatch(/private-address/);
    expect(honeypot.hits).toEqual([]);
    // Every one of them is in the log with its reason.
    const refused = records.filter((r) => r.outcome === 'refused');
    expect(refused).toHaveLength(cases.length + 1);
    for (const r of refused) expect(r.reason).toBeTruthy();
    expect(records.find((r) => r.url.includes('/to-honeypot'))).toMatchObject({ outcome: 'fetched', status: 302, reason: 'redirect' });
  });

  it('follows an allowed redirect hop, reports HTTP errors, and logs everything to the sub-request log, counted again on resume', async () => {
    const logPath = join(dir, 'subrequests.jsonl');
    const one = crawlPoliteFetch({ gate: crawlGate(), politeness: new HostPoliteness(), logPath });
    const r = await one.fetch({ url: `${api.origin}/hop`, kind: 'comment-api', parent: { url: `${api.origin}/a.html`, fetchedAt: new Date() } });
    expect(r.ok && JSON.parse(r.body.toString()).path).toBe('/api/comments?page=9');
    const miss = await one.fetch({ url: `${api.origin}/missing`, kind: 'comment-api' });
    expect(miss).toMatchObject({ ok: false, refused: false, reason: 'HTTP 404' });
    await one.fetch({ url: 'http://169.254.169.254/x', kind: 'comment-api' });
    expect(one.fetch.counts()).toEqual({ fetched: 2, failed: 1, refused: 1 });
    one.close();
    const lines = readJsonLines<SubRequestRecord>(logPath);
    expect(lines.map((l) => [l.outcome, l.status ?? null])).toEqual([
      ['fetched', 301],
      ['fetched', 200],
      ['failed', 404],
      ['refused', null],
    ]);
    expect(lines[0]).toMatchObject({ kind: 'comment-api', parent: `${api.origin}/a.html` });
    expect(countSubRequests(lines)).toEqual({ fetched: 2, failed: 1, refused: 1 });
    // A resumed run appends and counts on from the file.
    const two = crawlPoliteFetch({ gate: crawlGate(), politeness: new HostPoliteness(), logPath });
    await two.fetch({ url: `${api.origin}/api/comments?page=1`, kind: 'comment-api' });
    expect(two.fetch.counts()).toEqual({ fetched: 3, failed: 1, refused: 1 });
    two.close();
    expect(readJsonLines(logPath)).toHaveLength(5);
  });
});
