import { describe, expect, it } from 'vitest';
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
  });
});
