/**
 * The crawl over time: samples of its counts (pages fetched, judged relevant, truly relevant
 * where the test web knows, the harvest estimate, memory), the charts drawn from them, and the
 * run file that keeps them. The live dashboard samples every second; a run without it has its
 * samples read back from the crawl log's times, so the report and the dashboard draw the same
 * charts with the same code.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CrawlLogEntry } from '../store/crawl-log.js';
import type { QueuedUrl } from '../frontier/types.js';
import { lineChartSvg, type Series } from './html.js';

/** One sample of the crawl. */
export interface Sample {
  /** Seconds since the crawl (or the dashboard) started. */
  t: number;
  fetched: number;
  relevant: number;
  truthRelevant?: number;
  estimate?: { mean: number; low: number; high: number };
  /** Resident memory of the crawl's process tree, MB (live samples only). */
  rssMb?: number;
}

/** What a live crawl leaves of its dashboard for the report: its samples and the frontier at the end. */
export interface Timeline {
  samples: Sample[];
  frontier?: { top: QueuedUrl[]; size: number };
}

/** The run file (runs/<id>/timeline.json) a dashboard writes at the end of its crawl. */
export const TIMELINE_FILE = 'timeline.json';

export function writeTimeline(runDir: string, timeline: Timeline): void {
  writeFileSync(join(runDir, TIMELINE_FILE), JSON.stringify(timeline));
}

export function readTimeline(runDir: string): Timeline | undefined {
  const path = join(runDir, TIMELINE_FILE);
  if (!existsSync(path)) return undefined;
  try {
    const t = JSON.parse(readFileSync(path, 'utf8')) as Timeline;
    return Array.isArray(t.samples) ? t : undefined;
  } catch {
    return undefined; // a torn file: the report reads the times from the log instead
  }
}

/**
 * Samples read back from the crawl log's times, at most `points` of them evenly over the run
 * (the log holds one timed line per fetched URL; a resumed run's pause shows as a flat stretch).
 */
export function samplesFromLog(log: CrawlLogEntry[], points = 240): Sample[] {
  const times = log.map((e) => Date.parse(e.time));
  if (log.length < 2 || !Number.isFinite(times[0])) return [];
  const start = times[0];
  const end = Math.max(start, ...times.filter(Number.isFinite));
  const step = Math.max(1000, (end - start) / points);
  const out: Sample[] = [];
  let relevant = 0;
  let truth = 0;
  let hasTruth = false;
  let next = start;
  for (let i = 0; i < log.length; i++) {
    const e = log[i];
    if (e.decision === 'saved') relevant++;
    if (e.truth !== undefined) {
      hasTruth = true;
      if (e.truth) truth++;
    }
    const at = Number.isFinite(times[i]) ? times[i] : next;
    if (at >= next || i === log.length - 1) {
      out.push({ t: (at - start) / 1000, fetched: i + 1, relevant, ...(hasTruth ? { truthRelevant: truth } : {}) });
      next = at + step;
    }
  }
  return out;
}

/** Pages/s between consecutive samples. */
export function speedSeries(samples: Sample[]): number[] {
  return samples.map((s, i) => (i === 0 ? 0 : (s.fetched - samples[i - 1].fetched) / Math.max(1e-9, s.t - samples[i - 1].t)));
}

const timeTick = (samples: Sample[]) => (i: number) => `${Math.round(samples[i]?.t ?? 0)} s`;
const WAITING = '<p class="empty">Waiting for the first pages…</p>';

export function speedChart(samples: Sample[], xLabel = 'time since the crawl started'): string {
  if (samples.length < 2) return WAITING;
  return lineChartSvg([{ name: 'pages/s', color: '#1f6feb', values: speedSeries(samples) }], { height: 170, xLabel, xTick: timeTick(samples), title: 'Pages per second over time', yLabel: (v) => v.toFixed(1) });
}

export function harvestOverTimeChart(samples: Sample[], xLabel = 'time since the crawl started'): string {
  if (samples.length < 2) return WAITING;
  const rate = (k: (s: Sample) => number | undefined) => samples.map((s) => (s.fetched ? (k(s) ?? 0) / s.fetched : 0));
  const series: Series[] = [{ name: 'judged', color: '#1f6feb', values: rate((s) => s.relevant) }];
  if (samples.some((s) => s.estimate)) {
    const est = (k: 'mean' | 'low' | 'high') => samples.map((s) => s.estimate?.[k] ?? 0);
    series.push({ name: 'estimate', color: '#7048e8', values: est('mean') }, { name: 'estimate, 90% low', color: '#b197fc', values: est('low'), dashed: true }, { name: 'estimate, 90% high', color: '#b197fc', values: est('high'), dashed: true });
  }
  if (samples.some((s) => s.truthRelevant !== undefined)) series.push({ name: 'ground truth', color: '#2da44e', values: rate((s) => s.truthRelevant) });
  return lineChartSvg(series, { height: 190, yMax: 1, yLabel: (v) => `${Math.round(v * 100)}%`, xLabel, xTick: timeTick(samples), title: 'Harvest rate over time' });
}

/** Memory over time; empty when the samples carry none (a run read back from its log). */
export function memoryChart(samples: Sample[]): string {
  const withRss = samples.filter((s) => s.rssMb !== undefined);
  if (withRss.length < 2) return '';
  return lineChartSvg([{ name: 'resident MB', color: '#868e96', values: withRss.map((s) => s.rssMb!) }], { height: 120, xTick: timeTick(withRss), title: 'Memory over time', yLabel: (v) => v.toFixed(0) });
}
