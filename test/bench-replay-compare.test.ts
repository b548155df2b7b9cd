import { describe, expect, it } from 'vitest';
import { compareRuns, formatChange, harvestAt, type CurveRun } from '../bench/replay-compare.js';

const run = (topic: string, strategy: string, curve: number[], web = 'wikispeedia'): CurveRun => ({ web, topic, strategy, curve });

describe('bench:replay --compare', () => {
  it('reads the harvest at the budget, or at the last page of a crawl that stopped early', () => {
    expect(harvestAt([0.1, 0.2, 0.3], 2)).toBe(0.2);
    expect(harvestAt([0.1, 0.2, 0.3], 150)).toBe(0.3);
    expect(harvestAt([], 150)).toBe(0);
  });

  it('pairs each topic with the same web, topic and strategy of the earlier run', () => {
    const before = [run('birds', 'combined', [0.4]), run('music', 'combined', [0.3]), run('birds', 'bfs', [0.1]), run('birds', 'combined', [0.9], 'testweb')];
    const after = [run('birds', 'combined', [0.5]), run('music', 'combined', [0.2]), run('space', 'combined', [0.6]), run('birds', 'bfs', [0.1])];
    const [combined, bfs] = compareRuns(before, after, 150);
    expect(combined.strategy).toBe('combined');
    // space is not in the earlier run; the test web's birds is another web's topic.
    expect(combined.n).toBe(2);
    expect(combined.changes.map((c) => [c.topic, c.before, c.after])).toEqual([['birds', 0.4, 0.5], ['music', 0.3, 0.2]]);
    expect(combined.mean).toBeCloseTo(0, 10);
    expect([combined.up, combined.down]).toEqual([1, 1]);
    expect(bfs).toMatchObject({ strategy: 'bfs', n: 1, mean: 0, up: 0, down: 0 });
    expect(bfs.low).toBeUndefined();
  });

  it('gives an interval that leaves 0 behind only for a change of the same sign on most topics', () => {
    const before = Array.from({ length: 10 }, (_, i) => run(`t${i}`, 'combined', [0.3]));
    const consistent = compareRuns(before, before.map((r, i) => ({ ...r, curve: [0.32 + (i % 2) * 0.01] })), 150)[0];
    expect(consistent.low!).toBeGreaterThan(0);
    const mixed = compareRuns(before, before.map((r, i) => ({ ...r, curve: [i % 2 ? 0.35 : 0.26] })), 150)[0];
    expect(mixed.mean).toBeGreaterThan(0);
    expect(mixed.low!).toBeLessThan(0);
    expect(formatChange(mixed)).toMatch(/^combined \+0\.5 points \(95% −[0-9.]+ … \+[0-9.]+; up 5, down 5 of 10; t0 −4\.0, t1 \+5\.0/);
  });
});
