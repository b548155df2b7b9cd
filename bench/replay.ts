/**
 * `npm run bench:replay`: the frontier and the scorer replayed over cached page analyses, for
 * tuning strategies in seconds instead of the real crawl's minutes.
 *
 * A real crawl spends its time rendering and extracting pages; the order in which it fetches
 * them depends only on the topic model, the scorer and the frontier. Page analyses (text,
 * links, dates) do not depend on the strategy, so they are extracted once and cached (the
 * Chinese test web rendered in a real browser, Wikispeedia over HTTP); each replay then runs
 * the engine's per-page route (`routePage`: judge → scorer → frontier) sequentially over the cache, with the
 * real PageJudge (its seed set grows as in a crawl) and the real Frontier. Differences from
 * `npm run bench`: concurrency 1 and no politeness waits. Harvest is against ground truth, as in
 * the bench. The cache lives in $REPLAY_CACHE (default: the system temp folder).
 * Beside it, where it differs, the harvest counting each page once (`distinctCurve`): the test web
 * serves one page under several URLs (a thread page and its "only this author" views).
 *
 *   npm run bench:replay -- [--web testweb,wikispeedia,university] [--test-pages 150] [--wiki-pages 500] [--university-pages 150]
 *                           [--strategies a,b] [--score '{"learningRate":0.05}'] [--topics quake,birds]
 *                           [--split tune|holdout|all|fresh|all,fresh] [--wiki-seeds 3] [--compare earlier.json]
 *
 * Wikispeedia topics are crawled as a user would start them: the topic's `query` (two or three
 * words) and `--wiki-seeds` seed articles drawn reproducibly from the category. The summary gives,
 * per web, the mean harvest over topics at 150 and 500 pages (those within the budget, and the
 * budget), the best possible, and how many topics each strategy is first or tied on; held-out
 * topics (WIKI_TOPICS `holdout`) are summarised apart, and `--split tune` leaves them out
 * entirely while tuning. `--split fresh` crawls a second held-out set instead, drawn by rule from
 * the categories (src/testweb/wikispeedia-fresh.ts); `--split all,fresh` both, summarised apart.
 * `--compare` pairs each topic with an earlier run's `--json` (./replay-compare.ts).
 * `--web university`: a university web of WebKB's shape built from the Wikispeedia articles
 * (src/testweb/university.ts), seeds the four department home pages.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { loadavg } from 'node:os';
import { Command } from 'commander';
import { UserError } from '../src/config/errors.js';
import { parseConfig, STRATEGIES, type StrategyName } from '../src/config/schema.js';
import { reportUserErrors } from '../src/cli/run.js';
import { chromium } from 'playwright';
import { PageJudge } from '../src/judge/judge.js';
import { loadWinkVectors, WINK_VECTORS_PACKAGE } from '../src/topic/word-vectors.js';
import { analyzePage } from '../src/extract/page.js';
import type { HarvestEstimate } from '../src/topic/page-classifier.js';
import type { PageAnalysis } from '../src/extract/types.js';
import { Frontier, uniqueKeyOf } from '../src/frontier/frontier.js';
import { crawlUserData } from '../src/frontier/user-data.js';
import { routePage } from '../src/crawl/route.js';
import { LabelChooser } from '../src/crawl/labels.js';
import { NearDuplicateIndex } from '../src/text/near-duplicate.js';
import { crawlScorer } from '../src/crawl/scorer.js';
import { RobotsCache } from '../src/frontier/robots.js';
import { browserLaunchOptions } from '../src/fetch/browser.js';
import { trackNetworkActivity, waitForQuietNetwork } from '../src/fetch/crawler.js';
import { startTestWeb } from '../src/testweb/index.js';
import { hash32, Rng } from '../src/util/rng.js';
import { distinctHarvestCurve, summarizeTopics, type TopicRuns } from './metrics.js';
import { compareRuns, formatChange, type CurveRun } from './replay-compare.js';
import { startWikispeediaWeb, wikispeediaMissing, type WikispeediaWeb } from '../src/testweb/wikispeedia.js';
import { rebaseOntoOrigins } from './rebase-origins.js';
import { replayCacheFile } from './replay-cache.js';
import { machineLine, writeBenchSection } from './bench-page.js';
import { mediawikiMissing, startMediaWiki, type MediaWikiWeb } from '../src/testweb/mediawiki.js';
import { startUniversityWeb } from '../src/testweb/university.js';
import { termAnalyzer } from '../src/text/tokenize.js';
import { agreementTableMd, countWithin, formatAgreement, pooledAgreement, verdictAgreement, type VerdictAgreement } from './judge-agreement.js';

interface Cached {
  status: number;
  analysis?: PageAnalysis;
}

const FETCHED_AT = '2008-06-01T04:00:00.000Z';

class PageCache {
  readonly pages = new Map<string, Cached>();
  misses = 0;
  dirty = false;
  /** Servers listen on ephemeral ports: cached URLs are rebased onto today's origins by hostname. */
  constructor(private readonly file: string, origins: string[]) {
    if (!existsSync(file)) return;
    const rebase = rebaseOntoOrigins(origins);
    for (const [u, c] of Object.entries(JSON.parse(readFileSync(file, 'utf8')) as Record<string, Cached>)) {
      // A failed fetch (status 0) is never an answer of the web: fetched again (older caches kept them).
      if (c.status === 0) continue;
      const a = c.analysis;
      this.pages.set(rebase(u), a ? { ...c, analysis: { ...a, url: rebase(a.url), links: a.links.map((l) => ({ ...l, url: rebase(l.url) })) } } : c);
    }
  }
  /** `render`: how a miss is fetched (a browser for JavaScript webs); plain HTTP without it. */
  render?: (url: string) => Promise<Cached>;
  async get(url: string): Promise<Cached> {
    const hit = this.pages.get(url);
    if (hit) return hit;
    this.misses++;
    let c: Cached = { status: 0 };
    // A loopback fetch can fail under load (a keep-alive socket closed by the server as the request
    // goes out): tried three times, and a failure is not cached, or the page would stay dead in every
    // later replay (73 Wikispeedia articles, London and Spain among them, were cached so).
    for (let attempt = 0; attempt < 3 && c.status === 0; attempt++) {
      if (this.render) c = await this.render(url);
      else try {
        const res = await fetch(url, { redirect: 'follow' });
        const html = /html/.test(res.headers.get('content-type') ?? '') ? await res.text() : undefined;
        c = { status: res.status, analysis: html !== undefined && res.status < 400 ? analyzePage({ html, url: res.url, fetchedAt: new Date(FETCHED_AT) }) : undefined };
      } catch {
        c = { status: 0 };
      }
    }
    if (c.status === 0) return c;
    this.pages.set(url, c);
    this.dirty = true;
    if (this.misses % 200 === 0) this.save();
    return c;
  }
  save(): void {
    if (!this.dirty) return;
    mkdirSync(dirname(this.file), { recursive: true });
    writeFileSync(this.file, JSON.stringify(Object.fromEntries(this.pages)));
    this.dirty = false;
  }
}

