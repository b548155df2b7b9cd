/**
 * The verdict by the examples' language (src/topic/rank-verdict.ts, src/topic/term-model.ts
 * `logOdds`): how many pages are relevant is the calibrated rule's call, which ones the log-odds
 * rank's; a page that shares the topic's keywords but talks of other things loses to one that
 * talks like the seed pages.
 */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config/schema.js';
import { PageJudge } from '../src/judge/judge.js';
import { analyzePage } from '../src/extract/page.js';
import { labelledBar, prevalenceBound, RankVerdict, type RankScorer } from '../src/topic/rank-verdict.js';
import { TopicTermModel } from '../src/topic/term-model.js';

const tf = (text: string) => {
  const m = new Map<string, number>();
  for (const w of text.split(/\s+/)) m.set(w, (m.get(w) ?? 0) + 1);
  return m;
};

/** A page standing for one score: the scorer reads it back, shifted by the model's drift. */
const at = (x: number) => new Map([['x', x]]);
const fixed: RankScorer = { score: (p) => p.get('x')!, version: 0 };

describe('RankVerdict', () => {
  it('keeps the rule during warm-up, then calls the top π̂ of pages by log-odds relevant', () => {
    const v = new RankVerdict(4);
    // Warm-up: the rule's verdict whatever the log-odds.
    expect([v.judge(true, at(-5), fixed), v.judge(false, at(5), fixed), v.judge(true, at(0), fixed), v.judge(false, at(1), fixed)]).toEqual([true, false, true, false]);
    // The rule says no, but the page outranks every page so far: relevant (π̂ = 2/5).
    expect(v.judge(false, at(9), fixed)).toBe(true);
    // The rule says yes, but the page ranks below all: not relevant.
    expect(v.judge(true, at(-9), fixed)).toBe(false);
    expect(v.ruleShare).toBeCloseTo(3 / 6, 12);
  });

  it('calls about the rule’s share of pages relevant, by log-odds', () => {
    const v = new RankVerdict(20);
    let byRank = 0;
    let agree = 0;
    const n = 2000;
    for (let i = 0; i < n; i++) {
      const x = ((i * 7919) % 1000) / 1000; // a deterministic scramble of [0, 1)
      const rule = ((i * 104729) % 1000) / 1000 < 0.3; // the rule: 30% relevant, unrelated to x
      const y = v.judge(rule, at(x), fixed);
      if (i >= 20) byRank += y ? 1 : 0;
      if (i >= 20 && y === x >= 0.7) agree++;
    }
    expect(byRank / (n - 20)).toBeGreaterThan(0.25);
    expect(byRank / (n - 20)).toBeLessThan(0.35);
    // Which pages: those of highest log-odds, not the rule's.
    expect(agree / (n - 20)).toBeGreaterThan(0.95);
  });

  it('ranks a page against earlier pages as the model scores them now, not as it scored them then', () => {
    // Every page's log-odds rise as examples join (the model's version): a page judged later
    // scores higher than an equal page judged earlier did. Ranked against the scores as they
    // were, every page after the warm-up would outrank the earlier ones.
    let version = 0;
    const drifting: RankScorer = { score: (p) => p.get('x')! + version, get version() { return version; } };
    const v = new RankVerdict(20);
    let called = 0;
    let agree = 0;
    const n = 1000;
    for (let i = 0; i < n; i++) {
      version = i; // an example joins with every page
      const x = ((i * 7919) % 1000) / 1000;
      const y = v.judge(((i * 104729) % 1000) / 1000 < 0.3, at(x), drifting);
      if (i >= 20) {
        called += y ? 1 : 0;
        if (y === x >= 0.7) agree++;
      }
    }
    // Re-scored, the reference moves with the page: the rule's share, by the pages' own standing.
    expect(called / (n - 20)).toBeGreaterThan(0.25);
    expect(called / (n - 20)).toBeLessThan(0.35);
    expect(agree / (n - 20)).toBeGreaterThan(0.95);
  });

  it("pulls the count back towards the rule's when the crawl brings pages that outrank the earlier ones", () => {
    const v = new RankVerdict(20);
    let called = 0;
    let rule = 0;
    const n = 1000;
    for (let i = 0; i < n; i++) {
      const r = ((i * 104729) % 1000) / 1000 < 0.3;
      rule += r ? 1 : 0;
      // Not drift of the model (the scorer is fixed): the order. Each page outranks all earlier ones.
      called += v.judge(r, at(i + ((i * 7919) % 13) / 13), fixed) ? 1 : 0;
    }
    // By the top π̂ alone every page after the warm-up would be called relevant (~98%).
    expect(called).toBeLessThanOrEqual(2 * rule + 1);
    expect(called).toBeGreaterThanOrEqual(rule);
    expect(v.state().called).toBe(called);
  });

  it('ranks against a bounded uniform sample on a long crawl, still calling the top π̂ relevant', () => {
    const v = new RankVerdict(20, 200);
    let byRank = 0;
    let agree = 0;
    const n = 20_000;
    for (let i = 0; i < n; i++) {
      const x = ((i * 7919) % 10007) / 10007;
      const rule = ((i * 104729) % 1000) / 1000 < 0.3;
      const y = v.judge(rule, at(x), fixed);
      if (i >= n / 2) {
        byRank += y ? 1 : 0;
        if (y === x >= 0.7) agree++;
      }
    }
    const s = v.state();
    expect(s.reference!.length).toBe(200);
    const kept = s.reference!.map((p) => p[0][1]).sort((a, b) => a - b);
    // The sample spans the whole range, not the first 200 pages only.
    expect(kept[0]).toBeLessThan(0.05);
    expect(kept[199]).toBeGreaterThan(0.95);
    expect(byRank / (n / 2)).toBeGreaterThan(0.25);
    expect(byRank / (n / 2)).toBeLessThan(0.35);
    expect(agree / (n / 2)).toBeGreaterThan(0.9);
  });

  it('comes back from its state', () => {
    const a = new RankVerdict(2);
    for (const [r, x] of [[true, 1], [false, 0], [true, 3]] as const) a.judge(r, at(x), fixed);
    const b = new RankVerdict(2);
    b.restore(JSON.parse(JSON.stringify(a.state())));
    expect([b.judge(false, at(2), fixed), b.judge(true, at(-1), fixed)]).toEqual([a.judge(false, at(2), fixed), a.judge(true, at(-1), fixed)]);
  });

  it('judges a page again by the reference as the model scores it now, without moving its own state', () => {
    let version = 0;
    const drifting: RankScorer = { score: (p) => p.get('x')! + version, get version() { return version; } };
    const v = new RankVerdict(20);
    for (let i = 0; i < 200; i++) v.judge(i % 4 === 0, at(((i * 7919) % 1000) / 1000), drifting);
    const before = JSON.stringify(v.state());
    version = 50; // the model moved since the last page
    const again = v.rejudge(drifting)!;
    // The top quarter (the rule's share) of the pages' own scores.
    expect(again(at(0.9))).toBe(true);
    expect(again(at(0.6))).toBe(false);
    expect(JSON.stringify(v.state())).toBe(before);
    expect(new RankVerdict(20).rejudge(drifting)).toBeUndefined();
  });
});

