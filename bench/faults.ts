/**
 * `npm run bench:faults -- [--kills 20] [--budget 60] [--fetcher browser|http] [--seed 1]`:
 * the kill soak. It serves the local test web itself (so it outlives every kill), runs one
 * uninterrupted reference crawl, then starts the same crawl as its own process group and
 * `kill -9`s the whole group (Node and Chromium) at random moments — while starting, while
 * crawling, while writing state — `--kills` times, resuming after each, and lets the last resume
 * finish. It reports URLs fetched twice, budget lost, unreadable files (state, journal, crawl
 * log, dataset), dataset entries against the crawl log's `saved` lines, and browsers left
 * behind by a kill.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startTestWeb } from '../src/testweb/index.js';
import { Rng } from '../src/util/rng.js';
import { CrawlLog } from '../src/store/crawl-log.js';

const { values } = parseArgs({
  options: {
    kills: { type: 'string', default: '20' },
    budget: { type: 'string', default: '400' },
    fetcher: { type: 'string', default: 'browser' },
    seed: { type: 'string', default: '1' },
    'max-delay': { type: 'string', default: '20' },
  },
});
const kills = Number(values.kills);
const budget = Number(values.budget);
const fetcher = values.fetcher;
const maxDelayMs = Number(values['max-delay']) * 1000;
if (!Number.isInteger(kills) || kills < 0 || !Number.isInteger(budget) || budget < 1 || (fetcher !== 'browser' && fetcher !== 'http')) {
  process.stderr.write('error: usage: npm run bench:faults -- [--kills N] [--budget N] [--fetcher browser|http] [--seed N] [--max-delay SECS]\n');
  process.exit(2);
}
const rng = new Rng(Number(values.seed)).fork('kill-times'); // forked: a fresh small seed's first draws sit together
const root = new URL('..', import.meta.url).pathname;

/** Every process whose parent chain leads to `pid` (from /proc). */
function descendants(pid: number): number[] {
  const parent = new Map<number, number>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parent.set(Number(d), ppid);
    } catch {
      // gone
    }
  }
  const out: number[] = [];
  for (const p of parent.keys()) {
    for (let q = parent.get(p); q !== undefined && q > 1; q = parent.get(q)) {
      if (q === pid) {
        out.push(p);
        break;
      }
    }
  }
  return out;
}
const alive = (pid: number) => existsSync(`/proc/${pid}`) && !readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z ');
const isBrowser = (pid: number) => {
  try {
    return /chrom/i.test(readFileSync(`/proc/${pid}/cmdline`, 'utf8'));
  } catch {
    return false;
  }
};

function crawlProcess(args: string[]): ChildProcess {
  // Its own process group (detached), so one kill reaches Node and every browser it started.
  return spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { cwd: root, detached: true, stdio: ['ignore', 'ignore', 'pipe'] });
}
const exited = (c: ChildProcess) => new Promise<number | null>((ok) => (c.exitCode !== null || c.signalCode !== null ? ok(c.exitCode) : c.once('exit', (code) => ok(code))));

async function waitGone(pids: number[], ms: number): Promise<number[]> {
  const until = Date.now() + ms;
  for (;;) {
    const left = pids.filter(alive);
    if (left.length === 0 || Date.now() > until) return left;
    await new Promise((ok) => setTimeout(ok, 100));
  }
}

function inspect(storage: string) {
  const runs = join(storage, 'runs');
  const runIds = existsSync(runs) ? readdirSync(runs) : [];
  let corrupted = 0;
  const problems: string[] = [];
  const json = (p: string) => {
    try {
      JSON.parse(readFileSync(p, 'utf8'));
    } catch (e) {
      corrupted++;
      problems.push(`${p}: ${(e as Error).message}`);
    }
  };
  const runDir = join(runs, runIds[0] ?? 'none');
  json(join(runDir, 'state.json'));
  for (const f of existsSync(runDir) ? readdirSync(runDir) : []) if (f.endsWith('.json') && f !== 'state.json') json(join(runDir, f));
  // JSON Lines files: every line but a torn last one must parse.
  for (const f of existsSync(runDir) ? readdirSync(runDir) : []) {
    if (!f.endsWith('.jsonl')) continue;
    const lines = readFileSync(join(runDir, f), 'utf8').split('\n');
    lines.slice(0, -2).forEach((l, i) => {
      if (!l) return;
      try {
        JSON.parse(l);
      } catch {
        corrupted++;
        problems.push(`${f}:${i + 1}: unreadable line`);
      }
    });
  }
  const log = CrawlLog.read(join(runDir, 'crawl-log.jsonl'));
  const datasetDir = join(storage, 'datasets', `run-${runIds[0]}`);
  const dataset = existsSync(datasetDir) ? readdirSync(datasetDir).filter((f) => f.endsWith('.json')) : [];
  for (const f of dataset) json(join(datasetDir, f));
  const discovery = log.filter((e) => e.decision !== 'revisit');
  const urls = discovery.map((e) => e.url);
  return {
    runs: runIds.length,
    lines: log.length,
    duplicated: urls.length - new Set(urls).size,
    saved: log.filter((e) => e.decision === 'saved').length,
    datasetEntries: dataset.length,
    corrupted,
    problems,
  };
}

