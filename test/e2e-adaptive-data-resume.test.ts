/**
 * The data path's recipes survive `--resume` (src/fetch/adaptive/adaptive-data.ts, openDataPaths): a crawl
 * of the mixed test web's JavaScript-built live reports (one URL pattern, text in inline
 * `ARTICLE_DATA`) learns the pattern's recipe and serves pages `http+data`, stops at its budget,
 * and the resumed crawl serves the pattern's remaining pages from their data at once, with no
 * render to learn it again (the run folder's adaptive-data.jsonl). Headless Chromium.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config/schema.js';
import { runCrawl, type CrawlResult } from '../src/crawl/engine.js';
import { urlPattern } from '../src/fetch/adaptive/adaptive.js';
import type { DataPathEvent } from '../src/fetch/adaptive/adaptive-data.js';
import { browserLaunchOptions } from '../src/fetch/browser.js';
import { ProgressReporter } from '../src/report/progress.js';
import { CrawlLog, type CrawlLogEntry } from '../src/store/crawl-log.js';
import { readJsonLines } from '../src/store/jsonl.js';
import { RUN_FILES } from '../src/store/run-dir.js';
import { generateModel, resolveOptions, startTestWeb, type TestWeb, type TestWebOptions } from '../src/testweb/index.js';

const FIRST = 8;
const TOTAL = 16;
const OPTIONS: TestWebOptions = { mixed: true, articlesPerChannel: 12 };

/** The mixed portal's live reports (`/live/<id>.html`, built by script from inline JSON), as seeds. */
function seedUrls(web: TestWeb): string[] {
  const o = resolveOptions(OPTIONS);
  const model = generateModel({ seed: o.seed, articlesPerChannel: o.articlesPerChannel, portals: o.portals, thucnews: false, start: o.start, mixed: true });
  const i = model.sites.findIndex((x) => x.style === 'mixed');
  const live = [...model.articles.values()].filter((a) => a.site === model.sites[i].key && a.render === 'js');
  return live.slice(0, TOTAL).map((a) => web.sites[i].origin + a.path);
}

let web: TestWeb | undefined;
let seeds: string[];
let first: CrawlResult;
let second: CrawlResult;
let firstLog: CrawlLogEntry[];
let resumedPart: CrawlLogEntry[];
let recipesAfterFirst: DataPathEvent[];

describe('data-path recipes across --resume (headless Chromium)', () => {
  beforeAll(async () => {
    if (!(await browserLaunchOptions().then(() => true, () => false))) return;
    web = await startTestWeb(OPTIONS);
    seeds = seedUrls(web);
    const storageDir = mkdtempSync(join(tmpdir(), 'fc-adaptive-data-resume-'));
    const config = (maxPages: number) =>
      parseConfig({
        // breadth first: the seeds (all of one pattern) are fetched before anything they link to;
        // no seeded re-checks, so every page of a settled pattern is served from its data
        topics: [{ keywords: web!.demo.keywords, seeds }],
        strategy: 'bfs',
        allowPrivate: web!.sites.map((s) => s.origin),
        maxPages,
        maxConcurrency: 2,
        fetcher: 'adaptive',
        adaptive: { recheckShare: 0 },
        threads: { enabled: false },
        storageDir,
      });
    const progress = () => new ProgressReporter({ quiet: true });
    first = await runCrawl({ config: config(FIRST), progress: progress() });
    firstLog = CrawlLog.read(first.logPath);
    recipesAfterFirst = readJsonLines<DataPathEvent>(join(first.runDir, RUN_FILES.adaptiveData));
    second = await runCrawl({ config: config(TOTAL), progress: progress(), resume: true });
    resumedPart = CrawlLog.read(second.logPath).slice(firstLog.length);
  }, 600_000);

  afterAll(async () => {
    await web?.close();
  });

  it('learns the pattern before the stop and keeps its recipe in the run folder', ({ skip }) => {
    if (!web) skip('no Chromium');
    expect(seeds.length).toBe(TOTAL);
    expect(new Set(seeds.map(urlPattern)).size).toBe(1);
    const pattern = urlPattern(seeds[0]);
    // the first part rendered to learn, then served from the data
    expect(firstLog.filter((e) => e.fetchedWith === 'browser' && /data path learnt/.test(e.fetchWhy ?? '')).length).toBe(1);
    expect(firstLog.filter((e) => e.fetchedWith === 'http+data').length).toBeGreaterThan(0);
    const last = recipesAfterFirst.filter((e) => e.pattern === pattern).at(-1);
    expect(last?.state.recipe).toBeDefined();
    expect(last!.state.streak).toBeGreaterThanOrEqual(last!.state.needs);
  });

  it('serves the resumed part from the data at once: no render, nothing learnt again', ({ skip }) => {
    if (!web) skip('no Chromium');
    expect(second.runId).toBe(first.runId);
    const firstUrls = new Set(firstLog.map((e) => e.url));
    const again = resumedPart.filter((e) => seeds.includes(e.url));
    expect(again.filter((e) => firstUrls.has(e.url)).map((e) => e.url)).toEqual([]);
    expect(again.length).toBe(TOTAL - FIRST);
    // (without the run folder's recipes, the first pages after the stop are rendered: "data path learnt …: 1 of 3")
    expect(again.filter((e) => e.fetchedWith !== 'http+data').map((e) => `${e.url} ${e.fetchedWith}: ${e.fetchWhy}`)).toEqual([]);
    expect(again.every((e) => /data rebuilt \d+ rendering\(s\) in a row/.test(e.fetchWhy ?? ''))).toBe(true);
  });
});
