/**
 * Score bands (src/score/bands.ts): seed > revisit > thread page > strategy, named in one place,
 * checked by the config schema with one clear line, and held by the scorer whatever a strategy
 * returns.
 */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config/schema.js';
import { createScorer, registerStrategy, type StrategyDefinition } from '../src/score/index.js';
import { DEFAULT_SCORE_BANDS, revisitBandScore, scoreBands, scoreBandsProblem, threadPageBandScore } from '../src/score/bands.js';

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

  it('a strategy that returns huge scores cannot jump over thread pages, revisits or seeds', () => {
    const greedy: StrategyDefinition = {
      name: 'greedy-bands-test',
      description: 'scores everything 5000',
      create: () => ({ traits: {}, term: () => ({ term: 1, prio: 1 }), finish: () => ({ score: 5000 }), explainTerm() {} }),
    };
    registerStrategy(greedy);
    const ups = createScorer('greedy-bands-test').onPageFetched({ url: 'http://a.test/', depth: 0, rel: 0.5, relevant: true, links: [{ url: 'http://a.test/b', contextSim: 0.5, anchorKeywordFreq: 0 }] });
    expect(ups).toHaveLength(1);
    expect(ups[0].score).toBe(DEFAULT_SCORE_BANDS.strategy);
    expect(ups[0].breakdown.components.aboveStrategyBand).toBe(5000);
    // Built-in strategies are not touched by the band on ordinary pages.
    const best = createScorer('best-first').onPageFetched({ url: 'http://a.test/', depth: 0, rel: 0.5, relevant: true, links: [{ url: 'http://a.test/b', contextSim: 0.5, anchorKeywordFreq: 1 }] });
    expect(best[0].score).toBeLessThan(DEFAULT_SCORE_BANDS.strategy);
    expect(best[0].breakdown.components.aboveStrategyBand).toBeUndefined();
  });
});