describe('labelledBar: the rank cut moved by the user\'s labels', () => {
  // A reference of 100 pages scoring 0..99; bar 0.7: the pages scoring 70 and up are relevant.
  const sorted = Array.from({ length: 100 }, (_, i) => i);
  const relevantAt = (bar: number, score: number) => lowerBound100(score) / 100 >= bar;
  const lowerBound100 = (x: number) => sorted.filter((s) => s < x).length;

  it('leaves the bar where the labels agree with it', () => {
    expect(labelledBar(0.7, sorted, [])).toBe(0.7);
    expect(labelledBar(0.7, sorted, [{ score: 90, relevant: true }, { score: 40, relevant: false }, { score: 75, relevant: true }])).toBe(0.7);
  });

  it('raises the bar past the pages judged relevant near the line that the labels say are not, and those verdicts drop', () => {
    const labels = [72, 75, 78].map((score) => ({ score, relevant: false }));
    for (const l of labels) expect(relevantAt(0.7, l.score)).toBe(true);
    const bar = labelledBar(0.7, sorted, labels);
    expect(bar).toBeGreaterThan(0.78);
    for (const l of labels) expect(relevantAt(bar, l.score)).toBe(false);
    // Pages above the labelled ones stay relevant: the cut moves just past them, no further.
    expect(relevantAt(bar, 79)).toBe(true);
  });

  it('lowers the bar below the pages judged not relevant that the labels say are', () => {
    const bar = labelledBar(0.7, sorted, [{ score: 60, relevant: true }, { score: 65, relevant: true }]);
    expect(relevantAt(bar, 60)).toBe(true);
    expect(relevantAt(bar, 59)).toBe(false);
  });

  it('does not follow a single label far from the line (one label wrong costs less than moving the share by e²)', () => {
    // The top 10% relevant; the page at 5 far below the line: calling the top 95% relevant for it would move π 9.5 times.
    expect(labelledBar(0.9, sorted, [{ score: 5, relevant: true }])).toBe(0.9);
    // Three such labels outweigh the move.
    const bar = labelledBar(0.9, sorted, [5, 6, 7].map((score) => ({ score, relevant: true })));
    expect(relevantAt(bar, 5)).toBe(true);
  });

  it('moves the verdict of the pages judged after the labels, and its second judgement', () => {
    const labels = [72, 75, 78].map((score) => ({ score, relevant: false }));
    const withLabels: RankScorer = { ...fixed, labels: () => labels };
    const plain = new RankVerdict(20);
    const labelled = new RankVerdict(20);
    // The rule calls 30% of pages relevant: those scoring 70 and up (in an order that is not the scores').
    for (let j = 0; j < 100; j++) {
      const i = (j * 37) % 100;
      plain.judge(i >= 70, at(i), fixed);
      labelled.judge(i >= 70, at(i), withLabels);
    }
    expect(plain.judge(true, at(76), fixed)).toBe(true);
    expect(labelled.judge(true, at(76), withLabels)).toBe(false);
    expect(labelled.judge(true, at(85), withLabels)).toBe(true);
    expect(plain.rejudge(fixed)!(at(76))).toBe(true);
    expect(labelled.rejudge(withLabels)!(at(76))).toBe(false);
  });
});

