/**
 * Benchmark output: Markdown tables, SVG harvest curves, and the sections of the benchmark page
 * (docs/benchmarks.md, written through bench/bench-page.ts). Charts are a few
 * polylines, so they are written directly rather than pulling a charting library in.
 */
import { adaptiveMd, type AdaptiveBench } from './adaptive.js';
import type { BenchSection } from './bench-page.js';
import { budgetTable, meanSd, rateAt, reportBudgets, spreadText, type BudgetTable } from './metrics.js';

export { spreadText };
import { agreementTableMd, countWithin, type VerdictAgreement } from './judge-agreement.js';

export interface CurveRun {
  web: 'testweb' | 'wikispeedia';
  topic: string;
  strategy: string;
  fetched: number;
  relevantAvailable: number;
  maxPages: number;
  elapsedMs: number;
  curve: number[];
  /** The crawler's own verdicts against the truth (ours only): pages saved, of which truly relevant, and truly relevant fetched. */
  judge?: { saved: number; savedTrue: number; truthFetched: number };
  /** Harvest rate at the limit of each repeat of this crawl (`--repeats`); `curve` is the first repeat's. */
  repeats?: number[];
}

/** Each strategy's harvest at the limit over repeats, per topic: mean and spread. */
export function repeatsMd(curves: CurveRun[]): string {
  const withRepeats = curves.filter((c) => c.repeats?.length);
  if (!withRepeats.length) return '';
  const lines = ['| topic | strategy | harvest at the limit: mean (min–max, runs) |', '|---|---|---:|'];
  for (const c of withRepeats) lines.push(`| ${c.topic} | ${c.strategy} | ${spreadText(c.repeats!)} |`);
  return lines.join('\n');
}

export interface SpeedRun {
  web: string;
  fetcher: 'http' | 'browser';
  crawler: string;
  rep: number;
  pages: number;
  elapsedMs: number;
  pagesPerSecond: number;
  /** Node CPU per page (ms), web server's own rendering subtracted where it runs in-process and is measured. */
  cpuMsPerPage?: number;
  peakRssMb: number;
  /** Per-page milliseconds per stage (ours only). */
  stages?: Record<string, number>;
}

export interface BenchResults {
  startedAt: string;
  quick: boolean;
  /** The command line that produced the run (shown with its sections of the benchmark page). */
  command?: string;
  machine: { cpus: number; node: string; loadAvg: number[]; loadAvgEnd?: number[]; memGb?: number };
  curves: CurveRun[];
  speed: SpeedRun[];
  frontierScale?: string;
  /** bench/adaptive.ts: adaptive vs browser vs Crawlee on the mixed test web. */
  adaptive?: AdaptiveBench;
  notes: string[];
}

const pct = (x: number | undefined) => (x === undefined ? '–' : (x * 100).toFixed(1) + '%');
const times = (x: number | undefined) => (x === undefined ? '–' : x.toFixed(2) + '×');

const COLORS: Record<string, string> = {
  bfs: '#888888',
  'best-first': '#1f77b4',
  topology: '#2ca02c',
  semantic: '#9467bd',
  time: '#8c564b',
  ipagerank: '#e377c2',
  classic: '#bcbd22',
  combined: '#d62728',
  crawlee: '#ff7f0e',
};

