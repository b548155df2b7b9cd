/**
 * A keyword-only topic does not drift: on the test web, in real Chromium, the entertainment
 * topic's crawl from the demo's seeds (the portals' home pages, so no example seed pages) passes
 * a portal's earthquake special. Its articles are alike and share no word with the topic; were a
 * page relevant on its likeness to the seed set D alone, the first of them to join D would carry
 * the next in, and the crawl would save earthquake articles as entertainment (src/judge/judge.ts
 * `onSimDAlone`). The crawler's own saved pages are checked against the test web's ground truth.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config/schema.js';
import { runCrawl } from '../src/crawl/engine.js';
import { ProgressReporter } from '../src/report/progress.js';
import { CrawlLog } from '../src/store/crawl-log.js';
import { startTestWeb, type TestWeb } from '../src/testweb/index.js';

let web: TestWeb | undefined;
const dirs: string[] = [];
afterAll(async () => {
  await web?.close();
  dirs.forEach((d) => rmSync(d, { recursive: true, force: true }));
});

describe('a keyword-only topic on the test web', () => {
  it('saves what is on topic, not the pages of a neighbouring special that resemble its earlier finds', async () => {
    web = await startTestWeb();
    const topic = web.topics.find((t) => t.id === 'ent')!;
    const storageDir = mkdtempSync(join(tmpdir(), 'fc-drift-'));
    dirs.push(storageDir);
    // The live benchmark's settings (bench/run.ts): the keywords a user types, the portals' home pages.
    const config = parseConfig({
      topics: [{ keywords: topic.keywords.slice(0, 4), seeds: web.demo.seeds }],
      strategy: 'combined',
      maxPages: 150,
      maxConcurrency: 4,
      perHostConcurrency: 4,
      fetcher: 'browser',
      storageDir,
      randomSeed: 1,
      fetchOrder: 'fixed',
      allowPrivate: true,
    });
    const r = await runCrawl({ config, truth: (u) => web!.isRelevant(u, topic.id), progress: new ProgressReporter({ quiet: true }) });
    expect(r.counts.fetched).toBe(150);
    const saved = CrawlLog.read(r.logPath).filter((e) => e.decision === 'saved');
    const wrong = saved.filter((s) => s.truth !== true).map((s) => s.url);
    // Drifting, the crawl saved 84 pages of which 40 were earthquake articles (precision 0.52).
    expect(saved.length).toBeGreaterThanOrEqual(40);
    expect(wrong.length / saved.length, `saved, not on topic: ${wrong.join(' ')}`).toBeLessThanOrEqual(0.1);
    // And it found what is on topic: over half its pages (BFS finds under a tenth).
    expect(r.truthHarvestRate!).toBeGreaterThan(0.5);
  }, 1_200_000);
});