/** Renders pages in one real browser (as the browser fetcher does: load, then a quiet network). */
async function browserRenderer(): Promise<{ render: (url: string) => Promise<Cached>; close: () => Promise<void> }> {
  const { launchOptions } = await browserLaunchOptions();
  const browser = await chromium.launch(launchOptions);
  const context = await browser.newContext();
  await context.route(/\.(jpe?g|png|gif|webp|svg|ico|woff2?|ttf|mp4|mp3)(\?|$)/i, (r) => r.abort());
  const render = async (url: string): Promise<Cached> => {
    const page = await context.newPage();
    const inFlight = trackNetworkActivity(page);
    try {
      const res = await page.goto(url, { waitUntil: 'load', timeout: 30_000 });
      const status = res?.status() ?? 0;
      if (!res || status >= 400 || !/html/.test(res.headers()['content-type'] ?? 'html')) return { status };
      await waitForQuietNetwork(page, inFlight, 120, 3000);
      return { status, analysis: analyzePage({ html: await page.content(), url: page.url(), fetchedAt: new Date(FETCHED_AT) }) };
    } catch {
      return { status: 0 };
    } finally {
      await page.close();
    }
  };
  return { render, close: () => browser.close() };
}

export interface ReplayRun {
  web: string;
  topic: string;
  /** Relevant pages on the web for the topic (the best possible harvest's bound). */
  relevantAvailable: number;
  holdout?: boolean;
  /** One of the fresh held-out topics (src/testweb/wikispeedia-fresh.ts). */
  fresh?: boolean;
  strategy: string;
  fetched: number;
  curve: number[];
  /**
   * The harvest curve counting each page once (bench/metrics.ts distinctHarvestCurve): a relevant
   * fetch counts only if no earlier fetch showed the same page by the web's own ground truth (on
   * the test web, a thread page's "only this author" views are that thread page).
   */
  distinctCurve: number[];
  /**
   * Fetch order: URL, truth, the crawler's own verdict, the score it was fetched at, the learned
   * judge's probability and the cosine rule's verdict (rel ≥ θ_page); null without an analysis.
   */
  order: [string, boolean, boolean | null, number, number | null, boolean | null][];
  /** The crawler's own harvest estimate at the end (src/topic/page-classifier.ts). */
  estimate: HarvestEstimate;
  /**
   * Per fetch (as `order`), the score's named components when it was fetched (`--explain`'s:
   * linkWords, linkRanker, learnedWeight, …): which evidence pulled an off-topic page forward.
   */
  components: Record<string, number>[];
  /** Per fetch (as `order`): the page whose link put the URL in the frontier first (undefined for a seed): how an off-topic page entered. */
  parents: (string | undefined)[];
  /** --labels-sim: the labels the simulated user gave (URL, relevant), in order; the strategy is named `STRATEGY+kL`. */
  labelled?: [string, boolean][];
  /** --labels-sim: labels asked for at most (0: none). */
  labels?: number;
  /** What the harvest estimate read (src/judge/judge.ts harvestEvidence), each sampled page with its truth. */
  estimateEvidence?: ReturnType<PageJudge['harvestEvidence']> & { truths: boolean[] };
  /** With --misjudged: what the judge saw of each page (to read why a page was misjudged). */
  seen?: JudgedPage[];
  /**
   * Test web: where the crawl first fetched a page of the topic's forum board (1-based, undefined
   * when not within the budget): an off-topic listing whose threads are about a third of the
   * topic's relevant pages, so its place in the fetch order decides much of the harvest.
   */
  boardAt?: number;
  /** Share of the fetches that were not article views (a wiki's category, special, edit, history pages): mediawiki web. */
  nonArticleShare?: number;
  /** Per fetch (as `order`): not an article view (mediawiki web). */
  nonArticle?: boolean[];
}

/** One page as the judge saw it (--misjudged). */
interface JudgedPage {
  url: string;
  truth: boolean;
  relevant: boolean;
  cosine: number;
  simD: number;
  rel: number;
  /** The θ the verdict used (θ_page, or calibrated from the topic's seed pages). */
  threshold?: number;
  probability?: number;
  /** The term model's evidence for the topic (src/topic/term-model.ts). */
  evidence?: number;
  never?: string;
  /** The web's own kind of page (test web: article, thread, channel, …), when it knows. */
  kind?: string;
  title: string;
  text: string;
}

/** Config fields every replayed crawl takes (--config). */
let configOverrides: Record<string, unknown> = {};

