/**
 * What the dashboard shows, kept as the crawl goes: the crawl-log lines (the report's sections
 * read them), a sample every tick for the over-time charts, the recent pages with what a label
 * needs, and the fetcher mix. `view()` renders every section as HTML with the report's own
 * section functions (src/report/html.ts), so a chart or table has one implementation.
 */
import type { CrawlLogEntry } from '../store/crawl-log.js';
import type { RunStateData } from '../store/run-state.js';
import type { ThreadRecord } from '../store/threads.js';
import type { HarvestEstimate } from '../topic/harvest-sample.js';
import type { LabelRecord } from '../crawl/labels.js';
import type { QueuedUrl } from '../frontier/types.js';
import type { ControlState } from '../crawl/steering.js';
import type { SteeringRecord } from '../crawl/steering-journal.js';
import {
  esc,
  failuresSection,
  fmt,
  harvestSection,
  labelsSection,
  lineChartSvg,
  pct,
  reportCounts,
  sitesSection,
  statCard,
  statCards,
  threadsSection,
  type ReportInput,
  type Series,
} from '../report/html.js';

/** One sample of the crawl, taken every tick. */
export interface Sample {
  /** Seconds since the dashboard started. */
  t: number;
  fetched: number;
  relevant: number;
  truthRelevant?: number;
  estimate?: { mean: number; low: number; high: number };
  rssMb: number;
}

/** Samples kept for the over-time charts: past this, every other one is dropped (the charts keep their whole span). */
export const MAX_SAMPLES = 1200;
/** Recent pages listed (and labelable). */
export const RECENT = 30;

/** What the live sections read besides the log (each from the crawl, at the tick). */
export interface LiveInputs {
  state?: RunStateData;
  threads?: ThreadRecord[];
  labels: LabelRecord[];
  steering: SteeringRecord[];
  control?: ControlState;
  frontierTop: QueuedUrl[];
  frontierSize: number;
  inFlight: number;
  harvestEstimate?: HarvestEstimate;
  /** Memory of this process now. */
  memory: { rssMb: number; heapMb: number };
  ended?: string;
}

export class DashboardState {
  readonly log: CrawlLogEntry[] = [];
  readonly samples: Sample[] = [];
  private readonly started: number;
  /** Pages the recent list may offer to label: url → the label's inputs (kept for the last pages only). */
  readonly labelable = new Map<string, unknown>();
  private fetcherMix = new Map<string, number>();
  private relevant = 0;
  private truthRelevant = 0;
  private hasTruth = false;
  private sampleEvery = 1;
  private ticks = 0;
  /** The fetcher of a page whose log line names none: the crawl's only one (config fetcher http or browser; adaptive pages name theirs). */
  fetcher?: string;

  constructor(private readonly now: () => number = Date.now) {
    this.started = now();
  }

  /** A crawl-log line (every fetched URL, in the log's order). */
  add(entry: CrawlLogEntry): void {
    this.log.push(entry);
    if (entry.decision === 'saved') this.relevant++;
    if (entry.truth !== undefined) {
      this.hasTruth = true;
      if (entry.truth) this.truthRelevant++;
    }
    const how = entry.fetchedWith ?? (entry.decision === 'failed' ? 'failed' : (this.fetcher ?? 'not recorded'));
    this.fetcherMix.set(how, (this.fetcherMix.get(how) ?? 0) + 1);
  }

  /** Keep a page's label inputs (the last 200 analysed pages). */
  keepLabelable(url: string, inputs: unknown): void {
    this.labelable.set(url, inputs);
    if (this.labelable.size > 200) this.labelable.delete(this.labelable.keys().next().value!);
  }

  /** Take a sample (each tick); the over-time charts read them. */
  sample(rssMb: number, estimate?: HarvestEstimate): Sample {
    const s: Sample = {
      t: (this.now() - this.started) / 1000,
      fetched: this.log.length,
      relevant: this.relevant,
      ...(this.hasTruth ? { truthRelevant: this.truthRelevant } : {}),
      ...(estimate && estimate.pages > 0 ? { estimate: { mean: estimate.mean, low: estimate.low, high: estimate.high } } : {}),
      rssMb,
    };
    const last = this.samples[this.samples.length - 1];
    // A view asked for between ticks (after an action) updates the last sample rather than adding a short one.
    if (last && s.t - last.t < 0.5) this.samples[this.samples.length - 1] = s;
    else if (this.ticks++ % this.sampleEvery === 0) this.samples.push(s);
    else this.samples[this.samples.length - 1] = s;
    if (this.samples.length > MAX_SAMPLES) {
      // Halve: every other sample kept, and samples taken half as often from now on.
      for (let i = 1; i < this.samples.length / 2; i++) this.samples[i] = this.samples[2 * i];
      this.samples.length = Math.ceil(this.samples.length / 2);
      this.sampleEvery *= 2;
    }
    return s;
  }

