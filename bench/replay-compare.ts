/**
 * `bench:replay --compare FILE`: this run's harvest against an earlier run's (its `--json`), paired
 * topic by topic, per strategy, with a 95% interval of the mean change.
 *
 * Why: on Wikispeedia one ordering change moves single topics by 2–4 points either way (the crawl
 * is chaotic: a small score change sends it down another cluster), so a mean over 17 topics moves
 * by ±0.5 point on changes that do nothing (eight variants of combined that changed nothing all
 * fell within that band). A change is worth keeping only where the paired interval leaves 0 behind;
 * the per-topic list shows which topics moved.
 */
import { pairedInterval } from './paired-interval.js';

/** What the comparison reads of one replayed crawl (a row of `--json`). */
export interface CurveRun {
  web: string;
  topic: string;
  strategy: string;
  /** Harvest after each fetched page, in [0, 1]. */
  curve: number[];
}

export interface TopicChange {
  topic: string;
  before: number;
  after: number;
}

export interface PairedChange {
  strategy: string;
  /** Topics in both runs. */
  n: number;
  /** Mean change of the harvest, in [−1, 1]. */
  mean: number;
  /** 95% interval of the mean change (with at least two topics). */
  low?: number;
  high?: number;
  up: number;
  down: number;
  changes: TopicChange[];
}

/** The harvest at `budget` pages (a crawl that stopped early is read at its last page). */
export function harvestAt(curve: readonly number[], budget: number): number {
  return curve.length ? curve[Math.min(budget, curve.length) - 1] : 0;
}

/** Per strategy of `after`: its topics paired with the same web, topic and strategy in `before`. */
export function compareRuns(before: readonly CurveRun[], after: readonly CurveRun[], budget: number): PairedChange[] {
  const earlier = new Map(before.map((r) => [`${r.web}\n${r.topic}\n${r.strategy}`, r]));
  const out: PairedChange[] = [];
  for (const strategy of [...new Set(after.map((r) => r.strategy))]) {
    const changes: TopicChange[] = [];
    for (const r of after.filter((x) => x.strategy === strategy)) {
      const b = earlier.get(`${r.web}\n${r.topic}\n${r.strategy}`);
      if (b) changes.push({ topic: r.topic, before: harvestAt(b.curve, budget), after: harvestAt(r.curve, budget) });
    }
    if (!changes.length) continue;
    const diffs = changes.map((c) => c.after - c.before);
    const interval = pairedInterval(diffs);
    out.push({
      strategy,
      n: changes.length,
      mean: diffs.reduce((s, x) => s + x, 0) / diffs.length,
      low: interval?.low,
      high: interval?.high,
      up: diffs.filter((d) => d > 0).length,
      down: diffs.filter((d) => d < 0).length,
      changes,
    });
  }
  return out;
}

const points = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(100 * x).toFixed(1)}`;

/** One line: `combined +0.4 points (95% −0.6 … +1.4; up 9, down 6 of 17; birds +2.0, …)`. */
export function formatChange(c: PairedChange): string {
  const interval = c.low !== undefined && c.high !== undefined ? `95% ${points(c.low)} … ${points(c.high)}; ` : '';
  const moved = c.changes.filter((t) => t.after !== t.before).map((t) => `${t.topic} ${points(t.after - t.before)}`);
  return `${c.strategy} ${points(c.mean)} points (${interval}up ${c.up}, down ${c.down} of ${c.n}${moved.length ? `; ${moved.join(', ')}` : ''})`;
}