/** One crawl replayed: the engine's onPage path (judge → scorer → frontier) over cached analyses. */
async function replay(cache: PageCache, c: { seeds: string[]; keywords: string[]; maxPages: number; truth: (u: string) => boolean; kind?: (u: string) => string | undefined; pageOf?: (u: string) => string | undefined }, strategy: StrategyName, score: Record<string, unknown>, judgeMode: 'learned' | 'cosine' | 'truth', robots?: RobotsCache, keepSeen = false, dumpJudge?: string, labels = 0): Promise<Pick<ReplayRun, 'curve' | 'distinctCurve' | 'order' | 'estimate' | 'estimateEvidence' | 'seen' | 'components' | 'parents' | 'labelled'>> {
  const config = parseConfig({ ...configOverrides, topics: [{ keywords: c.keywords, seeds: c.seeds }], strategy, maxPages: c.maxPages, randomSeed: 1, score, judge: judgeMode === 'truth' ? 'cosine' : judgeMode });
  const judge = await PageJudge.create(config);
  if (judgeMode === 'truth') {
    // An oracle for the scorer (a diagnostic): the judge runs as it would (its own state, its
    // rel), but the verdict the scorer and its learners see is the ground truth, without term
    // evidence (so every learner's label is the truth: src/score/topical-label.ts).
    const real = judge.judge.bind(judge);
    judge.judge = (a, opts) => ({ ...real(a, opts), relevant: c.truth(opts.key ?? a.url), evidence: undefined, listTopical: undefined });
  }
  const scorer = crawlScorer(config, judge);
  const nearDuplicates = new NearDuplicateIndex();
  const frontier = new Frontier({ maxPages: c.maxPages, maxDepth: config.maxDepth, robots });
  for (const url of c.seeds) frontier.offer({ url, depth: 0, ...scorer.seedScore(url) });
  const curve: number[] = [];
  const order: ReplayRun['order'] = [];
  const components: ReplayRun['components'] = [];
  const parents: ReplayRun['parents'] = [];
  const seen: JudgedPage[] = [];
  let truthRelevant = 0;
  // --labels-sim: the user, simulated from the ground truth, answers each question at once (src/crawl/labels.ts chooses them as a crawl does).
  const chooser = labels > 0 ? new LabelChooser({ askAfter: config.labels.askAfter }) : undefined;
  const labelled: [string, boolean][] = [];
  for (;;) {
    const req = await frontier.requestManager.fetchNextRequest();
    if (!req) break;
    const m = crawlUserData(req);
    const page = await cache.get(req.url);
    let relevant: boolean | null = null;
    let probability: number | null = null;
    let cosineVerdict: boolean | null = null;
    if (page.analysis) {
      const { verdict } = routePage(page.analysis, { url: req.url, userData: m, status: page.status }, { judge, scorer, frontier, nearDuplicates });
      relevant = verdict.relevant;
      probability = verdict.probability ?? null;
      if (chooser && labelled.length < labels) {
        chooser.observe(page.analysis, verdict, m.score);
        const q = chooser.next();
        if (q) {
          const answer = c.truth(q.analysis.url);
          judge.addLabel(q.analysis, answer, q.verdict.topicId);
          labelled.push([q.analysis.url, answer]);
        }
      }
      cosineVerdict = !verdict.neverRelevant && !verdict.outOfWindow && !verdict.listPage && verdict.rel >= (verdict.threshold ?? config.pageThreshold);
      if (keepSeen) {
        const a = page.analysis;
        seen.push({ url: req.url, truth: c.truth(req.url), relevant: verdict.relevant, cosine: verdict.cosine, simD: verdict.simD, rel: verdict.rel, threshold: verdict.threshold, probability: verdict.probability, evidence: verdict.evidence, never: verdict.neverRelevant?.detail, kind: c.kind?.(req.url), title: a.title, text: a.text.slice(0, 300) });
      }
    } else if (page.status >= 300) {
      // A dead link (no analysis cached for error answers): the scorer still learns the host answers 404.
      for (const u of scorer.onPageFetched({ url: req.url, parentUrl: m.parentUrl, depth: m.depth, rel: 0, relevant: false, links: [], status: page.status }))
        if (u.drop) frontier.drop(uniqueKeyOf(u.url), u.reason);
        else frontier.rescore(uniqueKeyOf(u.url), u.score, u.breakdown.components);
    }
    const truth = c.truth(req.url);
    if (truth) truthRelevant++;
    curve.push(truthRelevant / (curve.length + 1));
    order.push([req.url, truth, relevant, m.score ?? 0, probability, cosineVerdict]);
    components.push(m.components ?? {});
    parents.push(m.parentUrl);
    await frontier.requestManager.markRequestHandled(req);
  }
  const distinctCurve = distinctHarvestCurve(order.map(([url, truth]) => ({ url, truth, page: c.pageOf?.(url) })));
  const ev = judge.harvestEvidence();
  const estimateEvidence = { ...ev, truths: ev.pages.map((p) => (p.url ? c.truth(p.url) : false)) };
  // The judge's whole end state (to study the estimate offline: restore it, judge the sample again).
  if (dumpJudge) writeFileSync(dumpJudge, JSON.stringify({ keywords: c.keywords, seeds: c.seeds, fetched: order.length, truthOnce: distinctCurve.at(-1) ?? 0, judgedShare: order.filter((x) => x[2]).length / Math.max(1, order.length), truths: estimateEvidence.truths, state: judge.state() }));
  return { curve, distinctCurve, order, components, parents, estimate: judge.harvestEstimate(order.length), estimateEvidence, ...(keepSeen ? { seen } : {}), ...(labels > 0 ? { labelled } : {}) };
}

const pct = (x: number | undefined) => (x === undefined ? '   -  ' : `${(x * 100).toFixed(1).padStart(5)}%`);

