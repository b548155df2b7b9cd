/**
 * The plugins a crawl gets from its config alone, for the CLI and the library alike: reply
 * threads (METHODS §4) unless `threads.enabled` is false, and the user's labels (a labels file,
 * questions to `askLabel`) when the config asks for them, the live dashboard (config `dashboard`), and on a
 * Redis frontier the shared crawl log every worker appends to. runCrawl itself adds none, so the
 * benchmarks measure the page route alone.
 */
import type { CrawlConfig } from '../config/schema.js';
import type { LabelAsker, LabelSource } from './labels.js';
import type { CrawlPlugin } from './types.js';
import type { ThreadsPlugin } from '../plugins/threads.js';

export interface ConfigPluginOptions {
  /** `--watch`: revisits are offered on a timer too. */
  watch?: boolean;
  /** The reply clock (default: each page's fetch time; the test web passes its simulated clock). */
  now?: () => Date;
  /** Who answers the judge's questions (`labels.ask` of them at most), and as what they are logged. */
  askLabel?: { ask: LabelAsker; source: LabelSource };
  /** Told the dashboard's URL (config `dashboard`) once it listens; default: the crawl's progress log prints it. */
  onDashboard?: (url: string) => void;
}

export async function configPlugins(config: CrawlConfig, opts: ConfigPluginOptions = {}): Promise<CrawlPlugin[]> {
  const plugins: CrawlPlugin[] = [];
  let threads: ThreadsPlugin | undefined;
  if (config.threads.enabled) {
    const { threadsPlugin, loadUserMatchers } = await import('../plugins/threads.js');
    // Loaded here so a bad matchers file is one line before any browser starts.
    threads = threadsPlugin({ watch: opts.watch, now: opts.now, matchers: loadUserMatchers(config.threads.matchers) });
    plugins.push(threads);
  }
  const asking = config.labels.ask > 0 && opts.askLabel !== undefined;
  if (config.labels.file !== undefined || asking) {
    const { labelsPlugin, readLabelsFile } = await import('./labels.js');
    if (config.labels.file !== undefined) readLabelsFile(config.labels.file); // a bad file is one line before anything starts
    plugins.push(
      labelsPlugin({
        ask: asking ? config.labels.ask : 0,
        askAfter: config.labels.askAfter,
        file: config.labels.file,
        asker: opts.askLabel?.ask,
        source: opts.askLabel?.source,
      }),
    );
  }
  const shared = config.frontier.url && config.frontier.crawlId ? { url: config.frontier.url, crawlId: config.frontier.crawlId } : undefined;
  if (shared) {
    const { sharedLogPlugin } = await import('../plugins/shared-log.js');
    plugins.push(sharedLogPlugin(shared.url, shared.crawlId));
  }
  if (config.dashboard !== undefined) {
    const { dashboardPlugin } = await import('../dashboard/plugin.js');
    plugins.push(dashboardPlugin({ port: config.dashboard, threads: () => threads?.store?.records(), onListening: opts.onDashboard, shared }));
  }
  return plugins;
}
