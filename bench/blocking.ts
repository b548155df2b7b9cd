/**
 * `npm run bench:blocking`: what request blocking (`blockRequests`, src/fetch/page-load.ts) saves
 * per rendered page. The mixed test web with what real pages carry from other hosts (a stylesheet
 * naming a web font, a photo, a tracking pixel, from a CDN site that answers each after
 * `--third-party-ms`): the browser fetcher crawls it with blocking on and off, interleaved (the
 * order swapped each rep), same seeds and budget; pages/s, CPU ms per page of the process tree,
 * the CDN requests made, and the paired interval of the pages/s ratio.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { parseConfig } from '../src/config/schema.js';
import { runCrawl } from '../src/crawl/engine.js';
import { ProgressReporter } from '../src/report/progress.js';
import { startTestWeb } from '../src/testweb/index.js';
import { measured } from './adaptive.js';
import { machineLine, writeBenchSection } from './bench-page.js';
import { pairedInterval } from './paired-interval.js';

const program = new Command()
  .name('bench:blocking')
  .option('--pages <n>', 'budget per crawl', '60')
  .option('--reps <n>', 'interleaved pairs', '3')
  .option('--third-party-ms <n>', 'how long the CDN takes to answer each file', '600')
  .option('--no-page', 'do not rewrite this command\'s section of docs/benchmarks.md');
program.parse();
const o = program.opts<{ pages: string; reps: string; thirdPartyMs: string; page: boolean }>();
const int = (flag: string, v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) {
    process.stderr.write(`bench:blocking: ${flag} must be a positive integer, got "${v}"\n`);
    process.exit(2);
  }
  return n;
};
const PAGES = int('--pages', o.pages);
const REPS = int('--reps', o.reps);
const THIRD_PARTY_MS = int('--third-party-ms', o.thirdPartyMs);
const load = () => Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
const loadBefore = [load()];

interface Run { blocking: boolean; rep: number; pages: number; pagesPerSecond: number; cpuMsPerPage: number; peakPssMb?: number; cdnRequests: number; harvest: number; load: number }

const web = await startTestWeb({ mixed: true, thirdPartyMs: THIRD_PARTY_MS });
const runs: Run[] = [];
try {
  const cdnHost = new URL(web.cdnOrigin!).host;
  const crawl = async (blocking: boolean, rep: number) => {
    const storageDir = mkdtempSync(join(tmpdir(), 'fc-bench-blocking-'));
    const before = web.requestLog.filter((r) => r.host === cdnHost && r.path !== '/robots.txt').length;
    const loadAtStart = load();
    try {
      const { value: r, cpuMs, peakPssMb } = await measured(() =>
        runCrawl({
          config: parseConfig({
            topics: [{ keywords: web.demo.keywords, seeds: web.demo.seeds }],
            allowPrivate: true, // the test web and its CDN are on loopback
            maxPages: PAGES,
            maxConcurrency: 4,
            fetcher: 'browser',
            blockRequests: blocking,
            storageDir,
            randomSeed: 1,
          }),
          truth: (u) => web.isRelevant(u, web.demo.topic),
          progress: new ProgressReporter({ quiet: true }),
        }),
      );
      const cdnRequests = web.requestLog.filter((x) => x.host === cdnHost && x.path !== '/robots.txt').length - before;
      const run: Run = { blocking, rep, pages: r.fetched, pagesPerSecond: r.fetched / (r.elapsedMs / 1000), cpuMsPerPage: cpuMs / Math.max(1, r.fetched), peakPssMb, cdnRequests, harvest: r.truthHarvestRate ?? 0, load: loadAtStart };
      process.stderr.write(`  rep ${rep + 1} blocking ${blocking ? 'on ' : 'off'}: ${run.pages} pages, ${run.pagesPerSecond.toFixed(2)} pages/s, ${run.cpuMsPerPage.toFixed(0)} ms CPU/page, ${cdnRequests} CDN requests, harvest ${(run.harvest * 100).toFixed(1)}%, load ${loadAtStart.toFixed(1)}\n`);
      return run;
    } finally {
      rmSync(storageDir, { recursive: true, force: true });
    }
  };
  for (let rep = 0; rep < REPS; rep++) {
    for (const blocking of rep % 2 === 0 ? [true, false] : [false, true]) runs.push(await crawl(blocking, rep));
  }
} finally {
  await web.close();
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
const of = (b: boolean) => runs.filter((r) => r.blocking === b);
const ratios = Array.from({ length: REPS }, (_, rep) => {
  const on = runs.find((r) => r.rep === rep && r.blocking)!;
  const off = runs.find((r) => r.rep === rep && !r.blocking)!;
  return { speed: on.pagesPerSecond / off.pagesPerSecond, cpu: on.cpuMsPerPage / off.cpuMsPerPage };
});
const logRatio = pairedInterval(ratios.map((r) => Math.log(r.speed)));
const interval = logRatio ? `${Math.exp(logRatio.low).toFixed(2)}–${Math.exp(logRatio.high).toFixed(2)}×` : '–';
const line = `blocking on / off: pages/s ${ratios.map((r) => `${r.speed.toFixed(2)}×`).join(', ')} (geometric mean ${Math.exp(mean(ratios.map((r) => Math.log(r.speed)))).toFixed(2)}×, 95% interval ${interval}); CPU per page ${ratios.map((r) => `${r.cpu.toFixed(2)}×`).join(', ')}`;
process.stderr.write(line + '\n');

if (o.page) {
  const row = (b: boolean) => {
    const rs = of(b);
    return `| ${b ? 'on (default)' : 'off (`--no-block-requests`)'} | ${rs.map((r) => r.pagesPerSecond.toFixed(2)).join(' / ')} | ${rs.map((r) => r.cpuMsPerPage.toFixed(0)).join(' / ')} | ${rs.map((r) => r.cdnRequests).join(' / ')} | ${rs.map((r) => (r.peakPssMb ?? 0).toFixed(0)).join(' / ')} | ${rs.map((r) => (r.harvest * 100).toFixed(1)).join(' / ')}% |`;
  };
  writeBenchSection({
    name: 'blocking',
    title: 'Request blocking in the browser',
    command: `npm run bench:blocking -- --pages ${PAGES} --reps ${REPS} --third-party-ms ${THIRD_PARTY_MS}`,
    body: [
      `The browser fetcher (every page rendered) on the mixed test web whose pages carry what real pages carry from another host: a stylesheet naming a web font, a photo and a tracking pixel, from a CDN site on loopback that answers each after ${THIRD_PARTY_MS} ms. Blocking on (the default: images, media, fonts, styles, beacons, ad and analytics hosts are not fetched) and off, ${PAGES} pages per crawl at concurrency 4, ${REPS} interleaved pairs (order swapped each rep); per rep:`,
      '',
      '| request blocking | pages/s | CPU ms/page (process tree) | CDN requests | peak PSS, MB | harvest |',
      '|---|---|---|---|---|---|',
      row(true),
      row(false),
      '',
      `${line[0].toUpperCase()}${line.slice(1)}. The real pages of the article benchmark served from loopback show the same in the extraction-through-the-browser section (their sub-resources point at hosts this machine cannot resolve).`,
      '',
      machineLine(loadBefore),
    ].join('\n'),
  });
}