async function main(): Promise<number> {
  const o = new Command()
    .name('bench:replay')
    .option('--web <list>', 'testweb,wikispeedia,mediawiki,university (mediawiki: the Wikispeedia articles on a real MediaWiki; university: a web of WebKB\'s shape, entity pages below keyword-free list pages)', 'testweb,wikispeedia')
    .option('--topics <list>', 'topic ids (default: all of each web)')
    .option('--test-pages <n>', 'budget on the test web', '150')
    .option('--wiki-pages <n>', 'budget on Wikispeedia', '500')
    .option('--wiki-seeds <n>', 'seed articles per Wikispeedia topic', '3')
    .option('--university-pages <n>', 'budget on the university web', '150')
    .option('--split <which>', 'Wikispeedia topics: tune (not held out), holdout, all, fresh (drawn by rule), or all,fresh', 'all')
    .option('--strategies <list>', 'strategies', STRATEGIES.join(','))
    .option('--score <json>', 'score option overrides (JSON)', '{}')
    .option('--config <json>', 'config field overrides for every crawl (JSON, e.g. {"wordVectors":true})', '{}')
    .option('--judge <mode>', 'page judge: cosine (the default verdict), learned, or truth (a diagnostic: the scorer sees the ground truth as its verdicts)', 'cosine')
    .option('--json <file>', 'write the curves here')
    .option('--misjudged <file>', "write the pages the judge got wrong on BFS crawls (what it saw of each) here")
    .option('--judged <file>', 'write every page of the BFS crawls as the judge saw it here (to study the judge)')
    .option('--judge-states <dir>', "write each crawl's judge end state here (WEB-TOPIC-STRATEGY.json: to study the harvest estimate offline)")
    .option('--labels-sim <list>', 'labels a user, simulated from the ground truth, gives when the judge asks (src/crawl/labels.ts): each k of the comma list runs every strategy again, named STRATEGY+kL (0 = none)', '0')
    .option('--compare <file>', "an earlier run's --json: each strategy's harvest against it, paired per topic, with a 95% interval")
    .option('--bench-page <name>', 'also write the summary and the judge-against-truth table as section NAME of docs/benchmarks.md')
    .option('--summary-of <file>', "crawl nothing: summarise an earlier run's --json (its webs, topics and strategies) as a run would")
    .parse()
    .opts<{ web: string; topics?: string; testPages: string; wikiPages: string; universityPages: string; wikiSeeds: string; split: string; strategies: string; score: string; config: string; judge: string; json?: string; misjudged?: string; judged?: string; compare?: string; judgeStates?: string; benchPage?: string; summaryOf?: string; labelsSim: string }>();
  const loadBefore = loadavg();
  // What the summary prints, kept for the benchmark page (--bench-page).
  const summaryLines: string[] = [];
  const say = (line: string) => {
    summaryLines.push(line.trimEnd());
    process.stdout.write(line);
  };
  const webs = o.web.split(',');
  for (const w of webs) if (w !== 'testweb' && w !== 'wikispeedia' && w !== 'mediawiki' && w !== 'university') throw new UserError(`--web: unknown web "${w}" (testweb, wikispeedia, mediawiki, university)`);
  const wantTopic = (id: string) => !o.topics || o.topics.split(',').includes(id);
  const strategies = o.strategies.split(',') as StrategyName[];
  for (const st of strategies) if (!(STRATEGIES as readonly string[]).includes(st)) throw new UserError(`--strategies: unknown strategy "${st}" (${STRATEGIES.join(', ')})`);
  if (o.judge !== 'learned' && o.judge !== 'cosine' && o.judge !== 'truth') throw new UserError(`--judge must be learned, cosine or truth, got "${o.judge}"`);
  const judgeMode = o.judge;
  const labelCounts = o.labelsSim.split(',').map(Number);
  if (!labelCounts.every((k) => Number.isInteger(k) && k >= 0)) throw new UserError(`--labels-sim must be a comma list of whole numbers, got "${o.labelsSim}"`);
  const variants = strategies.flatMap((st) => labelCounts.map((k) => ({ s: st, k, name: k ? `${st}+${k}L` : st })));
  const splits = o.split.split(',');
  if (!splits.every((x) => ['tune', 'holdout', 'all', 'fresh'].includes(x))) throw new UserError(`--split must be tune, holdout, all or fresh (or a comma list), got "${o.split}"`);
  for (const [flag, v] of [['--test-pages', o.testPages], ['--wiki-pages', o.wikiPages], ['--university-pages', o.universityPages], ['--wiki-seeds', o.wikiSeeds]] as const) {
    if (!Number.isInteger(Number(v)) || Number(v) < 1) throw new UserError(`${flag} must be a positive integer, got "${v}"`);
  }
  let score: Record<string, unknown>;
  try {
    score = JSON.parse(o.score) as Record<string, unknown>;
  } catch {
    throw new UserError(`--score is not JSON: ${o.score}`);
  }
  try {
    configOverrides = JSON.parse(o.config) as Record<string, unknown>;
  } catch {
    throw new UserError(`--config is not JSON: ${o.config}`);
  }
  parseConfig({ ...configOverrides, topics: [{ keywords: ['x'] }] });
  if (configOverrides.wordVectors === true) {
    // The vectors' cost, on the page with the harvest they bought: loaded once per process (the
    // crawls below reuse them); a page costs nothing more, the expansion is done once per topic.
    const rss = process.memoryUsage().rss;
    const t0 = performance.now();
    const v = loadWinkVectors();
    say(`word vectors (${WINK_VECTORS_PACKAGE}, ${v.size} words × ${v.dimensions} d): loaded in ${((performance.now() - t0) / 1000).toFixed(1)} s, +${Math.round((process.memoryUsage().rss - rss) / 1e6)} MB resident; no per-page vector work (the topic's terms are expanded once)\n`);
  }
  // Bad score fields are reported by the config schema before any page is fetched.
  parseConfig({ topics: [{ keywords: ['x'] }], score });
  const earlier = o.compare ? readEarlierRuns(o.compare) : undefined;
  if (o.judgeStates) mkdirSync(o.judgeStates, { recursive: true });
  const dumpOf = (web: string, topic: string, s: string) => (o.judgeStates ? join(o.judgeStates, `${web}-${topic}-${s}.json`) : undefined);
  const runs: ReplayRun[] = [];
  const labelRows: string[] = [];
  const report = (web: string, topic: string, budget: number) => {
    const mine = runs.filter((r) => r.web === web && r.topic === topic);
    const marks = [...new Set([50, 150, 500].filter((x) => x < budget).concat(budget))];
    const est = (r: ReplayRun) => (r.strategy.split('+')[0] === 'combined' ? ` (est ${pct(r.estimate.mean)} [${pct(r.estimate.low)},${pct(r.estimate.high)}]${r.estimate.unlearnable ? ' not learnable' : ''} judged ${pct(r.order.filter((x) => x[2]).length / r.order.length)})` : '');
    const once = (r: ReplayRun) => (r.distinctCurve.at(-1) !== r.curve.at(-1) ? ` (each page once ${pct(r.distinctCurve.at(-1))})` : '');
    const board = (r: ReplayRun) => (r.web === 'testweb' ? ` board ${r.boardAt ?? '–'}` : '');
    // The verdicts against the truth (combined's own crawl, and BFS's, the judge's reference pages).
    const verdicts = (r: ReplayRun) => (r.strategy === 'combined' || r.strategy === 'bfs' ? ` [${formatAgreement(agreementOf(r))}]` : '');
    process.stdout.write(`${web}/${topic}  ` + mine.map((r) => `${r.strategy} ${marks.map((k) => pct(r.curve[Math.min(k, r.curve.length) - 1])).join('/')}${once(r)}${board(r)}${est(r)}${verdicts(r)}`).join('  ') + '\n');
  };

  // A saved run summarised again (its topic lines are not printed again).
  const saved = o.summaryOf ? (readEarlierRuns(o.summaryOf) as unknown as ReplayRun[]) : undefined;
  if (saved) runs.push(...saved.filter((r) => webs.includes(r.web)));
  if (!saved && webs.includes('testweb')) {
    const web = await startTestWeb();
    const cache = new PageCache(replayCacheFile('testweb-42'), web.sites.map((s) => s.origin));
    try {
      const renderer = await browserRenderer();
      cache.render = renderer.render;
      const robots = new RobotsCache();
      const budget = Number(o.testPages);
      for (const t of web.topics.filter((t) => wantTopic(t.id))) {
        for (const { s, k, name } of variants) {
          const r = await replay(cache, { seeds: web.demo.seeds, keywords: t.keywords.slice(0, 4), maxPages: budget, truth: (u) => web.isRelevant(u, t.id), kind: (u) => web.truth(u)?.kind, pageOf: (u) => web.pageOf(u) }, s, score, judgeMode, robots, !!(o.misjudged || o.judged) && s === 'bfs' && k === 0, dumpOf('testweb', t.id, name), k);
          const boardAt = r.order.findIndex(([u]) => { const truth = web.truth(u); return truth?.kind === 'board' && truth.topic === t.id; });
          runs.push({ web: 'testweb', topic: t.id, relevantAvailable: web.relevantTotal(t.id), strategy: name, labels: k, fetched: r.curve.length, ...r, boardAt: boardAt < 0 ? undefined : boardAt + 1 });
        }
        report('testweb', t.id, budget);
      }
      if (cache.misses) process.stderr.write(`testweb: ${cache.misses} pages rendered into the cache\n`);
      cache.save();
      await renderer.close();
    } finally {
      await web.close();
    }
  }
  if (!saved && webs.includes('wikispeedia')) {
    const missing = wikispeediaMissing();
    if (missing) process.stderr.write(`Wikispeedia skipped: ${missing}\n`);
    else {
      const web: WikispeediaWeb = await startWikispeediaWeb();
      const cache = new PageCache(replayCacheFile('wikispeedia'), [web.origin]);
      try {
        const budget = Number(o.wikiPages);
        const inSplit = (h: boolean | undefined) => splits.includes('all') || (splits.includes('holdout') && !!h) || (splits.includes('tune') && !h);
        const topics = [...web.topics.filter((t) => inSplit(t.holdout)), ...(splits.includes('fresh') ? web.freshTopics : [])];
        for (const t of topics.filter((t) => wantTopic(t.id))) {
          const seeds = web.seeds(t.id, Number(o.wikiSeeds), new Rng(hash32(`seeds:${t.id}:1`)));
          for (const { s, k, name } of variants) {
            const r = await replay(cache, { seeds, keywords: t.query, maxPages: budget, truth: (u) => web.isRelevant(u, t.id) }, s, score, judgeMode, undefined, !!(o.misjudged || o.judged) && s === 'bfs' && k === 0, dumpOf('wikispeedia', t.id, name), k);
            runs.push({ web: 'wikispeedia', topic: t.id, relevantAvailable: web.relevantTotal(t.id), holdout: t.holdout, fresh: t.fresh, strategy: name, labels: k, fetched: r.curve.length, ...r });
          }
          report('wikispeedia', t.id, budget);
          cache.save();
        }
      } finally {
        await web.close();
      }
    }
  }
  if (!saved && webs.includes('university')) {
    const missing = wikispeediaMissing();
    if (missing) process.stderr.write(`University web skipped: ${missing}\n`);
    else {
      // Seeds: the four department home pages; the topics' pages hang below keyword-free list pages.
      const web = await startUniversityWeb({ analyze: termAnalyzer() });
      const cache = new PageCache(replayCacheFile('university'), web.origins);
      try {
        const budget = Number(o.universityPages);
        for (const t of web.topics.filter((t) => wantTopic(t.id))) {
          for (const { s, k, name } of variants) {
            const r = await replay(cache, { seeds: web.seeds, keywords: t.query, maxPages: budget, truth: (u) => web.isRelevant(u, t.id), kind: (u) => web.kindOf(u) }, s, score, judgeMode, undefined, !!(o.misjudged || o.judged) && s === 'bfs' && k === 0, dumpOf('university', t.id, name), k);
            runs.push({ web: 'university', topic: t.id, relevantAvailable: web.relevantTotal(t.id), strategy: name, labels: k, fetched: r.curve.length, ...r });
          }
          report('university', t.id, budget);
          cache.save();
        }
      } finally {
        await web.close();
      }
    }
  }
  if (!saved && webs.includes('mediawiki')) {
    const missing = mediawikiMissing();
    if (missing) process.stderr.write(`MediaWiki skipped: ${missing}\n`);
    else {
      // The same articles, topics, seeds and labels as the plain Wikispeedia server, served by MediaWiki.
      const web: MediaWikiWeb = await startMediaWiki({ log: (l) => process.stderr.write(l + '\n') });
      const cache = new PageCache(replayCacheFile('mediawiki'), [web.origin]);
      const robots = new RobotsCache();
      try {
        const budget = Number(o.wikiPages);
        const inSplit = (h: boolean | undefined) => splits.includes('all') || (splits.includes('holdout') && !!h) || (splits.includes('tune') && !h);
        for (const t of web.topics.filter((t) => inSplit(t.holdout) && wantTopic(t.id))) {
          const seeds = web.seeds(t.id, Number(o.wikiSeeds), new Rng(hash32(`seeds:${t.id}:1`)));
          for (const s of strategies) {
            const r = await replay(cache, { seeds, keywords: t.query, maxPages: budget, truth: (u) => web.isRelevant(u, t.id), pageOf: (u) => web.articleOf(u) }, s, score, judgeMode, robots, !!(o.misjudged || o.judged) && s === 'bfs', dumpOf('mediawiki', t.id, s));
            const nonArticle = r.order.map(([u]) => web.articleOf(u) === undefined);
            const nonArticleShare = nonArticle.filter(Boolean).length / Math.max(1, nonArticle.length);
            runs.push({ web: 'mediawiki', topic: t.id, relevantAvailable: web.relevantTotal(t.id), holdout: t.holdout, strategy: s, fetched: r.curve.length, ...r, nonArticleShare, nonArticle });
          }
          report('mediawiki', t.id, budget);
          process.stdout.write(`mediawiki/${t.id}  non-article fetches: ${runs.filter((r) => r.web === 'mediawiki' && r.topic === t.id).map((r) => `${r.strategy} ${pct(r.nonArticleShare)}`).join('  ')}\n`);
          cache.save();
        }
      } finally {
        await web.stop();
      }
    }
  }
  // Per web: mean over topics at 150 and 500 pages (and the budget), the best possible, first-or-tied.
  for (const web of webs) {
    const budget = Number(web === 'testweb' ? o.testPages : web === 'university' ? o.universityPages : o.wikiPages);
    const groups: [string, ReplayRun[]][] = [['all', runs.filter((r) => r.web === web && !r.fresh)]];
    if (groups[0][1].some((r) => r.holdout) && groups[0][1].some((r) => !r.holdout)) {
      groups.push(['tuning', groups[0][1].filter((r) => !r.holdout)], ['held out', groups[0][1].filter((r) => r.holdout)]);
    }
    groups.push(['fresh', runs.filter((r) => r.web === web && r.fresh)]);
    for (const [name, mine] of groups) {
      if (!mine.length) continue;
      // The judge against the truth on the pages a BFS crawl fetches (every strategy's pages without one).
      const judged = mine.filter((r) => r.strategy === 'bfs').length ? mine.filter((r) => r.strategy === 'bfs') : mine;
      let tp = 0, fp = 0, fn = 0;
      for (const r of judged) for (const [, truth, verdict] of r.order) if (verdict !== null) verdict ? (truth ? tp++ : fp++) : truth && fn++;
      // Calibration on the same pages: Brier score and expected calibration error (10 bins) of the
      // learned probability, against the cosine rule's 0/1 verdict read as a probability.
      const cal = judged.flatMap((r) => r.order.filter((x) => x[4] !== null).map((x) => ({ truth: x[1] ? 1 : 0, p: x[4] as number, cos: x[5] ? 1 : 0 })));
      const brier = (f: (x: (typeof cal)[number]) => number) => cal.reduce((a, x) => a + (f(x) - x.truth) ** 2, 0) / Math.max(1, cal.length);
      const ece = (f: (x: (typeof cal)[number]) => number) => {
        let e = 0;
        for (let b = 0; b < 10; b++) {
          const bin = cal.filter((x) => Math.min(9, Math.floor(f(x) * 10)) === b);
          if (bin.length) e += Math.abs(bin.reduce((a, x) => a + f(x) - x.truth, 0)) / cal.length;
        }
        return e;
      };
      // The crawler's self-reported harvest (its own verdicts) against the truth, at the budget,
      // counting each page once: the crawler never counts a near-duplicate page as relevant.
      const combinedRuns = mine.filter((r) => r.strategy === 'combined');
      const truthOnce = (r: ReplayRun) => r.distinctCurve.at(-1) ?? 0;
      const gaps = combinedRuns.map((r) => r.order.filter((x) => x[2]).length / r.order.length - truthOnce(r));
      // Its estimate with a 90% interval: the gap of the mean, and how often the interval holds the truth.
      const estGaps = combinedRuns.map((r) => r.estimate.mean - truthOnce(r));
      const covered = combinedRuns.filter((r) => { const t = truthOnce(r); return r.estimate.low <= t && t <= r.estimate.high; }).length;
      const meanPts = (xs: number[]) => (100 * xs.reduce((x, y) => x + y, 0) / Math.max(1, xs.length)).toFixed(1);
      say(
        `${web} ${name}: judge on ${judged[0].strategy} pages precision ${(tp / Math.max(1, tp + fp)).toFixed(3)} recall ${(tp / Math.max(1, tp + fn)).toFixed(3)}` +
          `; Brier ${brier((x) => x.p).toFixed(4)} (cosine rule ${brier((x) => x.cos).toFixed(4)}), ECE ${ece((x) => x.p).toFixed(4)} (cosine rule ${ece((x) => x.cos).toFixed(4)})` +
          (gaps.length ? `; combined's judged harvest minus true harvest at the budget: mean ${meanPts(gaps)} points, worst ${(100 * Math.max(...gaps.map(Math.abs))).toFixed(1)}` : '') +
          (estGaps.length ? `; estimate minus true: mean ${meanPts(estGaps)} points, worst ${(100 * Math.max(...estGaps.map(Math.abs))).toFixed(1)}, 90% interval holds the truth ${covered}/${combinedRuns.length} (coverage ${((100 * covered) / combinedRuns.length).toFixed(0)}%)${covered < combinedRuns.length ? ` (not: ${combinedRuns.filter((r) => !(r.estimate.low <= truthOnce(r) && truthOnce(r) <= r.estimate.high)).map((r) => r.topic).join(', ')})` : ''}, mean width ${meanPts(combinedRuns.map((r) => r.estimate.high - r.estimate.low))} points` +
              `, not learnable from its seed pages ${combinedRuns.filter((r) => r.estimate.unlearnable).length}/${combinedRuns.length}` : '') +
          '\n',
      );
      // --labels-sim: per strategy and number of labels, the judge against the truth on that crawl's own pages, and the estimate.
      if (labelCounts.some((k) => k > 0))
        for (const variant of [...new Set(mine.map((r) => r.strategy))]) {
          const these = mine.filter((r) => r.strategy === variant);
          process.stdout.write(`${web} ${name} ${variant}: ${labelSummary(these)}\n`);
          const st = labelStats(these);
          const pt = (x: number) => (100 * x).toFixed(1);
          labelRows.push(`| ${web} ${name} | ${variant} | ${these[0].labels ?? 0} | ${st.labels.toFixed(1)} | ${st.precision.toFixed(3)} | ${st.recall.toFixed(3)} | ${st.held}/${st.topics} | ${pt(st.width)} | ${pt(st.widest)} | ${pt(st.harvest)}% |`);
        }
      const byTopic = (curveOf: (r: ReplayRun) => number[]) => {
        const m = new Map<string, TopicRuns>();
        for (const r of mine) m.set(r.topic, { ...(m.get(r.topic) ?? { topic: r.topic, relevantAvailable: r.relevantAvailable, curves: {} }), curves: { ...m.get(r.topic)?.curves, [r.strategy]: curveOf(r) } });
        return [...m.values()];
      };
      // The harvest as counted by the truth, then (where it differs) counting each page once.
      const counts: [string, (r: ReplayRun) => number[]][] = [['', (r) => r.curve]];
      if (mine.some((r) => r.distinctCurve.some((x, i) => x !== r.curve[i]))) counts.push([', each page once', (r) => r.distinctCurve]);
      for (const b of [...new Set([150, 500].filter((x) => x < budget).concat(budget))]) for (const [label, curveOf] of counts) {
        const s = summarizeTopics(byTopic(curveOf), b);
        const ranked = Object.entries(s.mean).sort((a, b2) => b2[1] - a[1]);
        const ratio = (a: string, base: string) => (s.mean[a] !== undefined && s.mean[base] ? `${(s.mean[a] / s.mean[base]).toFixed(2)}×` : '-');
        say(
          `${web} ${name} (${s.topics} topics) at ${b}${label}: ` +
            ranked.map(([st, m]) => `${st} ${pct(m)} [first/tied ${s.firstOrTied[st]}]`).join('  ') +
            `  best possible ${pct(s.best)}` +
            (s.mean.combined !== undefined ? `  | combined: ${ratio('combined', 'best-first')} best-first, ${ratio('combined', 'bfs')} BFS, ${((s.mean.combined / s.best) * 100).toFixed(0)}% of best possible` : '') +
            '\n',
        );
        if (earlier && !label) for (const c of compareRuns(earlier, mine, b)) say(`${web} ${name} at ${b} against ${o.compare}: ${formatChange(c)}\n`);
      }
      // Each strategy's own verdicts on its own crawl, pooled: a harvest gain from a worse judge shows here.
      for (const st of [...new Set(mine.map((r) => r.strategy))]) {
        const p = pooledAgreement(mine.filter((r) => r.strategy === st).map(agreementOf));
        const off = mine.filter((r) => r.strategy === st && !countWithinOf(r)).map((r) => r.topic);
        say(`${web} ${name} ${st}'s verdicts at the budget: ${formatAgreement(p)}; judged count within ±30% of the true count on ${p.within}/${p.crawls} topics${off.length ? ` (not: ${off.join(', ')})` : ''}\n`);
      }
    }
  }
  if (labelRows.length) {
    writeBenchSection({
      name: 'replay-labels-sim',
      title: 'Labels from a simulated user (bench:replay --labels-sim)',
      command: `SHARED_DATA=../shared/data npm run bench:replay -- ${process.argv.slice(2).filter((a, i, all) => a !== '--json' && all[i - 1] !== '--json' && a !== '--compare' && all[i - 1] !== '--compare').join(' ')}`,
      body: [
        'The judge asks about the pages it is least sure of (src/crawl/labels.ts, after the first 20 pages, one question a page); a user simulated from the ground truth answers at once. Per group of topics and number of labels k: the judge\'s precision and recall on the pages that crawl fetched (every verdict against the truth), the labels given per topic, how many topics\' harvest estimate has the true harvest (each page once) inside its 90% interval, the interval\'s mean and widest width in points, and the true harvest.',
        '',
        '| topics | strategy | k | labels given | precision | recall | interval holds truth | mean width | widest | true harvest |',
        '|---|---|---|---|---|---|---|---|---|---|',
        ...labelRows,
        '',
        machineLine(loadBefore),
      ].join('\n'),
    });
  }
  if (o.benchPage) {
    const groupOf = (r: ReplayRun) => (r.fresh ? 'fresh' : r.holdout ? 'held out' : r.web === 'wikispeedia' ? 'tuning' : '');
    const rows = runs.filter((r) => r.strategy === 'combined' || r.strategy === 'bfs').map((r) => ({ topic: `${r.web}/${r.topic}${groupOf(r) ? ` (${groupOf(r)})` : ''}`, strategy: r.strategy, a: agreementOf(r) }));
    // A summary of a saved run shows the command that crawls it again: the same arguments without
    // the file it was read from (or written to), which the figures do not depend on.
    const args = process.argv.slice(2).filter((a, i, all) => !['--summary-of', '--json'].includes(a) && !['--summary-of', '--json'].includes(all[i - 1]));
    const command = `SHARED_DATA=../shared/data npm run bench:replay -- ${args.map((a) => (/^[\w.,:=/-]+$/.test(a) ? a : `'${a}'`)).join(' ')}`;
    writeBenchSection({
      name: o.benchPage,
      title: `Replayed crawls (bench:replay): ${webs.join(', ')}, judge ${judgeMode}${Object.keys(configOverrides).length ? `, config ${JSON.stringify(configOverrides)}` : ''}`,
      command,
      body: [
        'The scorer and frontier replayed over cached page analyses (pages rendered once, then every strategy crawls the cache through the engine\'s per-page route). ' +
          'Harvest as the ground truth counts it (mean over topics), the judge against the truth on the pages a BFS crawl fetches, and each strategy\'s own verdicts on its own crawl. Deterministic: the same command gives the same figures.',
        '',
        ...webs.filter((w) => WEB_ABOUT[w]).map((w) => `- ${WEB_ABOUT[w]}`),
        '',
        '```',
        ...summaryLines,
        '```',
        '',
        'Per crawl, the crawler\'s verdicts against the truth at the budget (combined\'s crawl, and BFS\'s):',
        '',
        agreementTableMd(rows),
        '',
        machineLine(loadBefore),
      ].join('\n'),
    });
  }
  if (webs.includes('mediawiki') && webs.includes('wikispeedia')) writeMediaWikiSection(runs, Number(o.wikiPages));
  if (o.json) writeFileSync(o.json, JSON.stringify(runs.map(({ seen: _, ...r }) => r)));
  if (o.misjudged) {
    // Every page a BFS crawl's judge got wrong, with what it saw: read these to find why.
    const wrong = runs.flatMap((r) => (r.seen ?? []).filter((p) => p.relevant !== p.truth).map((p) => ({ web: r.web, topic: r.topic, holdout: r.holdout, ...p })));
    writeFileSync(o.misjudged, JSON.stringify(wrong, null, 1));
    process.stderr.write(`${wrong.length} misjudged pages written to ${o.misjudged}\n`);
  }
  if (o.judged) {
    const all = runs.flatMap((r) => (r.seen ?? []).map(({ text: _, ...p }) => ({ web: r.web, topic: r.topic, holdout: r.holdout, ...p })));
    writeFileSync(o.judged, JSON.stringify(all));
    process.stderr.write(`${all.length} judged pages written to ${o.judged}\n`);
  }
  return 0;
}

