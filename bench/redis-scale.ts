/**
 * `npm run bench:redis -- [--budget 240] [--latency 1000] [--workers 1,2,4] [--concurrency 2]`:
 * how a crawl scales with workers sharing one Redis frontier (src/cluster/redis-frontier.ts). The local
 * test web answers every request after a fixed latency (a far-away web, so the crawl is
 * I/O-bound as on the real web); each worker is a real `npm start` process (`--fetcher`, default the crawler's own adaptive one) on a
 * redis-server this bench starts on loopback. For 1, 2 and 4 workers at the same total budget:
 * pages/s (all workers' pages over the time from the first fetch to the last, so process start
 * is not counted) and the harvest rate against the test web's ground truth. The in-memory
 * frontier (one process, no Redis) is run too, as the reference, with one worker's concurrency
 * and with the most workers' total (`--memory-concurrency`): parallelism alone costs a best-first
 * crawl some harvest (URLs handed out before their neighbours' verdicts are in), so the second
 * reference separates that from what splitting the scorer's state across workers costs.
 *
 * `--reps N` runs every setup N times, interleaved (rep r uses random seed r, from `--first-seed`, so the runs differ
 * beyond timing), and reports mean and spread: one run of a 200-page crawl is too noisy to decide
 * a 3-point harvest difference, so it also prints, paired by rep against one worker, the harvest
 * difference and the speed-up with their 95% intervals, and the machine's load. `--scorer shared,scorer,local` runs the workers sharing their
 * scorers' and page judges' inputs through Redis (src/cluster/redis-scorer-pages.ts,
 * redis-judge-inputs.ts), the scorers' only (the crawler's defaults), or neither, side by side. Per run it also reports where the time went: how
 * long after the first fetch the last worker fetched its first page (start-up inside the window),
 * and the tail between the workers' median last fetch and the last one. `--keep` keeps the runs'
 * folders (crawl logs per worker) in the temp folder and prints where, to read what a run fetched.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { crawlPrefix } from '../src/cluster/redis-frontier.js';
import { CrawlLog, type CrawlLogEntry } from '../src/store/crawl-log.js';
import { startRedis, redisMissing } from '../src/testweb/redis-server.js';
import { startTestWeb } from '../src/testweb/index.js';
import { pairedInterval } from './paired-interval.js';

const { values } = parseArgs({
  options: {
    budget: { type: 'string', default: '240' },
    latency: { type: 'string', default: '1000' },
    workers: { type: 'string', default: '1,2,4' },
    concurrency: { type: 'string', default: '2' },
    'memory-concurrency': { type: 'string' },
    reps: { type: 'string', default: '1' },
    'first-seed': { type: 'string', default: '1' },
    scorer: { type: 'string', default: 'scorer' },
    keep: { type: 'boolean', default: false },
    fetcher: { type: 'string', default: 'adaptive' },
  },
});
const budget = Number(values.budget);
const latencyMs = Number(values.latency);
const concurrency = Number(values.concurrency);
const reps = Number(values.reps);
const firstSeed = Number(values['first-seed']);
const workerCounts = values.workers.split(',').filter(Boolean).map(Number);
const scorerModes = values.scorer.split(',').filter(Boolean);
const memoryConcurrency = (values['memory-concurrency'] ?? `${concurrency},${Math.max(1, ...workerCounts) * concurrency}`).split(',').filter(Boolean).map(Number);
if (
  ![budget, latencyMs, concurrency, reps, firstSeed, ...workerCounts, ...memoryConcurrency].every((n) => Number.isInteger(n) && n >= 0) ||
  budget < 1 ||
  concurrency < 1 ||
  reps < 1 ||
  !scorerModes.every((m) => ['shared', 'scorer', 'local'].includes(m)) ||
  !['adaptive', 'http', 'browser'].includes(values.fetcher)
) {
  process.stderr.write('error: usage: npm run bench:redis -- [--budget N] [--latency MS] [--workers 1,2,4] [--concurrency N] [--memory-concurrency 2,8] [--reps N] [--first-seed 1] [--scorer shared,scorer,local] [--fetcher adaptive|http|browser] [--keep]\n');
  process.exit(2);
}
const missing = redisMissing();
if (missing) {
  process.stderr.write(`${missing}\n`);
  process.exit(0);
}

const root = join(import.meta.dirname, '..');
const web = await startTestWeb({ latencyMs, slowPageMs: 500 });
const redis = await startRedis();
const storage = mkdtempSync(join(tmpdir(), 'bench-redis-'));
const log = (l: string) => process.stderr.write(`${l}\n`);

/** What the workers share: `shared` the scorers' and the judges' inputs, `scorer` the scorers' only (the defaults), `local` neither. */
function configFile(rep: number, mode: string): string {
  const f = join(storage, `crawl-r${rep}-${mode}.json`);
  const frontier = { shareScorer: mode !== 'local', shareJudge: mode === 'shared' };
  writeFileSync(f, JSON.stringify({ topics: [{ keywords: web.demo.keywords }], allowPrivate: web.sites.map((s) => s.origin), randomSeed: rep, frontier }));
  return f;
}

