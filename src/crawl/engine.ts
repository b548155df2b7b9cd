/**
 * The engine: wires the stages together and owns the data flow, one way per page:
 * frontier → fetch (browser) → extract → topic (relevance) → score → frontier, and
 * store / report on the side. Stage logic lives in its own module; this file only routes.
 *
 * Long because: one crawl's lifecycle (storage lock, resume, fetch gate, plugins, stop reasons,
 * counts) shares the run's state; each page's route itself is src/crawl/route.ts.
 */
import '../fetch/loopback-only.js'; // first: before Crawlee's browser pool opens its proxy
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Dataset, log as crawleeLog, LogLevel, type Request } from 'crawlee';
import type { Page } from 'playwright';
import { topicName } from '../config/schema.js';
import type { PageAnalysis } from '../extract/types.js';
import { ProgressReporter, type ProgressStats } from '../report/progress.js';
import { analyzePage } from '../extract/page.js';
import { flattenHtml } from '../extract/flatten.js';
import { browserLaunchOptions } from '../fetch/browser.js';
import { createAdaptiveFetcher, openAdaptivePolicy } from '../fetch/adaptive.js';
import { openDataPaths } from '../fetch/adaptive-data.js';
import { FetchGate, gateOptionsOf } from '../fetch/gate.js';
import { ROBOTS_TOKEN } from '../fetch/gate-proxy.js';
import { startGateProxyProcess } from '../fetch/gate-proxy-process.js';
import { gatedFetchText } from '../fetch/gated-request.js';
import { lockStorage } from '../store/storage-lock.js';
import { UserError } from '../config/errors.js';
import { createBrowserFetcher, createHttpFetcher, crawleeConfig, type Fetcher, type RenderedPage } from '../fetch/crawler.js';
import { renderedFields, renderOptions, subRequestTimeoutMs } from '../fetch/render-log.js';
import { Frontier, uniqueKeyOf, type CrawlFrontier } from '../frontier/frontier.js';
import type { RedisCrawl, RedisFrontier } from '../frontier/redis.js';
import { replayOthers } from '../frontier/redis-scorer-pages.js';
import { crawlUserData } from '../frontier/user-data.js';
import { FrontierJournal } from '../frontier/journal.js';
import { RobotsCache } from '../frontier/robots.js';
import { findRunToResume, loadResumeState, reviveScorerInput, ScorerInputLog, type ResumeState } from './resume.js';
import { CrawlLog, type CrawlLogEntry } from '../store/crawl-log.js';
import { JsonLinesWriter } from '../store/jsonl.js';
import { OrderedWriteBehind, PageWrites } from '../store/write-behind.js';
import { dropUnloggedItems } from '../store/dataset-tail.js';
import { RunState } from '../store/run-state.js';
import { CountTally, type RunCounts } from '../report/counts.js';
import { datasetName, RunDir } from '../store/run-dir.js';
import { PageJudge } from './judge.js';
import { LearnabilityWatch } from './learnability-watch.js';
import { learnNegativeSeeds } from './negative-seeds.js';
import { JudgeJournal } from './judge-journal.js';
import { discoverSeeds } from './seeding.js';
import { describeStop, SetAsideTally } from './stop-reason.js';
import { crawlScorer } from './scorer.js';
import { checksNearDuplicates, routePage } from './route.js';
import { SharedNearDuplicates } from '../frontier/redis-near-duplicate.js';
import { NearDuplicateIndex } from '../text/near-duplicate.js';
import { NearDuplicateJournal } from './near-duplicate-journal.js';
import { crawlPoliteFetch } from './polite-fetch.js';
import { memoryCeilingMb, memoryOverrun, type MemoryOverrun } from './memory-ceiling.js';
import { CrawlControl } from '../dashboard/control.js';

export type { CrawlContext, CrawlOptions, CrawlPlugin, CrawlResult, CrawlTimings, PageEvent, RelevantPage } from './types.js';
import type { CrawlContext, CrawlOptions, CrawlPlugin, CrawlResult, CrawlTimings, RelevantPage } from './types.js';

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

