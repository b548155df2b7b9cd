/**
 * `npm run bench -- --only adaptive`: on the mixed test web (src/testweb, `mixed: true`), our
 * crawler with `fetcher: adaptive` vs `fetcher: browser`, and plain Crawlee `PlaywrightCrawler`
 * and Crawlee's own `AdaptivePlaywrightCrawler` (both breadth-first, unfocused), same seeds,
 * budget and concurrency, runs interleaved (the order rotates per rep). Measures pages/s, CPU
 * ms per page and peak RSS of the whole process tree (Node + Chromium + the in-process test web
 * server), share of pages rendered, harvest; and the main-text shingle F1 of the pages `adaptive`
 * fetched over HTTP against the browser's rendering of the same pages.
 */
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { AdaptivePlaywrightCrawler, log as crawleeLog, LogLevel, RequestQueue } from 'crawlee';
import { chromium } from 'playwright';
import { parseConfig } from '../src/config/schema.js';
import { runCrawl, type CrawlPlugin } from '../src/crawl/engine.js';
import { analyzePage } from '../src/extract/page.js';
import { shingleF1 } from '../src/fetch/adaptive/adaptive.js';
import { browserLaunchOptions, CHROMIUM_ARGS } from '../src/fetch/browser.js';
import { crawleeConfig, fixedConcurrency } from '../src/fetch/crawler.js';
import { ProgressReporter } from '../src/report/progress.js';
import { CrawlLog } from '../src/store/crawl-log.js';
import { startTestWeb } from '../src/testweb/index.js';
import { runCrawleeBaseline } from './baseline.js';
import { spreadText } from './metrics.js';
import { pairedInterval } from './paired-interval.js';
import { processTreeMemory, type TreePart } from '../src/util/process-tree.js';
import { profileStages, StageProfile, type StageFigure } from '../src/util/stage-profile.js';
import type { CrawlTimings } from '../src/crawl/types.js';

/**
 * `ours (adaptive, all rendered)`: the adaptive fetcher with `adaptive.renderAll` (every page
 * rendered on its kept tabs): adaptive / browser = (adaptive / all rendered) × (all rendered /
 * browser), the share of the ratio that fetching over HTTP gives times the share its cheaper
 * renders give.
 */
export type AdaptiveCrawler = 'ours (adaptive)' | 'ours (adaptive, no data path)' | 'ours (adaptive, all rendered)' | 'ours (browser)' | 'crawlee PlaywrightCrawler' | 'crawlee AdaptivePlaywrightCrawler' | 'ours (browser, no request blocking)';
/**
 * `ours (adaptive, no data path)`: `adaptive.dataPath` false, so adaptive / browser splits further
 * into (adaptive / no data path: pages that need the browser served from their data) × (no data
 * path / all rendered: plain HTTP where no browser is needed) × (all rendered / browser).
 */
// The last one renders every page with every sub-request fetched (images, fonts, styles, beacons,
// ad hosts): beside 'ours (browser)' it shows what request blocking saves per rendered page.
export const ADAPTIVE_CRAWLERS: AdaptiveCrawler[] = ['ours (adaptive)', 'ours (adaptive, no data path)', 'ours (adaptive, all rendered)', 'ours (browser)', 'crawlee PlaywrightCrawler', 'crawlee AdaptivePlaywrightCrawler', 'ours (browser, no request blocking)'];

export interface AdaptiveRun {
  crawler: AdaptiveCrawler;
  rep: number;
  pages: number;
  elapsedMs: number;
  pagesPerSecond: number;
  cpuMsPerPage: number;
  peakRssMb: number;
  /** Peak PSS of the tree (shared pages counted once: what it really holds), MB; absent where the kernel gives none. */
  peakPssMb?: number;
  renderedShare: number;
  /** Our adaptive runs: share of pages fetched over plain HTTP and served from their data (http+data); the rest were rendered. */
  httpShare?: number;
  dataShare?: number;
  /** Pages rendered because their pattern needs the browser (its HTTP analysis differed), of all pages: the part no sampling can save. */
  neededShare?: number;
  harvest: number;
  /** 1-minute load average of the machine when the run started (it is shared). */
  loadAverage?: number;
  /** The process tree at its peak, by component (../src/util/process-tree.ts processKind). */
  peakParts?: Record<string, TreePart>;
  /** Our crawls: where the time went, per page (../src/util/stage-profile.ts and the engine's own timings). */
  stages?: StageTimes;
}

