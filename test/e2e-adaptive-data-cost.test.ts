/**
 * The data path is chosen per URL pattern by what it costs (src/fetch/adaptive/adaptive-data.ts):
 * on a site with a long per-host delay every API request of the data path waits for the host's
 * slot, where a rendering's own requests do not, so once both are timed the pattern renders. A
 * crawl of one URL pattern of the test web's API-built portal (text from
 * `/api/article/ID.json`, comments by XHR), headless Chromium.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config/schema.js';
import { runCrawl } from '../src/crawl/engine.js';
import { urlPattern } from '../src/fetch/adaptive/adaptive.js';
import { COST_SAMPLES } from '../src/fetch/adaptive/adaptive-data.js';
import { browserLaunchOptions } from '../src/fetch/browser.js';
import { ProgressReporter } from '../src/report/progress.js';
import { CrawlLog, type CrawlLogEntry } from '../src/store/crawl-log.js';
import { generateModel, resolveOptions, startTestWeb, type TestWeb, type TestWebOptions } from '../src/testweb/index.js';

/** Every answer of the web takes this long: the data path asks the page's API requests one after the other, a rendering's scripts ask them at once. */
const LATENCY_MS = 3000;
const OPTIONS: TestWebOptions = { articlesPerChannel: 12, latencyMs: LATENCY_MS };
const PAGES = 14;

/** Articles of the API-built portal of one URL pattern (the largest). */
function seedUrls(web: TestWeb): string[] {
  const o = resolveOptions(OPTIONS);
  const model = generateModel({ seed: o.seed, articlesPerChannel: o.articlesPerChannel, portals: o.portals, thucnews: false, start: o.start });
  const i = model.sites.findIndex((x) => x.style === 'api');
  const byPattern = new Map<string, string[]>();
  for (const a of model.articles.values()) {
    if (a.site !== model.sites[i].key || a.static) continue;
    const url = web.sites[i].origin + a.path;
    byPattern.set(urlPattern(url), [...(byPattern.get(urlPattern(url)) ?? []), url]);
  }
  return [...byPattern.values()].sort((x, y) => y.length - x.length)[0].slice(0, PAGES);
}

let web: TestWeb | undefined;
let seeds: string[];
let log: CrawlLogEntry[];

describe('the data path by its measured cost (headless Chromium)', () => {
  beforeAll(async () => {
    if (!(await browserLaunchOptions().then(() => true, () => false))) return;
    web = await startTestWeb(OPTIONS);
    seeds = seedUrls(web);
    const config = parseConfig({
      // breadth first: the seeds (one pattern) in order; no seeded re-checks, so every page of a
      // settled pattern goes the way its costs say
      topics: [{ keywords: web.demo.keywords, seeds }],
      strategy: 'bfs',
      // the portal alone: the other hosts' pages would take the budget while this one waits for its delay
      allowDomains: [new URL(seeds[0]).hostname],
      allowPrivate: [new URL(seeds[0]).origin],
      maxPages: PAGES,
      maxConcurrency: 2,
      fetcher: 'adaptive',
      adaptive: { recheckShare: 0 },
      threads: { enabled: false },
      storageDir: mkdtempSync(join(tmpdir(), 'fc-adaptive-data-cost-')),
    });
    const result = await runCrawl({ config, progress: new ProgressReporter({ quiet: true }) });
    log = CrawlLog.read(result.logPath).filter((e) => seeds.includes(e.url));
  }, 600_000);

  afterAll(async () => {
    await web?.close();
  });

  it('serves the pattern from its data once learnt, times both paths, and renders once its data path is found the dearer', ({ skip }) => {
    if (!web) skip('no Chromium');
    expect(seeds.length).toBe(PAGES);
    expect(new Set(seeds.map(urlPattern)).size).toBe(1);
    const lines = log.map((e) => `${e.fetchedWith}: ${e.fetchWhy}`).join('\n');
    const served = log.filter((e) => e.fetchedWith === 'http+data');
    expect(served.length, lines).toBeGreaterThanOrEqual(COST_SAMPLES);
    const switched = log.findIndex((e) => e.fetchedWith === 'browser' && /data path takes \d+ ms a page against \d+ ms to render: render/.test(e.fetchWhy ?? ''));
    expect(switched, lines).toBeGreaterThan(0);
    const [, dataMs, renderMs] = /data path takes (\d+) ms a page against (\d+) ms to render/.exec(log[switched].fetchWhy!)!.map(Number);
    // the data path waited for the host's slot (its API request after the page's own)
    expect(dataMs).toBeGreaterThan(LATENCY_MS * 1.5);
    expect(dataMs).toBeGreaterThan(renderMs);
    // from then on the pattern renders
    expect(log.slice(switched).every((e) => e.fetchedWith === 'browser'), lines).toBe(true);
    expect(served.every((e) => log.indexOf(e) < switched)).toBe(true);
  });
});
