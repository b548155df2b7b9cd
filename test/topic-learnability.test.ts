/**
 * Can the judge learn a topic from its seed pages? (src/topic/learnability.ts): the seed
 * pages' standing among the fetched pages by rel, and the harvest estimate that says so.
 */
import { describe, expect, it } from 'vitest';
import { seedStanding, standing } from '../src/topic/learnability.js';
import { HarvestSample, wilsonInterval } from '../src/topic/harvest-sample.js';

describe('standing', () => {
  it('is the share of pages scoring below, ties counted half', () => {
    expect(standing(5, [1, 2, 3, 4])).toBe(1);
    expect(standing(0, [1, 2, 3, 4])).toBe(0);
    expect(standing(2.5, [1, 2, 3, 4])).toBe(0.5);
    expect(standing(2, [1, 2, 2, 4])).toBe(0.5); // 1 below, 2 tied: (1 + 1) / 4
    expect(standing(1, [])).toBe(1);
  });
});

describe('seedStanding', () => {
  const pages = Array.from({ length: 100 }, (_, i) => i / 100);
  it('stands out when the seed pages score above the typical page, also on a topic most pages are about', () => {
    expect(seedStanding([0.9, 0.95, 0.8], pages)).toMatchObject({ seeds: 3, standsOut: true });
    // 80% of the pages relevant, the seed pages typical of them (uniform over the top 80%): mean standing 0.6.
    expect(seedStanding([0.3, 0.6, 0.9], pages)?.standsOut).toBe(true);
  });
  it('does not stand out when the seed pages score like a typical page or lower', () => {
    const s = seedStanding([0.05, 0.7, 0.2], pages)!;
    expect(s.meanStanding).toBeCloseTo((0.05 + 0.7 + 0.2) / 3, 1);
    expect(s.standsOut).toBe(false);
    expect(seedStanding([0.45, 0.5], pages)?.standsOut).toBe(false); // mean standing 0.48
  });
  it('is undefined without seed pages or pages', () => {
    expect(seedStanding([], pages)).toBeUndefined();
    expect(seedStanding([0.5], [])).toBeUndefined();
  });
});

describe('the harvest estimate of a topic the judge cannot learn', () => {
  // 100 pages of topic t: the verdict calls the 60 with rel ≥ 0.4 relevant.
  const sample = () => {
    const s = new HarvestSample(1000);
    for (let i = 0; i < 100; i++) s.add(new Map([[`p${i}`, 1]]), `u${i}`, i >= 40);
    return s;
  };
  const again = (tf: Map<string, number>) => {
    const rel = Number([...tf.keys()][0].slice(1)) / 100;
    return { margin: rel / 0.4, spread: 0, topicId: 't', rel };
  };
  it('stays the count where the seed pages stand out', () => {
    const e = sample().estimate(again, 100, undefined, new Map([['t', [0.9, 0.8, 0.7]]]));
    expect(e.mean).toBeCloseTo(0.6, 12);
    expect(e.unlearnable).toBeUndefined();
    expect(e.low).toBeCloseTo(wilsonInterval(60, 100).low, 12);
  });
  it('says so where they do not: the lower end leaves the topic\'s pages out, the point is the midpoint', () => {
    const e = sample().estimate(again, 100, undefined, new Map([['t', [0.1, 0.5, 0.3]]]));
    expect(e.unlearnable).toEqual([{ topicId: 't', seedStanding: expect.closeTo(0.3, 1) }]);
    expect(e.low).toBe(0);
    expect(e.high).toBeCloseTo(wilsonInterval(60, 100).high, 12);
    expect(e.mean).toBeCloseTo(e.high / 2, 12);
  });
  it('leaves out only the pages of the topic it cannot learn', () => {
    const s = new HarvestSample(1000);
    for (let i = 0; i < 100; i++) s.add(new Map([[`p${i}`, 1]]), `u${i}`, true);
    // Topic a (learnable): pages 0–49, all relevant; topic b: pages 50–99, all relevant by its count.
    const e = s.estimate(
      (tf) => {
        const i = Number([...tf.keys()][0].slice(1));
        return { margin: 2, spread: 0, topicId: i < 50 ? 'a' : 'b', rel: (i % 50) / 50 };
      },
      100,
      undefined,
      new Map([['a', [0.99, 0.98]], ['b', [0.1, 0.2]]]),
    );
    expect(e.unlearnable?.map((u) => u.topicId)).toEqual(['b']);
    expect(e.low).toBeCloseTo(wilsonInterval(50, 100).low, 12);
  });
});
