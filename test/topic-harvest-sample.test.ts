/**
 * The harvest estimate from a held-back sample (issue #15, src/topic/harvest-sample.ts): Wilson
 * intervals that hold their level, and pages judged again by the end-of-crawl model.
 */
import { describe, expect, it } from 'vitest';
import { PageJudge } from '../src/crawl/judge.js';
import { parseConfig } from '../src/config/schema.js';
import type { PageAnalysis } from '../src/extract/types.js';
import { HarvestSample, wilsonInterval } from '../src/topic/harvest-sample.js';
import { SeededRandom } from '../src/topic/sampling.js';

describe('wilsonInterval', () => {
  it('holds the true share about 90% of the time, also at small samples and shares near 0', () => {
    const rng = new SeededRandom(3);
    for (const [p, n] of [[0.3, 50], [0.05, 40], [0.7, 200]] as const) {
      let held = 0;
      const reps = 2000;
      for (let r = 0; r < reps; r++) {
        let x = 0;
        for (let i = 0; i < n; i++) if (rng.next() < p) x++;
        const w = wilsonInterval(x, n);
        if (w.low <= p && p <= w.high) held++;
      }
      expect(held / reps, `p ${p} n ${n}`).toBeGreaterThan(0.86);
      expect(held / reps, `p ${p} n ${n}`).toBeLessThan(0.96);
    }
    expect(wilsonInterval(0, 10).low).toBe(0);
    expect(wilsonInterval(0, 10).high).toBeGreaterThan(0.1);
    expect(wilsonInterval(0, 0)).toEqual({ low: 0, high: 1 });
  });
});

describe('HarvestSample', () => {
  it('estimates from the pages judged again, its interval spanning the fetch-time verdicts too, over all fetched pages', () => {
    const s = new HarvestSample(1000);
    const tf = (w: string) => new Map([[w, 1]]);
    // 40 pages judged relevant at fetch time, 60 not; judged again, 20 of the 60 turn out relevant.
    for (let i = 0; i < 40; i++) s.add(tf('yes'), `u${i}`, true);
    for (let i = 0; i < 20; i++) s.add(tf('yes'), `v${i}`, false);
    for (let i = 0; i < 30; i++) s.add(tf('no'), `w${i}`, false);
    for (let i = 0; i < 10; i++) s.addNegative();
    const again = (t: Map<string, number>) => t.has('yes');
    const e = s.estimate(again, 125); // 25 fetches never reached the judge (failed): not relevant
    expect(e.sampled).toBe(100);
    expect(e.pages).toBe(125);
    expect(e.mean).toBeCloseTo(60 / 125, 12);
    expect(e.judgedShare).toBeCloseTo(40 / 125, 12);
    const scale = 100 / 125;
    expect(e.low).toBeCloseTo(scale * wilsonInterval(40, 100).low, 12);
    expect(e.high).toBeCloseTo(scale * wilsonInterval(60, 100).high, 12);
  });

  it('keeps a uniform sample of a long crawl', () => {
    const s = new HarvestSample(200, 5);
    for (let i = 0; i < 5000; i++) s.add(new Map([[i % 4 === 0 ? 'yes' : 'no', 1]]), `u${i}`, false);
    const e = s.estimate((t) => t.has('yes'));
    expect(e.sampled).toBe(200);
    expect(e.low).toBeLessThanOrEqual(0.25);
    expect(e.high).toBeGreaterThanOrEqual(0.25);
  });
});

describe('PageJudge.harvestEstimate', () => {
  const A = (url: string, title: string, text: string): PageAnalysis => ({ url, title, text, headings: [], links: [] });
  const quake = (i: number) => `Quake rescue teams reached the collapsed school ${i} and searched the rubble for survivors through the night.`;
  const rubble = (i: number) => `Rescue teams searched the rubble of the collapsed school ${i} for survivors through the night.`;
  const market = (i: number) => `Stock markets closed higher on day ${i} as bank shares and technology funds rallied strongly.`;

  it('a page judged before the seed set formed is judged again with it at the end (keyword-only topic)', async () => {
    const judge = await PageJudge.create(parseConfig({ topics: [{ keywords: ['quake'] }] }));
    // First: articles about the topic that never say the keyword, judged with no seed set.
    const early = [0, 1, 2].map((i) => judge.judge(A(`http://n/r${i}`, `School ${i}`, rubble(i)), { isSeed: false, status: 200 }));
    expect(early.every((v) => !v.relevant)).toBe(true);
    for (let i = 0; i < 6; i++) judge.judge(A(`http://n/q${i}`, `Quake ${i}`, quake(i)), { isSeed: false, status: 200 });
    for (let i = 0; i < 11; i++) judge.judge(A(`http://n/m${i}`, `Markets ${i}`, market(i)), { isSeed: false, status: 200 });
    // The same kind of page now: simD to the grown seed set makes it relevant.
    expect(judge.judge(A('http://n/r9', 'School 9', rubble(9)), { isSeed: false, status: 200 }).relevant).toBe(true);
    const e = judge.harvestEstimate();
    expect(e.sampled).toBe(21);
    // 6 quake pages + 4 rubble pages are relevant; the fetch-time verdicts saw 7.
    expect(e.mean).toBeCloseTo(10 / 21, 12);
    expect(e.judgedShare).toBeCloseTo(7 / 21, 12);
  });
  it('after --resume, the pages fetched before the stop count by their crawl-log verdicts', async () => {
    const judge = await PageJudge.create(parseConfig({ topics: [{ keywords: ['quake'] }] }));
    judge.restoreVerdicts([true, true, true, true, false, false, false, false, false, false]);
    for (let i = 0; i < 5; i++) judge.judge(A(`http://n/q${i}`, `Quake ${i}`, quake(i)), { isSeed: false, status: 200 });
    for (let i = 0; i < 5; i++) judge.judge(A(`http://n/m${i}`, `Markets ${i}`, market(i)), { isSeed: false, status: 200 });
    const e = judge.harvestEstimate(20);
    expect(e.sampled).toBe(20);
    expect(e.mean).toBeCloseTo(9 / 20, 12);
    expect(e.judgedShare).toBeCloseTo(9 / 20, 12);
    // Without them the 10 earlier pages would count as fetched and not relevant.
    const fresh = await PageJudge.create(parseConfig({ topics: [{ keywords: ['quake'] }] }));
    for (let i = 0; i < 5; i++) fresh.judge(A(`http://n/q${i}`, `Quake ${i}`, quake(i)), { isSeed: false, status: 200 });
    for (let i = 0; i < 5; i++) fresh.judge(A(`http://n/m${i}`, `Markets ${i}`, market(i)), { isSeed: false, status: 200 });
    expect(fresh.harvestEstimate(20).mean).toBeCloseTo(5 / 20, 12);
  });
});