  /** Pages per second over the last `windowS` seconds of samples (0 before two samples). */
  pagesPerSecond(windowS = 10): number {
    const n = this.samples.length;
    if (n < 2) return 0;
    const last = this.samples[n - 1];
    let i = n - 2;
    while (i > 0 && last.t - this.samples[i].t < windowS) i--;
    const first = this.samples[i];
    return last.t > first.t ? (last.fetched - first.fetched) / (last.t - first.t) : 0;
  }

  /** Pages/s between consecutive samples: the speed chart. */
  speedSeries(): number[] {
    return this.samples.map((s, i) => (i === 0 ? 0 : (s.fetched - this.samples[i - 1].fetched) / Math.max(1e-9, s.t - this.samples[i - 1].t)));
  }

  /** Every section of the page as HTML, and the numbers the page's title line shows. */
  view(live: LiveInputs): DashboardView {
    const input: ReportInput = { runId: live.state?.runId ?? '', state: live.state, log: this.log, dataset: [], threads: live.threads, harvestEstimate: live.harvestEstimate, labels: live.labels, generatedAt: new Date(this.now()) };
    const c = reportCounts(input);
    const pps = this.pagesPerSecond();
    const ctl = live.control;
    const status = live.ended ? `ended: ${live.ended}` : ctl?.stopping ? 'stopping' : ctl?.paused ? (live.inFlight ? `pausing (${live.inFlight} in flight)` : 'paused') : 'running';
    const budget = ctl?.budget ?? live.state?.config.maxPages ?? 0;
    const stats =
      statCard('status', status, 'crawl') +
      statCards(input, c) +
      statCard('pages-per-second', pps.toFixed(2), 'pages/s (last 10 s)') +
      statCard('frontier', String(live.frontierSize), 'URLs queued') +
      statCard('in-flight', String(live.inFlight), 'in flight') +
      statCard('budget', budget ? String(budget) : '∞', 'page budget');
    return {
      fetched: c.fetched,
      status,
      paused: !!ctl?.paused,
      budget,
      sections: {
        stats,
        speed: this.speedChart(),
        'harvest-time': this.harvestOverTime(),
        harvest: harvestSection(input, c),
        frontier: frontierSection(live.frontierTop, live.frontierSize),
        recent: this.recentSection(),
        sites: sitesSection(this.log),
        failures: failuresSection(this.log),
        threads: threadsSection(input, c),
        system: this.systemSection(live.memory),
        steering: steeringSection(live.control, live.steering),
        labels: live.labels.length ? labelsSection(live.labels) : '<p class="empty">No page labelled yet: use the ✓ / ✗ buttons of the recent pages.</p>',
      },
    };
  }

  private timeTick(): (i: number) => string {
    return (i) => `${Math.round(this.samples[i]?.t ?? 0)} s`;
  }

  private speedChart(): string {
    if (this.samples.length < 2) return '<p class="empty">Waiting for the first pages…</p>';
    return lineChartSvg([{ name: 'pages/s', color: '#1f6feb', values: this.speedSeries() }], { height: 170, xLabel: 'time since the dashboard started', xTick: this.timeTick(), title: 'Pages per second over time', yLabel: (v) => v.toFixed(1) });
  }

  private harvestOverTime(): string {
    if (this.samples.length < 2) return '<p class="empty">Waiting for the first pages…</p>';
    const rate = (k: (s: Sample) => number | undefined) => this.samples.map((s) => (s.fetched ? (k(s) ?? 0) / s.fetched : 0));
    const series: Series[] = [{ name: 'judged', color: '#1f6feb', values: rate((s) => s.relevant) }];
    if (this.samples.some((s) => s.estimate)) {
      const est = (k: 'mean' | 'low' | 'high') => this.samples.map((s) => s.estimate?.[k] ?? 0);
      series.push({ name: 'estimate', color: '#7048e8', values: est('mean') }, { name: 'estimate, 90% low', color: '#b197fc', values: est('low'), dashed: true }, { name: 'estimate, 90% high', color: '#b197fc', values: est('high'), dashed: true });
    }
    if (this.hasTruth) series.push({ name: 'ground truth', color: '#2da44e', values: rate((s) => s.truthRelevant) });
    return lineChartSvg(series, { height: 190, yMax: 1, yLabel: (v) => `${Math.round(v * 100)}%`, xLabel: 'time since the dashboard started', xTick: this.timeTick(), title: 'Harvest rate over time' });
  }

