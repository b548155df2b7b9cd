/**
 * Pages waiting for their pattern's learning renders in flight (src/fetch/adaptive/adaptive-learning.ts),
 * end to end in headless Chromium: four pages of one new URL pattern are handed out at once; three
 * learning renders (minSamples) are enough to decide the pattern, so the fourth page waits for
 * them and, as they agree, goes over HTTP without a render of its own. The server holds every
 * render's script request until all four documents have been fetched, so the three renders are
 * certainly in flight when the fourth page is decided (nothing here depends on timing: after the
 * release a render still waits 120 ms of quiet network, while the fourth page's decision is made
 * as its document arrives).
 */
import http from 'node:http';
import { mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config/schema.js';
import { runCrawl } from '../src/crawl/engine.js';
import { browserLaunchOptions } from '../src/fetch/browser.js';
import { ProgressReporter } from '../src/report/progress.js';
import { CrawlLog, type CrawlLogEntry } from '../src/store/crawl-log.js';

const PAGES = 4;
const TEXT = '国家地震局消息，四川汶川发生里氏八级地震，救援队伍连夜赶赴灾区，展开搜救工作，首批物资已经运抵。解放军和武警部队官兵冒雨徒步进入震中映秀镇，打通生命通道，转移受伤群众。';
let server: http.Server;
let origin = '';
let documents = 0;
let pings = 0;
const held: http.ServerResponse[] = [];
let log: CrawlLogEntry[] = [];
let available = true;

beforeAll(async () => {
  available = await browserLaunchOptions().then(
    () => true,
    () => false,
  );
  if (!available) return;
  server = http.createServer((req, res) => {
    const path = req.url ?? '/';
    if (/^\/news\/\d+\.html$/.test(path)) {
      documents++;
      // a server-rendered article with a page-view script (so it can change under JavaScript, and is learned)
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!DOCTYPE html><html><head><title>地震救援 ${path}</title></head><body>
<div id="article"><h1>汶川地震救援进展 ${path}</h1><p>${TEXT}</p><p>${TEXT}</p></div>
<script>fetch('/api/ping').then(function (r) { return r.json(); });</script></body></html>`);
      if (documents === PAGES) res.on('finish', () => held.splice(0).forEach((r) => r.end('{"ok":1}')));
      return;
    }
    if (path === '/api/ping') {
      pings++;
      res.writeHead(200, { 'content-type': 'application/json' });
      if (documents >= PAGES) res.end('{"ok":1}');
      else held.push(res);
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain' }).end('no');
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const r = await runCrawl({
    config: parseConfig({
      topics: [{ keywords: ['地震'], seeds: Array.from({ length: PAGES }, (_, i) => `${origin}/news/${i + 1}.html`) }],
      allowPrivate: true,
      maxPages: PAGES,
      maxConcurrency: PAGES,
      perHostConcurrency: PAGES,
      fetcher: 'adaptive',
      threads: { enabled: false },
      storageDir: mkdtempSync(join(tmpdir(), 'fc-adaptive-learning-')),
    }),
    progress: new ProgressReporter({ quiet: true }),
  });
  log = CrawlLog.read(r.logPath);
}, 180_000);
afterAll(() => (server ? new Promise<void>((ok) => server.close(() => ok())) : undefined));

describe('a page waits for the learning renders of its pattern in flight (headless Chromium)', () => {
  it('renders the pattern minSamples times, and the page that waited goes over HTTP', (ctx) => {
    if (!available) return ctx.skip();
    expect(log.map((e) => e.url).sort()).toEqual(Array.from({ length: PAGES }, (_, i) => `${origin}/news/${i + 1}.html`).sort());
    const rendered = log.filter((e) => e.fetchedWith === 'browser');
    expect(rendered.map((e) => e.fetchWhy)).toEqual(Array(3).fill(expect.stringMatching(/^learning pattern .*→ HTTP equivalent$/)));
    const waited = log.filter((e) => e.fetchedWith === 'http');
    expect(waited).toHaveLength(1);
    expect(waited[0].fetchWhy).toMatch(/3 rendering\(s\) in a row gave the same analysis over HTTP \(after waiting \d+ ms for the pattern's learning renders in flight\)/);
    // what reached the server: every document once, the page script of three renders only
    expect(documents).toBe(PAGES);
    expect(pings).toBe(3);
  });
});
