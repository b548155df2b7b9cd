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
import type { CrawlContext, CrawlPlugin, CrawlResult } from '../crawl/types.js';
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

// Long because: its hooks share one crawl's server, state and context; split, they would pass all three around.
export function dashboardPlugin(o: DashboardOptions): CrawlPlugin & { readonly url?: string; readonly server?: DashboardServer } {
  const state = new DashboardState();
  let ctx: CrawlContext | undefined;
  let server: DashboardServer | undefined;
  let estimate: HarvestEstimate | undefined;
  let ticks = 0;
  let ended: string | undefined;
  let written: string | undefined;
  let runState: RunStateData | undefined;
  let sampler: NodeJS.Timeout | undefined;
  let sharedLog: SharedCrawlLog | undefined;
  let pulling: Promise<void> | undefined;
  // Every worker's lines since the last tick (this worker's own come back through the stream too).
  const pull = (): Promise<void> =>
    (pulling ??= (async () => {
      try {
        for (const { entry } of (await sharedLog?.read()) ?? []) state.add(entry);
      } catch {
        // Redis away for a moment: the next tick reads on from where this one stopped
      } finally {
        pulling = undefined;
      }
    })());

  const topicOf = (id: string) => {
    const i = ctx!.judge?.model.topics.findIndex((t) => t.id === id) ?? -1;
    return i >= 0 ? topicName(ctx!.config.topics[i]) : id;
  };
  const frontierTop = (): QueuedUrl[] => {
    const queued = (ctx!.frontier as { queued?(): Iterable<QueuedUrl> }).queued?.();
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
  };
  // A sample every tick whether or not a browser watches, so the over-time charts cover the whole
  // crawl; the harvest estimate (it re-judges its sample) more often while someone watches.
  const sampleNow = () => {
    const c = ctx!;
    const every = (server?.clients ?? 0) > 0 ? ESTIMATE_EVERY : ESTIMATE_EVERY * 6;
    if (c.judge && (ticks++ % every === 0 || ended) && state.log.length) {
      try {
        estimate = c.judge.harvestEstimate(state.log.length);
      } catch {
        // an estimate the judge cannot give yet: the chart goes without it
      }
    }
    state.sample(process.memoryUsage().rss / 2 ** 20, estimate);
  };
  const view = (): DashboardView => {
    const c = ctx!;
    const mem = process.memoryUsage();
    return state.view({
      state: runState,
      threads: o.threads?.(),
      labels: readRunLabels(c.runDir),
      steering: readSteering(c.runDir),
      control: c.control?.state(),
      frontierTop: frontierTop(),
      frontierSize: c.frontier.size,
      inFlight: c.frontier.pagesInFlight,
      harvestEstimate: estimate,
      memory: { rssMb: mem.rss / 2 ** 20, heapMb: mem.heapUsed / 2 ** 20 },
      ended,
    });
  };
  const topics = () => ctx!.config.topics.map((t) => topicName(t)).join(' | ');

  const action = (body: unknown): string => {
    const c = ctx!;
    const control = c.control;
    if (!control) throw new UserError('this crawl cannot be steered');
    if (ended) throw new UserError('the crawl has ended');
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
        const page = state.labelable.get(url) as Labelable | undefined;
        if (!page || !c.judge) throw new UserError(`label: ${url} is not one of the recent analysed pages`);
        learnLabel(c.judge, c.runDir, { analysis: page.analysis, relevant: b.relevant, source: 'dashboard', topicId: page.topicId, topic: topicOf(page.topicId), judgedRelevant: page.judgedRelevant });
        control.noteLabel(url, b.relevant);
        return `Labelled ${b.relevant ? 'relevant' : 'not relevant'}: a ${b.relevant ? 'positive' : 'negative'} example of the judge from now on.`;
      }
      default:
        throw new UserError(`unknown action ${JSON.stringify(b.action)}`);
    }
  };

  return {
    name: 'dashboard',
    get url() {
      return server?.url;
    },
    get server() {
      return server;
    },
    async beforeRun(c) {
      ctx = c;
      if (c.config.fetcher !== 'adaptive') state.fetcher = c.config.fetcher;
      runState = { runId: c.runId, startedAt: new Date().toISOString(), updatedAt: new Date().toISOString(), status: 'running', config: c.config, counters: {} as RunStateData['counters'] };
      server = await startDashboardServer({
        port: o.port,
        intervalMs: o.intervalMs,
        page: () => dashboardPage({ runId: c.runId, topics: topics() }),
        view,
        action,
        explain: (url) => explainUrl(c.storageDir, url, c.runId),
      });
      if (o.shared) sharedLog = SharedCrawlLog.open(o.shared.url, o.shared.crawlId);
      sampler = setInterval(() => void (sharedLog ? pull().then(sampleNow) : sampleNow()), o.intervalMs ?? 1000);
      sampler.unref();
      if (o.onListening) o.onListening(server.url);
      else c.progress.log(`Dashboard: ${server.url}`);
    },
    onRecord(entry) {
      if (!o.shared) state.add(entry);
    },
    onPage(event) {
      // A label needs the page's words only (PageJudge.fields): its links, often thousands, are not kept for 200 pages.
      if (event.analysis.text.trim()) state.keepLabelable(event.entry.url, { analysis: { ...event.analysis, links: [] }, topicId: event.verdict.topicId, judgedRelevant: event.verdict.relevant } satisfies Labelable);
    },
    async afterRun(result: CrawlResult, c) {
      ended = result.stopReason;
      runState = { ...runState!, status: result.stopReason.startsWith('interrupted') ? 'interrupted' : 'finished', finishedAt: new Date().toISOString() };
      clearInterval(sampler);
      await pull();
      await sharedLog?.close();
      sampleNow();
      server?.push();
      writeTimeline(c.runDir, { samples: state.samples, frontier: { top: frontierTop(), size: c.frontier.size } });
      try {
        // The final state is the report; a CLI crawl writes it again after every plugin is done (with its exports).
        written = displayPath(writeCrawlReport(result, c.storageDir)[1], c.config.storageDir);
      } catch (e) {
        c.progress.log(`dashboard's final state not written: ${(e as Error).message}`);
      }
      await server?.close();
    },
    summary() {
      return written ? [`  dashboard         its final state is the report, ${written}`] : [];
    },
  };
}
