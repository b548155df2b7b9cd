/**
 * End to end on real wiki software: the crawler crawls a small MediaWiki (the Wikispeedia articles
 * around one category, src/testweb/mediawiki.ts) over HTTP on a small topic. Its harvest must
 * clearly beat the category's share of the wiki (what a crawl blind to the topic would harvest),
 * and it must fetch none of the wiki's edit / history / diff / old-revision / Special: pages.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config/schema.js';
import { runCrawl, type CrawlResult } from '../src/crawl/engine.js';
import { ProgressReporter } from '../src/report/progress.js';
import { CrawlLog, type CrawlLogEntry } from '../src/store/crawl-log.js';
import { mediawikiMissing, pagesAround, portOpen, readWikispeedia, startMediaWiki, type MediaWikiWeb } from '../src/testweb/mediawiki.js';

const missing = mediawikiMissing();
if (missing) console.warn(`skipping the MediaWiki test bed tests: ${missing}`);

const CATEGORY = 'subject.Science.Biology.Birds';
const BUDGET = 40;
/** A page no reader wants from a crawl: the wiki's tools, not an article or a category. */
const TRAP = /[?&](action|oldid|diff|curid|printable|redlink|returnto|feed)=|\/(Special|Talk)(:|%3A)|title=(Special|Talk)(:|%3A)/i;

describe.skipIf(!!missing)('focused crawl of a real MediaWiki', () => {
  let wiki: MediaWikiWeb;
  let result: CrawlResult;
  let entries: CrawlLogEntry[];
  let share: number;

  beforeAll(async () => {
    const pages = pagesAround(readWikispeedia(), CATEGORY, 150);
    wiki = await startMediaWiki({ pages });
    share = wiki.relevantTotal('birds') / pages.length;
    const config = parseConfig({
      topics: [{ keywords: ['bird', 'species', 'feathers'], seeds: wiki.seeds('birds', 3, 1) }],
      allowPrivate: [wiki.origin],
      strategy: 'combined',
      fetcher: 'http',
      maxPages: BUDGET,
      maxConcurrency: 2,
      // Decisions in a fixed order: the same wiki gives the same crawl, not one that varies with which fetch ends first.
      fetchOrder: 'fixed',
      storageDir: mkdtempSync(join(tmpdir(), 'fc-mediawiki-')),
    });
    result = await runCrawl({ config, truth: (u) => wiki.isRelevant(u, 'birds'), progress: new ProgressReporter({ quiet: true }), runId: 'mediawiki' });
    entries = CrawlLog.read(result.logPath);
    // A guard against a hang, not a speed target: the first import of the 150 pages took a minute on a loaded machine.
  }, 900_000);

  afterAll(async () => {
    await wiki?.stop();
  });

  it('serves what a public wiki serves: articles at /wiki/ URLs, its robots.txt, the default skin', async () => {
    const html = await (await fetch(wiki.urlOf('Bird'))).text();
    expect(html).toContain('<title>Bird - Wikispeedia</title>');
    expect(html).toMatch(/href="\/wiki\/Category:Birds"/);
    expect(html).toMatch(/href="\/index\.php\?title=Bird&amp;action=history"/);
    expect(html).toContain('skin-vector');
    const robots = await (await fetch(`${wiki.origin}/robots.txt`)).text();
    expect(robots).toContain('Disallow: /index.php?');
    expect(robots).toContain('Disallow: /wiki/Special:');
  });

  it('fetches the budget, and harvests more than the category share of the wiki', () => {
    expect(result.fetched).toBe(BUDGET);
    // A crawl blind to the topic harvests about the category's share of the pages (a third here);
    // the focused crawl must do better. In the fixed fetch order the crawl is the same every run; its
    // margin over the share is narrow on this wiki (the judge misses some bird articles in the wiki's page).
    expect(share).toBeLessThan(0.4);
    expect(result.truthHarvestRate!).toBeGreaterThan(share);
    // Whatever it fetched beside articles is a category page (the wiki's own topical listing),
    // never one of the wiki's own pages (Main Page, About, Privacy policy: sidebar and footer links).
    const nonArticle = entries.map((e) => e.url).filter((u) => wiki.articleOf(u) === undefined);
    for (const u of nonArticle) expect(decodeURIComponent(new URL(u).pathname)).toMatch(/^\/wiki\/Category:/);
  });

  it('fetches no edit, history, diff, old revision, talk or Special: page', () => {
    const traps = entries.map((e) => e.url).filter((u) => TRAP.test(u));
    expect(traps).toEqual([]);
  });

  it('leaves nothing listening after stop', async () => {
    const w = await startMediaWiki({ pages: wiki.pages });
    const { hostname, port } = new URL(w.origin);
    expect(await portOpen(hostname, Number(port))).toBe(true);
    expect((await fetch(w.urlOf('Bird'))).status).toBe(200);
    await w.stop();
    expect(await portOpen(hostname, Number(port))).toBe(false);
  });
});