export async function runCrawl(options: CrawlOptions): Promise<CrawlResult> {
  const { config } = options;
  const progress = options.progress ?? new ProgressReporter();
  const plugins = options.plugins ?? [];
  const started = Date.now();
  const storageDir = resolve(config.storageDir);
  void config;
  const resumeFrom = options.resume ?? (config.resume || undefined);
  // A worker of a crawl shared through Redis (src/frontier/redis.ts): its own run folder
  // `runs/<crawl-id>.w<N>`, locked alone, so workers on one machine share a storage folder.
  const shared = config.frontier.url ? await joinSharedCrawl(options, progress) : undefined;
  const lockDir = shared ? join(storageDir, 'runs', shared.runId) : storageDir;
  if (shared) mkdirSync(lockDir, { recursive: true });
  // One crawl per storage folder (src/store/storage-lock.ts); released when the crawl ends.
  const unlock = await lockStorage(lockDir, { runId: shared?.runId ?? (typeof resumeFrom === 'string' ? resumeFrom : options.runId) });
  try {
    return await crawlLocked(options, storageDir, resumeFrom, started, progress, plugins, shared);
  } finally {
    await unlock();
    await shared?.close();
  }
}

async function joinSharedCrawl(options: CrawlOptions, progress: ProgressReporter): Promise<RedisCrawl> {
  const { config } = options;
  const f = config.frontier;
  if (options.resume ?? config.resume) throw new UserError('--resume does not apply to a Redis frontier: the crawl\'s state is in Redis; start the worker again with --worker');
  const { RedisCrawl } = await import('../frontier/redis.js');
  const crawl = await RedisCrawl.join({
    url: f.url!,
    crawlId: f.crawlId!,
    worker: f.worker,
    settings: { maxPages: options.watch ? 0 : config.maxPages, perHostDelayMs: config.perHostDelayMs, perHostConcurrency: config.perHostConcurrency },
    log: (l) => progress.log(l),
  });
  progress.log(`Worker ${crawl.workerNumber} of crawl "${crawl.crawlId}" at ${f.url}${f.worker ? ' (joined)' : ''}: run folder runs/${crawl.runId}`);
  return crawl;
}