function runWorker(args: string[]): Promise<void> {
  return new Promise((ok, no) => {
    const c = spawn(process.execPath, ['--import', 'tsx', join(root, 'src/cli/main.ts'), ...args], { cwd: root, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, CI: '1' } });
    let err = '';
    c.stderr!.on('data', (d) => (err += String(d)));
    c.once('exit', (code) => (code === 0 ? ok() : no(new Error(`worker exited ${code}: ${err.trim().split('\n').slice(-3).join(' | ')}`))));
  });
}

const common = (rep: number, mode: string) => ['--config', configFile(rep, mode), '--topic', web.demo.keywords.join(' '), '--fetcher', values.fetcher, '--max-pages', String(budget), '--per-host', '8', '--storage', storage];

/** Each worker's crawl log of one crawl (run folder `prefix`, or `prefix.wN` per worker). */
function logsOf(prefix: string): CrawlLogEntry[][] {
  const runs = join(storage, 'runs');
  return readdirSync(runs)
    .filter((d) => d === prefix || d.startsWith(`${prefix}.w`))
    .map((d) => (existsSync(join(runs, d, 'crawl-log.jsonl')) ? CrawlLog.read(join(runs, d, 'crawl-log.jsonl')) : []))
    .filter((l) => l.length > 0);
}

interface Run {
  setup: string;
  /** The rep (its random seed): runs of one rep are paired. */
  rep: number;
  /** The machine's 1-minute load average when the run started and when it ended. */
  load: [number, number];
  workers: number;
  pages: number;
  seconds: number;
  pagesPerSec: number;
  harvest: number;
  /** Seconds from the first fetch until the last worker's first fetch. */
  rampSecs: number;
  /** Seconds from the workers' median last fetch to the last fetch. */
  tailSecs: number;
  /** Scores Redis refused as less informed than the queued one's (shared scorers, src/cluster/redis-scripts.ts). */
  stale?: number;
}

function measure(setup: string, rep: number, loadAtStart: number, workers: number, perWorker: CrawlLogEntry[][]): Run {
  const entries = perWorker.flat();
  const times = entries.map((e) => Date.parse(e.time)).sort((a, b) => a - b);
  // First fetch to last: each page's time is when its answer arrived, so add one latency for the first request.
  const seconds = (times[times.length - 1] - times[0] + latencyMs) / 1000;
  const relevant = entries.filter((e) => web.isRelevant(e.url, web.demo.topic)).length;
  const firsts = perWorker.map((l) => Math.min(...l.map((e) => Date.parse(e.time))));
  const lasts = perWorker.map((l) => Math.max(...l.map((e) => Date.parse(e.time)))).sort((a, b) => a - b);
  return {
    setup,
    rep,
    load: [loadAtStart, loadavg()[0]],
    workers,
    pages: entries.length,
    seconds,
    pagesPerSec: entries.length / seconds,
    harvest: relevant / entries.length,
    rampSecs: (Math.max(...firsts) - times[0]) / 1000,
    tailSecs: (times[times.length - 1] - lasts[Math.floor((lasts.length - 1) / 2)]) / 1000,
  };
}