/** Per page, in ms: event-loop work by stage (exclusive), and what one page waited for, by stage. */
export interface StageTimes {
  pages: number;
  work: Record<string, StageFigure>;
  waits: Record<string, StageFigure>;
}

export interface AdaptiveBench {
  budget: number;
  concurrency: number;
  runs: AdaptiveRun[];
  /** Main text of pages fetched over HTTP by `adaptive` vs the browser's rendering of the same pages. */
  f1?: { pages: number; mean: number; min: number; below098: number };
  /** The same for the pages adaptive served from their data (http+data). */
  dataF1?: { pages: number; mean: number; min: number; below098: number };
  /** Both fetchers at concurrency 1 (one page at a time: the crawl's order no longer depends on timing). */
  fixedPath?: FixedPath;
}

/**
 * Harvest at a fixed crawl path. At concurrency N the order pages finish in (and so what the
 * focused crawl fetches next) varies run to run with timing, so two runs differ in harvest by
 * several points whatever the fetcher. One page at a time, the order depends only on what each
 * page's analysis gave: runs with the same analyses fetch the same URLs in the same order.
 */
export interface FixedPath {
  budget: number;
  harvest: { adaptive: number; browser: number };
  /** Pages fetched in the same order by both before the first difference (= budget: the same crawl). */
  samePrefix: number;
  /** Where they parted: the URL each fetched there. */
  divergence?: { adaptive: string; browser: string };
  /** A second browser run: does the browser fetcher repeat itself at concurrency 1? */
  browserAgain?: { harvest: number; samePrefix: number };
}

/**
 * Sum over this process and its live descendants of one figure of /proc/PID/stat (fields after
 * the command name, 0-based: 11-14 utime, stime, cutime, cstime; 21 rss in pages).
 */
function treeSum(figure: (f: string[]) => number): number {
  const parent = new Map<number, number>();
  const value = new Map<number, number>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const f = readFileSync(`/proc/${d}/stat`, 'utf8').split(') ')[1].split(' ');
      parent.set(Number(d), Number(f[1]));
      value.set(Number(d), figure(f));
    } catch {
      // exited meanwhile
    }
  }
  let total = 0;
  for (const [pid, v] of value) {
    for (let p: number | undefined = pid; p && p > 1; p = parent.get(p)) {
      if (p === process.pid) {
        total += v;
        break;
      }
    }
  }
  return total;
}

/**
 * CPU time of the process tree, in ms: this process with its reaped children, plus every live
 * descendant with its own reaped children. Reaped children alone (what /proc/self/stat's cutime
 * says) miss Chromium whenever a crawl returns before its browser has exited and been waited for
 * (Crawlee's pool closes it in the background), and the gate proxy process while it runs; a
 * process that exits during a measurement moves from the live sum into its parent's reaped time,
 * so the total neither loses nor counts it twice.
 */
