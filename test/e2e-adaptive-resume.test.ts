/**
 * The adaptive fetcher's evidence survives `--resume` (src/fetch/adaptive/adaptive.ts, openAdaptivePolicy):
 * a crawl of the mixed test web stops at its budget, is resumed with a larger one, and the
 * resumed part decides from what the first part learned (the run folder's
 * adaptive-evidence.jsonl) instead of rendering every URL pattern again. Headless Chromium.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config/schema.js';
import { runCrawl, type CrawlResult } from '../src/crawl/engine.js';
import { urlPattern, type AdaptiveEvidence } from '../src/fetch/adaptive/adaptive.js';
import { browserLaunchOptions } from '../src/fetch/browser.js';
import { ProgressReporter } from '../src/report/progress.js';
import { CrawlLog, type CrawlLogEntry } from '../src/store/crawl-log.js';
import { readJsonLines } from '../src/store/jsonl.js';
import { RUN_FILES } from '../src/store/run-dir.js';
import { generateModel, resolveOptions, startTestWeb, type TestWeb, type TestWebOptions } from '../src/testweb/index.js';

const FIRST = 12;
const TOTAL = 30;
const OPTIONS: TestWebOptions = { mixed: true, articlesPerChannel: 12 };

/** Articles of one server-rendered portal (one URL pattern per channel) and the mixed portal's JavaScript-built reports, as seeds. */
function seedUrls(web: TestWeb): string[] {
  const o = resolveOptions(OPTIONS);
  const model = generateModel({ seed: o.seed, articlesPerChannel: o.articlesPerChannel, portals: o.portals, thucnews: false, start: o.start, mixed: true });
  const originOf = (site: string) => web.sites[model.sites.findIndex((x) => x.key === site)].origin;
  const staticSite = model.sites.find((x) => x.style === 'static')!.key;
  const mixedSite = model.sites.find((x) => x.style === 'mixed')!.key;
  const all = [...model.articles.values()];
  const pick = (site: string, render: string | undefined, topic: string, n: number) =>
    all.filter((a) => a.site === site && a.render === render && a.topic === topic).slice(0, n).map((a) => originOf(site) + a.path);
  return [...pick(staticSite, 'static', 'quake', 12), ...pick(mixedSite, 'js', 'quake', 3), ...pick(mixedSite, 'static', 'quake', 6)];
}

let web: TestWeb | undefined;
let first: CrawlResult;
let second: CrawlResult;
let firstLog: CrawlLogEntry[];
let resumedPart: CrawlLogEntry[];
let evidenceAfterFirst: AdaptiveEvidence[];

describe('adaptive evidence across --resume (headless Chromium)', () => {
  beforeAll(async () => {
    if (!(await browserLaunchOptions().then(() => true, () => false))) return;
    web = await startTestWeb(OPTIONS);
    const seeds = seedUrls(web);
    const storageDir = mkdtempSync(join(tmpdir(), 'fc-adaptive-resume-'));
    const config = (maxPages: number) =>
      parseConfig({
        // breadth first: the seeds (a few URL patterns, each several times) are fetched before
        // anything they link to, so the resumed part certainly meets patterns learned before the stop
        topics: [{ keywords: web!.demo.keywords, seeds }],
        strategy: 'bfs',
        allowPrivate: web!.sites.map((s) => s.origin),
        maxPages,
        maxConcurrency: 3,
        fetcher: 'adaptive',
        threads: { enabled: false },
        storageDir,
      });
    const progress = () => new ProgressReporter({ quiet: true });
    first = await runCrawl({ config: config(FIRST), progress: progress() });
    firstLog = CrawlLog.read(first.logPath);
    evidenceAfterFirst = readJsonLines<AdaptiveEvidence>(join(first.runDir, RUN_FILES.adaptiveEvidence));
    second = await runCrawl({ config: config(TOTAL), progress: progress(), resume: true });
    resumedPart = CrawlLog.read(second.logPath).slice(firstLog.length);
  }, 600_000);

  afterAll(async () => {
    await web?.close();
  });

  it('keeps every comparison in the run folder', ({ skip }) => {
    if (!web) skip('no Chromium');
    expect(second.runId).toBe(first.runId);
    const compared = firstLog.filter((e) => / → HTTP (equivalent|differs)/.test(e.fetchWhy ?? ''));
    expect(compared.length).toBeGreaterThan(3);
    expect(evidenceAfterFirst.map((e) => e.url).sort()).toEqual(compared.map((e) => e.url).sort());
  });

  it('decides the resumed part from the evidence of the first part', ({ skip }) => {
    if (!web) skip('no Chromium');
    // (a mismatch names both runs' counts: a line missing from the first run's log, or a page fetched twice)
    const firstUrls = new Set(firstLog.map((e) => e.url));
    expect(resumedPart.length, `first run: ${first.fetched} fetched, ${firstLog.length} lines; resumed: ${second.fetched} fetched in all; fetched again: ${resumedPart.filter((e) => firstUrls.has(e.url)).map((e) => e.url).join(', ') || 'none'}`).toBe(TOTAL - FIRST);
    const learned = new Set(evidenceAfterFirst.map((e) => urlPattern(e.url)));
    const again = resumedPart.filter((e) => learned.has(urlPattern(e.url)) && e.fetchedWith);
    // pages of patterns learned before the stop were fetched after it...
    expect(again.length).toBeGreaterThan(0);
    // ...and none of them was treated as a pattern never rendered
    expect(again.filter((e) => /not rendered yet/.test(e.fetchWhy ?? '')).map((e) => `${e.url}: ${e.fetchWhy}`)).toEqual([]);
    // (without the evidence log, the first page of each of these patterns after the stop would be)
    expect(again.every((e) => /rendering\(s\) in a row|equivalent renderings so far|needs the browser|re-check|text guard|never different|^HTTP \d{3}$|^not HTML$/.test(e.fetchWhy ?? ''))).toBe(true);
  });
});
