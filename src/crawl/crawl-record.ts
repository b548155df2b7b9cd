/**
 * What a crawl has written down: one crawl-log line per request, the dataset items beside them
 * (through one ordered write queue, so lines keep the pages' order), the counts the progress
 * line and the result report, the true-harvest curve and the per-stage timings.
 */
import type { Dataset } from 'crawlee';
import type { CrawlFrontier } from '../frontier/frontier.js';
import type { ProgressReporter, ProgressStats } from '../report/progress.js';
import { CountTally, type RunCounts } from '../store/counts.js';
import type { CrawlLog, CrawlLogEntry } from '../store/crawl-log.js';
import { OrderedWriteBehind, PageWrites } from '../store/write-behind.js';
import type { CrawlContext, CrawlOptions, CrawlPlugin, CrawlTimings, RelevantPage } from './types.js';
import type { SubRequestCounts } from './polite-fetch.js';

export interface CrawlRecordParts {
  options: CrawlOptions;
  plugins: CrawlPlugin[];
  ctx: CrawlContext;
  frontier: CrawlFrontier;
  crawlLog: CrawlLog;
  dataset: Dataset;
  progress: ProgressReporter;
  subFetch: { counts(): SubRequestCounts };
  started: number;
  /** The counts and true-harvest curve of the run resumed, if any. */
  resumed?: { counters: RunCounts; truthCurve: number[] };
  /** A Redis crawl's shared lease ends with the frontier's finish, so there the slot waits for the line instead. */
  slotWaitsForLine: boolean;
  /** After each line: the memory ceiling's check (./stop-controller.ts). */
  afterLine: () => void;
}

export class CrawlRecord {
  readonly tally: CountTally;
  readonly truthCurve: number[];
  readonly timings: CrawlTimings = { pages: 0, extractMs: 0, judgeMs: 0, scoreMs: 0, frontierMs: 0, storeMs: 0 };
  /** Every crawl-log line goes through the dataset's write queue, so lines keep the pages' order. */
  readonly store: OrderedWriteBehind<RelevantPage>;
  readonly pageWrites: PageWrites<RelevantPage>;
  /** One crawl-log line per request: a retry after a late error (a plugin, the store) must not log a page twice. */
  private readonly logged = new Set<string>();

  constructor(private readonly p: CrawlRecordParts) {
    this.tally = new CountTally(p.resumed?.counters);
    this.truthCurve = p.resumed ? p.resumed.truthCurve : [];
    this.store = new OrderedWriteBehind<RelevantPage>(
      async (items) => {
        await p.dataset.pushData(items);
      },
      (e) => p.progress.log(`crawl log: ${e.message.split('\n')[0]}`),
    );
    // A page's frontier finish waits for its line (request-manager `finishAfter`).
    this.pageWrites = new PageWrites(this.store, p.slotWaitsForLine);
    if (!p.slotWaitsForLine) p.frontier.requestManager.finishAfter = (key) => this.pageWrites.lineOf(key);
  }

  /** True the first time a request is seen: its one line is to be written. */
  firstTime(uniqueKey: string): boolean {
    if (this.logged.has(uniqueKey)) return false;
    this.logged.add(uniqueKey);
    return true;
  }

  counts(): RunCounts {
    return Object.assign(this.tally.counts(), { subRequests: this.p.subFetch.counts() }, ...this.p.plugins.map((pl) => pl.counts?.() ?? {}));
  }

  /** A line, as its turn in the write queue comes: counted, journalled, then the plugins hear of it. */
  record(entry: CrawlLogEntry): void {
    const { options, frontier, crawlLog, plugins, ctx, progress } = this.p;
    if (options.truth) entry.truth = options.truth(entry.url);
    this.tally.add(entry);
    if (options.truth) this.truthCurve.push(this.tally.truthRelevant / this.tally.fetched);
    frontier.flush(); // the frontier's journal is never behind the crawl log
    crawlLog.append(entry);
    this.p.afterLine();
    for (const pl of plugins) pl.onRecord?.(entry, ctx);
    progress.update(this.progressStats());
  }

  /**
   * Failures and non-HTML pages are logged before the slot moves on: a plugin learns a failure
   * from onRecord before the page closes (traces of failures, src/plugins/trace.ts).
   */
  async logLine(key: string, entry: CrawlLogEntry): Promise<void> {
    const { stored } = await this.pageWrites.add(key, undefined, () => this.record(entry));
    await stored;
  }

  progressStats(): ProgressStats {
    const { options, plugins, frontier, started, resumed } = this.p;
    const config = this.p.ctx.config;
    return {
      ...Object.assign({}, ...plugins.map((pl) => pl.progress?.() ?? {})),
      ...this.counts(),
      frontierSize: frontier.size,
      budget: options.watch ? 0 : config.maxPages,
      timeLimitSecs: config.timeLimitSecs,
      elapsedMs: Date.now() - started,
      fetchedBefore: resumed?.counters.fetched ?? 0, // pages/s: this run's pages over this run's time
    };
  }
}
