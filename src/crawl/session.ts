/**
 * One crawl, from its run folder to its result: `open` makes or resumes the run (run folder,
 * state, journals, judge, scorer, frontier, seeds, the fetcher behind the gate proxy); `run`
 * fetches until the frontier runs dry or the crawl is stopped (./stop-controller.ts); `close`
 * drains and closes what `open` opened; `finish` writes the run's state and gives its result.
 * Each fetched request goes through the page handler (./page-handler.ts).
 *
 * Long because: a crawl's parts (run files, route, frontier, fetcher) are opened in one order and
 * closed together; each part's logic is in its own module, this class only holds and wires them.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Dataset, log as crawleeLog, LogLevel, type Log, type Request } from 'crawlee';
import type { LaunchOptions, Page } from 'playwright';
import { LocalSharing, type CrawlSharing } from '../cluster/sharing.js';
import { topicName, type CrawlConfig } from '../config/schema.js';
import type { AnalysisLimits } from '../extract/page.js';
import { browserLaunchOptions } from '../fetch/browser.js';
import { createAdaptiveFetcher, openAdaptivePolicy } from '../fetch/adaptive/adaptive.js';
import { openDataPaths } from '../fetch/adaptive/adaptive-data.js';
import { FetchGate, gateOptionsOf } from '../fetch/gate/gate.js';
import { ROBOTS_TOKEN } from '../fetch/gate/gate-proxy.js';
import { startGateProxyProcess } from '../fetch/gate/gate-proxy-process.js';
import { gatedFetchText } from '../fetch/gate/gated-request.js';
import type { FetchAnswer } from '../fetch/failure.js';
import { createBrowserFetcher, createHttpFetcher, crawleeConfig, type Fetcher, type RenderedPage } from '../fetch/crawler.js';
import { renderOptions, subRequestTimeoutMs } from '../fetch/render-log.js';
import { Frontier, uniqueKeyOf, type CrawlFrontier } from '../frontier/frontier.js';
import type { FetchOrder } from '../frontier/fetch-order.js';
import { FrontierJournal } from '../frontier/journal.js';
import { RobotsCache } from '../frontier/robots.js';
import type { ProgressReporter } from '../report/progress.js';
import { CountTally } from '../store/counts.js';
import { CrawlLog } from '../store/crawl-log.js';
import { JsonLinesWriter } from '../store/jsonl.js';
import { dropUnloggedItems } from '../store/dataset-tail.js';
import { RunState } from '../store/run-state.js';
import { datasetName, RunDir } from '../store/run-dir.js';
import { NearDuplicateIndex } from '../text/near-duplicate.js';
import type { Scorer } from '../score/index.js';
import { CrawlRecord } from './crawl-record.js';
import { PageJudge } from '../judge/judge.js';
import { JudgeJournal } from '../judge/judge-journal.js';
import { LearnabilityWatch } from '../judge/learnability-watch.js';
import { learnNegativeSeeds } from '../judge/negative-seeds.js';
import { NearDuplicateJournal } from './near-duplicate-journal.js';
import { PageHandler } from './page-handler.js';
import { crawlPoliteFetch } from './polite-fetch.js';
import { findRunToResume, loadResumeState, reviveScorerInput, ScorerInputLog, type ResumeState } from './resume.js';
import { crawlScorer } from './scorer.js';
import { discoverSeeds } from './seeding.js';
import { StopController } from './stop-controller.js';
import { describeStop, SetAsideTally } from './stop-reason.js';
import type { CrawlContext, CrawlOptions, CrawlPlugin, CrawlResult } from './types.js';
import { CrawlControl } from './steering.js';

/** `20261124-014045-123`: milliseconds included, and made unique in the folder (under the storage lock). */
function timestampId(storageDir: string, d = new Date()): string {
  let t = d.getTime();
  for (;;) {
    const iso = new Date(t).toISOString();
    const id = `${iso.replace(/[-:]/g, '').replace('T', '-').slice(0, 15)}-${iso.slice(20, 23)}`;
    if (!existsSync(join(storageDir, 'runs', id))) return id;
    t++;
  }
}

