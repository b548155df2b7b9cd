/**
 * What the dashboard shows, kept as the crawl goes: the crawl-log lines (the report's sections
 * read them), a sample every tick for the over-time charts, and the recent pages with what a
 * label needs. `view()` renders every section with the report's own section functions
 * (src/report/), so a chart or table has one implementation, live and in the report.
 */
import type { CrawlLogEntry } from '../store/crawl-log.js';
import type { RunStateData } from '../store/run-state.js';
import type { ThreadRecord } from '../store/threads.js';
import type { HarvestEstimate } from '../topic/harvest-sample.js';
import type { LabelRecord } from '../crawl/labels.js';
import type { QueuedUrl } from '../frontier/types.js';
import type { ControlState } from '../crawl/steering.js';
import type { SteeringRecord } from '../store/steering-journal.js';
import { failuresSection, harvestSection, labelsSection, reportCounts, sitesSection, statCard, statCards, threadsSection, type ReportInput } from '../report/html.js';
import { fetcherMix, frontierSection, recentSection, steeringSection, systemSection } from '../report/crawl-sections.js';
import { harvestOverTimeChart, speedChart, speedSeries, type Sample } from '../report/timeline.js';

export type { Sample } from '../report/timeline.js';
export { RECENT } from '../report/crawl-sections.js';

/** Samples kept for the over-time charts: past this, every other one is dropped (the charts keep their whole span). */
export const MAX_SAMPLES = 1200;
/** What the live sections read besides the log (each from the crawl, at the tick). */
export interface LiveInputs {
  state?: RunStateData;
  threads?: ThreadRecord[];
  labels: LabelRecord[];
  steering: SteeringRecord[];
  control?: ControlState;
  frontierTop: QueuedUrl[];
  frontierSize: number;
  /** Pages handed out and not finished (a shared crawl: by all workers). */
  inFlight: number;
  /**
   * Requests this process has started and not finished: what a pause waits for. Not `inFlight`:
   * the fetch order chooses URLs ahead of their start (src/frontier/fetch-order.ts), and a chosen
   * URL stays handed out, unstarted, for as long as the crawl is paused.
   */
  fetching?: number;
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
    return speedSeries(this.samples);
  }

  /** Every section of the page as HTML, and the numbers the page's title line shows. */
  view(live: LiveInputs): DashboardView {
    const input: ReportInput = { runId: live.state?.runId ?? '', state: live.state, log: this.log, dataset: [], threads: live.threads, harvestEstimate: live.harvestEstimate, labels: live.labels, generatedAt: new Date(this.now()) };
    const c = reportCounts(input);
    const pps = this.pagesPerSecond();
    const ctl = live.control;
    const status = live.ended ? `ended: ${live.ended}` : ctl?.stopping ? 'stopping' : ctl?.paused ? (live.fetching ? `pausing (${live.fetching} in flight)` : 'paused') : 'running';
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
        speed: speedChart(this.samples),
        'harvest-time': harvestOverTimeChart(this.samples),
        harvest: harvestSection(input, c),
        frontier: frontierSection(live.frontierTop, live.frontierSize),
        recent: recentSection(this.log, (url) => this.labelable.has(url)),
        sites: sitesSection(this.log),
        failures: failuresSection(this.log),
        threads: threadsSection(input, c),
        system: systemSection(fetcherMix(this.log, this.fetcher), this.samples, live.memory),
        steering: steeringSection(live.control?.blocks ?? [], live.steering),
        labels: live.labels.length ? labelsSection(live.labels) : '<p class="empty">No page labelled yet: use the ✓ / ✗ buttons of the recent pages.</p>',
      },
    };
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
