import { describe, expect, it } from 'vitest';
import { activeTimePoint, hotness, isHot, nextRevisitAt, revisitIntervalMs } from '../src/score/hotness.js';

const DAY = 86_400_000;
const t0 = new Date('2020-06-01T00:00:00Z');
const plus = (days: number) => new Date(t0.getTime() + days * DAY);

describe('hotness (METHODS §4)', () => {
  it('t̄ is the mean reply time', () => {
    // 00:00, 06:00, next day 00:00 → mean 10:00
    expect(activeTimePoint([t0, plus(0.25), plus(1)])?.toISOString()).toBe('2020-06-01T10:00:00.000Z');
    expect(activeTimePoint(['2020-06-01T00:00:00Z', '2020-06-03T00:00:00Z'])?.toISOString()).toBe('2020-06-02T00:00:00.000Z');
    expect(activeTimePoint([])).toBeNull();
  });

  it('H = (n+1)^α · e^{-(t-t̄)/β} on hand-computed values', () => {
    expect(hotness(224, t0, t0)).toBe(15); // √225
    expect(hotness(3, t0, plus(3))).toBeCloseTo(2 / Math.E, 12); // 2·e^{-1} = 0.735758…
    expect(hotness(8, t0, plus(6))).toBeCloseTo(3 * Math.exp(-2), 12); // 0.406006…
    expect(hotness(15, t0, plus(4), { alpha: 0.75, beta: 4 })).toBeCloseTo(8 * Math.exp(-1), 12); // 16^0.75 = 8
    expect(() => hotness(1, t0, t0, { alpha: 1 })).toThrow(/alpha/);
    expect(() => hotness(1, t0, t0, { beta: 2 })).toThrow(/beta/);
  });

  it('hot means H > 15', () => {
    expect(isHot(hotness(224, t0, t0))).toBe(false);
    expect(isHot(hotness(225, t0, t0))).toBe(true);
    expect(isHot(4, 3)).toBe(true);
  });

  it('revisit interval = 1 day · 15/H within [1 h, 14 days]; none below the floor', () => {
    expect(revisitIntervalMs(15)).toBe(DAY);
    expect(revisitIntervalMs(30)).toBe(DAY / 2);
    expect(revisitIntervalMs(7.5)).toBe(2 * DAY);
    expect(revisitIntervalMs(1000)).toBe(DAY / 24);
    expect(revisitIntervalMs(1.05)).toBe(14 * DAY);
    expect(revisitIntervalMs(0.99)).toBeNull();
    expect(revisitIntervalMs(0.5, { floor: 0.25 })).toBe(14 * DAY); // 30 days, clamped
    expect(nextRevisitAt(3, t0)?.toISOString()).toBe('2020-06-06T00:00:00.000Z');
  });
});