/** Where a crawl starts from: its options, storage folder, what it resumes and what it shares with other processes (src/cluster/). */
export interface SessionStart {
  options: CrawlOptions;
  storageDir: string;
  resumeFrom: string | boolean | undefined;
  started: number;
  progress: ProgressReporter;
  plugins: CrawlPlugin[];
  /** Default: a crawl of its own (src/cluster/sharing.ts `LocalSharing`). */
  sharing?: CrawlSharing;
}

type RefusedLine = { time: string; url: string; parent?: string; via: 'link' | 'request'; reason: string };

export class CrawlSession {
  readonly config: CrawlConfig;
  readonly runId: string;
  readonly folder: RunDir;
  /** The run resumed (read before the journals are reopened), if any. */
  readonly resumed: ResumeState | undefined;
  private readonly options: CrawlOptions;
  private readonly progress: ProgressReporter;
  private readonly plugins: CrawlPlugin[];
  /** What the crawl shares with other processes (src/cluster/sharing.ts): every hook a no-op for a crawl of its own. */
  private readonly sharing: CrawlSharing;
  // The page route's parts.
  private judge!: PageJudge;
  private readonly learnability = new LearnabilityWatch();
  private topicNames!: Map<string, string>;
  private scorer!: Scorer;
  /** Each page's text sample, to tell a page the crawl has shown already (src/text/near-duplicate.ts). */
  private readonly nearDuplicates = new NearDuplicateIndex();
  private journal!: FrontierJournal;
  private gate!: FetchGate;
  private robots: RobotsCache | undefined;
  private robotsBlock: ((url: string) => Promise<string | undefined>) | undefined;
  private frontier!: CrawlFrontier;
  /** The fixed fetch order (src/frontier/fetch-order.ts), when the frontier keeps one. */
  private order: FetchOrder | undefined;
  /** What the crawl did not follow, for the summary's "stopped" line (./stop-reason.ts). */
  private readonly setAside = new SetAsideTally();
  // The run folder's files.
  private scorerInputs!: ScorerInputLog;
  private crawlLog!: CrawlLog;
  /** What the fetch gate refused: links never queued, and requests the gate proxy turned away; one line per URL with the reason. */
  private refusedLog!: JsonLinesWriter<RefusedLine>;
  private readonly refusedSeen = new Set<string>();
  private dataset!: Dataset;
  private state!: RunState;
  private judgeJournal: JudgeJournal | undefined;
  private nearDuplicateJournal: NearDuplicateJournal | undefined;
  private subFetch!: ReturnType<typeof crawlPoliteFetch>;
  private ctx!: CrawlContext;
  /** Steering from outside (pause, budget, blocks, stop), journalled and re-applied on --resume (src/crawl/steering.ts). */
  private control!: CrawlControl;
  private seedKeys!: Set<string>;
  private record!: CrawlRecord;
  private handler!: PageHandler;
  private readonly stops: StopController;
  // The fetcher and what it runs on.
  private gateProxy!: Awaited<ReturnType<typeof startGateProxyProcess>>;
  private adaptive: ReturnType<typeof openAdaptivePolicy> | undefined;
  private dataPaths: ReturnType<typeof openDataPaths> | undefined;
  private crawler!: Fetcher;
  /** Links beyond the per-page limit are not even read (a 100,000-link page): the analysis stops at it. */
  private readonly analysisLimits: Partial<AnalysisLimits>;

  private constructor(
    start: SessionStart,
    private readonly storageDir: string,
    private readonly started: number,
  ) {
    const { options, resumeFrom } = start;
    this.options = options;
    this.config = options.config;
    this.progress = start.progress;
    this.plugins = start.plugins;
    this.sharing = start.sharing ?? new LocalSharing(options.config);
    this.runId = this.sharing.runId ?? (resumeFrom ? findRunToResume(storageDir, typeof resumeFrom === 'string' ? resumeFrom : options.runId) : (options.runId ?? timestampId(storageDir)));
    this.folder = new RunDir(storageDir, this.runId);
    mkdirSync(this.folder.dir, { recursive: true });
    this.analysisLimits = { maxLinks: this.config.maxLinksPerPage };
    this.stops = new StopController({
      timeLimitSecs: this.config.timeLimitSecs,
      maxRssMb: this.config.maxRssMb,
      handleSigint: options.handleSigint ?? true,
      signal: options.signal,
      fetched: () => this.record.tally.fetched,
    });
    // Read before the journal is reopened; replayed once the frontier and scorer exist.
    this.resumed = resumeFrom ? loadResumeState(this.folder.dir, this.runId) : undefined;
  }

