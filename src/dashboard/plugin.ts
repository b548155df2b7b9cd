/**
 * The dashboard as a crawl plugin (`--dashboard [PORT]`, config `dashboard`): it starts the
 * server before the crawl, keeps the dashboard's state from the crawl's hooks (every crawl-log
 * line, each analysed page), takes a sample every tick, turns the page's actions into the crawl's
 * steering (src/crawl/steering.ts) and labels (src/crawl/labels.ts), and at the end keeps its
 * samples and the frontier's best URLs in the run folder (timeline.json), writes the run's report
 * (the same page in its final state, src/report/page.ts) and closes.
 *
 * Cost to the crawl: a few counters per page and a sample a tick; the sections are rendered once
 * a tick, and only while a browser is watching.
 */
import { UserError } from '../config/errors.js';
import { topicName } from '../config/schema.js';
import { explainUrl } from '../crawl/explain.js';
import { learnLabel, readRunLabels } from '../crawl/labels.js';
import type { CrawlContext, CrawlPlugin, CrawlResult, PageEvent } from '../crawl/types.js';
import type { CrawlLogEntry } from '../store/crawl-log.js';
import type { PageAnalysis } from '../extract/types.js';
import type { QueuedUrl } from '../frontier/types.js';
import type { RunStateData } from '../store/run-state.js';
import type { ThreadRecord } from '../store/threads.js';
import type { HarvestEstimate } from '../topic/harvest-sample.js';
import { readSteering } from '../store/steering-journal.js';
import { writeTimeline } from '../report/timeline.js';
import { writeCrawlReport } from '../report/write.js';
import { displayPath } from '../report/paths.js';
import { SharedCrawlLog } from '../cluster/redis-crawl-log.js';
import { dashboardPage } from './page.js';
import { startDashboardServer, type DashboardServer } from './server.js';
import { DashboardState, type DashboardView } from './state.js';

export interface DashboardOptions {
  /** Port on 127.0.0.1 (0: any free port). */
  port: number;
  /** The reply threads as the threads plugin holds them (absent: the crawl tracks none). */
  threads?: () => ThreadRecord[] | undefined;
  /** Milliseconds between updates (default 1000). */
  intervalMs?: number;
  /** Told the dashboard's URL once it listens (default: the crawl's progress log prints it). */
  onListening?: (url: string) => void;
  /** A crawl shared through Redis: the pages shown are every worker's, read from the shared crawl log. */
  shared?: { url: string; crawlId: string };
}

/** Queued URLs shown: the best by score. */
const TOP = 20;
/** The harvest estimate re-judges its sample: taken every this many ticks. */
const ESTIMATE_EVERY = 5;

interface Labelable {
  analysis: PageAnalysis;
  topicId: string;
  judgedRelevant: boolean;
}

/**
 * The plugin: one crawl's dashboard server, its state and the crawl's context, shared by the
 * hooks (server and sampler started before the run, state kept from each line and page, final
 * state written after it) and by the server's callbacks (view, action).
 */
export class DashboardPlugin implements CrawlPlugin {
  readonly name = 'dashboard';
  private readonly state = new DashboardState();
  private ctx: CrawlContext | undefined;
  private dashboard: DashboardServer | undefined;
  private estimate: HarvestEstimate | undefined;
  private ticks = 0;
  private ended: string | undefined;
  private written: string | undefined;
  private runState: RunStateData | undefined;
  private sampler: NodeJS.Timeout | undefined;
  private sharedLog: SharedCrawlLog | undefined;
  private pulling: Promise<void> | undefined;

  constructor(private readonly o: DashboardOptions) {}

  /** The dashboard's URL once it listens. */
  get url(): string | undefined {
    return this.dashboard?.url;
  }

  get server(): DashboardServer | undefined {
    return this.dashboard;
  }

  async beforeRun(c: CrawlContext): Promise<void> {
    const o = this.o;
    this.ctx = c;
    if (c.config.fetcher !== 'adaptive') this.state.fetcher = c.config.fetcher;
    this.runState = {
      runId: c.runId,
      startedAt: new Date().toISOString(),
      updatedAt: new Date().toISOString(),
      status: 'running',
      config: c.config,
      counters: {} as RunStateData['counters'],
    };
    const server = (this.dashboard = await startDashboardServer({
      port: o.port,
      intervalMs: o.intervalMs,
      page: () => dashboardPage({ runId: c.runId, topics: this.topics() }),
      view: () => this.view(),
      action: (body) => this.action(body),
      explain: (url) => explainUrl(c.storageDir, url, c.runId),
    }));
    if (o.shared) this.sharedLog = SharedCrawlLog.open(o.shared.url, o.shared.crawlId);
    this.sampler = setInterval(() => void (this.sharedLog ? this.pull().then(() => this.sampleNow()) : this.sampleNow()), o.intervalMs ?? 1000);
    this.sampler.unref();
    if (o.onListening) o.onListening(server.url);
    else c.progress.log(`Dashboard: ${server.url}`);
  }

  onRecord(entry: CrawlLogEntry): void {
    if (!this.o.shared) this.state.add(entry);
  }

  onPage(event: PageEvent): void {
    // A label needs the page's words only (PageJudge.fields): its links, often thousands, are not kept for 200 pages.
    if (event.analysis.text.trim())
      this.state.keepLabelable(event.entry.url, {
        analysis: { ...event.analysis, links: [] },
        topicId: event.verdict.topicId,
        judgedRelevant: event.verdict.relevant,
      } satisfies Labelable);
  }