/**
 * One line per strategy and number of simulated labels: the judge's precision and recall on the
 * crawl's own pages (every page it judged, against the truth), the labels given, and the harvest
 * estimate against the truth (each page once): how often its 90% interval holds it, and its width.
 */
function labelStats(runs: ReplayRun[]) {
  let tp = 0, fp = 0, fn = 0;
  for (const r of runs) for (const [, truth, verdict] of r.order) if (verdict !== null) verdict ? (truth ? tp++ : fp++) : truth && fn++;
  const truthOnce = (r: ReplayRun) => r.distinctCurve.at(-1) ?? 0;
  const widths = runs.map((r) => r.estimate.high - r.estimate.low);
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  return {
    precision: tp / Math.max(1, tp + fp),
    recall: tp / Math.max(1, tp + fn),
    labels: mean(runs.map((r) => r.labelled?.length ?? 0)),
    held: runs.filter((r) => r.estimate.low <= truthOnce(r) && truthOnce(r) <= r.estimate.high).length,
    topics: runs.length,
    width: mean(widths),
    widest: Math.max(0, ...widths),
    harvest: mean(runs.map(truthOnce)),
  };
}

function labelSummary(runs: ReplayRun[]): string {
  const st = labelStats(runs);
  const truthOnce = (r: ReplayRun) => r.distinctCurve.at(-1) ?? 0;
  const yes = runs.map((r) => r.labelled?.filter((l) => l[1]).length ?? 0);
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  return (
    `judge precision ${st.precision.toFixed(3)} recall ${st.recall.toFixed(3)} on its own pages` +
    `; labels given ${st.labels.toFixed(1)} per topic (${mean(yes).toFixed(1)} relevant)` +
    `; estimate's 90% interval holds the truth on ${st.held}/${st.topics} topics (${((100 * st.held) / Math.max(1, st.topics)).toFixed(0)}%), mean width ${(100 * st.width).toFixed(1)} points, widest ${(100 * st.widest).toFixed(1)}` +
    `; estimate minus truth: mean ${(100 * mean(runs.map((r) => r.estimate.mean - truthOnce(r)))).toFixed(1)} points`
  );
}