  private recentSection(): string {
    const recent = this.log.slice(-RECENT).reverse();
    if (!recent.length) return '<p class="empty">No page fetched yet.</p>';
    const rows = recent.map((e) => {
      const canLabel = this.labelable.has(e.url);
      const buttons = canLabel
        ? `<button class="lab yes" data-action="label" data-url="${esc(e.url)}" data-relevant="true" title="Relevant: a positive example of the judge">✓</button><button class="lab no" data-action="label" data-url="${esc(e.url)}" data-relevant="false" title="Not relevant: a negative example of the judge">✗</button>`
        : '';
      return `<tr data-url="${esc(e.url)}" data-decision="${esc(e.decision)}"><td>${esc(e.time.slice(11, 19))}</td><td><a href="${esc(e.url)}" target="_blank" rel="noreferrer">${esc(e.title || e.url)}</a><div class="url">${esc(e.url)}</div></td><td>${esc(e.decision)}${e.reason ? `<div class="url">${esc(e.reason)}</div>` : ''}</td><td class="num">${fmt(e.relevance)}</td><td>${esc(e.fetchedWith ?? '–')}</td><td class="nowrap">${buttons}<button class="explain" data-action="explain" data-url="${esc(e.url)}" title="Why it was fetched: --explain">?</button></td></tr>`;
    });
    return `<div class="scroll"><table id="recent-table"><thead><tr><th>At</th><th>Page</th><th>Verdict and reason</th><th>Rel.</th><th>Fetcher</th><th>Label</th></tr></thead><tbody>${rows.join('')}</tbody></table></div>`;
  }

  private systemSection(memory: LiveInputs['memory']): string {
    const total = [...this.fetcherMix.values()].reduce((a, b) => a + b, 0);
    const mix = [...this.fetcherMix]
      .sort((a, b) => b[1] - a[1])
      .map(([k, n]) => `<tr><td>${esc(k === 'browser' ? 'rendered (browser)' : k)}</td><td class="num" data-fetcher="${esc(k)}">${n}</td><td class="num">${pct(total ? n / total : 0)}</td></tr>`)
      .join('');
    const rss = lineChartSvg([{ name: 'resident MB', color: '#868e96', values: this.samples.map((s) => s.rssMb) }], { height: 120, xTick: this.timeTick(), title: 'Memory over time', yLabel: (v) => v.toFixed(0) });
    return `<div class="stats">${statCard('rss', `${memory.rssMb.toFixed(0)} MB`, 'crawler resident memory')}${statCard('heap', `${memory.heapMb.toFixed(0)} MB`, 'JS heap used')}</div>${this.samples.length > 1 ? rss : ''}<table id="fetcher-mix"><thead><tr><th>Fetched with</th><th>Pages</th><th>Share</th></tr></thead><tbody>${mix}</tbody></table>`;
  }
}

/** The page as the client gets it: each section's HTML by id, and a few values its controls read. */
export interface DashboardView {
  fetched: number;
  status: string;
  paused: boolean;
  budget: number;
  sections: Record<string, string>;
}

/** The frontier's best URLs, each with its score's named parts and the --explain view a click away. */
export function frontierSection(top: QueuedUrl[], size: number): string {
  if (!top.length) return `<p class="empty">The frontier is empty.</p>`;
  const rows = top.map((e) => {
    const comps = Object.entries(e.components ?? {})
      .filter(([, v]) => v !== 0)
      .map(([k, v]) => `<span class="comp">${esc(k)}=${fmt(v)}</span>`)
      .join(' ');
    return `<tr data-url="${esc(e.url)}"><td><a href="${esc(e.url)}" target="_blank" rel="noreferrer">${esc(e.url)}</a>${e.anchorText ? `<div class="url">“${esc(e.anchorText.slice(0, 80))}”</div>` : ''}</td><td class="num">${fmt(e.score)}</td><td class="num">${e.depth}</td><td>${comps || '–'}</td><td class="nowrap"><button class="explain" data-action="explain" data-url="${esc(e.url)}" title="--explain">?</button><button data-action="block-host" data-url="${esc(e.url)}" title="Block this URL's host">⊘ host</button></td></tr>`;
  });
  return `<p class="muted">The ${top.length} best of ${size} queued URLs.</p><div class="scroll"><table id="frontier-table"><thead><tr><th>URL</th><th>Score</th><th>Depth</th><th>Score components</th><th></th></tr></thead><tbody>${rows.join('')}</tbody></table></div>`;
}

/** The steering controls' state and the journal of actions. */
function steeringSection(ctl: ControlState | undefined, journal: SteeringRecord[]): string {
  const blocks = ctl?.blocks.length ? `<p id="blocks">Blocked: ${ctl.blocks.map((b) => `<code>${esc(b)}</code>`).join(' ')}</p>` : '<p id="blocks" class="muted">Nothing blocked.</p>';
  const rows = journal
    .slice(-12)
    .reverse()
    .map((r) => `<li><span class="muted">${esc(r.time.slice(11, 19))}</span> ${esc(r.action)} ${esc('maxPages' in r ? r.maxPages : 'pattern' in r ? r.pattern : 'url' in r ? `${r.relevant ? 'relevant' : 'not relevant'}: ${r.url}` : '')}</li>`)
    .join('');
  return `${blocks}<ul id="journal">${rows || '<li class="muted">No action yet.</li>'}</ul>`;
}