const treeCpuMs = () => treeSum((f) => ((Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * 1000) / 100); // USER_HZ 100

export async function measured<T>(fn: () => Promise<T>): Promise<{ value: T; cpuMs: number; peakRssMb: number; peakPssMb?: number; peakParts: Record<string, TreePart> }> {
  const c0 = treeCpuMs();
  let peak = processTreeMemory(process.pid, '/proc', { pss: true });
  let peakPss = peak.totalPssMb;
  const sample = () => {
    const m = processTreeMemory(process.pid, '/proc', { pss: true });
    if (m.totalMb > peak.totalMb) peak = m;
    if (m.totalPssMb !== undefined && m.totalPssMb > (peakPss ?? 0)) peakPss = m.totalPssMb;
  };
  const timer = setInterval(sample, 250);
  try {
    const value = await fn();
    sample();
    return { value, cpuMs: treeCpuMs() - c0, peakRssMb: peak.totalMb, peakPssMb: peakPss, peakParts: peak.parts };
  } finally {
    clearInterval(timer);
  }
}

/** Crawlee's AdaptivePlaywrightCrawler as documented: breadth first, its default predictor and detection ratio. */
async function crawleeAdaptive(seeds: string[], maxPages: number, concurrency: number, storageDir: string, truth: (u: string) => boolean) {
  crawleeLog.setLevel(LogLevel.ERROR);
  const dir = join(storageDir, `crawlee-adaptive-${Date.now()}`);
  const config = crawleeConfig(dir);
  const queue = await RequestQueue.open(`adaptive-${Date.now()}`, { config });
  await queue.addRequests(seeds.map((url) => ({ url })));
  let pages = 0;
  let hits = 0;
  const crawler: AdaptivePlaywrightCrawler = new AdaptivePlaywrightCrawler(
    {
      requestQueue: queue,
      ...fixedConcurrency(concurrency), // the same N pages at once as ours (src/fetch/crawler.ts)
      maxRequestRetries: 1,
      useSessionPool: false,
      launchContext: { launcher: chromium, launchOptions: { ...(await browserLaunchOptions()).launchOptions, args: CHROMIUM_ARGS } },
      browserPoolOptions: { useFingerprints: false },
      async requestHandler({ request, parseWithCheerio, addRequests, pushData }) {
        if (pages >= maxPages) return;
        const $ = await parseWithCheerio();
        const html = $.html();
        const a = analyzePage({ html, url: request.loadedUrl ?? request.url, fetchedAt: new Date() });
        await pushData({ url: request.url, title: a.title, text: a.text });
        await addRequests(a.links.filter((l) => /^https?:/.test(l.url)).map((l) => ({ url: l.url })));
      },
    },
    config,
  );
  // Count pages as they finish (detections run the handler twice; count the request once).
  const done = new Set<string>();
  const origMark = queue.markRequestHandled.bind(queue);
  queue.markRequestHandled = async (r) => {
    if (!done.has(r.uniqueKey) && pages < maxPages) {
      done.add(r.uniqueKey);
      pages++;
      if (truth(r.url)) hits++;
      if (pages >= maxPages) void crawler.stop('budget reached');
    }
    return origMark(r);
  };
  const t = Date.now();
  try {
    await crawler.run();
  } finally {
    await queue.drop().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
  const st = crawler.stats.state as { httpOnlyRequestHandlerRuns?: number; browserRequestHandlerRuns?: number };
  const http = st.httpOnlyRequestHandlerRuns ?? 0;
  const browser = st.browserRequestHandlerRuns ?? 0;
  return { fetched: pages, elapsedMs: Date.now() - t, harvest: pages ? hits / pages : 0, renderedShare: http + browser ? browser / (http + browser) : 1 };
}

/** The engine's own stage timings and the stage profile, per page. */
function stageTimes(profile: StageProfile, timings: CrawlTimings | undefined, pages: number): StageTimes {
  const work: Record<string, StageFigure> = {};
  for (const [k, f] of profile.work) work[k] = { ...f };
  if (timings) {
    // the engine's laps: its judge includes jieba, which the profile also names on its own
    const jieba = work.jieba?.ms ?? 0;
    work['judge (topic model, jieba excluded)'] = { ms: Math.max(0, timings.judgeMs - jieba), calls: timings.pages };
    work['scorer'] = { ms: timings.scoreMs, calls: timings.pages };
    work['frontier'] = { ms: timings.frontierMs, calls: timings.pages };
    work['store (dataset, crawl log, plugins)'] = { ms: timings.storeMs, calls: timings.pages };
  }
  const waits: Record<string, StageFigure> = {};
  for (const [k, f] of profile.waits) waits[k] = { ...f };
  return { pages, work, waits };
}

const sortedStages = (m: Record<string, StageFigure>) => Object.entries(m).sort((a, b) => b[1].ms - a[1].ms);

export function partsLine(parts: Record<string, TreePart>): string {
  return Object.entries(parts)
    .map(([k, p]) => `${k} ${p.mb.toFixed(0)} MB${p.pssMb !== undefined ? ` (PSS ${p.pssMb.toFixed(0)})` : ''}${p.processes > 1 ? ` [${p.processes}]` : ''}`)
    .join(', ');
}

export function stagesLine(s: StageTimes): string {
  const per = (f: StageFigure) => (f.ms / Math.max(1, s.pages)).toFixed(1);
  const work = sortedStages(s.work).filter(([, f]) => f.ms / Math.max(1, s.pages) >= 0.05);
  const waits = sortedStages(s.waits);
  return `work ${work.map(([k, f]) => `${k} ${per(f)}`).join(', ')} ms; waits ${waits.map(([k, f]) => `${k} ${per(f)}`).join(', ')} ms`;
}

export async function benchAdaptive(opts: { budget: number; reps: number; concurrency: number; storageDir: string; say(s: string): void; fixedPathBudget?: number; crawlers?: AdaptiveCrawler[] }): Promise<AdaptiveBench> {
  const web = await startTestWeb({ mixed: true });
  const out: AdaptiveBench = { budget: opts.budget, concurrency: opts.concurrency, runs: [] };
  const truth = (u: string) => web.isRelevant(u, web.demo.topic);
  const keywords = web.topics.find((t) => t.id === web.demo.topic)!.keywords.slice(0, 4);
  const httpTexts = new Map<string, string>();
  const dataTexts = new Map<string, string>();
  const httpWhy = new Map<string, string>();
  try {
    const ours = async (fetcher: 'adaptive' | 'browser', concurrency = opts.concurrency, budget = opts.budget, renderAll = false, dataPath = true, blockRequests = true) => {
      const capture: CrawlPlugin = {
        name: 'bench-http-texts',
        onPage(e) {
          if (fetcher === 'adaptive' && !renderAll && e.rendered.fetchedWith === 'http' && e.rendered.status === 200) {
            httpTexts.set(e.rendered.request.url, e.analysis.text);
            httpWhy.set(e.rendered.request.url, e.rendered.fetchWhy ?? '');
          }
          if (e.rendered.fetchedWith === 'http+data' && e.rendered.status === 200) {
            dataTexts.set(e.rendered.request.url, e.analysis.text);
            httpWhy.set(e.rendered.request.url, e.rendered.fetchWhy ?? '');
          }
        },
      };
      const config = parseConfig({
        topics: [{ keywords, seeds: web.demo.seeds }],
        allowPrivate: true, // the test web is on loopback
        maxPages: budget,
        maxConcurrency: concurrency,
        fetcher,
        adaptive: { renderAll, dataPath },
        blockRequests,
        storageDir: opts.storageDir,
        randomSeed: 1,
      });
      const profile = new StageProfile();
      profileStages(profile);
      let r: Awaited<ReturnType<typeof runCrawl>>;
      try {
        r = await runCrawl({ config, truth, progress: new ProgressReporter({ quiet: true }), plugins: [capture] });
      } finally {
        profileStages(undefined);
      }
      const stages = stageTimes(profile, r.timings, r.fetched);
      const log = CrawlLog.read(r.logPath);
      const rendered = fetcher === 'browser' ? log.length : log.filter((e) => e.fetchedWith === 'browser').length;
      const needed = log.filter((e) => e.fetchedWith === 'browser' && /needs the browser|HTTP differs/.test(e.fetchWhy ?? '')).length;
      const share = (n: number) => (log.length ? n / log.length : 0);
      const ways = fetcher === 'adaptive' && !renderAll ? { httpShare: share(log.filter((e) => e.fetchedWith === 'http').length), dataShare: share(log.filter((e) => e.fetchedWith === 'http+data').length) } : {};
      return { fetched: r.fetched, elapsedMs: r.elapsedMs, harvest: r.truthHarvestRate ?? 0, renderedShare: share(rendered), ...ways, neededShare: fetcher === 'adaptive' && !renderAll ? share(needed) : undefined, urls: log.map((e) => e.url), stages };
    };
    const plain = async () => {
      const r = await runCrawleeBaseline({ seeds: web.demo.seeds, maxPages: opts.budget, maxConcurrency: opts.concurrency, fetcher: 'browser', storageDir: opts.storageDir, truth });
      return { fetched: r.fetched, elapsedMs: r.elapsedMs, harvest: r.truthHarvestRate, renderedShare: 1 };
    };
    const run: Record<AdaptiveCrawler, () => Promise<{ fetched: number; elapsedMs: number; harvest: number; renderedShare: number; httpShare?: number; dataShare?: number; neededShare?: number; stages?: StageTimes }>> = {
      'ours (adaptive)': () => ours('adaptive'),
      'ours (adaptive, no data path)': () => ours('adaptive', opts.concurrency, opts.budget, false, false),
      'ours (adaptive, all rendered)': () => ours('adaptive', opts.concurrency, opts.budget, true),
      'ours (browser)': () => ours('browser'),
      'ours (browser, no request blocking)': () => ours('browser', opts.concurrency, opts.budget, false, true, false),
      'crawlee PlaywrightCrawler': plain,
      'crawlee AdaptivePlaywrightCrawler': () => crawleeAdaptive(web.demo.seeds, opts.budget, opts.concurrency, opts.storageDir, truth),
    };
    for (let rep = 0; rep < opts.reps; rep++) {
      const crawlers = opts.crawlers ?? ADAPTIVE_CRAWLERS;
      const order = crawlers.map((_, i) => crawlers[(i + rep) % crawlers.length]);
      for (const who of order) {
        const loadAverage = Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
        const { value: r, cpuMs, peakRssMb, peakPssMb, peakParts } = await measured(run[who]);
        const row: AdaptiveRun = {
          crawler: who,
          rep,
          pages: r.fetched,
          elapsedMs: r.elapsedMs,
          pagesPerSecond: r.fetched / (r.elapsedMs / 1000),
          cpuMsPerPage: cpuMs / Math.max(1, r.fetched),
          peakRssMb,
          peakPssMb,
          renderedShare: r.renderedShare,
          httpShare: r.httpShare,
          dataShare: r.dataShare,
          neededShare: r.neededShare,
          harvest: r.harvest,
          loadAverage,
          peakParts,
          stages: r.stages,
        };
        out.runs.push(row);
        opts.say(`  adaptive bench ${who}: ${row.pages} pages, ${row.pagesPerSecond.toFixed(2)} pages/s, ${row.cpuMsPerPage.toFixed(0)} ms CPU/page, peak RSS ${row.peakRssMb.toFixed(0)} MB${row.peakPssMb !== undefined ? ` (PSS ${row.peakPssMb.toFixed(0)} MB)` : ''}, ${row.dataShare !== undefined ? `http ${(row.httpShare! * 100).toFixed(0)}%, http+data ${(row.dataShare * 100).toFixed(0)}%, ` : ''}rendered ${(row.renderedShare * 100).toFixed(0)}%${row.neededShare !== undefined ? ` (needed ${(row.neededShare * 100).toFixed(0)}%)` : ''}, harvest ${(row.harvest * 100).toFixed(1)}%, load ${loadAverage.toFixed(1)}`);
        opts.say(`    memory at the peak: ${partsLine(peakParts)}`);
        if (row.stages) opts.say(`    per page: ${stagesLine(row.stages)}`);
      }
    }
    if (opts.fixedPathBudget) {
      const n = opts.fixedPathBudget;
      const a = await ours('adaptive', 1, n);
      const w = await ours('browser', 1, n);
      const w2 = await ours('browser', 1, n);
      const prefix = (x: string[], y: string[]) => {
        let i = 0;
        while (i < x.length && i < y.length && x[i] === y[i]) i++;
        return i;
      };
      const same = prefix(a.urls, w.urls);
      out.fixedPath = {
        budget: n,
        harvest: { adaptive: a.harvest, browser: w.harvest },
        samePrefix: same,
        divergence: same < Math.min(a.urls.length, w.urls.length) ? { adaptive: a.urls[same], browser: w.urls[same] } : undefined,
        browserAgain: { harvest: w2.harvest, samePrefix: prefix(w.urls, w2.urls) },
      };
      opts.say(`  fixed path (concurrency 1, ${n} pages): harvest adaptive ${(a.harvest * 100).toFixed(1)}% vs browser ${(w.harvest * 100).toFixed(1)}% (again ${(w2.harvest * 100).toFixed(1)}%); same order for ${same} pages (browser vs browser ${out.fixedPath.browserAgain!.samePrefix})${out.fixedPath.divergence ? `; parted at ${out.fixedPath.divergence.adaptive} vs ${out.fixedPath.divergence.browser}` : ''}`);
    }
    // The same pages both ways: what adaptive read over HTTP (and from its data) vs a browser rendering now.
    const f1Of = async (texts: Map<string, string>, what: string) => {
      const browser = await chromium.launch((await browserLaunchOptions()).launchOptions);
      const f1s: number[] = [];
      try {
        for (const [url, text] of [...texts].slice(0, 100)) {
          const page = await browser.newPage();
          try {
            await page.goto(url, { waitUntil: 'load' });
            await page.waitForLoadState('networkidle').catch(() => undefined);
            const rendered = analyzePage({ html: await page.content(), url, fetchedAt: new Date() }).text;
            const f1 = shingleF1(text, rendered);
            f1s.push(f1);
            // name the pages below the bar, with why adaptive read them over HTTP (the crawl logs are not kept)
            if (f1 < 0.98) opts.say(`    F1 ${f1.toFixed(2)} ${url}: ${what} ${text.length} chars, browser ${rendered.length}; ${httpWhy.get(url) ?? ''}`);
          } finally {
            await page.close();
          }
        }
      } finally {
        await browser.close();
      }
      const f1 = { pages: f1s.length, mean: f1s.reduce((a, b) => a + b, 0) / f1s.length, min: Math.min(...f1s), below098: f1s.filter((x) => x < 0.98).length };
      opts.say(`  ${what} vs browser main text on ${f1s.length} pages: shingle F1 mean ${f1.mean.toFixed(4)}, min ${f1.min.toFixed(4)}`);
      return f1;
    };
    if (httpTexts.size) out.f1 = await f1Of(httpTexts, 'HTTP');
    if (dataTexts.size) out.dataF1 = await f1Of(dataTexts, 'http+data');
  } finally {
    await web.close();
  }
  return out;
}

/** The summary and benchmark-page table. */
export function adaptiveMd(b: AdaptiveBench): string {
  const rows = ADAPTIVE_CRAWLERS.map((c) => {
    const rs = b.runs.filter((r) => r.crawler === c);
    if (!rs.length) return '';
    const mean = (f: (r: AdaptiveRun) => number) => rs.reduce((s, r) => s + f(r), 0) / rs.length;
    const pct = (f: (r: AdaptiveRun) => number) => `${(mean(f) * 100).toFixed(0)}%`;
    const ways = rs.every((r) => r.dataShare !== undefined) ? `${pct((r) => r.httpShare!)} / ${pct((r) => r.dataShare!)} / ${pct((r) => r.renderedShare)}` : `– / – / ${pct((r) => r.renderedShare)}`;
    const pss = rs.every((r) => r.peakPssMb !== undefined) ? Math.max(...rs.map((r) => r.peakPssMb!)).toFixed(0) : '–';
    return `| ${c} | ${rs.length} | ${mean((r) => r.pagesPerSecond).toFixed(2)} | ${mean((r) => r.cpuMsPerPage).toFixed(0)} | ${Math.max(...rs.map((r) => r.peakRssMb)).toFixed(0)} | ${pss} | ${ways} | ${spreadText(rs.map((r) => r.harvest))} |`;
  }).filter(Boolean);
  const pps = (c: AdaptiveCrawler) => {
    const rs = b.runs.filter((r) => r.crawler === c);
    return rs.reduce((s, r) => s + r.pagesPerSecond, 0) / Math.max(1, rs.length);
  };
  const lines = [
    `**Adaptive rendering** (mixed test web, topic quake, budget ${b.budget} pages, concurrency ${b.concurrency}; runs interleaved, order rotating per rep; CPU and RSS of the whole process tree incl. Chromium and the in-process test web server):`,
    '',
    '| crawler | runs | pages/s | CPU ms/page | peak RSS MB (summed per process) | peak PSS MB (shared pages once) | pages http / http+data / rendered | harvest: mean (min–max, runs) |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...rows,
    '',
    'RSS summed per process counts the pages Chromium\'s processes share (its code) once per process: an upper bound. PSS splits each shared page among its processes, so it sums to what the tree holds (as `smem` reports it).',
    '',
    `adaptive / browser throughput: ${(pps('ours (adaptive)') / Math.max(1e-9, pps('ours (browser)'))).toFixed(2)}×.`,
  ];
  // Per rep: the two crawls of one rep ran back to back, so their ratio is the side-by-side one.
  const reps = [...new Set(b.runs.map((r) => r.rep))].flatMap((rep) => {
    const a = b.runs.find((r) => r.rep === rep && r.crawler === 'ours (adaptive)');
    const w = b.runs.find((r) => r.rep === rep && r.crawler === 'ours (browser)');
    if (!a || !w) return [];
    const load = [a.loadAverage, w.loadAverage].filter((x): x is number => x !== undefined);
    const needed = a.neededShare !== undefined ? `, rendered as needed ${(a.neededShare * 100).toFixed(0)}%, served from data ${((a.dataShare ?? 0) * 100).toFixed(0)}%` : '';
    return [`rep ${rep + 1}: ${(a.pagesPerSecond / Math.max(1e-9, w.pagesPerSecond)).toFixed(2)}× (${a.pagesPerSecond.toFixed(2)} vs ${w.pagesPerSecond.toFixed(2)} pages/s${needed}, harvest ${(a.harvest * 100).toFixed(1)} vs ${(w.harvest * 100).toFixed(1)}%${load.length ? `, load ${Math.min(...load).toFixed(1)}–${Math.max(...load).toFixed(1)}` : ''})`];
  });
  if (reps.length) lines.push(`Per rep: ${reps.join('; ')}.`);
  const diffs = [...new Set(b.runs.map((r) => r.rep))].flatMap((rep) => {
    const a = b.runs.find((r) => r.rep === rep && r.crawler === 'ours (adaptive)');
    const w = b.runs.find((r) => r.rep === rep && r.crawler === 'ours (browser)');
    return a && w ? [(a.harvest - w.harvest) * 100] : [];
  });
  const paired = pairedInterval(diffs);
  if (paired) {
    const { mean: m, sd, low, high } = paired;
    lines.push(`Harvest, adaptive − browser, paired by rep: mean ${m >= 0 ? '+' : ''}${m.toFixed(1)} points, 95% interval ${low.toFixed(1)} … ${high.toFixed(1)} (sd ${sd.toFixed(1)} over ${diffs.length} reps: at concurrency ${b.concurrency} the crawl path varies with timing).`);
  }
  // The ratio per rep, and its split: fetching over HTTP (adaptive vs its own all-rendered run) ×
  // cheaper renders (all rendered on kept tabs vs the browser fetcher); intervals on log ratios.
  const ratioOf = (x: AdaptiveCrawler, y: AdaptiveCrawler, of: (r: AdaptiveRun) => number = (r) => r.pagesPerSecond) =>
    [...new Set(b.runs.map((r) => r.rep))].flatMap((rep) => {
      const a = b.runs.find((r) => r.rep === rep && r.crawler === x);
      const w = b.runs.find((r) => r.rep === rep && r.crawler === y);
      return a && w ? [of(a) / Math.max(1e-9, of(w))] : [];
    });
  const geo = (xs: number[]) => {
    const iv = pairedInterval(xs.map(Math.log));
    const mean = Math.exp(xs.reduce((s, x) => s + Math.log(x), 0) / xs.length);
    return `${mean.toFixed(2)}×${iv ? ` (95% interval ${Math.exp(iv.low).toFixed(2)}–${Math.exp(iv.high).toFixed(2)}×)` : ''}`;
  };
  const total = ratioOf('ours (adaptive)', 'ours (browser)');
  const data = ratioOf('ours (adaptive)', 'ours (adaptive, no data path)');
  const http = ratioOf('ours (adaptive, no data path)', 'ours (adaptive, all rendered)');
  const renders = ratioOf('ours (adaptive, all rendered)', 'ours (browser)');
  if (total.length && data.length && http.length && renders.length) {
    lines.push(
      `Where the ratio comes from, per rep paired (geometric means): adaptive / browser ${geo(total)} = adaptive / adaptive without the data path ${geo(data)} (pages that need the browser served from their data) × without the data path / every page rendered ${geo(http)} (fetching over HTTP what needs no browser) × every page rendered on adaptive's kept tabs / browser ${geo(renders)} (adaptive's cheaper renders: kept tabs, nothing loaded the analysis does not read).`,
      `CPU per page, per rep paired: adaptive / browser ${geo(ratioOf('ours (adaptive)', 'ours (browser)', (r) => r.cpuMsPerPage))}; every page rendered / browser ${geo(ratioOf('ours (adaptive, all rendered)', 'ours (browser)', (r) => r.cpuMsPerPage))}.`,
    );
  }
  const blocking = ratioOf('ours (browser)', 'ours (browser, no request blocking)');
  if (blocking.length) {
    lines.push(
      `Request blocking (images, media, fonts, styles, beacons, ad and analytics hosts not fetched), per rep paired: the browser fetcher with it / without it ${geo(blocking)} pages/s; CPU per page ${geo(ratioOf('ours (browser)', 'ours (browser, no request blocking)', (r) => r.cpuMsPerPage))}.`,
    );
  }
  const crawlee = ratioOf('ours (adaptive)', 'crawlee AdaptivePlaywrightCrawler');
  if (crawlee.length) lines.push(`adaptive / Crawlee's AdaptivePlaywrightCrawler, per rep paired: ${geo(crawlee)} (per rep ${crawlee.map((x) => `${x.toFixed(2)}×`).join(', ')}).`);
  // Every run, as it ran: the side-by-side figures of one rep are comparable, reps at other loads less so.
  lines.push('', '| rep | crawler | pages/s | CPU ms/page | peak RSS MB (tree) | peak PSS MB (tree) | harvest | load |', '|---:|---|---:|---:|---:|---:|---:|---:|');
  for (const r of b.runs) lines.push(`| ${r.rep + 1} | ${r.crawler} | ${r.pagesPerSecond.toFixed(2)} | ${r.cpuMsPerPage.toFixed(0)} | ${r.peakRssMb.toFixed(0)} | ${r.peakPssMb?.toFixed(0) ?? '–'} | ${(r.harvest * 100).toFixed(1)}% | ${r.loadAverage?.toFixed(1) ?? ''} |`);
  // Where the memory is: the process tree at each crawler's highest peak, by component.
  const withParts = ADAPTIVE_CRAWLERS.flatMap((c) => {
    const rs = b.runs.filter((r) => r.crawler === c && r.peakParts);
    if (!rs.length) return [];
    const top = rs.reduce((x, y) => (y.peakRssMb > x.peakRssMb ? y : x));
    return [{ c, top }];
  });
  if (withParts.length) {
    lines.push('', 'The process tree at each crawler\'s highest peak (RSS summed per component, PSS in parentheses; processes in brackets):', '');
    for (const { c, top } of withParts) lines.push(`- ${c}: ${top.peakRssMb.toFixed(0)} MB = ${partsLine(top.peakParts!)}`);
  }
  // Where the time is: our crawls' stage profile, per page, mean over reps.
  const staged = ADAPTIVE_CRAWLERS.flatMap((c) => {
    const rs = b.runs.filter((r) => r.crawler === c && r.stages);
    if (!rs.length) return [];
    const sum = (pick: (s: StageTimes) => Record<string, StageFigure>) => {
      const out: Record<string, StageFigure> = {};
      for (const r of rs) for (const [k, f] of Object.entries(pick(r.stages!))) {
        const o = (out[k] ??= { ms: 0, calls: 0 });
        o.ms += f.ms;
        o.calls += f.calls;
      }
      return out;
    };
    return [{ c, s: { pages: rs.reduce((a, r) => a + r.stages!.pages, 0), work: sum((x) => x.work), waits: sum((x) => x.waits) } }];
  });
  if (staged.length) {
    lines.push('', 'Where the time goes, ms per page (mean over reps): event-loop work by stage, each exclusive of the stages inside it, then what one page waits for (waits overlap across the concurrent pages):', '');
    for (const { c, s } of staged) lines.push(`- ${c}: ${stagesLine(s)}`);
  }
  const fp = b.fixedPath;
  if (fp) {
    lines.push(`At a fixed crawl path (concurrency 1, ${fp.budget} pages, one page at a time): harvest adaptive ${(fp.harvest.adaptive * 100).toFixed(1)}% vs browser ${(fp.harvest.browser * 100).toFixed(1)}%; both fetched the same URLs in the same order for ${fp.samePrefix} of ${fp.budget} pages${fp.divergence ? ` (then ${fp.divergence.adaptive} vs ${fp.divergence.browser})` : ''}${fp.browserAgain ? `; a second browser run: ${(fp.browserAgain.harvest * 100).toFixed(1)}%, same order for ${fp.browserAgain.samePrefix}` : ''}.`);
  }
  for (const c of ['ours (adaptive)', 'ours (adaptive, no data path)'] as const) {
    const rs = b.runs.filter((r) => r.crawler === c && r.neededShare !== undefined);
    if (!rs.length) continue;
    const avg = (f: (r: AdaptiveRun) => number) => rs.reduce((a, r) => a + f(r), 0) / rs.length;
    const needs = avg((r) => r.neededShare! + (r.dataShare ?? 0));
    lines.push(`${c}: pages whose pattern needs the browser (HTTP analysis differed) ${(needs * 100).toFixed(0)}% of the budget, of them rendered ${(avg((r) => r.neededShare!) * 100).toFixed(0)}% and served from their data ${(avg((r) => r.dataShare ?? 0) * 100).toFixed(0)}% (per rep rendered ${rs.map((r) => `${(r.neededShare! * 100).toFixed(0)}%`).join(', ')}).`);
  }
  if (b.f1) lines.push(`Main text of the ${b.f1.pages} pages adaptive fetched over HTTP vs a browser rendering of the same pages: shingle F1 mean ${b.f1.mean.toFixed(4)}, min ${b.f1.min.toFixed(4)} (${b.f1.below098} below 0.98).`);
  if (b.dataF1) lines.push(`Main text of the ${b.dataF1.pages} pages adaptive served from their data (http+data) vs a browser rendering of the same pages: shingle F1 mean ${b.dataF1.mean.toFixed(4)}, min ${b.dataF1.min.toFixed(4)} (${b.dataF1.below098} below 0.98).`);
  return lines.join('\n');
}
