import { describe, expect, it } from 'vitest';
import { PageJudge } from '../src/judge/judge.js';
import { analyzePage } from '../src/extract/page.js';
import { MultiTopicModel } from '../src/topic/multi-topic.js';
import { PageClassifier, type PageEvidence } from '../src/topic/page-classifier.js';
import { TopicTermModel } from '../src/topic/term-model.js';

const THETA = 0.05;

/** A deterministic stream in [0, 1) (mulberry32), so the synthetic webs are the same every run. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A synthetic crawl where the keyword rule is wrong often: relevant pages' cosines straddle θ
 * (a third fall below it), a fifth of the off-topic pages mention a keyword above θ; the topic
 * evidence (the term model) separates them better. Returns pages with their truth.
 */
function population(n: number, share: number, seed: number): { e: PageEvidence; truth: boolean }[] {
  const r = rng(seed);
  return Array.from({ length: n }, () => {
    const truth = r() < share;
    if (truth) return { truth, e: { cosine: THETA * (0.3 + 2 * r()), simD: 0, evidence: 0.3 + r(), negativeEvidence: 0 } };
    const mentions = r() < 0.4;
    return { truth, e: { cosine: mentions ? THETA * (0.1 + 1.6 * r()) : 0, simD: 0, evidence: mentions ? 0.05 + 0.35 * r() : 0, negativeEvidence: 0 } };
  });
}

/** Expected calibration error over 10 equal-width bins. */
const ece = (xs: { p: number; truth: boolean }[]) => {
  let e = 0;
  for (let b = 0; b < 10; b++) {
    const bin = xs.filter((x) => Math.min(9, Math.floor(x.p * 10)) === b);
    e += Math.abs(bin.reduce((a, x) => a + x.p - (x.truth ? 1 : 0), 0)) / xs.length;
  }
  return e;
};
const brier = (xs: { p: number; truth: boolean }[]) => xs.reduce((a, x) => a + (x.p - (x.truth ? 1 : 0)) ** 2, 0) / xs.length;

describe('learned page judge (page classifier)', () => {
  it('says what the keyword rule says before it has seen anything (keyword-only topics work from the first page)', () => {
    const c = new PageClassifier({ threshold: THETA });
    expect(c.probability({ cosine: 2 * THETA, simD: 0, evidence: 0, negativeEvidence: 0 })).toBeGreaterThan(0.5);
    expect(c.probability({ cosine: 0, simD: 0, evidence: 0, negativeEvidence: 0 })).toBeLessThan(0.5);
  });

  it('is better calibrated than the thresholded cosine on pages it never learned from (Brier)', () => {
    const c = new PageClassifier({ threshold: THETA });
    for (const { e } of population(600, 0.3, 1)) c.judge(e);
    const heldOut = population(600, 0.3, 2);
    const learned = heldOut.map(({ e, truth }) => ({ p: c.probability(e), truth }));
    const rule = heldOut.map(({ e, truth }) => ({ p: e.cosine >= THETA ? 1 : 0, truth }));
    expect(brier(learned)).toBeLessThan(brier(rule));
    // Reliability: the expected calibration error (10 bins) is lower too.
    expect(ece(learned)).toBeLessThan(ece(rule));
  });

  it("estimates the crawl's harvest with an interval that holds the truth", () => {
    for (const [share, seed] of [
      [0.2, 3],
      [0.5, 4],
    ] as const) {
      const c = new PageClassifier({ threshold: THETA });
      const pages = population(500, share, seed);
      for (const { e } of pages) c.judge(e);
      for (let i = 0; i < 50; i++) c.noteCertainNegative(); // error pages count as fetched, never relevant
      const truth = pages.filter((x) => x.truth).length / (pages.length + 50);
      const est = c.estimate();
      expect(est.pages).toBe(550);
      expect(est.low).toBeLessThanOrEqual(truth);
      expect(est.high).toBeGreaterThanOrEqual(truth);
      expect(est.high - est.low).toBeLessThan(0.25);
    }
  });
});

