/**
 * `npm run bench [-- --quick] [--only parts] [--topics ids] [--strategies list] [--test-pages N] [--wiki-pages N]`: harvest rate of every strategy against BFS and plain Crawlee on
 * the Chinese test web (browser) and Wikispeedia (HTTP), speed and cost against plain Crawlee,
 * and the frontier at scale. Writes bench/results/run-<time>.json, summary.md, SVG curves, and
 * its sections of the benchmark page, docs/benchmarks.md (one per part measured).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { parseConfig, STRATEGIES, type StrategyName } from '../src/config/schema.js';
import { runCrawl, type CrawlPlugin } from '../src/crawl/engine.js';
import { ProgressReporter } from '../src/report/progress.js';
import { startTestWeb } from '../src/testweb/index.js';
import { hash32, Rng } from '../src/util/rng.js';
import { startWikispeediaWeb, wikispeediaMissing } from '../src/testweb/wikispeedia.js';
import { ADAPTIVE_CRAWLERS, benchAdaptive, type AdaptiveCrawler } from './adaptive.js';
import { runCrawleeBaseline } from './baseline.js';
import { writeBenchSection } from './bench-page.js';
import { curveSvg, summaryMd, type BenchResults, type CurveRun, type SpeedRun } from './report.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

const program = new Command()
  .name('bench')
  .option('--quick', 'small budgets and fewer topics (a few minutes)')
  .option('--out <dir>', 'results folder', join(ROOT, 'bench', 'results'))
  .option('--only <parts>', 'comma list of parts: testweb,wikispeedia,speed,frontier (or frontier-scale),adaptive', 'testweb,wikispeedia,speed,frontier,adaptive')
  .option('--no-page', 'do not rewrite this command\'s sections of docs/benchmarks.md (for partial or exploratory runs)')
  .option('--no-readme', 'the same as --no-page (its former name, kept so old commands work)')
  .option('--from <json>', 'only re-render summary.md, charts and the benchmark page\'s sections from a saved run')
  .option('--topics <ids>', 'comma list of topics to crawl (test web and Wikispeedia ids; default: the mode\'s)')
  .option('--test-pages <n>', 'budget per test-web crawl (default: 100 quick, 300 full)')
  .option('--adaptive-pages <n>', 'budget per crawl of the adaptive part (default: 100 quick, 300 full)')
  .option('--adaptive-reps <n>', 'interleaved reps of the adaptive part (default: 1 quick, 2 full)')
  .option('--adaptive-crawlers <list>', 'adaptive part: only these crawlers, comma list of numbers 1-7 in the table\'s order (default: all; with fewer, use --no-page)')
  .option('--adaptive-fixed-path <n>', 'adaptive part: also crawl N pages with each fetcher at concurrency 1 (a crawl path that does not depend on timing) and compare harvest and order (default: off)')
  .option('--wiki-pages <n>', 'budget per Wikispeedia crawl (default: 150 quick, 1000 full)')
  .option('--repeats <n>', 'harvest parts: crawl each strategy and topic N times and report the mean and spread of every harvest figure (default: 2 quick, 3 full)')
  .option('--strategies <list>', 'harvest parts: comma list of strategies to crawl, "crawlee" for plain Crawlee (default: every strategy and crawlee; with fewer, use --no-page)');
program.parse();
const opts = program.opts<{ quick?: boolean; out: string; only: string; page: boolean; readme: boolean; from?: string; topics?: string; testPages?: string; wikiPages?: string; adaptivePages?: string; adaptiveReps?: string; adaptiveFixedPath?: string; adaptiveCrawlers?: string; strategies?: string; repeats?: string }>();
const quick = !!opts.quick;
const parts = new Set(opts.only.split(',').map((s) => s.trim()));

const PLAN = quick
  ? { adaptivePages: 100, adaptiveReps: 1, testTopics: ['quake'] as string[] | undefined, testPages: 100, wikiTopics: ['birds', 'elements'], wikiPages: 150, speedReps: 2, speedPages: 120, browserSpeedPages: 30, frontierN: 200_000 }
  : { adaptivePages: 300, adaptiveReps: 2, testTopics: undefined as string[] | undefined, testPages: 300, wikiTopics: undefined as string[] | undefined, wikiPages: 1000, speedReps: 3, speedPages: 400, browserSpeedPages: 100, frontierN: 1_000_000 };
const CONCURRENCY = 4;
// Wikispeedia topics are started as a user would: the topic's two or three query words and 3 seed articles.
const WIKI_SEEDS = 3;
const SEED = 1;

const say = (s: string) => process.stderr.write(s + '\n');
const budget = (flag: string, v: string | undefined, dflt: number): number => {
  if (v === undefined) return dflt;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) {
    say(`bench: ${flag} must be a positive integer, got "${v}"`);
    process.exit(2);
  }
  return n;
};
PLAN.testPages = budget('--test-pages', opts.testPages, PLAN.testPages);
PLAN.wikiPages = budget('--wiki-pages', opts.wikiPages, PLAN.wikiPages);
PLAN.adaptivePages = budget('--adaptive-pages', opts.adaptivePages, PLAN.adaptivePages);
PLAN.adaptiveReps = budget('--adaptive-reps', opts.adaptiveReps, PLAN.adaptiveReps);
const REPEATS = budget('--repeats', opts.repeats, quick ? 2 : 3);
const HARVEST_STRATEGIES: (StrategyName | 'crawlee')[] = [...STRATEGIES, 'crawlee'];
if (opts.strategies) {
  const asked = opts.strategies.split(',').map((t) => t.trim());
  const unknown = asked.filter((t) => !(HARVEST_STRATEGIES as string[]).includes(t));
  if (unknown.length || !asked.length) {
    say(`bench: --strategies: unknown ${unknown.map((t) => `"${t}"`).join(', ') || 'empty list'} (${HARVEST_STRATEGIES.join(', ')})`);
    process.exit(2);
  }
  HARVEST_STRATEGIES.splice(0, HARVEST_STRATEGIES.length, ...(asked as (StrategyName | 'crawlee')[]));
}
if (opts.topics) PLAN.testTopics = PLAN.wikiTopics = opts.topics.split(',').map((t) => t.trim());
const storage = mkdtempSync(join(tmpdir(), 'bench-'));
const quiet = () => new ProgressReporter({ quiet: true });

/** Peak resident memory of this process while `fn` runs (sampled every 100 ms). */
async function withPeakRss<T>(fn: () => Promise<T>): Promise<{ value: T; peakRssMb: number }> {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 100);
  try {
    const value = await fn();
    peak = Math.max(peak, process.memoryUsage().rss);
    return { value, peakRssMb: peak / 2 ** 20 };
  } finally {
    clearInterval(timer);
  }
}

