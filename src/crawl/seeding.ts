/**
 * Search-engine seeding (METHODS §1, seed 002): for each topic with a `search` block, render the
 * provider's results page for the topic's keywords and take the top k organic results as seeds.
 */
import { chromium, type LaunchOptions } from 'playwright';
import { keywordEntries, type CrawlConfig } from '../config/schema.js';
import { browserLaunchOptions } from '../fetch/browser.js';
import { resolveProvider, searchSeeds } from '../topic/search.js';
import { SearchSeedingError } from '../topic/errors.js';

export interface SeedingOptions {
  /** Origin of the local test web's search site, for the `testweb` provider. */
  testwebOrigin?: string;
  launchOptions?: LaunchOptions;
  log?: (line: string) => void;
  /** How long to wait for results to render, ms (default 15000). */
  timeoutMs?: number;
}

/** Seeds per topic: the given URLs followed by search results; no browser when no topic searches. */
export async function discoverSeeds(config: CrawlConfig, opts: SeedingOptions = {}): Promise<string[][]> {
  const out = config.topics.map((t) => [...t.seeds]);
  const searching = config.topics.map((t, i) => ({ t, i })).filter(({ t }) => t.search);
  if (searching.length === 0) return out;
  const launchOptions = opts.launchOptions ?? (await browserLaunchOptions({ browser: config.browser })).launchOptions;
  const browser = await chromium.launch({ ...launchOptions, headless: true });
  try {
    const page = await browser.newPage();
    for (const { t, i } of searching) {
      const provider = resolveProvider(t.search!, { testwebOrigin: opts.testwebOrigin });
      const keywords = keywordEntries(t).map((k) => k.term);
      let found: string[];
      try {
        found = await searchSeeds(page, provider, keywords, t.search!.topK, { timeoutMs: opts.timeoutMs });
      } catch (e) {
        // A topic with seeds of its own is crawled from them: a search engine that is down or
        // changed its page costs the search's seeds, not the crawl.
        if (!(e instanceof SearchSeedingError) || t.seeds.length === 0) throw e;
        opts.log?.(`warning: ${e.message}; crawling from the topic's ${t.seeds.length} given seed(s)`);
        continue;
      }
      opts.log?.(`search seeding (${provider.name}): ${found.length} seeds for "${keywords.join(' ')}"`);
      for (const u of found) if (!out[i].includes(u)) out[i].push(u);
    }
  } finally {
    await browser.close();
  }
  return out;
}