/** Harvest-rate curves of one topic as an SVG line chart (x: pages fetched, y: harvest rate). */
export function curveSvg(title: string, runs: CurveRun[]): string {
  const W = 640, H = 360, L = 50, R = 130, T = 30, B = 40;
  const maxX = Math.max(1, ...runs.map((r) => r.maxPages));
  const x = (i: number) => L + (i / maxX) * (W - L - R);
  const y = (v: number) => T + (1 - v) * (H - T - B);
  const step = Math.max(1, Math.floor(maxX / 300));
  const line = (c: readonly number[]) => {
    const pts: string[] = [];
    for (let i = 0; i < c.length; i++) if (i % step === 0 || i === c.length - 1) pts.push(`${x(i + 1).toFixed(1)},${y(c[i]).toFixed(1)}`);
    return pts.join(' ');
  };
  const avail = runs[0]?.relevantAvailable ?? 0;
  const best = Array.from({ length: maxX }, (_, i) => Math.min(i + 1, avail) / (i + 1));
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" font-family="sans-serif" font-size="11">`,
    `<rect width="${W}" height="${H}" fill="white"/>`,
    `<text x="${L}" y="18" font-size="13">${title.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</text>`,
  ];
  for (const v of [0, 0.25, 0.5, 0.75, 1]) parts.push(`<line x1="${L}" x2="${W - R}" y1="${y(v)}" y2="${y(v)}" stroke="#ddd"/><text x="${L - 6}" y="${y(v) + 4}" text-anchor="end">${v * 100}%</text>`);
  for (const v of [0, 0.25, 0.5, 0.75, 1]) parts.push(`<text x="${x(v * maxX)}" y="${H - B + 16}" text-anchor="middle">${Math.round(v * maxX)}</text>`);
  parts.push(`<text x="${(L + W - R) / 2}" y="${H - 8}" text-anchor="middle">pages fetched</text>`);
  parts.push(`<polyline fill="none" stroke="#000" stroke-dasharray="4 3" points="${line(best)}"/>`);
  runs.forEach((r, k) => {
    const color = COLORS[r.strategy] ?? '#000';
    const width = r.strategy === 'combined' || r.strategy === 'crawlee' || r.strategy === 'bfs' ? 2.2 : 1.2;
    parts.push(`<polyline fill="none" stroke="${color}" stroke-width="${width}" points="${line(r.curve)}"/>`);
    parts.push(`<line x1="${W - R + 8}" x2="${W - R + 26}" y1="${T + 10 + k * 15}" y2="${T + 10 + k * 15}" stroke="${color}" stroke-width="${width}"/><text x="${W - R + 30}" y="${T + 14 + k * 15}">${r.strategy}</text>`);
  });
  const k = runs.length;
  parts.push(`<line x1="${W - R + 8}" x2="${W - R + 26}" y1="${T + 10 + k * 15}" y2="${T + 10 + k * 15}" stroke="#000" stroke-dasharray="4 3"/><text x="${W - R + 30}" y="${T + 14 + k * 15}">best possible</text>`);
  parts.push('</svg>');
  return parts.join('\n');
}

export function topicTable(runs: CurveRun[]): BudgetTable {
  const curves = Object.fromEntries(runs.map((r) => [r.strategy, r.curve]));
  return budgetTable(curves, reportBudgets(runs[0].maxPages), runs[0].relevantAvailable);
}

export function budgetTableMd(t: BudgetTable, limitLabel: string): string {
  const head = t.budgets.map((b, i) => (i === t.budgets.length - 1 ? `@${b} (${limitLabel})` : `@${b}`));
  const lines = [
    `| strategy | fetched | ${head.join(' | ')} | ratio to BFS at ${t.budgets.map((b) => b).join(' / ')} |`,
    `|---|---:|${head.map(() => '---:').join('|')}|---|`,
  ];
  const rows = [...t.rows].sort((a, b) => (b.rates.at(-1) ?? 0) - (a.rates.at(-1) ?? 0));
  for (const r of rows) lines.push(`| ${r.strategy} | ${r.fetched} | ${r.rates.map(pct).join(' | ')} | ${r.ratioToBfs.map(times).join(' / ')} |`);
  lines.push(`| *best possible* | | ${t.best.map(pct).join(' | ')} | |`);
  return lines.join('\n');
}