/** Render time per page in the browser: navigation start to DOM serialised. */
function renderTimer(): CrawlPlugin & { meanMs(): number | undefined } {
  const started = new Map<string, number>();
  let sum = 0;
  let n = 0;
  return {
    name: 'bench-render-timer',
    preNavigation(_page, request) {
      started.set(request.uniqueKey, Date.now());
    },
    onPage(event) {
      const t0 = started.get(event.rendered.request.uniqueKey);
      if (t0 !== undefined) {
        sum += event.rendered.fetchedAt.getTime() - t0;
        n++;
      }
    },
    meanMs: () => (n ? sum / n : undefined),
  };
}

interface Crawl {
  seeds: string[];
  keywords: string[];
  maxPages: number;
  fetcher: 'http' | 'browser';
  truth: (url: string) => boolean;
}

async function ours(c: Crawl, strategy: StrategyName, plugins: CrawlPlugin[] = []) {
  const config = parseConfig({
    topics: [{ keywords: c.keywords, seeds: c.seeds }],
    strategy,
    maxPages: c.maxPages,
    maxConcurrency: CONCURRENCY,
    // One host (Wikispeedia) must not cap us below the concurrency Crawlee gets.
    perHostConcurrency: CONCURRENCY,
    fetcher: c.fetcher,
    storageDir: storage,
    randomSeed: SEED,
    // Pages routed in hand-out order: a repeat gives the same crawl (src/frontier/fetch-order.ts).
    fetchOrder: 'fixed',
    allowPrivate: true, // both benchmark webs are on loopback (the fetch gate refuses private addresses by default)
  });
  return runCrawl({ config, truth: c.truth, progress: quiet(), plugins });
}