  async afterRun(result: CrawlResult, c: CrawlContext): Promise<void> {
    this.ended = result.stopReason;
    this.runState = {
      ...this.runState!,
      status: result.stopReason.startsWith('interrupted') ? 'interrupted' : 'finished',
      finishedAt: new Date().toISOString(),
    };
    clearInterval(this.sampler);
    await this.pull();
    await this.sharedLog?.close();
    this.sampleNow();
    this.dashboard?.push();
    writeTimeline(c.runDir, { samples: this.state.samples, frontier: { top: this.frontierTop(), size: c.frontier.size } });
    try {
      // The final state is the report; a CLI crawl writes it again after every plugin is done (with its exports).
      this.written = displayPath(writeCrawlReport(result, c.storageDir)[1], c.config.storageDir);
    } catch (e) {
      c.progress.log(`dashboard's final state not written: ${(e as Error).message}`);
    }
    await this.dashboard?.close();
  }

  summary(): string[] {
    return this.written ? [`  dashboard         its final state is the report, ${this.written}`] : [];
  }

  /** Every worker's lines since the last tick (this worker's own come back through the stream too). */
  private pull(): Promise<void> {
    return (this.pulling ??= (async () => {
      try {
        for (const { entry } of (await this.sharedLog?.read()) ?? []) this.state.add(entry);
      } catch {
        // Redis away for a moment: the next tick reads on from where this one stopped
      } finally {
        this.pulling = undefined;
      }
    })());
  }

  private topicOf(id: string): string {
    const ctx = this.ctx!;
    const i = ctx.judge?.model.topics.findIndex((t) => t.id === id) ?? -1;
    return i >= 0 ? topicName(ctx.config.topics[i]) : id;
  }

  private topics(): string {
    return this.ctx!.config.topics.map((t) => topicName(t)).join(' | ');
  }

  private frontierTop(): QueuedUrl[] {
    const queued = (this.ctx!.frontier as { queued?(): Iterable<QueuedUrl> }).queued?.();
    if (!queued) return [];
    const top: QueuedUrl[] = [];
    for (const e of queued) {
      if (top.length === TOP && e.score <= top[TOP - 1].score) continue;
      let i = top.length;
      while (i > 0 && top[i - 1].score < e.score) i--;
      top.splice(i, 0, e);
      if (top.length > TOP) top.pop();
    }
    return top;
  }

  // A sample every tick whether or not a browser watches, so the over-time charts cover the whole
  // crawl; the harvest estimate (it re-judges its sample) more often while someone watches.
  private sampleNow(): void {
    const c = this.ctx!;
    const every = (this.dashboard?.clients ?? 0) > 0 ? ESTIMATE_EVERY : ESTIMATE_EVERY * 6;
    if (c.judge && (this.ticks++ % every === 0 || this.ended) && this.state.log.length) {
      try {
        this.estimate = c.judge.harvestEstimate(this.state.log.length);
      } catch {
        // an estimate the judge cannot give yet: the chart goes without it
      }
    }
    this.state.sample(process.memoryUsage().rss / 2 ** 20, this.estimate);
  }

  private view(): DashboardView {
    const c = this.ctx!;
    const mem = process.memoryUsage();
    return this.state.view({
      state: this.runState,
      threads: this.o.threads?.(),
      labels: readRunLabels(c.runDir),
      steering: readSteering(c.runDir),
      control: c.control?.state(),
      frontierTop: this.frontierTop(),
      frontierSize: c.frontier.size,
      inFlight: c.frontier.pagesInFlight,
      fetching: c.frontier.requestManager.inProgressCount,
      harvestEstimate: this.estimate,
      memory: { rssMb: mem.rss / 2 ** 20, heapMb: mem.heapUsed / 2 ** 20 },
      ended: this.ended,
    });
  }

  /** A steering action from the page; its answer, or a UserError the page shows. */
  private action(body: unknown): string {
    const c = this.ctx!;
    const control = c.control;
    if (!control) throw new UserError('this crawl cannot be steered');
    if (this.ended) throw new UserError('the crawl has ended');
    const b = (body ?? {}) as { action?: unknown; maxPages?: unknown; pattern?: unknown; url?: unknown; relevant?: unknown };
    switch (b.action) {
      case 'pause':
        control.pause();
        return 'Paused: nothing new is fetched; pages in flight finish.';
      case 'resume':
        control.resume();
        return 'Resumed.';
      case 'stop':
        control.stop();
        return 'Stopping: pages in flight finish, then the crawl ends (--resume continues it).';
      case 'budget': {
        control.setBudget(Number(b.maxPages));
        return `Budget: ${Number(b.maxPages)} pages.`;
      }
      case 'block': {
        const r = control.block(String(b.pattern ?? ''));
        return `Blocked ${r.pattern}: ${r.dropped} queued URL(s) dropped; new ones are refused.`;
      }
      case 'label': {
        const url = String(b.url ?? '');
        if (typeof b.relevant !== 'boolean') throw new UserError('label: "relevant" must be true or false');
        const page = this.state.labelable.get(url) as Labelable | undefined;
        if (!page || !c.judge) throw new UserError(`label: ${url} is not one of the recent analysed pages`);
        learnLabel(c.judge, c.runDir, {
          analysis: page.analysis,
          relevant: b.relevant,
          source: 'dashboard',
          topicId: page.topicId,
          topic: this.topicOf(page.topicId),
          judgedRelevant: page.judgedRelevant,
        });
        control.noteLabel(url, b.relevant);
        return `Labelled ${b.relevant ? 'relevant' : 'not relevant'}: a ${b.relevant ? 'positive' : 'negative'} example of the judge from now on.`;
      }
      default:
        throw new UserError(`unknown action ${JSON.stringify(b.action)}`);
    }
  }
}

/** The dashboard plugin of one crawl. */
export function dashboardPlugin(o: DashboardOptions): DashboardPlugin {
  return new DashboardPlugin(o);
}
