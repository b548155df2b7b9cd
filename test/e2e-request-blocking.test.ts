/**
 * Request blocking in a real browser (src/fetch/page-load.ts blockReason): the test web's pages
 * carry a stylesheet naming a web font, a photo and a pixel from a CDN site on its own loopback
 * address (`thirdPartyMs`). Rendered with blocking on (the default), none of them is asked for;
 * with it off, the browser fetches them as any browser would. Headless Chromium.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config/schema.js';
import { runCrawl, type CrawlResult } from '../src/crawl/engine.js';
import { browserLaunchOptions } from '../src/fetch/browser.js';
import { ProgressReporter } from '../src/report/progress.js';
import { startTestWeb, type TestWeb } from '../src/testweb/index.js';

const PAGES = 6;
let web: TestWeb | undefined;
const crawls: { blocking: boolean; result: CrawlResult; cdnPaths: string[] }[] = [];

describe('request blocking (headless Chromium, a CDN on loopback)', () => {
  beforeAll(async () => {
    if (!(await browserLaunchOptions().then(() => true, () => false))) return;
    web = await startTestWeb({ thirdPartyMs: 200 });
    const cdnHost = new URL(web.cdnOrigin!).host;
    for (const blocking of [true, false]) {
      const before = web.requestLog.length;
      const config = parseConfig({
        topics: [{ keywords: web.demo.keywords, seeds: web.demo.seeds }],
        allowPrivate: true, // the test web and its CDN are on loopback
        maxPages: PAGES,
        maxConcurrency: 2,
        fetcher: 'browser',
        blockRequests: blocking,
        threads: { enabled: false },
        storageDir: mkdtempSync(join(tmpdir(), 'fc-blocking-')),
      });
      const result = await runCrawl({ config, progress: new ProgressReporter({ quiet: true }) });
      crawls.push({ blocking, result, cdnPaths: web.requestLog.slice(before).filter((r) => r.host === cdnHost).map((r) => r.path) });
    }
  }, 600_000);

  afterAll(async () => {
    await web?.close();
  });

  it('the pages carry the CDN\'s files', async ({ skip }) => {
    if (!web) return skip('no Chromium');
    const html = await (await fetch(web.demo.seeds[0])).text();
    expect(html).toContain(`${web.cdnOrigin}/css/site.css`);
    expect(html).toContain(`${web.cdnOrigin}/img/photo.jpg`);
  });

  it('with blocking on, no image, font or stylesheet is fetched; with it off, the browser fetches them', ({ skip }) => {
    if (!web) skip('no Chromium');
    const [on, off] = crawls;
    expect(on.result.fetched).toBe(PAGES);
    expect(off.result.fetched).toBe(PAGES);
    expect(on.cdnPaths.filter((p) => p !== '/robots.txt')).toEqual([]);
    expect(off.cdnPaths).toContain('/css/site.css');
    expect(off.cdnPaths).toContain('/img/photo.jpg');
    expect(off.cdnPaths).toContain('/img/pixel.gif');
    expect(off.cdnPaths).toContain('/fonts/site.woff2');
  });
});