/** Mean over topics of each strategy's rate at the run's limit, and mean ratio to BFS. */
export function aggregateMd(curves: CurveRun[]): string {
  const topics = [...new Set(curves.map((c) => c.topic))];
  const strategies = [...new Set(curves.map((c) => c.strategy))];
  const rows = strategies.map((s) => {
    const rates: number[] = [];
    const ratios: number[] = [];
    let best = 0;
    for (const t of topics) {
      const r = curves.find((c) => c.topic === t && c.strategy === s);
      const b = curves.find((c) => c.topic === t && c.strategy === 'bfs');
      if (!r) continue;
      // The mean over the crawl's repeats where it was repeated (the curve is the first run's).
      const v = r.repeats?.length ? r.repeats.reduce((a, x) => a + x, 0) / r.repeats.length : (rateAt(r.curve, r.maxPages) ?? 0);
      rates.push(v);
      const bv = b ? (b.repeats?.length ? b.repeats.reduce((a, x) => a + x, 0) / b.repeats.length : rateAt(b.curve, b.maxPages)) : undefined;
      if (bv) ratios.push(v / bv);
      best += Math.min(r.maxPages, r.relevantAvailable) / r.maxPages;
    }
    const fetched = curves.filter((c) => c.strategy === s).map((c) => c.fetched);
    // Repeats: the widest min–max of one topic's repeats, in points (0 when every repeat agreed).
    const reps = curves.filter((c) => c.strategy === s && c.repeats && c.repeats.length > 1).map((c) => c.repeats!);
    const spread = reps.length ? { points: Math.max(...reps.map((x) => (Math.max(...x) - Math.min(...x)) * 100)), runs: Math.min(...reps.map((x) => x.length)) } : undefined;
    return { s, rate: meanSd(rates), min: Math.min(...rates), max: Math.max(...rates), ratio: ratios.length ? meanSd(ratios).mean : undefined, best: best / topics.length, fetched: meanSd(fetched).mean, spread };
  });
  rows.sort((a, b) => b.rate.mean - a.rate.mean);
  const withSpread = rows.some((r) => r.spread);
  const lines = [
    `| strategy | mean pages fetched | mean harvest at the limit | range over topics | mean ratio to BFS |${withSpread ? ' spread over repeats |' : ''}`,
    `|---|---:|---:|---:|---:|${withSpread ? '---:|' : ''}`,
  ];
  for (const r of rows)
    lines.push(`| ${r.s} | ${r.fetched.toFixed(0)} | ${pct(r.rate.mean)} | ${pct(r.min)}–${pct(r.max)} | ${times(r.ratio)} |${withSpread ? ` ${r.spread ? `${r.spread.points.toFixed(1)} points (${r.spread.runs} runs)` : '–'} |` : ''}`);
  lines.push(`| *best possible* | | ${pct(rows[0]?.best)} | | |${withSpread ? ' |' : ''}`);
  return lines.join('\n');
}

export function speedMd(speed: SpeedRun[]): string {
  const groups = new Map<string, SpeedRun[]>();
  for (const s of speed) {
    const k = `${s.web}|${s.fetcher}|${s.crawler}`;
    groups.set(k, [...(groups.get(k) ?? []), s]);
  }
  const lines = ['| web (fetcher) | crawler | runs | pages/s (mean ± sd) | Node CPU ms/page | peak RSS MB |', '|---|---|---:|---:|---:|---:|'];
  const summary = new Map<string, { pps: number; cpu?: number }>();
  for (const [k, runs] of groups) {
    const [web, fetcher, crawler] = k.split('|');
    const pps = meanSd(runs.map((r) => r.pagesPerSecond));
    const cpus = runs.map((r) => r.cpuMsPerPage).filter((x): x is number => x !== undefined);
    const cpu = cpus.length ? meanSd(cpus).mean : undefined;
    summary.set(k, { pps: pps.mean, cpu });
    lines.push(`| ${web} (${fetcher}) | ${crawler} | ${runs.length} | ${pps.mean.toFixed(1)} ± ${pps.sd.toFixed(1)} | ${cpu === undefined ? '–' : cpu.toFixed(1)} | ${Math.max(...runs.map((r) => r.peakRssMb)).toFixed(0)} |`);
  }
  const ratios: string[] = [];
  for (const [k, v] of summary) {
    const [web, fetcher, crawler] = k.split('|');
    if (crawler === 'crawlee') continue;
    const base = summary.get(`${web}|${fetcher}|crawlee`);
    if (!base) continue;
    const cpu = v.cpu !== undefined && base.cpu ? `, CPU per page ${(v.cpu / base.cpu).toFixed(2)}× Crawlee's` : '';
    ratios.push(`- ${web} (${fetcher}), ${crawler}: throughput ${(v.pps / base.pps).toFixed(2)}× plain Crawlee's (overhead ${(base.pps / v.pps).toFixed(2)}× wall time per page)${cpu}.`);
  }
  return lines.join('\n') + '\n\n' + ratios.join('\n');
}