describe('prevalenceBound', () => {
  it('bounds the relevant share by the pages scoring at least as high as the lowest example page', () => {
    const sorted = Array.from({ length: 100 }, (_, i) => i / 100);
    // 10 pages score ≥ 0.9, the lowest of three examples: at most 10% / (3/4) relevant.
    expect(prevalenceBound(sorted, [0.95, 0.9, 0.99])).toBeCloseTo(0.1 / 0.75, 12);
    // Examples that score like any page bound nothing.
    expect(prevalenceBound(sorted, [0.0, 0.5])).toBe(1);
    expect(prevalenceBound(sorted, [])).toBe(1);
  });

  it('bounds the verdict\'s second judgement where the rule calls more pages than the examples allow', () => {
    const v = new RankVerdict(20);
    const scorer: RankScorer = { score: (p) => p.get('x')!, version: 0, examples: () => [0.9, 0.92, 0.95] };
    for (let i = 0; i < 100; i++) v.judge(true, at(i / 100), scorer); // the rule calls every page relevant
    const again = v.rejudge(scorer)!;
    const called = Array.from({ length: 100 }, (_, i) => again(at(i / 100))).filter(Boolean).length;
    expect(called).toBeGreaterThanOrEqual(12);
    expect(called).toBeLessThanOrEqual(15);
  });

  it("counts the example pages its second judgement calls relevant (the verdict's own recall on them)", () => {
    const v = new RankVerdict(20);
    let examples = [0.9, 0.5, 0.1];
    const scorer: RankScorer = { score: (p) => p.get('x')!, version: 0, examples: () => examples };
    // The rule calls the top 40% relevant; the examples bound nothing (the lowest scores like a low page).
    for (let i = 0; i < 100; i++) v.judge(i >= 60, at(i / 100), scorer);
    expect(v.recognisedExamples(scorer)).toBe(1); // only 0.9 is in the top 40%
    examples = [0.9, 0.7, 0.65];
    expect(v.recognisedExamples(scorer)).toBe(3);
    expect(new RankVerdict(20).recognisedExamples(scorer)).toBeUndefined();
  });
});