  /** Makes or resumes the run and readies the fetcher; a joined worker then waits for the first worker's seeds. */
  static async open(start: SessionStart): Promise<CrawlSession> {
    const s = new CrawlSession(start, start.storageDir, start.started);
    const { config } = s;
    const launchOptions =
      config.fetcher !== 'http' ? (await browserLaunchOptions({ browser: config.browser, headed: config.headed, slowMo: config.slowMoMs })).launchOptions : undefined;
    // Crawlee's own warnings and errors (with stack traces) are in the crawl log already, one line
    // each with its reason; keep the terminal for progress. The crawler gets a silent logger of its
    // own, so a library crawl prints nothing while the caller's global Crawlee log level stays theirs.
    if (s.options.silenceCrawleeLog ?? true) crawleeLog.setLevel(LogLevel.OFF);
    const fetcherLog = crawleeLog.child({ prefix: 'focused-crawler', level: LogLevel.OFF });
    await s.openRoute();
    await s.openRunFiles();
    await s.openPlugins();
    await s.seed();
    await s.openRecord();
    await s.openFetcher(launchOptions, fetcherLog);
    // Ready to fetch: a process joining a shared crawl waits for its seeds now (its start-up
    // overlapped the seeding instead of following it).
    await s.sharing.waitForSeeds();
    s.control.attach((reason) => s.stops.stop(reason));
    return s;
  }

  /** The judge, scorer, fetch gate, robots.txt and the frontier. */
  private async openRoute(): Promise<void> {
    const { config, options, sharing, progress } = this;
    this.judge = await PageJudge.create(config, (l) => progress.log(l));
    // Dataset records name their topic as users do (its name, else its keywords), not by the model's id.
    this.topicNames = new Map(this.judge.model.topics.map((t, i) => [t.id, topicName(config.topics[i])]));
    this.scorer = crawlScorer(config, this.judge);
    this.journal = new FrontierJournal(this.folder.dir, this.resumed?.frontier.gen ?? 0);
    // The fetch gate (src/fetch/gate/gate.ts): the seeds' own origins may be private (a local test web);
    // other private addresses only with allowPrivate.
    const gate = new FetchGate(gateOptionsOf(config, options.testwebOrigin ? [options.testwebOrigin] : []));
    this.gate = gate;
    const fetchRobots = (url: string, timeoutMs: number) => gatedFetchText(gate, url, { timeoutMs, userAgent: ROBOTS_TOKEN });
    const robots = config.respectRobotsTxt ? new RobotsCache({ userAgent: ROBOTS_TOKEN, fetchText: sharing.robotsFetch(fetchRobots) }) : undefined;
    this.robots = robots;
    this.frontier = await sharing.openFrontier({
      robots,
      log: (l) => progress.log(l),
      revive: reviveScorerInput,
      local: () =>
        new Frontier({
          maxPages: options.watch ? 0 : config.maxPages,
          maxDepth: config.maxDepth,
          perHostDelayMs: config.perHostDelayMs,
          perHostConcurrency: config.perHostConcurrency,
          // Our own robots.txt handling (honours Crawl-delay; disallowed URLs never cost budget).
          robots,
          journal: this.journal,
          // The same crawl, seed and web give the same fetch order (src/frontier/fetch-order.ts).
          orderedWindow: config.fetchOrder === 'fixed' && !options.watch ? config.maxConcurrency : undefined,
        }),
    });
    this.order = this.frontier instanceof Frontier ? this.frontier.order : undefined;
    // robots.txt for requests the queue did not hand out (redirect hops, comment APIs); the
    // processes of a shared crawl share what it says and when it was fetched.
    this.robotsBlock =
      robots &&
      (sharing.robotsBlock ??
      (async (url: string) => {
        const fresh = !robots.isLoaded(url);
        const verdict = await robots.block(url);
        // A host first met this way (a redirect hop to another host): its robots.txt, fetched just
        // now, was itself a request to the host, so the request waits the host's delay from it.
        // (A shared crawl's robotsBlock: the shared schedule counts it.)
        if (fresh && verdict === undefined) await sleep(this.delayOf(new URL(url).host));
        return verdict;
      }));
    this.frontier.onDrop = (e, reason) => this.setAside.note(reason, e.url);
  }

