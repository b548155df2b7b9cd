/**
 * The harvest estimate from a held-back sample (src/topic/harvest-sample.ts): Wilson
 * intervals that hold their level, and pages judged again by the end-of-crawl model.
 */
import { describe, expect, it } from 'vitest';
import { PageJudge } from '../src/judge/judge.js';
import { parseConfig } from '../src/config/schema.js';
import type { PageAnalysis } from '../src/extract/types.js';
import { HarvestSample, missedBound, wilsonInterval } from '../src/topic/harvest-sample.js';
import { seedThresholdSpread } from '../src/topic/seed-threshold.js';
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

  it('takes its mean from the verdict\'s own second judgement where it is not the rule, the rule\'s count still in the interval', () => {
    const s = new HarvestSample(1000);
    // 100 pages, all judged relevant at fetch time is not the point: 10 of them are.
    for (let i = 0; i < 100; i++) s.add(new Map([[`p${i}`, 1]]), `u${i}`, i < 10);
    // The rule calls 40 relevant (margin ≥ 1), the verdict's own judgement (the log-odds rank) 10.
    const e = s.estimate((t) => {
      const i = Number([...t.keys()][0].slice(1));
      return { margin: i < 40 ? 2 : 0.5, spread: 0, relevant: i < 10 };
    });
    expect(e.mean).toBeCloseTo(0.1, 12);
    expect(e.low).toBeCloseTo(wilsonInterval(10, 100).low, 12);
    expect(e.high).toBeCloseTo(wilsonInterval(40, 100).high, 12);
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
  const aftermath = (i: number) => `Rescue teams searched the rubble of the collapsed school ${i} for survivors through the night after the quake, and relief trucks carried tents, water and blankets into the valley where aftershocks kept families outdoors.`;
  const market = (i: number) => `Stock markets closed higher on day ${i} as bank shares and technology funds rallied strongly.`;

  it('a page judged before the seed set formed is judged again with it at the end (keyword-only topic)', async () => {
    // θ above a passing mention of the keyword, so simD to the seed set decides such a page.
    const judge = await PageJudge.create(parseConfig({ topics: [{ keywords: ['quake'], threshold: 0.18 }] }));
    // First: articles about the topic that name the keyword once, judged with no seed set.
    const early = [0, 1, 2].map((i) => judge.judge(A(`http://n/r${i}`, `School ${i}`, aftermath(i)), { isSeed: false, status: 200 }));
    expect(early.every((v) => !v.relevant)).toBe(true);
    for (let i = 0; i < 6; i++) judge.judge(A(`http://n/q${i}`, `Quake ${i}`, quake(i)), { isSeed: false, status: 200 });
    for (let i = 0; i < 11; i++) judge.judge(A(`http://n/m${i}`, `Markets ${i}`, market(i)), { isSeed: false, status: 200 });
    // The same kind of page now: simD to the grown seed set makes it relevant.
    expect(judge.judge(A('http://n/r9', 'School 9', aftermath(9)), { isSeed: false, status: 200 }).relevant).toBe(true);
    const e = judge.harvestEstimate();
    expect(e.sampled).toBe(21);
    // 6 quake pages + 4 aftermath pages are relevant; the fetch-time verdicts saw 7.
    expect(e.mean).toBeCloseTo(10 / 21, 12);
    expect(e.judgedShare).toBeCloseTo(7 / 21, 12);
  });
  it('a page that never names the keyword is not relevant on its likeness to the seed set alone, then or at the end (keyword-only topic)', async () => {
    const judge = await PageJudge.create(parseConfig({ topics: [{ keywords: ['quake'] }] }));
    for (let i = 0; i < 6; i++) judge.judge(A(`http://n/q${i}`, `Quake ${i}`, quake(i)), { isSeed: false, status: 200 });
    for (let i = 0; i < 4; i++) judge.judge(A(`http://n/m${i}`, `Markets ${i}`, market(i)), { isSeed: false, status: 200 });
    // Close to the seed set (simD well above θ_seed), none of the topic's words: rel passes θ on simD.
    const v = judge.judge(A('http://n/r9', 'School 9', rubble(9)), { isSeed: false, status: 200 });
    expect(v.cosine).toBe(0);
    expect(v.rel).toBeGreaterThanOrEqual(v.threshold!);
    expect(v.relevant).toBe(false);
    // Nor does it join the seed set, where it would pull the next page like it in.
    expect(JSON.stringify(judge.state().model.topics[0].seeds)).not.toContain('http://n/r9');
    expect(JSON.stringify(judge.state().model.topics[0].seeds)).toContain('http://n/q5');
    expect(judge.harvestEstimate().mean).toBeCloseTo(6 / 11, 12);
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

describe("the judge's own misses (examples' recall)", () => {
  const A = (url: string, title: string, text: string): PageAnalysis => ({ url, title, text, headings: [], links: [] });
  it('widens the upper end by the recall on the seed pages; unchanged without seed pages', async () => {
    const cfg = parseConfig({ topics: [{ keywords: ['quake'], seeds: ['http://s/1', 'http://s/2', 'http://s/3'] }] });
    const judge = await PageJudge.create(cfg);
    // Three seed pages: one says the keyword, two are about the topic in other words (the judge's blind spot).
    judge.judge(A('http://s/1', 'Quake', 'Quake rescue teams searched the rubble for survivors.'), { isSeed: true, status: 200 });
    judge.judge(A('http://s/2', 'Tents', 'Families slept in tents on the football field after the collapse.'), { isSeed: true, status: 200 });
    judge.judge(A('http://s/3', 'Blood', 'Hospitals asked for blood donors as the injured arrived by helicopter.'), { isSeed: true, status: 200 });
    for (let i = 0; i < 30; i++)
      judge.judge(i % 3 ? A(`http://n/${i}`, 'Markets', `Stock markets closed higher on day ${i} as bank shares rallied.`) : A(`http://n/${i}`, 'Aftershock', `Quake aftershock ${i} shook the valley again.`), { isSeed: false, status: 200 });
    const e = judge.harvestEstimate();
    expect(e.examples).toMatchObject({ recognised: 1, given: 3 });
    // 1 of 3 recognised: recall taken as 2/5, the upper end 5/2 of the sample's.
    expect(e.high).toBeGreaterThanOrEqual(Math.min(1, 2.5 * e.mean));
    expect(e.low).toBeLessThan(e.mean);
    // No seed pages (a keyword-only topic, or portal entry pages): the interval is the sample's alone.
    const kw = await PageJudge.create(parseConfig({ topics: [{ keywords: ['quake'] }] }));
    for (let i = 0; i < 30; i++)
      kw.judge(i % 3 ? A(`http://n/${i}`, 'Markets', `Stock markets closed higher on day ${i} as bank shares rallied.`) : A(`http://n/${i}`, 'Aftershock', `Quake aftershock ${i} shook the valley again.`), { isSeed: false, status: 200 });
    const k = kw.harvestEstimate();
    expect(k.examples).toBeUndefined();
    expect(k.high).toBeLessThan(0.7);
  });

  it("carries θ's spread where θ is calibrated from the seed pages, and only there", async () => {
    const seeds = ['http://s/1', 'http://s/2', 'http://s/3'];
    const crawl = async (topic: Record<string, unknown>, judgeMode: 'cosine' | 'learned') => {
      const judge = await PageJudge.create(parseConfig({ topics: [{ keywords: ['quake'], seeds, ...topic }], judge: judgeMode }));
      judge.judge(A(seeds[0], 'Quake', 'Quake rescue teams searched the rubble for survivors after the quake.'), { isSeed: true, status: 200 });
      judge.judge(A(seeds[1], 'Quake relief', 'Quake relief: families slept in tents on the football field.'), { isSeed: true, status: 200 });
      judge.judge(A(seeds[2], 'Blood', 'Hospitals asked for blood donors as quake victims arrived by helicopter in the valley town.'), { isSeed: true, status: 200 });
      for (let i = 0; i < 30; i++)
        judge.judge(i % 3 ? A(`http://n/${i}`, 'Markets', `Stock markets closed higher on day ${i} as bank shares rallied.`) : A(`http://n/${i}`, 'Aftershock', `Quake aftershock ${i} shook the valley again.`), { isSeed: false, status: 200 });
      return judge.harvestEstimate();
    };
    const calibrated = await crawl({}, 'cosine');
    expect(calibrated.examples?.thresholdSpread).toBeGreaterThan(0);
    expect(calibrated.low).toBeLessThanOrEqual(calibrated.mean);
    // A θ the user gives, or the learned verdict, is not set from the seed pages: no spread.
    expect((await crawl({ threshold: 0.05 }, 'cosine')).examples?.thresholdSpread).toBeUndefined();
    expect((await crawl({}, 'learned')).examples?.thresholdSpread).toBeUndefined();
  });

  it('missedBound: the upper end over the recall by the rule of succession, capped at 1', () => {
    expect(missedBound(0.2, { recognised: 3, given: 3 })).toBeCloseTo(0.25, 12);
    expect(missedBound(0.1, { recognised: 1, given: 3 })).toBeCloseTo(0.25, 12);
    expect(missedBound(0.1, { recognised: 0, given: 3 })).toBeCloseTo(0.5, 12);
    expect(missedBound(0.3, { recognised: 0, given: 3 })).toBe(1);
    expect(missedBound(0.2, { recognised: 30, given: 30 })).toBeLessThan(0.21);
  });

  it('holds a truth the judge under-counts (recall 0.4) whenever the seed pages show it', () => {
    // A judge with recall 0.4 on a web whose true share is 0.3; 3 examples, 300 sampled pages.
    const rng = new SeededRandom(9);
    let held = 0;
    const reps = 1000;
    for (let k = 0; k < reps; k++) {
      const s = new HarvestSample(300, k);
      for (let i = 0; i < 300; i++) {
        const relevant = rng.next() < 0.3;
        const seen = relevant && rng.next() < 0.4;
        s.add(new Map([[seen ? 'yes' : 'no', 1]]), `u${i}`, seen);
      }
      let recognised = 0;
      for (let i = 0; i < 3; i++) if (rng.next() < 0.4) recognised++;
      const e = s.estimate((t) => t.has('yes'), 300, { recognised, given: 3 });
      if (e.low <= 0.3 && 0.3 <= e.high) held++;
    }
    // Where the 3 seed pages show the judge's blind spot (0 or 1 of 3 recognised: 65% of draws), it holds.
    expect(held / reps).toBeGreaterThan(0.55);
    // Without the recall term the interval almost never holds it.
    const s = new HarvestSample(300, 1);
    for (let i = 0; i < 300; i++) s.add(new Map([['no', 1]]), `u${i}`, false);
    for (let i = 0; i < 36; i++) s.add(new Map([['yes', 1]]), `v${i}`, true);
    expect(s.estimate((t) => t.has('yes')).high).toBeLessThan(0.3);
  });

  it("holds a truth the judge over-counts (pages just above θ) by θ's own uncertainty from the seed pages", () => {
    // True share 0.2; the relevant pages' rel/θ spreads like the seed pages' (0.7–2.0); a quarter
    // of all pages are off-topic pages just above θ (1.0–1.3): the judge counts ~0.4.
    const rng = new SeededRandom(11);
    const reps = 400;
    let held = 0;
    let heldWithout = 0;
    let width = 0;
    for (let k = 0; k < reps; k++) {
      const s = new HarvestSample(300, k);
      const relevantMargin = () => 0.7 + 1.3 * rng.next();
      const seeds = [relevantMargin(), relevantMargin(), relevantMargin()];
      const spread = seedThresholdSpread(seeds);
      for (let i = 0; i < 300; i++) {
        const u = rng.next();
        const margin = u < 0.2 ? relevantMargin() : u < 0.45 ? 1 + 0.3 * rng.next() : 0.5 * rng.next();
        s.add(new Map([[String(margin), 1]]), `u${i}`, margin >= 1);
      }
      const recognised = seeds.filter((m) => m >= 1).length;
      const margin = (t: Map<string, number>) => Number([...t.keys()][0]);
      const e = s.estimate((t) => ({ margin: margin(t), spread }), 300, { recognised, given: 3 });
      if (e.low <= 0.2 && 0.2 <= e.high) held++;
      width += e.high - e.low;
      const without = s.estimate((t) => margin(t) >= 1, 300, { recognised, given: 3 });
      if (without.low <= 0.2 && 0.2 <= without.high) heldWithout++;
    }
    expect(held / reps).toBeGreaterThan(0.65);
    // Thresholded verdicts alone: the recall term only raises the upper end, the truth is below.
    expect(heldWithout / reps).toBeLessThan(0.05);
    // Not by giving up: the interval stays well inside [0, 1].
    expect(width / reps).toBeLessThan(0.6);
  });

  it('seedThresholdSpread: the seed mean\'s relative 90% half-width; 0 below two seeds', () => {
    expect(seedThresholdSpread([0.1])).toBe(0);
    expect(seedThresholdSpread([0.1, 0.1, 0.1])).toBeCloseTo(0, 12);
    // mean 0.2, sd 0.1, m 3: 1.645 · 0.1 / (√3 · 0.2)
    expect(seedThresholdSpread([0.1, 0.2, 0.3])).toBeCloseTo((1.6448536269514722 * 0.1) / (Math.sqrt(3) * 0.2), 12);
    // Scale-free: the same seeds at ten times the rel.
    expect(seedThresholdSpread([1, 2, 3])).toBeCloseTo(seedThresholdSpread([0.1, 0.2, 0.3]), 12);
  });
});

/** A crawl's result as the summary reads it, with this estimate. */
const crawlResult = async (relevant: number, harvestEstimate: object) => {
  const { formatSummary } = await import('../src/cli/main.js');
  const result = {
    counts: { fetched: 100, relevant, failed: 0, failedByReason: {} },
    elapsedMs: 1000,
    pagesPerSecond: 100,
    harvestRate: relevant / 100,
    harvestEstimate,
    stopReason: 'max pages',
    frontierSize: 0,
    datasetDir: 'storage/x',
    logPath: 'storage/x/crawl-log.jsonl',
    summaryLines: [],
  } as unknown as Parameters<typeof formatSummary>[0];
  return formatSummary(result, 'crawl');
};

describe('the summary line of the estimate', () => {
  it("says how well θ is known where it is set from the seed pages, and that it is an estimate", async () => {
    const estimate = { mean: 0.3, low: 0.12, high: 0.5, pages: 100, sampled: 100, examples: { recognised: 2, given: 3, thresholdSpread: 0.42 } };
    const text = await crawlResult(30, estimate);
    expect(text).toMatch(/harvest estimate +30\.0% \(90% interval 12\.0%–50\.0%\)/);
    expect(text).toMatch(/recognises 2 of 3 seed pages/);
    expect(text).toMatch(/θ, set from those pages, is known to ±42%/);
    expect(text).toMatch(/an estimate, not the truth/);
    expect(await crawlResult(30, { ...estimate, examples: { recognised: 2, given: 3 } })).not.toMatch(/θ, set from/);
  });

  it('says in words when the judge cannot learn a topic from its seed pages, beside the judged figure and the estimate', async () => {
    const estimate = { mean: 0.45, low: 0, high: 0.9, pages: 100, sampled: 100, unlearnable: [{ topicId: 'history', seedStanding: 0.31 }] };
    const text = await crawlResult(80, estimate);
    expect(text).toMatch(/relevant \(judged\) 80/);
    expect(text).toMatch(/harvest estimate +45\.0% \(90% interval 0\.0%–90\.0%\)/);
    expect(text).toMatch(/NOT LEARNABLE +topic "history": its seed pages score no higher than a typical page fetched \(mean rank 31\.0%/);
    expect(await crawlResult(80, { ...estimate, unlearnable: undefined })).not.toMatch(/NOT LEARNABLE/);
  });
});