/**
 * The benchmark page's section for the two Wikispeedia servers: mean harvest per strategy at 150
 * and 500 pages (those within the budget) on the topics both ran, and on MediaWiki the share of
 * fetches that were not article views.
 */
function writeMediaWikiSection(runs: ReplayRun[], budget: number): void {
  const topicsOf = (web: string) => new Set(runs.filter((r) => r.web === web).map((r) => r.topic));
  const both = [...topicsOf('mediawiki')].filter((t) => topicsOf('wikispeedia').has(t));
  if (!both.length) return;
  const strategies = [...new Set(runs.map((r) => r.strategy))];
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  const at = (r: ReplayRun, b: number) => r.curve[Math.min(b, r.curve.length) - 1] ?? 0;
  // The relevant fetches a MediaWiki crawl reached through a page that is not an article (a
  // category page lists its category's members, and the plain server has no such page): where the
  // wiki's harvest differs from the plain server's, this says how much the category pages carried.
  const viaNonArticle = (r: ReplayRun, b: number) => {
    const nonArticleUrls = new Set(r.order.filter((_, i) => r.nonArticle?.[i]).map(([u]) => u));
    const relevant = r.order.slice(0, b).map(([, truth], i) => ({ truth, parent: r.parents[i] })).filter((x) => x.truth);
    return { relevant: relevant.length, via: relevant.filter((x) => x.parent !== undefined && nonArticleUrls.has(x.parent)).length };
  };
  const rows: string[] = [
    '| strategy | pages | plain server | MediaWiki | difference (points) | MediaWiki non-article fetches | MediaWiki relevant fetches linked from a non-article page |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const b of [150, 500].filter((x) => x <= budget)) {
    for (const st of strategies) {
      const of = (web: string) => runs.filter((r) => r.web === web && r.strategy === st && both.includes(r.topic));
      const plain = mean(of('wikispeedia').map((r) => at(r, b)));
      const mw = mean(of('mediawiki').map((r) => at(r, b)));
      const non = mean(of('mediawiki').map((r) => (r.nonArticle ?? []).slice(0, b).filter(Boolean).length / Math.max(1, Math.min(b, r.order.length))));
      const via = of('mediawiki').map((r) => viaNonArticle(r, b));
      const viaShare = via.reduce((a, x) => a + x.via, 0) / Math.max(1, via.reduce((a, x) => a + x.relevant, 0));
      rows.push(`| ${st} | ${b} | ${(100 * plain).toFixed(1)}% | ${(100 * mw).toFixed(1)}% | ${(100 * (mw - plain)).toFixed(1)} | ${(100 * non).toFixed(1)}% | ${(100 * viaShare).toFixed(1)}% |`);
    }
  }
  writeBenchSection({
    name: 'replay-mediawiki',
    title: 'Wikispeedia on a real MediaWiki beside the plain server',
    command: `npm run bench:replay -- --web wikispeedia,mediawiki --topics ${both.join(',')} --wiki-pages ${budget} --strategies ${strategies.join(',')}`,
    body:
      `Mean harvest (relevant fetches by the categories / fetches) over ${both.length} topics (${both.join(', ')}), same seeds and labels on both servers. ` +
      'Non-article fetches: pages that are not an article view (category pages, the wiki\'s own pages, Special:, edit, history). ' +
      'The wiki\'s category pages list their members, and the benchmark\'s labels are those categories: a crawl that opens the category page of its topic finds the relevant articles listed on one page, which the plain server has no equivalent of. ' +
      'The last column is the share of the relevant fetches whose link came from such a page (pooled over the topics): where MediaWiki\'s harvest is above the plain server\'s, this is what carried it.\n\n' +
      rows.join('\n') +
      '\n',
  });
}

