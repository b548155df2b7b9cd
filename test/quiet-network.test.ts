/**
 * The browser fetcher's wait for JavaScript-built text (src/fetch/crawler.ts waitForQuietNetwork),
 * in real Chromium against a loopback server: an article XHR that outlasts the settle window is
 * still waited for (on a loaded machine it does), a request the page starts after the window is not.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserLaunchOptions } from '../src/fetch/browser.js';
import { trackNetworkActivity, waitForQuietNetwork } from '../src/fetch/crawler.js';

const SETTLE_MS = 200;
let server: Server;
let origin: string;
let browser: Browser;
/** Responses held until the test releases them. */
const held: ServerResponse[] = [];
let ticks = 0;
let articleRequested!: () => void;
const articleRequest = new Promise<void>((r) => (articleRequested = r));

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/slow-article') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!DOCTYPE html><html><body><div id="a">正在加载...</div>
<script>fetch('/api/article.json').then(function (r) { return r.json(); }).then(function (d) { document.getElementById('a').textContent = d.text; });</script></body></html>`);
    } else if (req.url === '/api/article.json') {
      articleRequested();
      // Answered only after the settle window has passed (released by the test below).
      held.push(res);
    } else if (req.url === '/ticker') {
      // A ticker polling forever: the network is never quiet for long.
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<!DOCTYPE html><html><body><p>static text</p>
<script>(function poll() { fetch('/api/tick').then(function () { setTimeout(poll, 10); }); })();</script></body></html>`);
    } else if (req.url === '/api/tick') {
      ticks++;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    } else res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await chromium.launch((await browserLaunchOptions()).launchOptions);
}, 120_000);

afterAll(async () => {
  for (const r of held) r.destroy();
  await browser?.close();
  await new Promise<void>((r) => server?.close(() => r()));
});

describe('waitForQuietNetwork', () => {
  it('waits for an article XHR begun before the settle window ended, however long it takes', async () => {
    const page = await browser.newPage();
    const net = trackNetworkActivity(page);
    await page.goto(`${origin}/slow-article`, { waitUntil: 'load' });
    await articleRequest;
    const waiting = waitForQuietNetwork(page, net, 50, SETTLE_MS, 60_000);
    // Release the article only once the settle window is over (a condition, not a guess).
    const since = Date.now();
    await expect.poll(() => Date.now() - since, { timeout: 10_000, interval: 50 }).toBeGreaterThan(SETTLE_MS * 2);
    held.shift()!.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ text: '汶川地震灾区的道路已经全部打通' }));
    expect(await waiting).toBe(0); // quiet: nothing left open
    expect(await page.textContent('#a')).toBe('汶川地震灾区的道路已经全部打通');
    await page.close();
  }, 120_000);

  it('says how many requests it gave up on (the adaptive fetcher takes such a rendering as no evidence)', async () => {
    const page = await browser.newPage();
    const net = trackNetworkActivity(page);
    const heldBefore = held.length;
    await page.goto(`${origin}/slow-article`, { waitUntil: 'load' });
    await expect.poll(() => held.length, { timeout: 60_000, interval: 50 }).toBeGreaterThan(heldBefore);
    // the article is never answered: the wait ends at its cap with the request still open
    expect(await waitForQuietNetwork(page, net, 50, SETTLE_MS, SETTLE_MS * 2)).toBe(1);
    expect(await page.textContent('#a')).toBe('正在加载...');
    await page.close();
  }, 120_000);

  it('does not wait for requests the page starts after the settle window (a ticker ends the wait, not the cap)', async () => {
    const page = await browser.newPage();
    const net = trackNetworkActivity(page);
    await page.goto(`${origin}/ticker`, { waitUntil: 'load' });
    // With a cap far beyond this test's own timeout, waiting for the ticker to stop would fail the test.
    await waitForQuietNetwork(page, net, 50, SETTLE_MS, 600_000);
    const before = ticks;
    await expect.poll(() => ticks, { timeout: 60_000, interval: 50 }).toBeGreaterThan(before); // still ticking: the wait ended without it
    await page.close();
  }, 120_000);
});
