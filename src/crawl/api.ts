/**
 * The library's crawl: `crawl(config, options)` takes the *input* config (the fields of a config
 * file; defaults applied here by the one schema, src/config/schema.ts) and returns a `CrawlRun`:
 *
 *   const run = crawl({ topics: [{ keywords: ['地震'], seeds: [url] }], maxPages: 50 });
 *   for await (const page of run) console.log(page.title);   // relevant pages as they are found
 *   const result = await run;                                 // the crawl's result
 *
 * or `await crawl(config, { onPage })` for a callback instead of the loop.
 *
 * As a library it leaves the process alone: no SIGINT handler (stop with `run.stop()` or an
 * AbortSignal), Crawlee's global log level untouched (the crawler's own Crawlee logger is silent),
 * nothing printed unless `progress` is asked for; the crawl's notices go to `log` when given.
 * Reply threads are tracked when the config says so (`threads.enabled`, on by default), as
 * with the CLI. `CRAWLEE_STORAGE_DIR` is the storage folder when the config names none.
 */
import { openSharing } from '../cluster/open.js';
import { parseConfig, type CrawlConfig, type CrawlConfigInput } from '../config/schema.js';
import { ProgressReporter } from '../report/progress.js';
import { configPlugins } from './config-plugins.js';
import type { LabelAsker } from './labels.js';
import type { CrawlPlugin, CrawlResult, RelevantPage } from './types.js';

/** Options of the library's `crawl()`: callbacks, stop signal, output (all optional). */
export interface CrawlApiOptions {
  /** Each relevant page as it is found; awaited (a slow callback slows the crawl, nothing is dropped). A throw stops the crawl and rejects it. */
  onPage?: (page: RelevantPage) => void | Promise<void>;
  /** Aborting stops the crawl cleanly, as `run.stop()` does. */
  signal?: AbortSignal;
  /** The progress line on stderr, as the CLI prints it, with the crawl's notices (default: nothing is printed). */
  progress?: boolean;
  /** The crawl's notices (resuming, seeds found, a plugin's failure, ...), one line each (default: dropped unless `progress`). */
  log?: (line: string) => void;
  /** The reply clock for reply threads (default: each page's fetch time; on the test web pass `web.clock.now`). */
  now?: () => Date;
  /** Plugins riding along (src/crawl/types.ts CrawlPlugin), after the config's own (reply threads). */
  plugins?: CrawlPlugin[];
  /** Ground truth of a labelled web (the test web's `isRelevant`): adds the true harvest rate to the result. */
  truth?: (url: string) => boolean;
  /** Run id (default: a timestamp). */
  runId?: string;
  /** Continue an earlier run in the storage folder: true = the latest, or its run id. */
  resume?: boolean | string;
  /** Origin of the test web's search site, for the `testweb` search provider. */
  testwebOrigin?: string;
  /** No page budget: crawl and revisit hot threads until stopped or the time limit. */
  watch?: boolean;
  /**
   * When the judge is unsure, it asks here (up to the config's `labels.ask` questions, one at a
   * time, after `labels.askAfter` pages): return or resolve true (relevant), false (not relevant)
   * or undefined (skip). The crawl does not wait for the answer; the label is learned when it
   * comes (src/crawl/labels.ts).
   */
  onLabelRequest?: LabelAsker;
  /** With config `dashboard` (a port, 0 = any free): told the dashboard's URL, token included, once it listens (else it goes to `log`). */
  onDashboard?: (url: string) => void;
}

/** The CLI's progress reporter, its notices handed to the caller's `log` as well. */
class LibraryProgress extends ProgressReporter {
  constructor(
    opts: ConstructorParameters<typeof ProgressReporter>[0],
    private readonly onLog?: (line: string) => void,
  ) {
    super(opts);
  }

  override log(message: string): void {
    this.onLog?.(message);
    super.log(message);
  }
}

/** A running crawl: await it for the result, iterate it for the relevant pages as they are found. */
export interface CrawlRun extends PromiseLike<CrawlResult>, AsyncIterable<RelevantPage> {
  /** The crawl's result (the same promise `await run` waits on). */
  readonly result: Promise<CrawlResult>;
  /** End the crawl cleanly: pages in flight finish, what was fetched is kept, the run can be resumed. */
  stop(): void;
}

/** The config a library crawl runs with: the input through the schema; CRAWLEE_STORAGE_DIR when it names no storage folder. */
export function libraryConfig(input: CrawlConfigInput): CrawlConfig {
  const env = process.env.CRAWLEE_STORAGE_DIR;
  return parseConfig(input.storageDir === undefined && env ? { ...input, storageDir: env } : input, 'crawl config');
}

/**
 * Start a crawl. The config is checked at once (a mistake throws a ConfigError here, before
 * anything starts). Relevant pages reach the iterator from the start of the crawl if it is
 * opened before the run is awaited; awaiting the run without iterating keeps no pages in memory.
 * Leaving a `for await` loop early (break, throw) stops the crawl and waits for it to end.
 */
export function crawl(input: CrawlConfigInput, options: CrawlApiOptions = {}): CrawlRun {
  const config = libraryConfig(input);
  const stopper = new AbortController();
  const stop = () => stopper.abort();
  if (options.signal?.aborted) stop();
  else options.signal?.addEventListener('abort', stop, { once: true });

  // Pages for the iterator: kept until it takes them, or dropped once the run is awaited without one.
  let buffer: RelevantPage[] | undefined = [];
  let iterating = false;
  let wake: (() => void) | undefined;
  let ended = false;
  let callbackError: unknown;

  const onRelevantPage = async (page: RelevantPage) => {
    if (buffer) {
      buffer.push(page);
      wake?.();
    }
    if (options.onPage && callbackError === undefined) {
      try {
        await options.onPage(page);
      } catch (e) {
        callbackError = e;
        stop();
      }
    }
  };

  const result = (async () => {
    const plugins = [...(await configPlugins(config, { watch: options.watch, now: options.now, askLabel: options.onLabelRequest && { ask: options.onLabelRequest, source: 'library' }, onDashboard: options.onDashboard })), ...(options.plugins ?? [])];
    const { runCrawl } = await import('./engine.js');
    const r = await runCrawl({
      config,
      // A Redis frontier when the config names one (src/cluster/).
      sharing: openSharing,
      plugins,
      progress: new LibraryProgress({ quiet: !options.progress }, options.log),
      handleSigint: false,
      silenceCrawleeLog: false,
      signal: stopper.signal,
      onRelevantPage,
      truth: options.truth,
      runId: options.runId,
      resume: options.resume,
      testwebOrigin: options.testwebOrigin,
      watch: options.watch,
    });
    if (callbackError !== undefined) throw callbackError;
    return r;
  })().finally(() => {
    ended = true;
    options.signal?.removeEventListener('abort', stop);
    wake?.();
  });
  result.catch(() => {}); // reported to whoever awaits the run or iterates it

  return {
    result,
    stop,
    then(onFulfilled, onRejected) {
      if (!iterating) buffer = undefined;
      return result.then(onFulfilled, onRejected);
    },
    async *[Symbol.asyncIterator]() {
      iterating = true;
      const queue = (buffer ??= []);
      let finished = false;
      try {
        for (;;) {
          const next = queue.shift();
          if (next) {
            yield next;
            continue;
          }
          if (ended) {
            finished = true;
            await result; // the crawl's error, if it failed
            return;
          }
          await new Promise<void>((ok) => (wake = ok));
          wake = undefined;
        }
      } finally {
        if (!finished) {
          stop();
          await result.catch(() => {});
        }
      }
    },
  };
}
