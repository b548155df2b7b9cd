/**
 * `npm run bench:huge-page -- [--page /many-links.html] [--analyses 2]`: what one huge page costs
 * the analysis, unbounded (every bound off) against the default bounds (src/extract/limits.ts).
 * The page is fetched from the hostile site (src/testweb/hostile.ts, loopback); each variant runs
 * in a fresh Node process, analysing the page `--analyses` times in a row (the adaptive fetcher
 * analyses a page it renders twice: its HTTP bytes and the rendering). Reports per variant: the
 * longest event-loop stall (a 10 ms ticker's largest gap), wall and CPU ms of the analyses, peak
 * RSS growth over the process's resident memory before the first analysis, and heap in use right
 * after the last analysis (before any forced GC), plus what the bounds left unread.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { analyzePage } from '../src/extract/page.js';
import { startHostileWeb } from '../src/testweb/hostile.js';

const { values } = parseArgs({ options: { page: { type: 'string', default: '/many-links.html' }, analyses: { type: 'string', default: '2' }, child: { type: 'string' }, html: { type: 'string' } } });
const MB = 1024 * 1024;
const UNBOUNDED = { maxHtmlChars: Infinity, maxElements: Infinity, maxLinks: Infinity };

if (values.child) {
  const html = readFileSync(values.html!, 'utf8');
  const rss0 = process.memoryUsage().rss;
  let last = performance.now();
  let stall = 0;
  const ticker = setInterval(() => {
    const t = performance.now();
    stall = Math.max(stall, t - last);
    last = t;
  }, 10);
  await new Promise((ok) => setTimeout(ok, 50));
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let out: ReturnType<typeof analyzePage> | undefined;
  for (let i = 0; i < Number(values.analyses); i++) {
    // Each analysis in its own macrotask, as the crawl runs them (the ticker sees each stall).
    out = await new Promise((ok) => setTimeout(() => ok(analyzePage({ html, url: `http://127.0.0.1:1${values.page}`, fetchedAt: new Date() }, values.child === 'bounded' ? {} : { limits: UNBOUNDED })), 0));
  }
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const heapMb = process.memoryUsage().heapUsed / MB;
  await new Promise((ok) => setTimeout(ok, 50));
  clearInterval(ticker);
  const peakRssMb = (process.resourceUsage().maxRSS * 1024 - rss0) / MB;
  process.stdout.write(JSON.stringify({ stallMs: stall, wallMs, cpuMs: (cpu.user + cpu.system) / 1000, peakRssMb, heapMb, links: out!.links.length, textChars: out!.text.length, bounded: out!.bounded ?? [] }));
  process.exit(0);
}

const web = await startHostileWeb();
const res = await fetch(web.origin + values.page);
const html = await res.text();
await web.close();
const file = join(mkdtempSync(join(tmpdir(), 'fc-huge-')), 'page.html');
writeFileSync(file, html);
console.log(`${values.page}: ${html.length.toLocaleString('en-US')} characters, ${values.analyses} analyses per process; load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
console.log('| analysis | longest event-loop stall | wall ms | CPU ms | peak RSS growth | heap after | links | main text chars | bounded |');
console.log('|---|---|---|---|---|---|---|---|---|');
for (const variant of ['unbounded', 'bounded']) {
  const r = spawnSync(process.execPath, [...process.execArgv, process.argv[1], '--child', variant, '--html', file, '--page', values.page!, '--analyses', values.analyses!], { encoding: 'utf8', maxBuffer: 64 * MB });
  if (r.status !== 0) {
    console.log(`| ${variant} | failed: ${(r.stderr || '').trim().split('\n').pop()} |`);
    continue;
  }
  const m = JSON.parse(r.stdout) as { stallMs: number; wallMs: number; cpuMs: number; peakRssMb: number; heapMb: number; links: number; textChars: number; bounded: string[] };
  const n = (x: number) => Math.round(x).toLocaleString('en-US');
  console.log(`| ${variant} | ${n(m.stallMs)} ms | ${n(m.wallMs)} | ${n(m.cpuMs)} | ${n(m.peakRssMb)} MB | ${n(m.heapMb)} MB | ${n(m.links)} | ${n(m.textChars)} | ${m.bounded.join('; ') || '–'} |`);
}
console.log(`load average after: ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