// Long because: the run's state (journals, judge, frontier, stop reasons) is shared by the page and failure handlers it defines.
async function crawlLocked(
  options: CrawlOptions,
  storageDir: string,
  resumeFrom: string | boolean | undefined,
  started: number,
  progress: ProgressReporter,
  plugins: CrawlPlugin[],
  shared?: RedisCrawl,
): Promise<CrawlResult> {
  const { config } = options;
  const runId = shared ? shared.runId : resumeFrom ? findRunToResume(storageDir, typeof resumeFrom === 'string' ? resumeFrom : options.runId) : (options.runId ?? timestampId(storageDir));
  const run = new RunDir(storageDir, runId);
  const runDir = run.dir;
  mkdirSync(runDir, { recursive: true });

  const launchOptions =
    config.fetcher !== 'http' ? (await browserLaunchOptions({ browser: config.browser, headed: config.headed, slowMo: config.slowMoMs })).launchOptions : undefined;
  // Crawlee's own warnings and errors (with stack traces) are in the crawl log already, one line
  // each with its reason; keep the terminal for progress. The crawler gets a silent logger of its
  // own, so a library crawl prints nothing while the caller's global Crawlee log level stays theirs.
  if (options.silenceCrawleeLog ?? true) crawleeLog.setLevel(LogLevel.OFF);
  const fetcherLog = crawleeLog.child({ prefix: 'focused-crawler', level: LogLevel.OFF });

  const judge = await PageJudge.create(config, (l) => progress.log(l));
  const learnability = new LearnabilityWatch();
  // Dataset records name their topic as users do (its name, else its keywords), not by the model's id.
  const topicNames = new Map(judge.model.topics.map((t, i) => [t.id, topicName(config.topics[i])]));
  const scorer = crawlScorer(config, judge);
  // Each page's text sample, to tell a page the crawl has shown already (src/text/near-duplicate.ts).
  const nearDuplicates = new NearDuplicateIndex();
  // A Redis crawl's workers share one (src/frontier/redis-near-duplicate.ts).
  const sharedNearDuplicates = shared ? new SharedNearDuplicates(shared.redis, shared.prefix) : undefined;
  // Read before the journal is reopened; replayed once the frontier and scorer exist.
  const resumed: ResumeState | undefined = resumeFrom ? loadResumeState(runDir, runId) : undefined;
  const journal = new FrontierJournal(runDir, resumed?.frontier.gen ?? 0);
  // The fetch gate (src/fetch/gate.ts): the seeds' own origins may be private (a local test web);
  // other private addresses only with allowPrivate.
  const gate = new FetchGate(gateOptionsOf(config, options.testwebOrigin ? [options.testwebOrigin] : []));
  const fetchRobots = (url: string, timeoutMs: number) => gatedFetchText(gate, url, { timeoutMs, userAgent: ROBOTS_TOKEN });
  const robots = config.respectRobotsTxt
    ? new RobotsCache({ userAgent: ROBOTS_TOKEN, fetchText: shared ? shared.sharedRobotsFetch(fetchRobots) : fetchRobots })
    : undefined;
  const redisFrontier: RedisFrontier | undefined = shared
    ? new (await import('../frontier/redis.js')).RedisFrontier(shared, {
        maxDepth: config.maxDepth,
        leaseMs: config.frontier.leaseSecs * 1000,
        robots,
        log: (l) => progress.log(l),
        shareScorer: config.frontier.shareScorer ? { revive: reviveScorerInput } : undefined,
        shareJudge: config.frontier.shareJudge,
      })
    : undefined;
  const frontier: CrawlFrontier = redisFrontier ?? new Frontier({
    maxPages: options.watch ? 0 : config.maxPages,
    maxDepth: config.maxDepth,
    perHostDelayMs: config.perHostDelayMs,
    perHostConcurrency: config.perHostConcurrency,
    // Our own robots.txt handling (honours Crawl-delay; disallowed URLs never cost budget).
    robots,
    journal,
    // The same crawl, seed and web give the same fetch order (src/frontier/fetch-order.ts).
    orderedWindow: config.fetchOrder === 'fixed' && !options.watch ? config.maxConcurrency : undefined,
  });
  const order = redisFrontier ? undefined : (frontier as Frontier).order;
  // robots.txt for requests the queue did not hand out (redirect hops, comment APIs); a Redis
  // crawl's workers share what it says and when it was fetched (src/frontier/redis.ts).
  const delayOf = (host: string) => Math.max(config.perHostDelayMs, robots?.crawlDelayMs(host) ?? 0);
  const robotsBlock =
    robots &&
    (async (url: string) => {
      if (redisFrontier) return redisFrontier.robotsBlock(url);
      const fresh = !robots.isLoaded(url);
      const verdict = await robots.block(url);
      // A host first met this way (a redirect hop to another host): its robots.txt, fetched just
      // now, was itself a request to the host, so the request waits the host's delay from it.
      // (Workers of a Redis crawl: the shared schedule counts it, src/frontier/redis.ts.)
      if (fresh && verdict === undefined) await sleep(delayOf(new URL(url).host));
      return verdict;
    });
  // What the crawl did not follow, for the summary's "stopped" line (src/crawl/stop-reason.ts).
  const setAside = new SetAsideTally();
  frontier.onDrop = (e, reason) => setAside.note(reason, e.url);
  const scorerInputs = new ScorerInputLog(run.file('scorerPages'));
  const crawlLog = new CrawlLog(run.file('crawlLog'));
  // What the fetch gate refused: links never queued, and requests (redirect hops, sub-resources)
  // the gate proxy turned away; one line per URL with the reason.
  const refusedLog = new JsonLinesWriter<{ time: string; url: string; parent?: string; via: 'link' | 'request'; reason: string }>(run.file('refused'));
  const refusedSeen = new Set<string>();
  const noteRefused = (url: string, reason: string, via: 'link' | 'request', parent?: string) => {
    const key = url.slice(0, 500);
    if (refusedSeen.has(key) || refusedSeen.size > 100_000) return;
    refusedSeen.add(key);
    refusedLog.append({ time: new Date().toISOString(), url: url.length > 500 ? `${url.slice(0, 500)}…` : url, parent, via, reason });
  };
  if (resumed) {
    // Items written just before the stop without their crawl-log line: their pages are fetched again (src/store/dataset-tail.ts).
    const dropped = dropUnloggedItems(run.datasetDir, resumed.log);
    if (dropped.length) progress.log(`Dataset: ${dropped.length} item(s) written without a crawl-log line before the stop dropped, fetched again: ${dropped.slice(0, 3).join(' ')}`);
  }
  const dataset = await Dataset.open(datasetName(runId), { config: crawleeConfig(storageDir) });
  const state = await RunState.open(run.file('state'), () => ({
    runId,
    startedAt: new Date(started).toISOString(),
    updatedAt: new Date(started).toISOString(),
    status: 'running',
    config,
    counters: new CountTally().counts(),
  }));

  // Requests that are not pages (comment-API pages) go through the gate, robots.txt and this
  // frontier's per-host delay too, logged in subrequests.jsonl (src/crawl/polite-fetch.ts).
  const subFetch = crawlPoliteFetch({
    gate,
    politeness: frontier.politeness,
    robotsBlock,
    maxBodyBytes: config.maxBodyBytes,
    timeoutMs: Math.min(10_000, config.navigationTimeoutSecs * 1000),
    maxRedirects: config.maxRedirects,
    logPath: run.file('subRequests'),
    sharedHosts: redisFrontier?.sharedHosts,
  });
  const links = {
    outLinks: (url: string) => scorer.graph.pages.get(url)?.out.keys(),
    fetched: (url: string) => scorer.graph.pages.has(url),
    relevant: (url: string) => scorer.graph.pages.get(url)?.relevant,
  };
  // Steering from outside (pause, budget, blocks, stop), journalled and re-applied on --resume (src/dashboard/control.ts).
  const control = new CrawlControl({ runDir, config, frontier, gate, log: (l) => progress.log(l) });
  const ctx: CrawlContext = { config, runId, runDir, storageDir, frontier, progress, fetch: subFetch.fetch, links, judge, control };
  for (const p of plugins) await p.beforeRun?.(ctx);

  // A worker joining a shared crawl does not seed it.
  const seeds = resumed || config.frontier.worker ? [] : [...new Set((await discoverSeeds(config, { testwebOrigin: options.testwebOrigin, log: (l) => progress.log(l) })).flat())];
  const seedKeys = new Set([...seeds, ...config.topics.flatMap((t) => t.seeds)].map(uniqueKeyOf));
  let judgeJournal: JudgeJournal | undefined;
  if (resumed) {
    for (const p of resumed.scorerPages) scorer.onPageFetched(p); // rebuilds the scorer's state
    judgeJournal = JudgeJournal.resume(runDir, judge, (key) => resumed.fetchedKeys.has(uniqueKeyOf(key)));
    // A run from before the judge's journal: the harvest estimate covers its pages by their verdicts.
    if (!judgeJournal) judge.restoreVerdicts(resumed.log.map((e) => e.decision === 'saved'));
    const r = (frontier as Frontier).restore(resumed.frontier, (key, url) => resumed.fetchedKeys.has(key) || resumed.fetchedKeys.has(uniqueKeyOf(url)));
    progress.log(`Resuming run ${runId}: ${resumed.log.length} pages already fetched, ${r.queued} URLs queued (${r.requeued} in flight at the stop, queued again)`);
  }
  // The judge's state across --resume (a Redis crawl cannot be resumed); restored, it holds the negative pages.
  const judgeRestored = judgeJournal !== undefined;
  if (!shared) judgeJournal ??= new JudgeJournal(runDir, judge);
  // The near-duplicate index too (a Redis crawl's is in Redis).
  const nearDuplicateJournal = shared ? undefined : resumed ? NearDuplicateJournal.resume(runDir, nearDuplicates, (id) => resumed.fetchedKeys.has(id.split('#revisit-')[0]), run.datasetDir) : new NearDuplicateJournal(runDir, nearDuplicates);
  if (!judgeRestored) await learnNegativeSeeds(config, judge, gate, robots, (l) => progress.log(l));
  // Several workers: what the judge learns from here on goes to the others (each learned the user's negative pages itself).
  if (redisFrontier && config.frontier.shareJudge) judge.onInput = (input) => redisFrontier.shareJudgeInput(input);
  for (const url of seeds) {
    gate.allowOrigin(url); // seeds found by search: their exact origins, like given seeds
    const s = scorer.seedScore(url);
    frontier.offer({ url, depth: 0, score: s.score, components: s.components });
  }
  if (redisFrontier && !config.frontier.worker) redisFrontier.markSeeded();

  if (resumed) {
    await state.update((d) => {
      d.counters = resumed.counters;
      d.status = 'running';
    });
  }
  const tally = new CountTally(resumed?.counters);
  const counts = (): RunCounts => Object.assign(tally.counts(), { subRequests: subFetch.fetch.counts() }, ...plugins.map((p) => p.counts?.() ?? {}));
  const truthCurve: number[] = resumed ? resumed.truthCurve : [];
  const timings: CrawlTimings = { pages: 0, extractMs: 0, judgeMs: 0, scoreMs: 0, frontierMs: 0, storeMs: 0 };
  const record = (entry: CrawlLogEntry) => {
    if (options.truth) entry.truth = options.truth(entry.url);
    tally.add(entry);
    if (options.truth) truthCurve.push(tally.truthRelevant / tally.fetched);
    frontier.flush(); // the frontier's journal is never behind the crawl log
    crawlLog.append(entry);
    checkMemory();
    for (const p of plugins) p.onRecord?.(entry, ctx);
    progress.update(progressStats());
  };
  // Every crawl-log line goes through the dataset's write queue, so lines keep the pages' order.
  const store = new OrderedWriteBehind<RelevantPage>(
    async (items) => {
      await dataset.pushData(items);
    },
    (e) => progress.log(`crawl log: ${e.message.split('\n')[0]}`),
  );
  // A page's frontier finish waits for its line (request-manager `finishAfter`). A Redis crawl's
  // shared lease ends with the finish, so there the slot waits for the line instead.
  const pageWrites = new PageWrites(store, !!redisFrontier);
  if (!redisFrontier) frontier.requestManager.finishAfter = (key) => pageWrites.lineOf(key);
  // Failures and non-HTML pages are logged before the slot moves on: a plugin learns a failure
  // from onRecord before the page closes (traces of failures, src/fetch/trace.ts).
  const logLine = async (key: string, entry: CrawlLogEntry) => {
    const { stored } = await pageWrites.add(key, undefined, () => record(entry));
    await stored;
  };
  const progressStats = (): ProgressStats => ({
    ...Object.assign({}, ...plugins.map((p) => p.progress?.() ?? {})),
    ...counts(),
    frontierSize: frontier.size,
    budget: options.watch ? 0 : config.maxPages,
    timeLimitSecs: config.timeLimitSecs,
    elapsedMs: Date.now() - started,
    fetchedBefore: resumed?.counters.fetched ?? 0, // pages/s: this run's pages over this run's time
  });

  // One crawl-log line per request: a retry after a late error (a plugin, the store) must not log a page twice.
  const logged = new Set<string>();
  // Links beyond the per-page limit are not even read (a 100,000-link page): the analysis stops at it.
  const analysisLimits = { maxLinks: config.maxLinksPerPage };
  // Long because: one page's whole success path (route, store, plugins, counts), in order.
  const onPage = async (page: RenderedPage) => {
    if (logged.has(page.request.uniqueKey)) return;
    logged.add(page.request.uniqueKey);
    const m = crawlUserData(page.request);
    const depth = m.depth;
    const base: Omit<CrawlLogEntry, 'decision'> = {
      time: page.fetchedAt.toISOString(),
      url: page.request.url,
      status: page.status,
      depth,
      parent: m.parentUrl,
      score: m.score,
      components: m.components,
      contentType: page.contentType,
      ...(page.fetchedWith ? { fetchedWith: page.fetchedWith, fetchWhy: page.fetchWhy } : {}),
      ...renderedFields(page),
    };
    if (page.html === undefined) {
      await logLine(page.request.uniqueKey, { ...base, decision: 'not-html', reason: page.contentType });
      return;
    }
    let t = performance.now();
    const lap = (k: Exclude<keyof CrawlTimings, 'pages'>) => {
      const now = performance.now();
      timings[k] += now - t;
      t = now;
    };
    timings.pages++;
    let analysis: PageAnalysis;
    try {
      analysis = page.analysis ?? analyzePage({ html: page.html, url: page.url, fetchedAt: page.fetchedAt }, { limits: analysisLimits });
    } catch (e) {
      // Nested too deep for the extractor's recursion: analyse the page flattened (src/extract/flatten.ts).
      // Anything else it cannot take is a failure with its reason, never a crash.
      try {
        if (!(e instanceof RangeError)) throw e;
        analysis = analyzePage({ html: flattenHtml(page.html), url: page.url, fetchedAt: page.fetchedAt }, { limits: analysisLimits });
        base.reason = 'nested too deep: analysed flattened';
      } catch (e2) {
        await logLine(page.request.uniqueKey, { ...base, decision: 'failed', reason: `no document: ${(e2 as Error).message.split('\n')[0].slice(0, 200)}` });
        return;
      }
    }
    lap('extractMs');
    // What a huge page's analysis left unread, and why (src/extract/limits.ts).
    if (analysis.bounded) base.reason = [base.reason, ...analysis.bounded].filter(Boolean).join('; ');
    if (!analysis.title && !analysis.text && analysis.links.length === 0 && analysis.headings.length === 0 && page.html.trim()) {
      await logLine(page.request.uniqueKey, { ...base, decision: 'failed', reason: 'no document: the HTML parses to an empty page' });
      return;
    }
    // Other workers' pages first (a Redis crawl with shareScorer): this page's links are scored
    // with the whole crawl's evidence. Their links' scores were sent by their own workers.
    if (redisFrontier) await replayOthers(redisFrontier, scorer, (url) => seedKeys.has(uniqueKeyOf(url)));
    // And what their judges learned from their pages (with shareJudge), before this page is judged.
    if (redisFrontier) for (const input of await redisFrontier.othersJudgeInputs()) judge.replay(input);
    // Several workers: the shared index's answer, got before the (synchronous) route.
    const sharedDuplicateOf = sharedNearDuplicates && checksNearDuplicates(page.status) ? await sharedNearDuplicates.check(analysis.url, analysis.text, page.request.uniqueKey) : undefined;
    const { verdict } = routePage(analysis, { url: page.request.url, uniqueKey: page.request.uniqueKey, userData: m, status: page.status, html: page.html }, {
      judge,
      scorer,
      frontier,
      nearDuplicates: sharedNearDuplicates ? { check: () => sharedDuplicateOf } : nearDuplicates,
      // At most maxLinksPerPage links, each through the gate's checks that need no DNS (scheme,
      // length, domain lists, literal private addresses): refused ones are never queued.
      maxLinks: config.maxLinksPerPage,
      keepLink: (l) => {
        const v = gate.checkSync(l.url);
        if (!v.ok) noteRefused(l.url, v.reason, 'link', page.request.url);
        return v.ok;
      },
      // A link to a seed must not re-score it below the seed score (a page with 100,000 links buried the other seeds).
      skipUpdate: (url) => seedKeys.has(uniqueKeyOf(url)),
      onScorerInput: (p) => {
        scorerInputs.append(p);
        redisFrontier?.shareScorerInput(p);
      },
      onSetAside: (url, reason) => setAside.note(reason === 'too-deep' ? `deeper than ${config.maxDepth}` : reason, url),
      lap,
    });
    // A topic its seed pages cannot teach the judge: said as soon as it shows (src/crawl/learnability-watch.ts).
    for (const line of learnability.notices(judge)) progress.log(line);
    const saved: RelevantPage | undefined = verdict.relevant
      ? {
          url: page.url,
          title: analysis.title,
          publishTime: analysis.publishTime?.iso,
          topic: topicNames.get(verdict.topicId) ?? verdict.topicId,
          relevance: verdict.rel,
          score: m.score,
          text: analysis.text,
          fetchedAt: page.fetchedAt.toISOString(),
        }
      : undefined;
    const entry: CrawlLogEntry = {
      ...base,
      relevance: verdict.rel,
      relevant: verdict.relevant,
      topic: verdict.topicId,
      title: analysis.title,
      publishTime: analysis.publishTime?.iso,
      // A non-2xx answer is a failed fetch (a dead link), whatever its body says.
      decision: verdict.neverRelevant?.reason === 'http-status' ? 'failed' : verdict.outOfWindow ? 'out-of-window' : verdict.relevant ? 'saved' : 'recorded',
      reason: [base.reason, verdict.neverRelevant?.detail, verdict.nearDuplicateOf && `near-duplicate of ${verdict.nearDuplicateOf}`].filter(Boolean).join('; ') || undefined,
    };
    for (const p of plugins) p.annotate?.(entry, page);
    // The dataset item, then its crawl-log line, written behind the slot (src/store/write-behind.ts).
    const { stored } = await pageWrites.add(page.request.uniqueKey, saved, (error) => record(error ? { ...entry, decision: 'failed', reason: `dataset write failed: ${error.message.split('\n')[0].slice(0, 200)}` } : entry));
    lap('storeMs');
    for (const p of plugins) {
      try {
        await p.onPage?.({ rendered: page, analysis, verdict, entry }, ctx);
      } catch (e) {
        // The page is logged already; a plugin's failure on it must not make Crawlee fetch it again.
        progress.log(`${p.name}: ${page.request.url}: ${(e as Error).message.split('\n')[0]}`);
      }
    }
    if (saved && options.onRelevantPage) {
      try {
        await stored; // "as it is saved": its item is on disk
        await options.onRelevantPage(saved);
      } catch (e) {
        progress.log(`onRelevantPage: ${page.request.url}: ${(e as Error).message.split('\n')[0]}`);
      }
    }
  };

  const onFailure = async (request: Request, error: Error) => {
    if (logged.has(request.uniqueKey)) return;
    logged.add(request.uniqueKey);
    const m = crawlUserData(request);
    // A download (browser) or a content type the HTTP fetcher skips is not a failure: it is not HTML.
    const skippedType = /served Content-Type ([^\s,]+)/.exec(error.message);
    const notHtml = /Download is starting/i.test(error.message) || skippedType !== null;
    // Crawlee's HTTP errors read "500 - Internal Server Error: …": keep the status.
    const httpStatus = /^(\d{3}) - /.exec(error.message);
    await logLine(request.uniqueKey, {
      time: new Date().toISOString(),
      url: request.url,
      status: httpStatus ? Number(httpStatus[1]) : 0,
      depth: m.depth,
      parent: m.parentUrl,
      score: m.score,
      components: m.components,
      decision: notHtml ? 'not-html' : 'failed',
      reason: error.message.split('\n')[0].slice(0, 300),
      contentType: skippedType?.[1],
    });
  };

  const fetchOptions = {
    requestManager: frontier.requestManager,
    maxConcurrency: config.maxConcurrency,
    navigationTimeoutSecs: config.navigationTimeoutSecs,
    maxRequestRetries: 1,
    storageDir,
    respectRobotsTxt: false, // handled by the frontier (src/frontier/robots.ts)
    keepAlive: !!options.watch,
    // In hand-out order when the fetch order is fixed (src/frontier/fetch-order.ts).
    onPage: order ? (p: RenderedPage) => order.run(p.request.uniqueKey, () => onPage(p)) : onPage,
    onFailure: order ? (r: Request, e: Error) => order.run(r.uniqueKey, () => onFailure(r, e)) : onFailure,
    log: fetcherLog,
  };
  // Every request goes through the gate proxy (src/fetch/gate-proxy.ts), in a process of its own.
  const gateProxy = await startGateProxyProcess({
    gate: { ...gateOptionsOf(config), seedUrls: gate.allowedOrigins() },
    maxBodyBytes: config.maxBodyBytes,
    // A little under the navigation timeout, so a stalled server ends with the proxy's clear reason.
    timeoutMs: Math.max(5_000, config.navigationTimeoutSecs * 1000 - 2_000),
    maxRedirects: config.maxRedirects,
    subRequestTimeoutMs: subRequestTimeoutMs(config.settleCapSecs * 1000),
    robotsBlock,
    hostDelayMs: delayOf,
    // Several workers: a browser's redirect hop takes its host's slot for all of them (Redis).
    holdHop: redisFrontier && ((host, own, maxWaitMs) => redisFrontier.politeness.holdHop(host, own, maxWaitMs)),
    onDecision: (d) => {
      if (d.outcome === 'refused') noteRefused(d.url, d.reason ?? 'refused', 'request');
    },
  });
  const previousHandOut = frontier.onHandOut;
  frontier.onHandOut = (e) => {
    previousHandOut?.(e);
    gateProxy.noteNavigation(e.url);
  };
  frontier.requestManager.onRetry = (url) => gateProxy.noteNavigation(url);
  const browserOptions = launchOptions && {
    ...fetchOptions,
    ...renderOptions(config, analysisLimits),
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
    gate,
    robotsBlock,
    hostSchedule: frontier.politeness,
    onDecision: (d: { url: string; outcome: string; reason?: string }) => {
      if (d.outcome === 'refused') noteRefused(d.url, d.reason ?? 'refused', 'request');
    },
    maxBytes: config.maxBodyBytes,
    maxRedirects: config.maxRedirects,
  };
  // The adaptive policy's evidence lives in the run folder, so --resume continues what it learned.
  const adaptive = config.fetcher === 'adaptive' && browserOptions
    ? openAdaptivePolicy({ ...config.adaptive, randomSeed: config.randomSeed }, run.file('adaptiveEvidence'), resumed && { log: resumed.log, fetched: (u) => resumed.fetchedKeys.has(uniqueKeyOf(u)) })
    : undefined;
  // So are the data path's recipes (src/fetch/adaptive-data.ts): --resume serves settled patterns from their data at once.
  const dataPaths = adaptive && config.adaptive.dataPath && !config.adaptive.renderAll
    ? openDataPaths({ ...adaptive.policy.opts, limits: analysisLimits }, run.file('adaptiveData'), resumed && { pages: resumed.log.length, fetched: (u) => resumed.fetchedKeys.has(uniqueKeyOf(u)) })
    : undefined;
  const crawler: Fetcher = !browserOptions
    ? createHttpFetcher({ ...fetchOptions, gateProxy })
    : config.fetcher === 'adaptive'
      ? createAdaptiveFetcher({ ...browserOptions, documentFetch, policy: adaptive!.policy, dataPaths: dataPaths?.paths, analysisLimits, subFetch: subFetch.fetch })
      : createBrowserFetcher(browserOptions);
  order?.givenUpWhenStopped(crawler); // a stopped crawl routes what it has, nothing waits for a page that will not come

  // A joined worker is ready to fetch: now it waits for the first worker's seeds (its start-up
  // overlapped the seeding instead of following it).
  if (shared && config.frontier.worker) await shared.waitForSeeds();

  let stopReason = '';
  control.attach((reason) => {
    stopReason = reason;
    crawler.stop(reason);
  });
  // The memory ceiling (./memory-ceiling.ts): checked after each logged page and every second
  // once a page is logged (a run stopped before its first page could not be resumed).
  const ceilingMb = memoryCeilingMb(config.maxRssMb);
  let memoryStop: MemoryOverrun | undefined;
  function checkMemory(): void {
    if (memoryStop || tally.fetched === 0) return;
    memoryStop = memoryOverrun(ceilingMb);
    if (!memoryStop) return;
    stopReason = `memory ceiling (${memoryStop.rssMb} MB resident, ceiling ${memoryStop.ceilingMb} MB)`;
    crawler.stop(stopReason);
  }
  const memoryTimer = ceilingMb > 0 ? setInterval(checkMemory, 1000).unref() : undefined;
  const timer =
    config.timeLimitSecs > 0
      ? setTimeout(() => {
          stopReason = `time limit (${config.timeLimitSecs} s)`;
          crawler.stop(stopReason);
        }, config.timeLimitSecs * 1000)
      : undefined;
  const onSigint = () => {
    stopReason = 'interrupted (Ctrl-C)';
    crawler.stop(stopReason);
  };
  const onAbort = () => {
    stopReason = 'interrupted (stopped by the caller)';
    crawler.stop(stopReason);
  };
  if (options.handleSigint ?? true) process.once('SIGINT', onSigint);
  options.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    // Aborted before the start: Crawlee's run() would forget an earlier stop(), so it is not started.
    if (options.signal?.aborted) stopReason = 'interrupted (stopped by the caller)';
    else await crawler.run();
  } finally {
    if (timer) clearTimeout(timer);
    if (memoryTimer) clearInterval(memoryTimer);
    process.off('SIGINT', onSigint);
    options.signal?.removeEventListener('abort', onAbort);
    await store.drain();
    await frontier.requestManager.settled().catch((e: Error) => progress.log(`frontier journal: ${e.message.split('\n')[0]}`));
    crawlLog.close();
    scorerInputs.close();
    journal.close();
    judgeJournal?.close();
    nearDuplicateJournal?.close();
    if (sharedNearDuplicates) {
      const n = sharedNearDuplicates.stats;
      progress.log(`Near-duplicates shared through Redis: ${n.checked} pages checked, ${n.calls} round trips, ${n.readFromOthers} sketches read from other workers`);
    }
    await redisFrontier?.close();
    await gateProxy.close();
    refusedLog.close();
    subFetch.close();
    adaptive?.close();
    dataPaths?.close();
    progress.update(progressStats(), true);
    progress.end();
  }
  const elapsedMs = Date.now() - started;
  const final = counts();
  if (!stopReason && redisFrontier) stopReason = redisFrontier.stopReason(final.fetched);
  if (!stopReason) stopReason = describeStop({ fetched: final.fetched, budget: options.watch ? 0 : config.maxPages, setAside: setAside.counts() });
  await state.update((d) => {
    d.counters = final;
    d.status = stopReason.startsWith('interrupted') || memoryStop ? 'interrupted' : 'finished';
    d.finishedAt = new Date().toISOString();
  });
  const result: CrawlResult = {
    runId,
    runDir,
    datasetDir: run.datasetDir,
    logPath: crawlLog.path,
    fetched: final.fetched,
    relevant: final.relevant,
    failed: final.failed,
    counts: final,
    harvestRate: final.fetched ? final.relevant / final.fetched : 0,
    harvestEstimate: judge.harvestEstimate(final.fetched),
    truthHarvestRate: options.truth ? (final.fetched ? (final.truthRelevant ?? 0) / final.fetched : 0) : undefined,
    truthCurve: options.truth ? truthCurve : undefined,
    elapsedMs,
    // A resumed run's rate is its own pages over its own time (those before it took other time).
    fetchedThisRun: final.fetched - (resumed?.counters.fetched ?? 0),
    pagesPerSecond: (final.fetched - (resumed?.counters.fetched ?? 0)) / (elapsedMs / 1000),
    frontierSize: frontier.size,
    stopReason,
    ...(memoryStop ? { memoryStop } : {}),
    timings,
    summaryLines: [],
  };
  for (const p of plugins) await p.afterRun?.(result, ctx);
  // After afterRun, so plugins that write files at the end (report, traces) can name them.
  result.summaryLines = plugins.flatMap((p) => p.summary?.() ?? []);
  return result;
}
