/**
 * `npm run bench:dashboard -- [--pages N] [--reps N]`: what the live dashboard costs a crawl in
 * pages/s. The same test-web crawl (HTTP fetcher) with and without the dashboard, the two kinds
 * of run interleaved (with, without, with, …, so a change in the machine's load falls on both),
 * each in a fresh storage folder. (Not in the fixed fetch order: it serialises the hand-out, so a
 * run would measure the order's waits rather than the crawl's work.) With the dashboard, a client listens to its events for the
 * whole run as a browser would (every section rendered and sent each second); the client reads
 * the stream in this process, so its own cost counts against the dashboard too.
 * Writes the "Live dashboard" section of docs/benchmarks.md.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { parseConfig } from '../src/config/schema.js';
import { configPlugins } from '../src/crawl/config-plugins.js';
import { runCrawl } from '../src/crawl/engine.js';
import { ProgressReporter } from '../src/report/progress.js';
import { startTestWeb } from '../src/testweb/index.js';
import { machineLine, writeBenchSection } from './bench-page.js';
import { pairedInterval } from './paired-interval.js';

const { values } = parseArgs({ options: { pages: { type: 'string', default: '150' }, reps: { type: 'string', default: '3' } } });
const pages = Number(values.pages);
const reps = Number(values.reps);
const loadBefore = loadavg();

async function listen(url: string, stop: AbortSignal): Promise<{ events: number; bytes: number }> {
  const seen = { events: 0, bytes: 0 };
  const events = new URL(url);
  events.pathname = '/events';
  try {
    const res = await fetch(events, { signal: stop });
    const reader = res.body!.getReader();
    const dec = new TextDecoder();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      seen.bytes += value.byteLength;
      seen.events += (dec.decode(value, { stream: true }).match(/^data: /gm) ?? []).length;
    }
  } catch {
    // the crawl ended and closed the stream, or the run is over
  }
  return seen;
}

async function once(dashboard: boolean): Promise<{ pps: number; cpuMsPerPage: number; fetched: number; events: number; kb: number }> {
  const storageDir = mkdtempSync(join(tmpdir(), 'fc-bench-dash-'));
  const web = await startTestWeb({});
  const stop = new AbortController();
  let client: Promise<{ events: number; bytes: number }> | undefined;
  try {
    const config = parseConfig({ topics: [{ keywords: web.demo.keywords, seeds: web.demo.seeds }], allowPrivate: web.sites.map((s) => s.origin), storageDir, maxPages: pages, fetcher: 'http', ...(dashboard ? { dashboard: 0 } : {}) });
    const plugins = await configPlugins(config, { now: () => web.clock.now(), onDashboard: (url) => void (client = listen(url, stop.signal)) });
    const cpu0 = process.cpuUsage();
    const r = await runCrawl({ config, plugins, progress: new ProgressReporter({ quiet: true }), handleSigint: false });
    const cpu = process.cpuUsage(cpu0);
    stop.abort();
    const seen = (await client) ?? { events: 0, bytes: 0 };
    return { pps: r.pagesPerSecond, cpuMsPerPage: (cpu.user + cpu.system) / 1000 / Math.max(1, r.fetched), fetched: r.fetched, events: seen.events, kb: seen.bytes / 1024 };
  } finally {
    stop.abort();
    await web.close();
    rmSync(storageDir, { recursive: true, force: true });
  }
}

// The first crawl in a process pays for loading the tokenizer, the lexicon and the JIT's warm-up;
// one pair is run and dropped so that cost falls on neither side.
for (const dashboard of [true, false]) {
  const r = await once(dashboard);
  console.error(`warm-up ${dashboard ? 'with   ' : 'without'} ${r.fetched} pages ${r.pps.toFixed(2)} pages/s (not counted)`);
}
const runs: { dashboard: boolean; pps: number; cpuMsPerPage: number; fetched: number; events: number; kb: number }[] = [];
for (let i = 0; i < reps; i++) {
  for (const dashboard of i % 2 ? [false, true] : [true, false]) {
    const r = await once(dashboard);
    runs.push({ dashboard, ...r });
    console.error(`${dashboard ? 'with   ' : 'without'} ${r.fetched} pages ${r.pps.toFixed(2)} pages/s ${r.cpuMsPerPage.toFixed(1)} CPU ms/page${dashboard ? ` (${r.events} updates, ${r.kb.toFixed(0)} KB sent)` : ''}`);
  }
}
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const withD = runs.filter((r) => r.dashboard).map((r) => r.pps);
const without = runs.filter((r) => !r.dashboard).map((r) => r.pps);
const cost = 1 - mean(withD) / mean(without);
// Each rep's pair ran back to back, so the per-rep cost is a paired measure of the same load.
const perRep = withD.map((w, i) => 1 - w / without[i]);
const interval = pairedInterval(perRep);
// CPU per page of the crawl's process (the dashboard, its server and the listening client all run
// in it): on a shared machine the wall clock varies with the load and the crawl's path far more
// than with the dashboard, the CPU a page takes much less.
const cpuWith = mean(runs.filter((r) => r.dashboard).map((r) => r.cpuMsPerPage));
const cpuWithout = mean(runs.filter((r) => !r.dashboard).map((r) => r.cpuMsPerPage));
const cpuPerRep = runs.filter((r) => r.dashboard).map((r, i) => r.cpuMsPerPage / runs.filter((x) => !x.dashboard)[i].cpuMsPerPage - 1);
const cpuInterval = pairedInterval(cpuPerRep);
const cpuText = `CPU per page: ${cpuWith.toFixed(1)} ms with the dashboard, ${cpuWithout.toFixed(1)} ms without: **${((cpuWith / cpuWithout - 1) * 100).toFixed(1)}%** more${cpuInterval ? ` (per rep paired, 95% interval ${(cpuInterval.low * 100).toFixed(1)}% to ${(cpuInterval.high * 100).toFixed(1)}%)` : ''}; a crawl bound by its CPU loses that share of its pages/s`;
const intervalText = interval ? `; per-rep cost ${perRep.map((c) => `${(c * 100).toFixed(1)}%`).join(', ')}, 95% interval ${(interval.low * 100).toFixed(1)}% to ${(interval.high * 100).toFixed(1)}%` : '';
const rows = runs.map((r, i) => `| ${i + 1} | ${r.dashboard ? 'with' : 'without'} | ${r.fetched} | ${r.pps.toFixed(2)} | ${r.cpuMsPerPage.toFixed(1)} | ${r.dashboard ? `${r.events} / ${r.kb.toFixed(0)} KB` : '–'} |`);
writeBenchSection({
  name: 'dashboard',
  title: 'Live dashboard',
  command: `npm run bench:dashboard -- --pages ${pages} --reps ${reps}`,
  body: `The same test-web crawl (${pages} pages, HTTP fetcher) with \`--dashboard\` and a client listening to its updates, and without, interleaved (one pair run first and not counted: the first crawl of a process loads the tokenizer and warms the JIT); pages/s of each run.

| run | dashboard | pages | pages/s | CPU ms/page | updates / sent |
|---|---|---|---|---|---|
${rows.join('\n')}

Mean pages/s: ${mean(withD).toFixed(2)} with the dashboard, ${mean(without).toFixed(2)} without: the dashboard costs **${(cost * 100).toFixed(1)}%** of the pages/s (negative: no cost measurable above the run-to-run spread, ${(((Math.max(...without) - Math.min(...without)) / mean(without)) * 100).toFixed(0)}% between runs without it${intervalText}).

${cpuText}.

${machineLine(loadBefore)}`,
});
console.log(`dashboard cost: ${(cost * 100).toFixed(1)}% of pages/s (with ${mean(withD).toFixed(2)}, without ${mean(without).toFixed(2)})${intervalText}\n${cpuText}`);
