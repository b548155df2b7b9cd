/** Search-engine seeding wired into a crawl: the test web's results page supplies the seeds. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config/schema.js';
import { runCrawl } from '../src/crawl/engine.js';
import { discoverSeeds } from '../src/crawl/seeding.js';
import { ProgressReporter } from '../src/report/progress.js';
import { CrawlLog } from '../src/store/crawl-log.js';
import { startTestWeb, type TestWeb } from '../src/testweb/index.js';

let web: TestWeb;
let searchOrigin: string;

beforeAll(async () => {
  web = await startTestWeb({});
  searchOrigin = web.sites.find((s) => s.kind === 'search')!.origin;
});
afterAll(async () => web?.close());

describe('search seeding', () => {
  it('takes the top k organic results of the results page as seeds, ads excluded', async () => {
    const config = parseConfig({ topics: [{ keywords: ['地震', '救援'], search: { provider: 'testweb', topK: 4 } }] });
    const [seeds] = await discoverSeeds(config, { testwebOrigin: searchOrigin });
    expect(seeds).toHaveLength(4);
    for (const s of seeds) expect(web.isRelevant(s, 'quake')).toBe(true);
    expect(seeds.some((s) => s.includes('/ad'))).toBe(false);
  });

  it('crawls from the discovered seeds (depth 0 in the crawl log)', async () => {
    const config = parseConfig({
      allowPrivate: web.sites.map((s) => s.origin), // the test web's loopback sites (src/fetch/gate/gate.ts)
      topics: [{ keywords: ['地震', '救援'], search: { provider: 'testweb', topK: 3 } }],
      fetcher: 'http',
      maxPages: 8,
      storageDir: mkdtempSync(join(tmpdir(), 'fc-seed-')),
    });
    const r = await runCrawl({ config, testwebOrigin: searchOrigin, progress: new ProgressReporter({ quiet: true }) });
    const depth0 = CrawlLog.read(r.logPath).filter((e) => e.depth === 0);
    expect(depth0).toHaveLength(3);
    for (const e of depth0) expect(web.isRelevant(e.url, 'quake')).toBe(true);
  });

  it('a provider that finds nothing says so, naming provider and URL', async () => {
    const config = parseConfig({ topics: [{ keywords: ['zzzqqqxxx'], search: { provider: 'testweb', topK: 3 } }] });
    await expect(discoverSeeds(config, { testwebOrigin: searchOrigin, timeoutMs: 2000 })).rejects.toThrow(/search provider "testweb" found no results at http:\/\/127\.0\.0\.\d+:\d+\/s\?wd=zzzqqqxxx/);
  });
});
