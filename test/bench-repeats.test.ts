import { describe, expect, it } from 'vitest';
import { adaptiveMd, type AdaptiveRun } from '../bench/adaptive.js';
import { aggregateMd, repeatsMd, spreadText, type CurveRun } from '../bench/report.js';

const run = (strategy: string, topic: string, repeats: number[]): CurveRun => ({
  web: 'testweb', topic, strategy, fetched: 40, relevantAvailable: 100, maxPages: 40, elapsedMs: 1, curve: Array(40).fill(repeats[0]), repeats,
});

describe('bench: every harvest figure with its mean and spread over repeats', () => {
  it('spreadText: mean, min–max and the number of runs', () => {
    expect(spreadText([0.4, 0.5, 0.45])).toBe('45.0% (40.0–50.0%, 3 runs)');
    expect(spreadText([0.475, 0.475])).toBe('47.5% (47.5–47.5%, 2 runs)');
  });

  it('the topic table and the mean over topics show the spread of the repeats', () => {
    const curves = [run('bfs', 'quake', [0.2, 0.2, 0.2]), run('combined', 'quake', [0.5, 0.4, 0.45]), run('combined', 'fire', [0.3, 0.3, 0.3]), run('bfs', 'fire', [0.1, 0.1, 0.1])];
    const table = repeatsMd(curves);
    expect(table).toContain('| quake | combined | 45.0% (40.0–50.0%, 3 runs) |');
    expect(table).toContain('| quake | bfs | 20.0% (20.0–20.0%, 3 runs) |');
    const agg = aggregateMd(curves);
    expect(agg).toContain('spread over repeats');
    expect(agg).toMatch(/\| combined \|.*\| 10\.0 points \(3 runs\) \|/);
    expect(agg).toMatch(/\| bfs \|.*\| 0\.0 points \(3 runs\) \|/);
    // The mean over topics is the mean of each topic's repeats (quake 45.0%, fire 30.0%), not of its first run (50.0%).
    expect(agg).toMatch(/^\| combined \| 40 \| 37\.5% \| 30\.0%–45\.0% \|/m);
  });

  it('the adaptive table gives each crawler\'s harvest as mean and spread over its runs', () => {
    const row = (crawler: AdaptiveRun['crawler'], rep: number, harvest: number): AdaptiveRun => ({
      crawler, rep, pages: 60, elapsedMs: 10_000, pagesPerSecond: 6, cpuMsPerPage: 100, peakRssMb: 900, renderedShare: 0.5, harvest,
    });
    const md = adaptiveMd({ budget: 60, concurrency: 4, runs: [row('ours (adaptive)', 0, 0.6), row('ours (browser)', 0, 0.7), row('ours (adaptive)', 1, 0.7), row('ours (browser)', 1, 0.7)] });
    expect(md).toContain('harvest: mean (min–max, runs)');
    expect(md).toMatch(/^\| ours \(adaptive\) \| 2 \|.*\| 65\.0% \(60\.0–70\.0%, 2 runs\) \|$/m);
    expect(md).toMatch(/^\| ours \(browser\) \| 2 \|.*\| 70\.0% \(70\.0–70\.0%, 2 runs\) \|$/m);
  });
});