  /** A host's delay between requests: the crawl's, or its robots.txt Crawl-delay when longer. */
  private delayOf(host: string): number {
    return Math.max(this.config.perHostDelayMs, this.robots?.crawlDelayMs(host) ?? 0);
  }

  private noteRefused(url: string, reason: string, via: 'link' | 'request', parent?: string): void {
    const key = url.slice(0, 500);
    if (this.refusedSeen.has(key) || this.refusedSeen.size > 100_000) return;
    this.refusedSeen.add(key);
    this.refusedLog.append({ time: new Date().toISOString(), url: url.length > 500 ? `${url.slice(0, 500)}…` : url, parent, via, reason });
  }

  /** The run folder's logs, the dataset, the run state, and the polite fetch for sub-requests. */
  private async openRunFiles(): Promise<void> {
    const { folder, resumed, config, progress } = this;
    this.scorerInputs = new ScorerInputLog(folder.file('scorerPages'));
    this.crawlLog = new CrawlLog(folder.file('crawlLog'));
    this.refusedLog = new JsonLinesWriter<RefusedLine>(folder.file('refused'));
    if (resumed) {
      // Items written just before the stop without their crawl-log line: their pages are fetched again (src/store/dataset-tail.ts).
      const dropped = dropUnloggedItems(folder.datasetDir, resumed.log);
      if (dropped.length) progress.log(`Dataset: ${dropped.length} item(s) written without a crawl-log line before the stop dropped, fetched again: ${dropped.slice(0, 3).join(' ')}`);
    }
    this.dataset = await Dataset.open(datasetName(this.runId), { config: crawleeConfig(this.storageDir) });
    const startedAt = new Date(this.started).toISOString();
    this.state = await RunState.open(folder.file('state'), () => ({
      runId: this.runId,
      startedAt,
      updatedAt: startedAt,
      status: 'running',
      config,
      counters: new CountTally().counts(),
    }));
    // Requests that are not pages (comment-API pages) go through the gate, robots.txt and this
    // frontier's per-host delay too, logged in subrequests.jsonl (./polite-fetch.ts).
    this.subFetch = crawlPoliteFetch({
      gate: this.gate,
      politeness: this.frontier.politeness,
      robotsBlock: this.robotsBlock,
      maxBodyBytes: config.maxBodyBytes,
      timeoutMs: Math.min(10_000, config.navigationTimeoutSecs * 1000),
      maxRedirects: config.maxRedirects,
      logPath: folder.file('subRequests'),
      sharedHosts: this.sharing.sharedHosts,
    });
  }

  private async openPlugins(): Promise<void> {
    const { scorer } = this;
    const links = {
      outLinks: (url: string) => scorer.graph.pages.get(url)?.out.keys(),
      fetched: (url: string) => scorer.graph.pages.has(url),
      relevant: (url: string) => scorer.graph.pages.get(url)?.relevant,
    };
    this.control = new CrawlControl({ runDir: this.folder.dir, config: this.config, frontier: this.frontier, gate: this.gate, log: (l) => this.progress.log(l) });
    this.ctx = { config: this.config, runId: this.runId, runDir: this.folder.dir, storageDir: this.storageDir, frontier: this.frontier, progress: this.progress, fetch: this.subFetch.fetch, links, judge: this.judge, control: this.control };
    for (const p of this.plugins) await p.beforeRun?.(this.ctx);
  }