describe('the verdict bounded by the base rate the examples allow', () => {
  it('bounds the share the verdict calls relevant as pages are fetched, where the rule calls far more', () => {
    // A broad topic: the rule calls every page relevant, but the examples outscore 90% of the pages.
    const withExamples: RankScorer = { ...fixed, examples: () => [0.9, 0.93, 0.97] };
    const bounded = new RankVerdict(20);
    const plain = new RankVerdict(20);
    let called = 0;
    let calledPlain = 0;
    let top = 0;
    const n = 1000;
    for (let i = 0; i < n; i++) {
      const x = ((i * 7919) % 1000) / 1000;
      const y = bounded.judge(true, at(x), withExamples);
      calledPlain += plain.judge(true, at(x), fixed) ? 1 : 0;
      if (i >= 20) {
        called += y ? 1 : 0;
        if (y) top += x >= 0.8 ? 1 : 0;
      }
    }
    // Without examples the rule's share stands: every page.
    expect(calledPlain).toBe(n);
    // With them about the share they allow (13%: the 10% scoring at least as high as the lowest, over 3/4), the highest-scoring pages.
    expect(called / (n - 20)).toBeGreaterThan(0.1);
    expect(called / (n - 20)).toBeLessThan(0.17);
    expect(top / called).toBeGreaterThan(0.95);
  });

  it('leaves the rule\'s share where it is below what the examples allow', () => {
    const withExamples: RankScorer = { ...fixed, examples: () => [0.5, 0.6, 0.7] };
    const v = new RankVerdict(20);
    let called = 0;
    const n = 1000;
    for (let i = 0; i < n; i++) {
      const x = ((i * 7919) % 1000) / 1000;
      if (v.judge(((i * 104729) % 1000) / 1000 < 0.3, at(x), withExamples) && i >= 20) called++;
    }
    expect(called / (n - 20)).toBeGreaterThan(0.25);
    expect(called / (n - 20)).toBeLessThan(0.35);
  });
});

describe('TopicTermModel.logOdds', () => {
  it('ranks a page that talks like the examples above one that shares the keywords but talks of other things', () => {
    const m = new TopicTermModel(tf('food crop'));
    const examples = ['bread flour dough bake oven yeast loaf food', 'cheese milk curd rennet aged wheel food', 'rice grain paddy cooked bowl steam food'];
    const country = 'country capital population river mountain border parliament army coast province president economy oil crop food export';
    const dish = 'noodle flour dough boiled bowl broth milk';
    const others = Array.from({ length: 20 }, (_, i) => `city river bridge mayor council town ${i} road school mountain valley capital population border army`);
    const pages = [...examples, country, dish, ...others];
    for (const p of pages) m.observe(tf(p));
    for (const e of examples) m.addExample(tf(e));
    expect(m.logOdds(tf(dish))).toBeGreaterThan(m.logOdds(tf(country)));
    // Words the examples never use count against a page.
    expect(m.logOdds(tf('city river bridge mayor council'))).toBeLessThan(0);
  });

  it('scores an example left out as the same model without it would', () => {
    const pages = ['bread flour dough bake oven', 'cheese milk curd rennet', 'rice grain paddy bowl', 'city river bridge mayor'];
    const withIt = new TopicTermModel(tf('food'));
    const without = new TopicTermModel(tf('food'));
    for (const p of pages) (withIt.observe(tf(p)), without.observe(tf(p)));
    for (const e of pages.slice(0, 3)) withIt.addExample(tf(e));
    for (const e of pages.slice(0, 2)) without.addExample(tf(e));
    const rice = tf(pages[2]);
    expect(withIt.logOdds(rice, rice)).toBeCloseTo(without.logOdds(rice), 12);
    expect(withIt.logOdds(rice)).toBeGreaterThan(withIt.logOdds(rice, rice));
  });
});

const page = (url: string, title: string, body: string) =>
  analyzePage({ html: `<html><head><title>${title}</title></head><body><h1>${title}</h1><p>${body}</p></body></html>`, url, fetchedAt: new Date() });
const o = 'http://127.0.0.1:9';
const dishes = ['bread', 'cheese', 'noodles', 'dumplings', 'porridge', 'pancakes', 'stew', 'soup', 'pie', 'cake'];
const dishText = (d: string, i: number) => `${d} is made from flour dough milk butter eggs and salt, kneaded or stirred, then baked boiled or fried in a pan or oven as food; cooks serve ${d} as food warm with sauce herbs and spices at meals, a dish of kitchens everywhere ${'recipe '.repeat(i % 3)}`;
const countryText = (i: number) => `Country ${i} has a capital city, a parliament, a president and a population of millions along a river valley below mountains and a coast; its economy exports oil, its agriculture grows a food crop of wheat, and its army guards a long border with provinces and regions`;

