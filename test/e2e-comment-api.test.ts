/**
 * End to end on the local test web (real headless Chromium): the reply-thread plugin's
 * comment-API requests (pages 2… of a news article's comments; the widget itself loads page 1)
 * go through the crawl's own polite fetching. From the test web's own request log: requests to a
 * host, pages and comment-API pages together, are never closer than the per-host delay; a site
 * whose robots.txt disallows its comment API never sees one of those requests; and a comment API
 * on a forbidden address is refused with its reason in the sub-request log, never reached.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config/schema.js';
import { runCrawl, type CrawlPlugin, type CrawlResult } from '../src/crawl/engine.js';
import { threadsPlugin, type ThreadsPlugin } from '../src/plugins/threads.js';
import { ProgressReporter } from '../src/report/progress.js';
import { CrawlLog, type CrawlLogEntry } from '../src/store/crawl-log.js';
import { SubRequestLog, type SubRequestRecord } from '../src/store/sub-requests.js';
import { resolveOptions, startTestWeb, type TestWeb } from '../src/testweb/index.js';
import { generateModel } from '../src/testweb/model.js';

const DELAY = 800;
let web: TestWeb;
let dir: string;
let result: CrawlResult;
let plugin: ThreadsPlugin;
let log: CrawlLogEntry[];
let subs: SubRequestRecord[];
let honeypotHits = 0;
let honeypot: http.Server;
let honeypotOrigin: string;
let open: { host: string }; // news1: comment API allowed
let closed: { host: string }; // news2: robots.txt disallows /api/comments
let injectedInto = '';

const o = resolveOptions({});
const model = generateModel({ seed: o.seed, articlesPerChannel: o.articlesPerChannel, portals: o.portals, thucnews: false, start: o.start });
const commentPage = (path: string) => (path.startsWith('/api/comments') ? Number(new URLSearchParams(path.split('?')[1] ?? '').get('page') ?? '1') : 0);

beforeAll(async () => {
  honeypot = http.createServer((_req, res) => {
    honeypotHits++;
    res.end('{"secret":true}');
  });
  await new Promise<void>((ok) => honeypot.listen(0, '127.0.0.1', ok));
  honeypotOrigin = `http://127.0.0.1:${(honeypot.address() as AddressInfo).port}`;
  web = await startTestWeb({ extraRobots: { news2: 'Disallow: /api/comments' } });
  dir = mkdtempSync(join(tmpdir(), 'e2e-comment-api-'));
  const originOf = (key: string) => web.sites.find((s) => s.key === key)!.origin;
  open = { host: new URL(originOf('news1')).host };
  closed = { host: new URL(originOf('news2')).host };
  // Seeds: articles with at least three pages of comments at the test web's clock, on both portals.
  const withComments = (site: string) =>
    [...model.articles.values()]
      .filter((a) => a.site === site && a.publish <= model.start && a.commentTimes.filter((t) => t <= model.start).length >= 25)
      .slice(0, 3)
      .map((a) => originOf(site) + a.path);
  const seeds = [...withComments('news1'), ...withComments('news2')];
  expect(seeds).toHaveLength(6);
  injectedInto = seeds[0];
  const config = parseConfig({
    topics: [{ keywords: ['地震', '救援'], seeds }],
    allowPrivate: web.sites.map((s) => s.origin), // the test web's loopback sites, not the honeypot
    fetcher: 'browser',
    strategy: 'bfs',
    maxPages: seeds.length, // the seeds only: every request beyond them is a comment-API page
    maxConcurrency: 2,
    perHostDelayMs: DELAY,
    storageDir: dir,
  });
  plugin = threadsPlugin({ now: () => web.clock.now() });
  // A comment widget whose data names APIs on forbidden addresses (a loopback port nobody allowed,
  // cloud metadata): added to the first seed's captured XHR before the thread is extracted.
  const forbiddenApi: CrawlPlugin = {
    name: 'forbidden-api',
    annotate(_entry, page) {
      if (page.request.url !== injectedInto) return;
      const comments = Array.from({ length: 10 }, (_, i) => ({ user: `网友${i}`, time: '2008-05-20 10:00:00', content: `祝福灾区，挺住${i}` }));
      // First, so their pages come before the real ones within the plugin's maxApiPages.
      page.xhrJson.unshift(
        { url: `${honeypotOrigin}/api/comments?aid=1&page=1`, json: { total: 30, page: 1, comments } },
        { url: 'http://169.254.169.254/api/comments?aid=2&page=1', json: { total: 20, page: 1, comments } },
      );
    },
  };
  result = await runCrawl({ config, plugins: [forbiddenApi, plugin], runId: 'comment-api', progress: new ProgressReporter({ quiet: true }) });
  log = CrawlLog.read(result.logPath);
  subs = SubRequestLog.read(join(result.runDir, 'subrequests.jsonl'));
  console.log(`e2e comment API: ${result.fetched} pages, ${plugin.stats().apiPagesFetched} comment-API pages read, sub-requests ${JSON.stringify(result.counts.subRequests)}`);
}, 300_000);

afterAll(async () => {
  await web?.close();
  await new Promise<void>((ok) => (honeypot ? honeypot.close(() => ok()) : ok()));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Requests the crawler paced: pages it fetched, robots.txt, and comment-API pages past the first (the widget loads page 1 itself). */
