import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Page } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserLaunchOptions } from '../src/fetch/browser.js';
import { SearchSeedingError } from '../src/topic/errors.js';
import { PROVIDERS, resolveProvider, searchSeeds, searchUrl, testwebProvider } from '../src/topic/search.js';

// A results page shaped like the test web's: organic `div.result h3 a`, ads `div.ad a`,
// rendered by script so the provider must wait for it.
function resultsPage(q: string): string {
  if (q === '没有结果') return '<html><body><p>找不到</p></body></html>';
  const rows = [
    `<div class="result ad"><h3><a href="http://ads.example/buy">广告 ${q}</a></h3></div>`,
    ...[1, 2, 3, 4, 5, 6].map((i) => `<div class="result"><h3><a href="/page/${i}">${q} ${i}</a></h3></div>`),
    `<div class="result"><h3><a href="/page/1">duplicate</a></h3></div>`,
  ].join('');
  return `<html><body><div id="r"></div><script>
    setTimeout(() => { document.getElementById('r').innerHTML = ${JSON.stringify(rows)}; }, 50);
  </script></body></html>`;
}

let server: Server;
let origin: string;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  server = createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(u.pathname === '/s' ? resultsPage(u.searchParams.get('wd') ?? '') : '<p>page</p>');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { launchOptions } = await browserLaunchOptions();
  browser = await chromium.launch(launchOptions);
  page = await browser.newPage();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((r) => server?.close(r));
});

describe('search-engine seeding', () => {
  it('takes the top k organic results, skipping ads and duplicates', async () => {
    const seeds = await searchSeeds(page, testwebProvider(origin), ['汶川', '地震'], 4);
    expect(seeds).toEqual([1, 2, 3, 4].map((i) => `${origin}/page/${i}`));
    expect(await searchSeeds(page, testwebProvider(origin), ['地震'], 10)).toHaveLength(6);
  });

  it('says clearly which provider and URL found nothing', async () => {
    const p = testwebProvider(origin);
    const err = await searchSeeds(page, p, ['没有结果'], 5, { timeoutMs: 1000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SearchSeedingError);
    expect((err as Error).message).toContain(
      `search provider "testweb" found no results at ${origin}/s?wd=%E6%B2%A1%E6%9C%89%E7%BB%93%E6%9E%9C`,
    );
  });

  it('resolves named providers, overrides and unknown names', () => {
    expect(searchUrl(PROVIDERS.bing, ['big', 'plane'])).toBe('https://www.bing.com/search?q=big%20plane');
    expect(PROVIDERS.duckduckgo.unwrap!('https://duckduckgo.com/l/?uddg=https%3A%2F%2Fa.org%2Fx&rut=1')).toBe('https://a.org/x');
    expect(resolveProvider({ provider: 'baidu', resultSelector: 'h3 a' }).resultSelector).toBe('h3 a');
    expect(resolveProvider({ provider: 'testweb' }, { testwebOrigin: origin }).urlTemplate).toBe(`${origin}/s?wd={q}`);
    expect(() => resolveProvider({ provider: 'yahoo' })).toThrow(/unknown search provider "yahoo"/);
  });
});

describe('search seeding against the local test web', () => {
  it('takes the test web search site’s top organic results for the demo topic', async () => {
    const { startTestWeb } = await import('../src/testweb/index.js');
    const web = await startTestWeb({ articlesPerChannel: 8 });
    try {
      const search = web.sites.find((s) => s.kind === 'search')!;
      const provider = resolveProvider({ provider: 'testweb' }, { testwebOrigin: search.origin });
      const seeds = await searchSeeds(page, provider, web.demo.keywords, 5);
      expect(seeds).toHaveLength(5);
      expect(seeds.some((u) => u.includes('/ad/'))).toBe(false);
      expect(seeds.every((u) => !u.startsWith(search.origin))).toBe(true);
      const relevant = seeds.filter((u) => web.isRelevant(u, web.demo.topic)).length;

      expect(relevant).toBeGreaterThanOrEqual(3);
    } finally {
      await web.close();
    }
  }, 60_000);
});