  /** The seeds (or, resumed, the earlier run's state replayed), the judge's and near-duplicates' journals, the negative seeds. */
  private async seed(): Promise<void> {
    const { config, options, resumed, judge, scorer, frontier, sharing, progress, folder } = this;
    // A process joining a shared crawl does not seed it.
    const seeds = resumed || !sharing.seeds ? [] : [...new Set((await discoverSeeds(config, { testwebOrigin: options.testwebOrigin, log: (l) => progress.log(l) })).flat())];
    this.seedKeys = new Set([...seeds, ...config.topics.flatMap((t) => t.seeds)].map(uniqueKeyOf));
    if (resumed) {
      for (const p of resumed.scorerPages) scorer.onPageFetched(p); // rebuilds the scorer's state
      this.judgeJournal = JudgeJournal.resume(folder.dir, judge, (key) => resumed.fetchedKeys.has(uniqueKeyOf(key)));
      // A run from before the judge's journal: the harvest estimate covers its pages by their verdicts.
      if (!this.judgeJournal) judge.restoreVerdicts(resumed.log.map((e) => e.decision === 'saved'));
      const r = (frontier as Frontier).restore(resumed.frontier, (key, url) => resumed.fetchedKeys.has(key) || resumed.fetchedKeys.has(uniqueKeyOf(url)));
      progress.log(`Resuming run ${this.runId}: ${resumed.log.length} pages already fetched, ${r.queued} URLs queued (${r.requeued} in flight at the stop, queued again)`);
    }
    // The judge's state across --resume (a shared crawl's lives with its other processes, and it
    // cannot be resumed); restored, it holds the negative pages.
    const judgeRestored = this.judgeJournal !== undefined;
    if (sharing.journalsState) this.judgeJournal ??= new JudgeJournal(folder.dir, judge);
    // The near-duplicate index too.
    this.nearDuplicateJournal = !sharing.journalsState
      ? undefined
      : resumed
        ? NearDuplicateJournal.resume(folder.dir, this.nearDuplicates, (id) => resumed.fetchedKeys.has(id.split('#revisit-')[0]), folder.datasetDir)
        : new NearDuplicateJournal(folder.dir, this.nearDuplicates);
    if (!judgeRestored) await learnNegativeSeeds(config, judge, this.gate, this.robots, (l) => progress.log(l));
    // A shared crawl: what the judge learns from here on goes to the other processes (each learned the user's negative pages itself).
    sharing.shareJudge(judge);
    for (const url of seeds) {
      this.gate.allowOrigin(url); // seeds found by search: their exact origins, like given seeds
      const s = scorer.seedScore(url);
      frontier.offer({ url, depth: 0, score: s.score, components: s.components });
    }
    sharing.seeded();
  }

  /** The counts and write queue, and the page handler that writes through them. */
  private async openRecord(): Promise<void> {
    const { resumed } = this;
    if (resumed) {
      await this.state.update((d) => {
        d.counters = resumed.counters;
        d.status = 'running';
      });
    }
    this.record = new CrawlRecord({
      options: this.options,
      plugins: this.plugins,
      ctx: this.ctx,
      frontier: this.frontier,
      crawlLog: this.crawlLog,
      dataset: this.dataset,
      progress: this.progress,
      subFetch: this.subFetch.fetch,
      started: this.started,
      resumed,
      slotWaitsForLine: this.sharing.slotWaitsForLine,
      afterLine: () => this.stops.checkMemory(),
    });
    this.handler = new PageHandler({
      config: this.config,
      options: this.options,
      plugins: this.plugins,
      ctx: this.ctx,
      progress: this.progress,
      record: this.record,
      judge: this.judge,
      learnability: this.learnability,
      scorer: this.scorer,
      frontier: this.frontier,
      gate: this.gate,
      nearDuplicates: this.nearDuplicates,
      sharing: this.sharing,
      scorerInputs: this.scorerInputs,
      setAside: this.setAside,
      topicNames: this.topicNames,
      seedKeys: this.seedKeys,
      analysisLimits: this.analysisLimits,
      noteRefused: (url, reason, via, parent) => this.noteRefused(url, reason, via, parent),
    });
  }