async function main(): Promise<void> {
  const web = await startTestWeb({ slowPageMs: 500 });
  const dir = mkdtempSync(join(tmpdir(), 'fc-faults-'));
  const config = join(dir, 'config.json');
  writeFileSync(
    config,
    JSON.stringify({
      topics: [{ keywords: web.demo.keywords, seeds: web.demo.seeds }],
      allowPrivate: web.sites.map((s) => s.origin),
      maxPages: budget,
      maxConcurrency: 3,
      fetcher,
    }),
  );
  const log = (s: string) => process.stderr.write(`${s}\n`);
  try {
    log(`bench:faults: ${kills} kills, budget ${budget}, ${fetcher} fetcher, in ${dir}`);
    const refStorage = join(dir, 'reference');
    const ref = crawlProcess(['--config', config, '--storage', refStorage]);
    const refCode = await exited(ref);
    const reference = inspect(refStorage);
    log(`reference: exit ${refCode}, ${reference.lines} pages`);

    const storage = join(dir, 'soak');
    let orphans = 0;
    const killLog: { delayMs: number; linesBefore: number }[] = [];
    let finished = false;
    for (let k = 0; k <= kills && !finished; k++) {
      // Killed before its run folder existed (while starting): start afresh; otherwise resume.
      const started = existsSync(join(storage, 'runs')) && readdirSync(join(storage, 'runs')).length > 0;
      const args = started ? ['--resume', '--storage', storage] : ['--config', config, '--storage', storage];
      const child = crawlProcess(args);
      let stderr = '';
      child.stderr!.on('data', (c) => (stderr += String(c)));
      if (k === kills) {
        const code = await exited(child);
        if (code !== 0) log(`final resume: exit ${code}: ${stderr.trim().split('\n').slice(-3).join(' | ')}`);
        break;
      }
      const delayMs = Math.round(300 + rng.float() * maxDelayMs);
      const done = await Promise.race([exited(child).then(() => true), new Promise<false>((ok) => setTimeout(() => ok(false), delayMs))]);
      if (done) {
        log(`round ${k + 1}: the crawl ended before the kill (exit ${child.exitCode}; ${delayMs} ms)${child.exitCode ? `: ${stderr.trim().split('\n').at(-1)}` : ''}`);
        finished = child.exitCode === 0;
        if (!finished) k--; // not a kill: try the round again
        continue;
      }
      const family = descendants(child.pid!);
      const linesBefore = inspect(storage).lines;
      process.kill(-child.pid!, 'SIGKILL');
      await exited(child);
      const left = await waitGone(family, 10_000);
      const browsersLeft = left.filter(isBrowser);
      orphans += browsersLeft.length;
      for (const p of left) {
        try {
          process.kill(p, 'SIGKILL'); // clean up whatever the kill left, so the next round starts clean
        } catch {
          // gone
        }
      }
      killLog.push({ delayMs, linesBefore });
      log(`kill ${k + 1}/${kills} after ${delayMs} ms: ${linesBefore} pages logged, ${browsersLeft.length} browser processes left`);
    }
    const soak = inspect(storage);
    const lost = Math.max(0, Math.min(budget, reference.lines) - (soak.lines - soak.duplicated));
    const rows = [
      ['kills (kill -9 of the process group)', String(killLog.length)],
      ['pages in the crawl log (reference / soak)', `${reference.lines} / ${soak.lines}`],
      ['URLs fetched twice', String(soak.duplicated)],
      ['budget lost (pages not fetched)', String(lost)],
      ['unreadable files or lines (state, journal, logs, dataset)', String(soak.corrupted)],
      ['dataset entries / `saved` lines', `${soak.datasetEntries} / ${soak.saved}`],
      ['browser processes left behind by a kill', String(orphans)],
      ['runs in the storage folder', String(soak.runs)],
    ];
    console.log(`\n| measure | value |\n|---|---:|\n${rows.map((r) => `| ${r[0]} | ${r[1]} |`).join('\n')}`);
    console.log(`\nCommand: npm run bench:faults -- --kills ${kills} --budget ${budget} --fetcher ${fetcher} --seed ${values.seed}`);
    for (const p of soak.problems.slice(0, 10)) log(`problem: ${p}`);
  } finally {
    await web.close();
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    process.stderr.write(`internal error: ${(e as Error).stack}\n`);
    process.exit(1);
  },
);
