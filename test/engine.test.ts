/**
 * The engine's routing on a tiny static two-host site, with the HTTP fetcher (no browser):
 * crawl-level settings reach the stages that apply them.
 */
import { createServer, type Server } from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig, type CrawlConfigInput } from '../src/config/schema.js';
import { runCrawl } from '../src/crawl/engine.js';
import { ProgressReporter } from '../src/report/progress.js';
import { CrawlLog } from '../src/store/crawl-log.js';

const quake = '汶川地震发生后，救援队伍迅速赶赴灾区，展开搜救工作，救援物资陆续运抵。';
const stocks = '今日股市收盘上涨，成交量放大，银行板块领涨，投资者情绪回暖。';

function page(title: string, body: string, links: string[]): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body><h1>${title}</h1>
  <article>${Array.from({ length: 6 }, () => `<p>${body}</p>`).join('')}</article>
  <ul>${links.map((l) => `<li><a href="${l}">${l.includes('quake') ? '地震救援' : '股市'}</a></li>`).join('')}</ul></body></html>`;
}

let a: Server;
let b: Server;
let originA = '';
let originB = '';

function serve(pages: () => Record<string, string>): Promise<{ server: Server; origin: string }> {
  return new Promise((resolve) => {
    const server = createServer((req, res) => {
      const html = pages()[req.url ?? ''];
      if (req.url === '/robots.txt' || !html) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
    });
    server.listen(0, '127.0.0.1', () => resolve({ server, origin: `http://127.0.0.1:${(server.address() as { port: number }).port}` }));
  });
}

async function crawl(extra: Partial<CrawlConfigInput>) {
  const config = parseConfig({
    topics: [{ keywords: ['汶川地震', '救援'], seeds: [`${originA}/`] }],
    fetcher: 'http',
    maxPages: 20,
    // Both hosts are loopback: the seed's origin is allowed by the fetch gate, the other is named.
    allowPrivate: [`${originB}/`],
    storageDir: mkdtempSync(join(tmpdir(), 'fc-engine-')),
    ...extra,
  });
  const result = await runCrawl({ config, progress: new ProgressReporter({ quiet: true }) });
  return { result, urls: CrawlLog.read(result.logPath).map((e) => e.url) };
}

beforeAll(async () => {
  ({ server: a, origin: originA } = await serve(() => ({
    '/': page('首页', quake, ['/quake-1.html', '/stocks-1.html', `${originB}/quake-2.html`]),
    '/quake-1.html': page('汶川地震救援进展', quake, ['/']),
    '/stocks-1.html': page('股市收盘', stocks, ['/']),
  })));
  ({ server: b, origin: originB } = await serve(() => ({
    '/quake-2.html': page('灾区救援继续', quake, [`${originB}/quake-3.html`]),
    '/quake-3.html': page('余震救援', quake, []),
  })));
});

afterAll(() => {
  a?.close();
  b?.close();
});

describe('engine', () => {
  it('never leaves the seeds\' loopback origins unless allowPrivate names the other one', async () => {
    const { urls } = await crawl({ allowPrivate: false });
    expect(urls.length).toBe(3);
    expect(urls.every((u) => u.startsWith(originA))).toBe(true);
  });

  it('crawls both hosts by default, judging pages by the topic', async () => {
    const { result, urls } = await crawl({});
    expect(new Set(urls)).toEqual(
      new Set([`${originA}/`, `${originA}/quake-1.html`, `${originA}/stocks-1.html`, `${originB}/quake-2.html`, `${originB}/quake-3.html`]),
    );
    // four quake pages (home page included: it carries the quake text), one stocks page
    expect(result.relevant).toBe(4);
  });

  it('allowDomains keeps the crawl on the named host', async () => {
    const { urls } = await crawl({ allowDomains: ['127.0.0.1'] });
    expect(urls.length).toBe(5); // same host name, different ports: all allowed
    const hostA = new URL(originA).host;
    const { urls: onlyA } = await crawl({ allowDomains: [hostA] });
    expect(onlyA.every((u) => new URL(u).host === hostA)).toBe(true);
    expect(onlyA.length).toBe(3);
  });

  it('denyDomains keeps the crawl off the named host', async () => {
    const hostB = new URL(originB).host;
    const { urls } = await crawl({ denyDomains: [hostB] });
    expect(urls.some((u) => new URL(u).host === hostB)).toBe(false);
    expect(urls.length).toBe(3);
  });
});