const baseline = (c: Crawl) =>
  runCrawleeBaseline({ seeds: c.seeds, maxPages: c.maxPages, maxConcurrency: CONCURRENCY, fetcher: c.fetcher, storageDir: storage, truth: c.truth });

/** How the crawler's own relevance verdicts (pages saved) agree with the truth, from its crawl log. */
function judgeAgreement(logPath: string): { saved: number; savedTrue: number; truthFetched: number } {
  let saved = 0, savedTrue = 0, truthFetched = 0;
  for (const line of readFileSync(logPath, 'utf8').split('\n')) {
    if (!line) continue;
    const e = JSON.parse(line) as { decision?: string; truth?: boolean };
    if (e.truth) truthFetched++;
    if (e.decision === 'saved') {
      saved++;
      if (e.truth) savedTrue++;
    }
  }
  return { saved, savedTrue, truthFetched };
}

async function harvest(web: CurveRun['web'], topic: string, c: Crawl, relevantAvailable: number): Promise<CurveRun[]> {
  const out: CurveRun[] = [];
  for (const strategy of HARVEST_STRATEGIES) {
    let first: CurveRun | undefined;
    for (let rep = 0; rep < REPEATS; rep++) {
      const t = Date.now();
      const r = strategy === 'crawlee' ? await baseline(c) : await ours(c, strategy);
      const curve = (r.truthCurve ?? []).map((v) => Math.round(v * 1e4) / 1e4);
      first ??= { web, topic, strategy, fetched: r.fetched, relevantAvailable, maxPages: c.maxPages, elapsedMs: Date.now() - t, curve, judge: 'logPath' in r ? judgeAgreement(r.logPath) : undefined, repeats: [] };
      first.repeats!.push(r.truthHarvestRate ?? 0);
      say(`  ${web}/${topic} ${strategy.padEnd(10)} ${r.fetched} pages, harvest ${((r.truthHarvestRate ?? 0) * 100).toFixed(1)}% (${((Date.now() - t) / 1000).toFixed(0)} s)${REPEATS > 1 ? ` [run ${rep + 1} of ${REPEATS}]` : ''}`);
    }
    out.push(first!);
  }
  return out;
}

/** The command line that reproduces this run, as a user would type it (arguments quoted where a shell needs it). */
function benchCommand(args: string[]): string {
  const word = (a: string) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`);
  return ['npm run bench', ...(args.length ? ['--', ...args.map(word)] : [])].join(' ');
}

const results: BenchResults = {
  startedAt: new Date().toISOString(),
  quick,
  command: benchCommand(process.argv.slice(2)),
  machine: { cpus: cpus().length, node: process.version, loadAvg: loadavg(), memGb: Math.round(totalmem() / 2 ** 30) },
  curves: [],
  speed: [],
  notes: [],
};

async function benchTestWeb() {
  say('Chinese test web (browser fetcher)');
  const web = await startTestWeb();
  try {
    const topics = web.topics.filter((t) => !PLAN.testTopics || PLAN.testTopics.includes(t.id));
    for (const t of topics) {
      const c: Crawl = { seeds: web.demo.seeds, keywords: t.keywords.slice(0, 4), maxPages: PLAN.testPages, fetcher: 'browser', truth: (u) => web.isRelevant(u, t.id) };
      results.curves.push(...(await harvest('testweb', t.id, c, web.relevantTotal(t.id))));
    }
    results.notes.push(`Test web: default options (seed 42), seeds = the portal home pages, keywords = the first four of each topic's lexicon.`);
    // Speed in the browser: one pair of interleaved runs per rep.
    if (parts.has('speed')) {
      const t = web.topics[0];
      const c: Crawl = { seeds: web.demo.seeds, keywords: t.keywords.slice(0, 4), maxPages: PLAN.browserSpeedPages, fetcher: 'browser', truth: (u) => web.isRelevant(u, t.id) };
      await speedPairs('testweb', c, 1);
    }
  } finally {
    await web.close();
  }
}