export function stagesMd(speed: SpeedRun[]): string {
  const ours = speed.filter((s) => s.stages);
  const groups = new Map<string, SpeedRun[]>();
  for (const s of ours) groups.set(`${s.web} (${s.fetcher}), ${s.crawler}`, [...(groups.get(`${s.web} (${s.fetcher}), ${s.crawler}`) ?? []), s]);
  const keys = ['renderMs', 'extractMs', 'judgeMs', 'scoreMs', 'frontierMs', 'storeMs', 'wallMs'];
  const names = ['render (browser)', 'extraction', 'tokenize + relevance', 'scoring', 'frontier', 'storage', 'wall per page'];
  const lines = [`| run | ${names.join(' | ')} |`, `|---|${names.map(() => '---:').join('|')}|`];
  for (const [k, runs] of groups) {
    const cell = (key: string) => {
      const xs = runs.map((r) => r.stages![key]).filter((x) => x !== undefined && Number.isFinite(x));
      return xs.length ? (xs.reduce((a, b) => a + b, 0) / xs.length).toFixed(2) : '–';
    };
    lines.push(`| ${k} | ${keys.map(cell).join(' | ')} |`);
  }
  return lines.join('\n');
}

export function judgeMd(j: { saved: number; savedTrue: number; truthFetched: number }): string {
  const a = agreementOf(j);
  return `${pct(a.precision)} / ${pct(a.recall)}, judged ${a.judged} of ${a.truly} true (${a.countRatio === undefined ? '–' : `${a.countRatio.toFixed(2)}×`}${countWithin(a) ? '' : ', off by more than 30%'})`;
}

/** The crawl log's counts as the judge-against-truth figures (bench/judge-agreement.ts). */
function agreementOf(j: { saved: number; savedTrue: number; truthFetched: number }): VerdictAgreement {
  return {
    judged: j.saved,
    truly: j.truthFetched,
    both: j.savedTrue,
    precision: j.saved ? j.savedTrue / j.saved : undefined,
    recall: j.truthFetched ? j.savedTrue / j.truthFetched : undefined,
    countRatio: j.truthFetched ? j.saved / j.truthFetched : undefined,
  };
}

/**
 * The run's full summary (bench/results/summary.md) and its sections of the benchmark page, one
 * per part measured (the caller adds the command that reproduces them).
 */