describe('topic term model', () => {
  const tf = (words: string) => {
    const m = new Map<string, number>();
    for (const w of words.split(' ')) m.set(w, (m.get(w) ?? 0) + 1);
    return m;
  };

  it("learns the topic from examples: a page in the examples' words outranks one that only shares the background", () => {
    const m = new TopicTermModel(new Map([['bird', 1]]));
    for (const p of ['the city river bridge', 'the election party vote', 'the species plumage nest wing', 'the market price trade']) m.observe(tf(p));
    expect(m.evidence(tf('plumage nest species heron'))).toBe(0); // keyword only: no "bird", no evidence
    expect(m.evidence(tf('bird the city'))).toBeGreaterThan(0);
    m.addExample(tf('bird species plumage nest wing egg'));
    const heron = m.evidence(tf('heron species plumage nest'));
    expect(heron).toBeGreaterThan(0);
    expect(m.evidence(tf('town city river bridge'))).toBe(0);
    expect(heron).toBeGreaterThan(m.evidence(tf('the the the species')));
    expect(m.negativeEvidence(tf('heron'))).toBe(0);
    m.addNegativeExample(tf('cage pet shop price bird'));
    expect(m.negativeEvidence(tf('pet shop cage'))).toBeGreaterThan(0);
  });
});

describe('negative examples change verdicts', () => {
  /**
   * A crawl where pages about wild birds and pet-shop pages both use the keyword "bird" above θ;
   * the shop pages resemble the user's negative pages (high negative evidence).
   */
  function crawlWith(negatives: number): { classifier: PageClassifier; shop: PageEvidence } {
    const r = rng(9);
    const c = new PageClassifier({ threshold: THETA });
    for (let i = 0; i < negatives; i++) c.addExample({ cosine: THETA * (2 + r()), simD: 0, evidence: 0.3 + 0.2 * r(), negativeEvidence: 0.8 + 0.4 * r() }, false);
    for (let i = 0; i < 400; i++) {
      const kind = r();
      if (kind < 0.3) c.judge({ cosine: THETA * (1 + 2 * r()), simD: 0, evidence: 0.4 + 0.6 * r(), negativeEvidence: 0.05 * r() }); // wild birds
      else if (kind < 0.45) c.judge({ cosine: THETA * (1.5 + 2 * r()), simD: 0, evidence: 0.3 + 0.3 * r(), negativeEvidence: 0.7 + 0.5 * r() }); // shops
      else c.judge({ cosine: r() < 0.3 ? THETA * 0.5 * r() : 0, simD: 0, evidence: 0.1 * r(), negativeEvidence: 0.1 * r() }); // other pages
    }
    return { classifier: c, shop: { cosine: THETA * 2.5, simD: 0, evidence: 0.45, negativeEvidence: 0.9 } };
  }

  it("a page like the user's negative pages is judged less likely relevant, and its verdict flips", () => {
    const without = crawlWith(0);
    const withNeg = crawlWith(10);
    const p0 = without.classifier.probability(without.shop);
    const p1 = withNeg.classifier.probability(withNeg.shop);
    expect(p0).toBeGreaterThan(0.5);
    expect(p1).toBeLessThan(p0);
    expect(p1).toBeLessThan(0.5);
  });

  it('the judge learns a negative page: pages like it get negative evidence, and the verdict reads it', () => {
    const page = (url: string, title: string, body: string) =>
      analyzePage({ html: `<html><head><title>${title}</title></head><body><h1>${title}</h1><p>${body}</p></body></html>`, url, fetchedAt: new Date('2024-01-01') });
    const shop = page('http://x.test/shop', 'Bird cages for sale', 'Bird cages, bird seed and pet toys: our pet shop has low prices, free delivery and a sale every week.');
    const judge = PageJudge.over(new MultiTopicModel([{ keywords: ['bird'], seeds: [] }], { pageThreshold: THETA }), 'learned');
    judge.judge(page('http://x.test/d', 'Heron', 'The heron is a bird of rivers and lakes; it hunts fish, builds a nest of sticks and lays blue eggs.'), { isSeed: false });
    judge.addNegativeExample(page('http://neg.test/1', 'Pet bird shop offers', 'Pet shop prices for your bird: cages, toys and seed with free delivery; sale this week on every cage.'));
    const c = [...judge.classifiers.values()][0];
    const before = c.probability({ cosine: 0.5, simD: 0, evidence: 0.5, negativeEvidence: 0 });
    const v = judge.judge(shop, { isSeed: false });
    expect(v.probability).toBeDefined();
    // The shop page shares the negative page's words: its probability is below a page as
    // keyword-rich with no resemblance to the negative page.
    expect(v.probability!).toBeLessThan(before);
  });
});