/** Interleaved speed runs, order alternating per rep (ours first, then Crawlee first, …) to cancel drift. */
async function speedPairs(webName: string, c: Crawl, reps: number, serverMs?: () => number) {
  for (let rep = 0; rep < reps; rep++) {
    const order: ('ours' | 'crawlee')[] = rep % 2 === 0 ? ['ours', 'crawlee'] : ['crawlee', 'ours'];
    for (const who of order) {
      const s0 = serverMs?.() ?? 0;
      const c0 = process.cpuUsage();
      const timer = renderTimer();
      const { value: r, peakRssMb } = await withPeakRss<{ fetched: number; elapsedMs: number; timings?: import('../src/crawl/engine.js').CrawlTimings }>(() => (who === 'ours' ? ours(c, 'combined', c.fetcher === 'browser' ? [timer] : []) : baseline(c)));
      const cpu = process.cpuUsage(c0);
      const cpuMs = (cpu.user + cpu.system) / 1000 - ((serverMs?.() ?? 0) - s0);
      const pages = r.fetched;
      const run: SpeedRun = {
        web: webName,
        fetcher: c.fetcher,
        crawler: who === 'ours' ? 'ours (combined)' : 'crawlee',
        rep,
        pages,
        elapsedMs: r.elapsedMs,
        pagesPerSecond: pages / (r.elapsedMs / 1000),
        cpuMsPerPage: c.fetcher === 'http' && serverMs ? cpuMs / pages : undefined,
        peakRssMb,
      };
      if (r.timings) {
        const tm = r.timings;
        const per = (x: number) => x / Math.max(1, tm.pages);
        run.stages = { extractMs: per(tm.extractMs), judgeMs: per(tm.judgeMs), scoreMs: per(tm.scoreMs), frontierMs: per(tm.frontierMs), storeMs: per(tm.storeMs), wallMs: r.elapsedMs / Math.max(1, pages) };
        const render = timer.meanMs();
        if (render !== undefined) run.stages.renderMs = render;
      }
      results.speed.push(run);
      say(`  speed ${webName} ${run.crawler}: ${pages} pages, ${run.pagesPerSecond.toFixed(1)} pages/s${run.cpuMsPerPage ? `, ${run.cpuMsPerPage.toFixed(1)} ms CPU/page` : ''}, peak RSS ${peakRssMb.toFixed(0)} MB`);
    }
  }
}

async function benchWikispeedia() {
  const missing = wikispeediaMissing();
  if (missing) {
    say(`Wikispeedia skipped: ${missing}`);
    results.notes.push(`Wikispeedia skipped: ${missing}`);
    return;
  }
  say('Wikispeedia (HTTP fetcher)');
  const web = await startWikispeediaWeb();
  try {
    const topics = web.topics.filter((t) => !PLAN.wikiTopics || PLAN.wikiTopics.includes(t.id));
    if (parts.has('wikispeedia')) {
      for (const t of topics) {
        const seeds = web.seeds(t.id, WIKI_SEEDS, new Rng(hash32(`seeds:${t.id}:${SEED}`)));
        const c: Crawl = { seeds, keywords: t.query, maxPages: PLAN.wikiPages, fetcher: 'http', truth: (u) => web.isRelevant(u, t.id) };
        results.curves.push(...(await harvest('wikispeedia', t.id, c, web.relevantTotal(t.id))));
      }
      results.notes.push(
        `Wikispeedia: ${WIKI_SEEDS} seeds per topic drawn reproducibly from the topic's articles; keywords = the topic's two or three query words, written from the category name alone (src/testweb/wikispeedia.ts WIKI_TOPICS). The "Related subjects" header line (which names the category) is stripped from the pages.`,
      );
    }
    if (parts.has('speed')) {
      const t = topics[0] ?? web.topics[0];
      const seeds = web.seeds(t.id, WIKI_SEEDS, new Rng(hash32(`seeds:${t.id}:${SEED}`)));
      const c: Crawl = { seeds, keywords: t.query, maxPages: PLAN.speedPages, fetcher: 'http', truth: (u) => web.isRelevant(u, t.id) };
      await speedPairs('wikispeedia', c, PLAN.speedReps, () => web.serverMs());
    }
  } finally {
    await web.close();
  }
}