export function summaryMd(r: BenchResults, chartPaths: Map<string, string>): { full: string; sections: Omit<BenchSection, 'command'>[] } {
  const out: string[] = [];
  out.push(`# Benchmark results`, '');
  out.push(`Generated by \`${r.command ?? `npm run bench${r.quick ? ' -- --quick' : ''}`}\` on ${r.startedAt} (${r.machine.cpus} cores, Node ${r.machine.node}, load average at start ${r.machine.loadAvg.map((x) => x.toFixed(1)).join(' ')}). Seeded: the same command gives the same crawl orders up to concurrency races. Harvest rate = relevant pages by ground truth / pages fetched.`, '');
  const sections: Omit<BenchSection, 'command'>[] = [];
  const machine = machineMd(r);
  for (const web of ['wikispeedia', 'testweb'] as const) {
    const cs = r.curves.filter((c) => c.web === web);
    if (!cs.length) continue;
    const title = web === 'wikispeedia' ? 'Wikispeedia (4,598 real Wikipedia articles and links; categories as ground truth; HTTP fetcher)' : 'Chinese test web (src/testweb, JavaScript-rendered; browser fetcher)';
    out.push(`## Harvest rate: ${title}`, '');
    out.push('Mean over topics:', '', aggregateMd(cs), '');
    const spread = repeatsMd(cs);
    if (spread) out.push('Each crawl repeated: the mean and spread of its harvest at the limit (our strategies route pages in a fixed order, so their repeats agree unless a fetch failed by timing; plain Crawlee routes as fetches finish):', '', spread, '');
    // The verdicts beside the harvest: a harvest gain that comes from a worse judge shows here.
    const judged = cs.filter((c) => c.judge).map((c) => ({ topic: c.topic, strategy: c.strategy, a: agreementOf(c.judge!) }));
    if (judged.length) out.push("The crawler's own verdicts against the truth at the budget (pages saved as relevant against pages truly relevant among those fetched):", '', agreementTableMd(judged), '');
    const topics = [...new Set(cs.map((c) => c.topic))];
    sections.push({
      name: `harvest-${web}`,
      title: `Harvest rate: ${web === 'wikispeedia' ? 'Wikispeedia' : 'the Chinese test web'}`,
      body: [`${title}. Harvest rate = relevant pages by the ground truth / pages fetched, mean over ${topics.length} topic(s) (${topics.join(', ')}), budget ${cs[0].maxPages} pages per crawl; a crawl that stopped early is read at its last page.${web === 'wikispeedia' ? ' BFS over live HTTP is not one fixed order (pages of one depth are queued as their parents\' fetches finish), so the ratios to BFS move between runs; `npm run bench:replay` gives the stable comparison.' : ''}`, '', aggregateMd(cs), '', ...(judged.length ? ["The crawler's own verdicts against the truth at the budget:", '', agreementTableMd(judged), ''] : []), `Per topic, with harvest curves: [bench/results/summary.md](../bench/results/summary.md).`, '', machine].join('\n'),
    });
    for (const topic of topics) {
      const runs = cs.filter((c) => c.topic === topic);
      out.push(`### ${web} / ${topic} (${runs[0].relevantAvailable} relevant pages available)`, '');
      out.push(budgetTableMd(topicTable(runs), 'limit'), '');
      const j = runs.filter((x) => x.judge).map((x) => `${x.strategy} ${judgeMd(x.judge!)}`);
      if (j.length) out.push(`Crawler's own relevance verdicts vs truth (precision / recall of pages saved, over pages fetched): ${j.join('; ')}.`, '');
      const chart = chartPaths.get(`${web}/${topic}`);
      if (chart) out.push(`![harvest curves, ${web} / ${topic}](${chart})`, '');
    }
  }
  if (r.speed.length) {
    out.push('## Speed and cost', '', 'Runs interleaved (ours, Crawlee, Crawlee, ours, …) on the same web, seeds, budget and concurrency. Node CPU excludes the in-process web server\'s rendering on Wikispeedia (measured and subtracted); Chromium\'s own processes are not counted.', '');
    out.push(speedMd(r.speed), '', 'Where the time goes, ms per page (handler stages of our engine, `CrawlResult.timings`; render = navigation start to DOM serialised):', '', stagesMd(r.speed), '');
    sections.push({ name: 'speed', title: 'Speed against plain Crawlee', body: ['Our crawler and plain Crawlee on the same web, seeds, budget and concurrency, runs interleaved. Node CPU excludes the in-process web server; Chromium\'s own processes are not counted.', '', speedMd(r.speed), '', machine].join('\n') });
  }
  if (r.adaptive) {
    out.push('## Adaptive rendering (bench/adaptive.ts)', '', adaptiveMd(r.adaptive), '');
    sections.push({ name: 'adaptive', title: 'Adaptive fetcher against the browser and Crawlee', body: [adaptiveMd(r.adaptive), '', machine].join('\n') });
  }
  if (r.frontierScale) out.push('## Frontier at scale (bench/frontier-scale.ts)', '', '```', r.frontierScale.trim(), '```', '');
  if (r.notes.length) out.push('## Notes', '', ...r.notes.map((n) => `- ${n}`), '');
  return { full: out.join('\n'), sections };
}

/** The machine line of a run's sections: cores, memory, Node, the 1-minute load from start to end. */
export function machineMd(r: BenchResults): string {
  const m = r.machine;
  const load = m.loadAvgEnd ? `${m.loadAvg[0].toFixed(1)}–${m.loadAvgEnd[0].toFixed(1)}` : m.loadAvg[0].toFixed(1);
  return `Machine: ${m.cpus} cores${m.memGb ? `, ${m.memGb} GB` : ''}, 1-minute load ${load}; Node ${m.node}.`;
}
