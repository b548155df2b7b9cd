/**
 * `npm run bench:redis -- [--budget 240] [--latency 1000] [--workers 1,2,4] [--concurrency 2]`:
 * how a crawl scales with workers sharing one Redis frontier (src/frontier/redis.ts). The local
 * test web answers every request after a fixed latency (a far-away web, so the crawl is
 * I/O-bound as on the real web); each worker is a real `npm start` process (HTTP fetcher) on a
 * redis-server this bench starts on loopback. For 1, 2 and 4 workers at the same total budget:
 * pages/s (all workers' pages over the time from the first fetch to the last, so process start
 * is not counted) and the harvest rate against the test web's ground truth. The in-memory
 * frontier (one process, no Redis) is run too, as the reference, with one worker's concurrency
 * and with the most workers' total (`--memory-concurrency`): parallelism alone costs a best-first
 * crawl some harvest (URLs handed out before their neighbours' verdicts are in), so the second
 * reference separates that from what splitting the scorer's state across workers costs.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { CrawlLog, type CrawlLogEntry } from '../src/store/crawl-log.js';
import { startRedis, redisMissing } from '../src/testweb/redis-server.js';
import { startTestWeb } from '../src/testweb/index.js';

const { values } = parseArgs({
  options: {
    budget: { type: 'string', default: '240' },
    latency: { type: 'string', default: '1000' },
    workers: { type: 'string', default: '1,2,4' },
    concurrency: { type: 'string', default: '2' },
    'memory-concurrency': { type: 'string' },
  },
});
const budget = Number(values.budget);
const latencyMs = Number(values.latency);
const concurrency = Number(values.concurrency);
const workerCounts = values.workers.split(',').filter(Boolean).map(Number);
const memoryConcurrency = (values['memory-concurrency'] ?? `${concurrency},${Math.max(1, ...workerCounts) * concurrency}`).split(',').filter(Boolean).map(Number);
if (![budget, latencyMs, concurrency, ...workerCounts, ...memoryConcurrency].every((n) => Number.isInteger(n) && n >= 0) || budget < 1 || concurrency < 1) {
  process.stderr.write('error: usage: npm run bench:redis -- [--budget N] [--latency MS] [--workers 1,2,4] [--concurrency N]\n');
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
const configFile = join(storage, 'crawl.json');
writeFileSync(configFile, JSON.stringify({ topics: [{ keywords: web.demo.keywords }], allowPrivate: web.sites.map((s) => s.origin) }));
const log = (l: string) => process.stderr.write(`${l}\n`);

function runWorker(args: string[]): Promise<void> {
  return new Promise((ok, no) => {
    const c = spawn(process.execPath, ['--import', 'tsx', join(root, 'src/cli/main.ts'), ...args], { cwd: root, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, CI: '1' } });
    let err = '';
    c.stderr!.on('data', (d) => (err += String(d)));
    c.once('exit', (code) => (code === 0 ? ok() : no(new Error(`worker exited ${code}: ${err.trim().split('\n').slice(-3).join(' | ')}`))));
  });
}

const common = ['--config', configFile, '--topic', web.demo.keywords.join(' '), '--fetcher', 'http', '--max-pages', String(budget), '--per-host', '8', '--storage', storage];

function logsOf(prefix: string): CrawlLogEntry[] {
  const runs = join(storage, 'runs');
  return readdirSync(runs)
    .filter((d) => d === prefix || d.startsWith(`${prefix}.w`))
    .flatMap((d) => (existsSync(join(runs, d, 'crawl-log.jsonl')) ? CrawlLog.read(join(runs, d, 'crawl-log.jsonl')) : []));
}

interface Row {
  setup: string;
  workers: number;
  pages: number;
  seconds: number;
  pagesPerSec: number;
  harvest: number;
}

function measure(setup: string, workers: number, entries: CrawlLogEntry[]): Row {
  const times = entries.map((e) => Date.parse(e.time)).sort((a, b) => a - b);
  // First fetch to last: each page's time is when its answer arrived, so add one latency for the first request.
  const seconds = (times[times.length - 1] - times[0] + latencyMs) / 1000;
  const relevant = entries.filter((e) => web.isRelevant(e.url, web.demo.topic)).length;
  return { setup, workers, pages: entries.length, seconds, pagesPerSec: entries.length / seconds, harvest: relevant / entries.length };
}

const rows: Row[] = [];
try {
  log(`bench:redis: budget ${budget}, latency ${latencyMs} ms per response, concurrency ${concurrency} per worker, workers ${workerCounts.join(',')}`);
  // Reference: the in-memory frontier, one process.
  for (const c of memoryConcurrency) {
    const before = new Set(existsSync(join(storage, 'runs')) ? readdirSync(join(storage, 'runs')) : []);
    await runWorker([...common, '--concurrency', String(c), '--seeds', ...web.demo.seeds]);
    const memRun = readdirSync(join(storage, 'runs')).find((d) => !before.has(d) && !d.includes('.w'))!;
    rows.push(measure(`in-memory frontier, concurrency ${c}`, 1, logsOf(memRun)));
    log(`in-memory, concurrency ${c}: ${rows.at(-1)!.pagesPerSec.toFixed(2)} pages/s`);
  }
  for (const n of workerCounts) {
    const id = `scale-${n}`;
    const shared = ['--frontier', redis.url, '--crawl-id', id, '--concurrency', String(concurrency)];
    await Promise.all([runWorker([...common, ...shared, '--seeds', ...web.demo.seeds]), ...Array.from({ length: n - 1 }, () => runWorker([...common, ...shared, '--worker']))]);
    rows.push(measure(`Redis frontier, concurrency ${concurrency} each`, n, logsOf(id)));
    log(`${n} worker(s): ${rows.at(-1)!.pagesPerSec.toFixed(2)} pages/s`);
  }
} finally {
  await redis.stop();
  await web.close();
  rmSync(storage, { recursive: true, force: true });
}

const one = rows.find((r) => r.setup.startsWith('Redis') && r.workers === 1);
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
console.log(`\n| frontier | workers | pages | seconds (first to last fetch) | pages/s | × one worker | harvest (truth) | vs one worker |`);
console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
for (const r of rows) {
  const speedup = one ? `${(r.pagesPerSec / one.pagesPerSec).toFixed(2)}×` : '–';
  const dh = one ? `${((r.harvest - one.harvest) * 100 >= 0 ? '+' : '')}${((r.harvest - one.harvest) * 100).toFixed(1)} points` : '–';
  console.log(`| ${r.setup} | ${r.workers} | ${r.pages} | ${r.seconds.toFixed(1)} | ${r.pagesPerSec.toFixed(2)} | ${speedup} | ${pct(r.harvest)} | ${dh} |`);
}
console.log(`\nCommand: npm run bench:redis -- --budget ${budget} --latency ${latencyMs} --workers ${workerCounts.join(',')} --concurrency ${concurrency} --memory-concurrency ${memoryConcurrency.join(',')}`);
