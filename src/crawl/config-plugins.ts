/**
 * The plugins a crawl gets from its config alone, for the CLI and the library alike: reply
 * threads (METHODS §4) unless `threads.enabled` is false. runCrawl itself adds none, so the
 * benchmarks measure the page route alone.
 */
import type { CrawlConfig } from '../config/schema.js';
import type { CrawlPlugin } from './types.js';

export interface ConfigPluginOptions {
  /** `--watch`: revisits are offered on a timer too. */
  watch?: boolean;
  /** The reply clock (default: each page's fetch time; the test web passes its simulated clock). */
  now?: () => Date;
}

export async function configPlugins(config: CrawlConfig, opts: ConfigPluginOptions = {}): Promise<CrawlPlugin[]> {
  if (!config.threads.enabled) return [];
  const { threadsPlugin, loadUserMatchers } = await import('./threads-plugin.js');
  // Loaded here so a bad matchers file is one line before any browser starts.
  return [threadsPlugin({ watch: opts.watch, now: opts.now, matchers: loadUserMatchers(config.threads.matchers) })];
}