function frontierScale(): string | undefined {
  say(`Frontier heap at scale (N = ${PLAN.frontierN})`);
  try {
    return execFileSync(process.execPath, ['--expose-gc', '--import', 'tsx', join(ROOT, 'bench', 'frontier-scale.ts'), String(PLAN.frontierN)], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    const msg = `frontier-scale failed: ${(e as Error).message.split('\n')[0]}`;
    results.notes.push(msg);
    say(msg);
    return undefined;
  }
}

function write(save = true) {
  const out = resolve(opts.out);
  const charts = join(out, 'charts');
  mkdirSync(charts, { recursive: true });
  const stamp = results.startedAt.replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  if (save) results.machine.loadAvgEnd = loadavg();
  if (save) writeFileSync(join(out, `run-${stamp}${quick ? '-quick' : ''}.json`), JSON.stringify(results));
  const chartPaths = new Map<string, string>();
  for (const key of new Set(results.curves.map((c) => `${c.web}/${c.topic}`))) {
    const runs = results.curves.filter((c) => `${c.web}/${c.topic}` === key);
    const file = `harvest-${key.replace('/', '-')}.svg`;
    writeFileSync(join(charts, file), curveSvg(`Harvest rate, ${key} (${runs[0].relevantAvailable} relevant available)`, runs));
    chartPaths.set(key, `charts/${file}`);
  }
  const { full, sections } = summaryMd(results, chartPaths);
  writeFileSync(join(out, 'summary.md'), full);
  say(`Wrote ${join(out, 'summary.md')}`);
  // The page holds the published figures: a run into another folder, or with --no-page, leaves it.
  if (!opts.page || !opts.readme || out !== join(ROOT, 'bench', 'results')) return;
  for (const s of sections) writeBenchSection({ ...s, command: results.command ?? 'npm run bench' });
  say(`Wrote ${sections.map((s) => s.name).join(', ')} in docs/benchmarks.md`);
}

/** Facts seen in the data that the tables alone do not say. */
function observations() {
  for (const c of results.curves) {
    if (c.fetched > c.maxPages) results.notes.push(`${c.web}/${c.topic} ${c.strategy}: fetched ${c.fetched} pages on a budget of ${c.maxPages} (over budget; rates read at the budget).`);
    else if (c.fetched < c.maxPages) results.notes.push(`${c.web}/${c.topic} ${c.strategy}: stopped after ${c.fetched} of ${c.maxPages} pages (frontier empty: the strategy dropped every remaining link).`);
  }
}

if (opts.from) {
  try {
    results.command = undefined; // the saved run's own command, when it kept one
    Object.assign(results, JSON.parse(readFileSync(resolve(opts.from), 'utf8')) as BenchResults);
    results.command ??= `npm run bench${results.quick ? ' -- --quick' : ''}`;
  } catch (e) {
    say(`bench: cannot read ${opts.from}: ${(e as Error).message}`);
    process.exit(2);
  }
  write(false);
  process.exit(0);
}

/** `--adaptive-crawlers 1,4`: the crawlers of the adaptive part by their place in its table. */
function adaptiveCrawlers(): AdaptiveCrawler[] | undefined {
  if (!opts.adaptiveCrawlers) return undefined;
  const picked = opts.adaptiveCrawlers.split(',').map((x) => ADAPTIVE_CRAWLERS[Number(x) - 1]);
  if (picked.some((c) => c === undefined)) {
    say(`bench: --adaptive-crawlers takes numbers 1-${ADAPTIVE_CRAWLERS.length}: ${ADAPTIVE_CRAWLERS.map((c, i) => `${i + 1} ${c}`).join(', ')}`);
    process.exit(2);
  }
  return picked;
}

try {
  if (parts.has('wikispeedia') || parts.has('speed')) await benchWikispeedia();
  if (parts.has('testweb')) await benchTestWeb();
  if (parts.has('frontier') || parts.has('frontier-scale')) results.frontierScale = frontierScale();
  if (parts.has('adaptive')) {
    say('Adaptive rendering on the mixed test web');
    results.adaptive = await benchAdaptive({ budget: PLAN.adaptivePages, reps: PLAN.adaptiveReps, concurrency: CONCURRENCY, storageDir: storage, say, fixedPathBudget: opts.adaptiveFixedPath ? budget('--adaptive-fixed-path', opts.adaptiveFixedPath, 0) : undefined, crawlers: adaptiveCrawlers() });
  }
  observations();
  write();
} finally {
  rmSync(storage, { recursive: true, force: true });
}