  /** The gate proxy, the adaptive policy's files, and the fetcher (HTTP, browser or adaptive). */
  private async openFetcher(launchOptions: LaunchOptions | undefined, fetcherLog: Log): Promise<void> {
    const { config, options, plugins, frontier, order, handler, resumed, folder } = this;
    const onPage = (p: RenderedPage) => handler.onPage(p);
    const onFailure = (r: Request, e: Error, a?: FetchAnswer) => handler.onFailure(r, e, a);
    const fetchOptions = {
      requestManager: frontier.requestManager,
      maxConcurrency: config.maxConcurrency,
      navigationTimeoutSecs: config.navigationTimeoutSecs,
      maxRequestRetries: 1,
      storageDir: this.storageDir,
      respectRobotsTxt: false, // handled by the frontier (src/frontier/robots.ts)
      keepAlive: !!options.watch,
      // In hand-out order when the fetch order is fixed (src/frontier/fetch-order.ts).
      onPage: order ? (p: RenderedPage) => order.run(p.request.uniqueKey, () => onPage(p)) : onPage,
      onFailure: order ? (r: Request, e: Error, a?: FetchAnswer) => order.run(r.uniqueKey, () => onFailure(r, e, a)) : onFailure,
      log: fetcherLog,
    };
    const noteRefusedRequest = (d: { url: string; outcome: string; reason?: string }) => {
      if (d.outcome === 'refused') this.noteRefused(d.url, d.reason ?? 'refused', 'request');
    };
    // Every request goes through the gate proxy (src/fetch/gate/gate-proxy.ts), in a process of its own.
    const gateProxy = await startGateProxyProcess({
      gate: { ...gateOptionsOf(config), seedUrls: this.gate.allowedOrigins() },
      maxBodyBytes: config.maxBodyBytes,
      // A little under the navigation timeout, so a stalled server ends with the proxy's clear reason.
      timeoutMs: Math.max(5_000, config.navigationTimeoutSecs * 1000 - 2_000),
      maxRedirects: config.maxRedirects,
      subRequestTimeoutMs: subRequestTimeoutMs(config.settleCapSecs * 1000),
      robotsBlock: this.robotsBlock,
      hostDelayMs: (host) => this.delayOf(host),
      // A shared crawl: a browser's redirect hop takes its host's slot for all its processes.
      holdHop: this.sharing.holdHop,
      onDecision: noteRefusedRequest,
    });
    this.gateProxy = gateProxy;
    this.control.onBlock((pattern) => gateProxy.block(pattern));
    const previousHandOut = frontier.onHandOut;
    frontier.onHandOut = (e) => {
      previousHandOut?.(e);
      gateProxy.noteNavigation(e.url);
    };
    frontier.requestManager.onRetry = (url) => gateProxy.noteNavigation(url);
    const browserOptions = launchOptions && {
      ...fetchOptions,
      ...renderOptions(config, this.analysisLimits),
      gateProxy,
      launchOptions: { ...launchOptions, proxy: { server: gateProxy.server, username: gateProxy.username, password: gateProxy.password, bypass: '<-loopback>' } },
      preNavigation: async (page: Page, request: Request) => {
        for (const p of plugins) await p.preNavigation?.(page, request);
      },
      postNavigation: async (page: Page, request: Request, failed: boolean) => {
        for (const p of plugins) await p.postNavigation?.(page, request, failed);
      },
      isolatePages: plugins.some((p) => p.isolatePages),
      pageClosing: plugins.some((p) => p.pageClosing)
        ? async (page: Page) => {
            for (const p of plugins) await p.pageClosing?.(page);
          }
        : undefined,
    };
    // The adaptive fetcher's own document requests: the gate, robots and per-host schedule on every hop, as the gate proxy's.
    const documentFetch = {
      gate: this.gate,
      robotsBlock: this.robotsBlock,
      hostSchedule: frontier.politeness,
      onDecision: noteRefusedRequest,
      maxBytes: config.maxBodyBytes,
      maxRedirects: config.maxRedirects,
    };
    // The adaptive policy's evidence lives in the run folder, so --resume continues what it learned.
    const adaptive =
      config.fetcher === 'adaptive' && browserOptions
        ? openAdaptivePolicy({ ...config.adaptive, randomSeed: config.randomSeed }, folder.file('adaptiveEvidence'), resumed && { log: resumed.log, fetched: (u) => resumed.fetchedKeys.has(uniqueKeyOf(u)) })
        : undefined;
    this.adaptive = adaptive;
    // So are the data path's recipes (src/fetch/adaptive/adaptive-data.ts): --resume serves settled patterns from their data at once.
    this.dataPaths =
      adaptive && config.adaptive.dataPath && !config.adaptive.renderAll
        ? openDataPaths({ ...adaptive.policy.opts, limits: this.analysisLimits }, folder.file('adaptiveData'), resumed && { pages: resumed.log.length, fetched: (u) => resumed.fetchedKeys.has(uniqueKeyOf(u)) })
        : undefined;
    this.crawler = !browserOptions
      ? createHttpFetcher({ ...fetchOptions, gateProxy })
      : config.fetcher === 'adaptive'
        ? createAdaptiveFetcher({ ...browserOptions, documentFetch, policy: adaptive!.policy, dataPaths: this.dataPaths?.paths, analysisLimits: this.analysisLimits, subFetch: this.subFetch.fetch })
        : createBrowserFetcher(browserOptions);
    order?.givenUpWhenStopped(this.crawler); // a stopped crawl routes what it has, nothing waits for a page that will not come
  }