/**
 * The crawl's verdicts against the truth (each page with a verdict; dead links have none), each
 * page counted once (`distinctCurve`): the crawler never judges a near-duplicate relevant, so a
 * second URL of a relevant page (the test web's "only this author" views) is not a miss.
 */
function agreementOf(r: ReplayRun): VerdictAgreement {
  const hits = (i: number) => (i < 0 ? 0 : Math.round(r.distinctCurve[i] * (i + 1)));
  return verdictAgreement(r.order.flatMap(([, , verdict], i) => (verdict === null ? [] : [{ truth: hits(i) > hits(i - 1), verdict }])));
}

const countWithinOf = (r: ReplayRun) => countWithin(agreementOf(r));

/** What each web of the benchmark page's replay sections is, for a reader of the page. */
const WEB_ABOUT: Record<string, string> = {
  testweb:
    'Test web: the Chinese test web\'s 5 topics (news portals and a forum, src/testweb/), rendered once in a real browser; "each page once" does not count a thread page\'s other views of itself again.',
  wikispeedia:
    'Wikispeedia: 4,598 real Wikipedia articles and their links, categories as the ground truth; 17 topics, each started from two or three query words written from the category name alone and 3 seed articles drawn reproducibly (`WIKI_TOPICS` in src/testweb/wikispeedia.ts), 5 of them held out (nothing was tuned on them). "Fresh": 12 further categories drawn by a fixed rule (src/testweb/wikispeedia-fresh.ts), vaguer and harder.',
  university:
    'University: a web of WebKB\'s shape built from the Wikispeedia articles (src/testweb/university.ts; how it is built: [data.md](data.md)): four departments, seeds their home pages, the topics\' pages one click below list pages that name none of the topic\'s words, half the links dead.',
};

/** The runs of an earlier `--json` (for --compare). */
function readEarlierRuns(file: string): CurveRun[] {
  if (!existsSync(file)) throw new UserError(`--compare: no file ${file}`);
  let runs: unknown;
  try {
    runs = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    throw new UserError(`--compare: ${file} is not JSON`);
  }
  if (!Array.isArray(runs) || !runs.every((r) => r && typeof r.topic === 'string' && typeof r.strategy === 'string' && Array.isArray(r.curve))) throw new UserError(`--compare: ${file} is not a bench:replay --json file`);
  return runs as CurveRun[];
}

process.exitCode = await reportUserErrors(main);