function pacedRequests(host: string): { at: number; path: string }[] {
  const fetched = new Set(log.map((e) => new URL(e.url)).filter((u) => u.host === host).map((u) => u.pathname + u.search));
  return web.requestLog
    .filter((r) => r.host === host && (r.path === '/robots.txt' || fetched.has(r.path) || commentPage(r.path) >= 2))
    .map((r) => ({ at: r.at, path: r.path }))
    .sort((a, b) => a.at - b.at);
}

describe('comment-API requests through the crawl’s polite fetching', () => {
  it('fetches the seeds and the comment pages beyond the first on the open site, logged as sub-requests', () => {
    expect(result.fetched).toBe(6);
    const apiPages = web.requestLog.filter((r) => r.host === open.host && commentPage(r.path) >= 2);
    expect(apiPages.length).toBeGreaterThanOrEqual(3);
    const fetchedSubs = subs.filter((s) => s.outcome === 'fetched' && new URL(s.url).host === open.host);
    expect(fetchedSubs.map((s) => new URL(s.url).pathname + new URL(s.url).search).sort()).toEqual(apiPages.map((r) => r.path).sort());
    for (const s of fetchedSubs) expect(s).toMatchObject({ kind: 'comment-api', status: 200 });
    expect(plugin.stats().apiPagesFetched).toBe(apiPages.length);
    expect(result.counts.subRequests?.fetched).toBe(fetchedSubs.length);
    // Each was sent with the crawler's robots token, like every other request.
    expect(web.requestLog.filter((r) => commentPage(r.path) >= 2).every((r) => r.userAgent.includes('focused-crawler'))).toBe(true);
  });

  it('keeps the per-host delay between all the requests it paces to a host, comment-API pages included', () => {
    const reqs = pacedRequests(open.host);
    expect(reqs.filter((r) => commentPage(r.path) >= 2).length).toBeGreaterThanOrEqual(3);
    for (let i = 1; i < reqs.length; i++) {
      expect(reqs[i].at - reqs[i - 1].at, `${reqs[i - 1].path} → ${reqs[i].path}`).toBeGreaterThanOrEqual(DELAY);
    }
  });

  it('never requests a comment API that robots.txt disallows, and says why', () => {
    // The widget's own first page is a sub-resource of the page (not robots-checked, as in a browser); nothing beyond it.
    expect(web.requestLog.filter((r) => r.host === closed.host && commentPage(r.path) === 1).length).toBeGreaterThan(0);
    expect(web.requestLog.filter((r) => r.host === closed.host && commentPage(r.path) >= 2)).toEqual([]);
    const refused = subs.filter((s) => new URL(s.url).host === closed.host);
    expect(refused.length).toBeGreaterThan(0);
    for (const s of refused) expect(s).toMatchObject({ outcome: 'refused', reason: 'robots: disallowed by robots.txt' });
  });

  it('refuses comment APIs on forbidden addresses with the reason, and never reaches them', () => {
    expect(honeypotHits).toBe(0);
    const loop = subs.filter((s) => s.url.startsWith(honeypotOrigin));
    const metadata = subs.filter((s) => s.url.startsWith('http://169.254.169.254/'));
    expect(loop.length).toBe(2); // pages 2 and 3
    expect(metadata.length).toBe(1); // page 2
    for (const s of loop) expect(s).toMatchObject({ outcome: 'refused', parent: injectedInto, reason: expect.stringMatching(/^private-address: .*loopback/) });
    for (const s of metadata) expect(s).toMatchObject({ outcome: 'refused', reason: expect.stringMatching(/cloud metadata/) });
    expect(result.counts.subRequests?.refused).toBe(subs.filter((s) => s.outcome === 'refused').length);
  });
});
