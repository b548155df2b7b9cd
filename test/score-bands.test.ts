/**
 * Score bands (src/score/bands.ts): seed > revisit > thread page > strategy, named in one place,
 * checked by the config schema with one clear line, and held by the scorer whatever a strategy
 * returns.
 */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config/schema.js';
import { createScorer, registerStrategy, type StrategyDefinition } from '../src/score/index.js';
import { DEFAULT_SCORE_BANDS, revisitBandScore, scoreBands, scoreBandsProblem, strategyBandScore, threadPageBandScore } from '../src/score/bands.js';

const topics = [{ keywords: ['x'] }];

describe('score bands', () => {
  it('the defaults are the config defaults, in order', () => {
    const c = parseConfig({ topics });
    expect(scoreBands(c.score)).toEqual(DEFAULT_SCORE_BANDS);
    expect(scoreBandsProblem(DEFAULT_SCORE_BANDS)).toBeUndefined();
    const b = DEFAULT_SCORE_BANDS;
    expect(b.seed).toBeGreaterThan(b.revisit);
    expect(b.revisit).toBeGreaterThan(b.threadPage);
    expect(b.threadPage).toBeGreaterThan(b.strategy);
  });

  it('the config schema refuses bands out of order, naming the field, in one line', () => {
    const bad: [Record<string, number>, RegExp][] = [
      [{ seedScore: 50 }, /^config: score\.seedScore: score bands must be ordered seed > revisit > thread page > strategy, but seedScore 50 is not above revisitScore 100$/],
      [{ revisitScore: 20 }, /^config: score\.revisitScore: .* revisitScore 20 is not above threadPageMaxScore 20$/],
      [{ strategyMaxScore: 25 }, /^config: score\.threadPageMaxScore: .* threadPageMaxScore 20 is not above strategyMaxScore 25$/],
    ];
    for (const [score, msg] of bad) expect(() => parseConfig({ topics, score })).toThrow(msg);
    expect(parseConfig({ topics, score: { seedScore: 5000, revisitScore: 500, threadPageMaxScore: 50, strategyMaxScore: 40 } }).score.revisitScore).toBe(500);
  });

  it('revisits stay below seeds however hot, thread pages between revisits and strategies', () => {
    const b = DEFAULT_SCORE_BANDS;
    expect(revisitBandScore(b, 9.5)).toBe(109.5);
    expect(revisitBandScore(b, 1e9)).toBeLessThan(b.seed);
    expect(revisitBandScore(b, 1e9)).toBeGreaterThan(revisitBandScore(b, 800));
    expect(threadPageBandScore(b, 0.3, true)).toBe(1);
    expect(threadPageBandScore(b, b.seed, true)).toBe(b.threadPage);
    expect(threadPageBandScore(b, 0.3, false)).toBeUndefined();
  });

  it('a strategy that returns huge scores cannot jump over thread pages, revisits or seeds, and keeps its own order', () => {
    const greedy: StrategyDefinition = {
      name: 'greedy-bands-test',
      description: 'scores a link 5000 plus 1000 per anchor keyword',
      create: () => ({ traits: {}, term: (c) => ({ term: c.fAnchor, prio: 1 }), finish: (score) => ({ score: 5000 + 1000 * score }), explainTerm() {} }),
    };
    registerStrategy(greedy);
    const ups = createScorer('greedy-bands-test').onPageFetched({
      url: 'http://a.test/',
      depth: 0,
      rel: 0.5,
      relevant: true,
      links: [
        { url: 'http://a.test/b', contextSim: 0.5, anchorKeywordFreq: 0 },
        { url: 'http://a.test/c', contextSim: 0.5, anchorKeywordFreq: 1 },
      ],
    });
    const by = new Map(ups.map((u) => [u.url, u]));
    const b = by.get('http://a.test/b')!;
    const c = by.get('http://a.test/c')!;
    for (const u of [b, c]) {
      expect(u.score).toBeLessThan(DEFAULT_SCORE_BANDS.strategy);
      expect(u.score).toBeGreaterThan(DEFAULT_SCORE_BANDS.strategy / 2);
    }
    expect(c.score).toBeGreaterThan(b.score); // the strategy's own order survives the band
    expect(b.breakdown.components.rawStrategyScore).toBe(5000);
    // The map is the identity up to half the band's top and strictly increasing above it.
    expect(strategyBandScore(DEFAULT_SCORE_BANDS, 0.37)).toBe(0.37);
    expect(strategyBandScore(DEFAULT_SCORE_BANDS, 5)).toBe(5);
    const xs = [5.0001, 6, 20, 1e3, 1e6];
    const ys = xs.map((x) => strategyBandScore(DEFAULT_SCORE_BANDS, x));
    for (let i = 1; i < ys.length; i++) expect(ys[i]).toBeGreaterThan(ys[i - 1]);
    expect(ys[ys.length - 1]).toBeLessThan(DEFAULT_SCORE_BANDS.strategy);
    // Built-in strategies are not touched by the band on ordinary pages.
    const best = createScorer('best-first').onPageFetched({ url: 'http://a.test/', depth: 0, rel: 0.5, relevant: true, links: [{ url: 'http://a.test/b', contextSim: 0.5, anchorKeywordFreq: 1 }] });
    expect(best[0].score).toBeLessThan(DEFAULT_SCORE_BANDS.strategy);
    expect(best[0].breakdown.components.rawStrategyScore).toBeUndefined();
  });
});