describe('the judge with seed pages', () => {
  it('learns the examples\' language from seed pages that never use the keywords (they are the user\'s examples all the same)', async () => {
    // Dishes described without the words "food", "agriculture" or "crop" (Wikispeedia's Durian, Onion, Chicken against those keywords).
    const plain = (d: string, i: number) => dishText(d, i).replace(/food/g, 'meal');
    const seeds = dishes.slice(0, 3).map((d, i) => page(`${o}/${d}`, d, plain(d, i)));
    const judge = await PageJudge.create(parseConfig({ topics: [{ keywords: ['food', 'agriculture', 'crop'], seeds: seeds.map((s) => s.url) }], pageThreshold: 0.05 }));
    for (const s of seeds) expect(judge.judge(s, { isSeed: true }).cosine).toBe(0);
    const state = judge.state();
    // Their words are the topic's examples (the log-odds the verdict ranks by, the evidence the learners' label ranks by)...
    const shares = new Map(state.terms[0].shares!.counts);
    for (const w of ['flour', 'dough', 'oven', 'meal']) expect(shares.get(w) ?? 0).toBeGreaterThan(0);
    // ...each left out when it is judged again (the harvest estimate's recall term), and D is not theirs (their keyword cosine is 0).
    expect(state.examples.every((e) => e.joined)).toBe(true);
    expect(state.model.topics[0].givenSeeds).toBe(0);
  });

  it('calls the pages that talk like the seed pages relevant, not the hub pages that share the keywords', async () => {
    const seeds = dishes.slice(0, 3).map((d, i) => page(`${o}/${d}`, d, dishText(d, i)));
    const judge = await PageJudge.create(parseConfig({ topics: [{ keywords: ['food', 'agriculture', 'crop'], seeds: seeds.map((s) => s.url) }], pageThreshold: 0.05 }));
    for (const s of seeds) judge.judge(s, { isSeed: true });
    const verdicts: { dish: boolean; relevant: boolean; rule: boolean }[] = [];
    for (let i = 0; i < 60; i++) {
      const dish = i % 3 === 0;
      const p = dish ? page(`${o}/d${i}`, dishes[(i / 3) % dishes.length], dishText(dishes[(i / 3) % dishes.length], i)) : page(`${o}/c${i}`, `Country ${i}`, countryText(i));
      const v = judge.judge(p, { isSeed: false });
      verdicts.push({ dish, relevant: v.relevant, rule: v.rel > 0 && v.rel >= (v.threshold ?? 0) });
    }
    const late = verdicts.slice(30);
    const acc = (k: 'relevant' | 'rule') => late.filter((v) => v[k] === v.dish).length / late.length;
    // The keyword rule calls the country pages (they say "agriculture", "food", "crop") relevant.
    expect(acc('rule')).toBeLessThan(0.7);
    // The log-odds rank picks the dishes first: every late dish is relevant, and it is right more often than the rule.
    expect(late.filter((v) => v.dish).every((v) => v.relevant)).toBe(true);
    expect(acc('relevant')).toBeGreaterThan(acc('rule') + 0.05);

  });
});

describe('the judge’s rank verdict across a snapshot', () => {
  it('judges the pages after a restore as the uninterrupted judge does', async () => {
    const seeds = dishes.slice(0, 3).map((d, i) => page(`${o}/${d}`, d, dishText(d, i)));
    const config = parseConfig({ topics: [{ keywords: ['food', 'agriculture', 'crop'], seeds: seeds.map((s) => s.url) }], pageThreshold: 0.05 });
    const pages = Array.from({ length: 60 }, (_, i) => (i % 3 === 0 ? page(`${o}/d${i}`, dishes[(i / 3) % dishes.length], dishText(dishes[(i / 3) % dishes.length], i)) : page(`${o}/c${i}`, `Country ${i}`, countryText(i))));
    const whole = await PageJudge.create(config);
    const stopped = await PageJudge.create(config);
    for (const s of seeds) (whole.judge(s, { isSeed: true }), stopped.judge(s, { isSeed: true }));
    for (const p of pages.slice(0, 30)) (whole.judge(p, { isSeed: false }), stopped.judge(p, { isSeed: false }));
    const resumed = await PageJudge.create(config);
    resumed.restore(JSON.parse(JSON.stringify(stopped.state())));
    const a = pages.slice(30).map((p) => whole.judge(p, { isSeed: false }).relevant);
    const b = pages.slice(30).map((p) => resumed.judge(p, { isSeed: false }).relevant);
    expect(b).toEqual(a);
    expect(a.some((x) => x) && a.some((x) => !x)).toBe(true);
  });
});