  /** Fetches until the frontier runs dry or a stop (time limit, memory ceiling, Ctrl-C, the caller's signal). */
  async run(): Promise<void> {
    this.stops.arm(this.crawler);
    try {
      if (!this.stops.abortedBeforeStart()) await this.crawler.run();
    } finally {
      this.stops.disarm();
    }
  }

  /** Drains the write queue and closes what `open` opened (journals, logs, the shared frontier, the gate proxy). */
  async close(): Promise<void> {
    const { progress, frontier } = this;
    await this.record.store.drain();
    await frontier.requestManager.settled().catch((e: Error) => progress.log(`frontier journal: ${e.message.split('\n')[0]}`));
    this.crawlLog.close();
    this.scorerInputs.close();
    this.journal.close();
    this.judgeJournal?.close();
    this.nearDuplicateJournal?.close();
    await this.sharing.close((l) => progress.log(l));
    await this.gateProxy.close();
    this.refusedLog.close();
    this.subFetch.close();
    this.adaptive?.close();
    this.dataPaths?.close();
    progress.update(this.record.progressStats(), true);
    progress.end();
  }

  /** The run's state written (finished or interrupted) and its result, after the plugins' afterRun. */
  async finish(): Promise<CrawlResult> {
    const { config, options, resumed, stops } = this;
    const elapsedMs = Date.now() - this.started;
    const final = this.record.counts();
    // The stop's own reason, else the shared crawl's (all its processes' budget or queue), else this crawl's.
    const stopReason =
      stops.reason || this.sharing.stopReason(final.fetched) || describeStop({ fetched: final.fetched, budget: options.watch ? 0 : config.maxPages, setAside: this.setAside.counts() });
    await this.state.update((d) => {
      d.counters = final;
      d.status = stopReason.startsWith('interrupted') || stops.memoryStop ? 'interrupted' : 'finished';
      d.finishedAt = new Date().toISOString();
    });
    const result: CrawlResult = {
      runId: this.runId,
      runDir: this.folder.dir,
      datasetDir: this.folder.datasetDir,
      logPath: this.crawlLog.path,
      fetched: final.fetched,
      relevant: final.relevant,
      failed: final.failed,
      counts: final,
      harvestRate: final.fetched ? final.relevant / final.fetched : 0,
      harvestEstimate: this.judge.harvestEstimate(final.fetched),
      truthHarvestRate: options.truth ? (final.fetched ? (final.truthRelevant ?? 0) / final.fetched : 0) : undefined,
      truthCurve: options.truth ? this.record.truthCurve : undefined,
      elapsedMs,
      // A resumed run's rate is its own pages over its own time (those before it took other time).
      fetchedThisRun: final.fetched - (resumed?.counters.fetched ?? 0),
      pagesPerSecond: (final.fetched - (resumed?.counters.fetched ?? 0)) / (elapsedMs / 1000),
      frontierSize: this.frontier.size,
      stopReason,
      ...(stops.memoryStop ? { memoryStop: stops.memoryStop } : {}),
      timings: this.record.timings,
      summaryLines: [],
    };
    for (const p of this.plugins) await p.afterRun?.(result, this.ctx);
    // After afterRun, so plugins that write files at the end (report, traces) can name them.
    result.summaryLines = this.plugins.flatMap((p) => p.summary?.() ?? []);
    return result;
  }
}