const runs: Run[] = [];
const metaClient = new Redis(redis.url);
try {
  log(`bench:redis: ${values.fetcher} fetcher, budget ${budget}, latency ${latencyMs} ms per response, concurrency ${concurrency} per worker, workers ${workerCounts.join(',')}, scorer ${scorerModes.join(',')}, ${reps} rep(s)`);
  for (let rep = firstSeed; rep < firstSeed + reps; rep++) {
    // Reference: the in-memory frontier, one process.
    for (const c of memoryConcurrency) {
      const load0 = loadavg()[0];
      const before = new Set(existsSync(join(storage, 'runs')) ? readdirSync(join(storage, 'runs')) : []);
      await runWorker([...common(rep, 'shared'), '--concurrency', String(c), '--seeds', ...web.demo.seeds]);
      const memRun = readdirSync(join(storage, 'runs')).find((d) => !before.has(d) && !d.includes('.w'))!;
      runs.push(measure(`in-memory frontier, concurrency ${c}`, rep, load0, 1, logsOf(memRun)));
      log(`rep ${rep}, in-memory, concurrency ${c}: ${runs.at(-1)!.pagesPerSec.toFixed(2)} pages/s, harvest ${(runs.at(-1)!.harvest * 100).toFixed(1)}%`);
    }
    for (const mode of scorerModes) {
      for (const n of workerCounts) {
        if (n === 1 && mode !== scorerModes[0]) continue; // one worker: nothing to share, run once
        const id = `scale-${n}-${mode}-r${rep}`;
        const shared = ['--frontier', redis.url, '--crawl-id', id, '--concurrency', String(concurrency)];
        const c = common(rep, mode);
        const load0 = loadavg()[0];
        await Promise.all([runWorker([...c, ...shared, '--seeds', ...web.demo.seeds]), ...Array.from({ length: n - 1 }, () => runWorker([...c, ...shared, '--worker']))]);
        runs.push(measure(n === 1 ? `Redis frontier, concurrency ${concurrency}` : `Redis frontier, concurrency ${concurrency} each, sharing ${mode === 'shared' ? 'scorer+judge' : mode === 'scorer' ? 'scorer' : 'nothing'}`, rep, load0, n, logsOf(id)));
        const r = runs.at(-1)!;
        r.stale = Number((await metaClient.hget(`${crawlPrefix(id)}meta`, 'stale')) ?? 0);
        log(`rep ${rep}, ${n} worker(s), scorer ${mode}: ${r.pagesPerSec.toFixed(2)} pages/s, harvest ${(r.harvest * 100).toFixed(1)}%, last worker's first fetch +${r.rampSecs.toFixed(1)} s, tail ${r.tailSecs.toFixed(1)} s, ${r.stale} stale scores refused, load ${r.load.map((x) => x.toFixed(1)).join('→')}`);
      }
    }
  }
} finally {
  metaClient.disconnect();
  await redis.stop();
  await web.close();
  if (values.keep) log(`bench:redis: runs kept in ${storage} (crawl logs: runs/*/crawl-log.jsonl)`);
  else rmSync(storage, { recursive: true, force: true });
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const sd = (xs: number[]) => (xs.length < 2 ? 0 : Math.sqrt(xs.reduce((a, x) => a + (x - mean(xs)) ** 2, 0) / (xs.length - 1)));
const setups = [...new Map(runs.map((r) => [`${r.setup}|${r.workers}`, r])).values()];
const groups = setups.map((s) => runs.filter((r) => r.setup === s.setup && r.workers === s.workers));
const one = groups.find((g) => g[0].setup.startsWith('Redis') && g[0].workers === 1);
const pct = (x: number) => (x * 100).toFixed(1);
const signed = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(1)}`;
console.log(`\n| frontier | workers | runs | pages/s (mean ± sd) | × one worker | harvest (truth, mean ± sd) | vs one worker (points) | last worker's first fetch (s) | tail (s) |`);
console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const g of groups) {
  const pps = g.map((r) => r.pagesPerSec);
  const hv = g.map((r) => r.harvest);
  const speedup = one ? `${(mean(pps) / mean(one.map((r) => r.pagesPerSec))).toFixed(2)}×` : '–';
  const dh = one ? signed((mean(hv) - mean(one.map((r) => r.harvest))) * 100) : '–';
  console.log(
    `| ${g[0].setup} | ${g[0].workers} | ${g.length} | ${mean(pps).toFixed(2)} ± ${sd(pps).toFixed(2)} | ${speedup} | ${pct(mean(hv))}% ± ${pct(sd(hv))} | ${dh} | ${mean(g.map((r) => r.rampSecs)).toFixed(1)} | ${mean(g.map((r) => r.tailSecs)).toFixed(1)} |`,
  );
}
console.log(`\nPer run: ${runs.map((r) => `${r.setup} ×${r.workers} rep ${r.rep}: ${r.pagesPerSec.toFixed(2)}/s ${pct(r.harvest)}%`).join('; ')}`);
// Paired by rep (the same random seed) against one worker: the harvest difference in points and
// the speed-up (its interval on the log of the per-rep ratios), each with its 95% interval.
if (one) {
  for (const g of groups.filter((x) => x[0].setup.startsWith('Redis') && x[0].workers > 1)) {
    const pairs = g.flatMap((r) => one.filter((o) => o.rep === r.rep).map((o) => [r, o] as const));
    const dh = pairedInterval(pairs.map(([r, o]) => (r.harvest - o.harvest) * 100));
    const ratio = pairedInterval(pairs.map(([r, o]) => Math.log(r.pagesPerSec / o.pagesPerSec)));
    if (!dh || !ratio) continue;
    console.log(
      `${g[0].setup}, ${g[0].workers} workers vs one, paired over ${dh.n} reps: harvest ${signed(dh.mean)} points (95% interval ${signed(dh.low)} … ${signed(dh.high)}, sd ${dh.sd.toFixed(1)}); speed ${Math.exp(ratio.mean).toFixed(2)}× (95% interval ${Math.exp(ratio.low).toFixed(2)}–${Math.exp(ratio.high).toFixed(2)}×)`,
    );
  }
}
const loads = runs.flatMap((r) => r.load);
console.log(`Load average (1 min) at the runs' starts and ends: ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)}`);
console.log(
  `\nCommand: npm run bench:redis -- --budget ${budget} --latency ${latencyMs} --workers ${workerCounts.join(',')} --concurrency ${concurrency} --memory-concurrency ${memoryConcurrency.join(',')} --reps ${reps} --first-seed ${firstSeed} --scorer ${scorerModes.join(',')} --fetcher ${values.fetcher}`,
);
