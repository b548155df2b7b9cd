import { describe, expect, it } from 'vitest';
// Only the package's public entry point: what code outside the package sees.
import { createScorer, parseConfig, registerStrategy, strategyNames, type StrategyDefinition } from '../src/index.js';

/** A strategy written outside the package: prefer links whose anchor names the topic, then the shallowest. */
const anchorFirst: StrategyDefinition = {
  name: 'anchor-first',
  description: 'topic words in the anchor first, then the shallowest URL',
  create: () => ({
    traits: {},
    term: (c) => ({ term: c.fAnchor, prio: c.fAnchor }),
    finish: (score, _s, p) => ({ score: score + 1 / (2 + p.depth) }),
    explainTerm: (c, _prio, _rel, _env, ex) => {
      ex.fAnchor = c.fAnchor;
    },
  }),
};

describe('strategies as modules', () => {
  it('a strategy registered from outside is accepted by the config schema and scores as written', () => {
    expect(() => parseConfig({ topics: [{ keywords: ['x'] }], strategy: 'anchor-first' })).toThrow(/unknown strategy "anchor-first"/);
    registerStrategy(anchorFirst);
    expect(strategyNames()).toContain('anchor-first');
    expect(parseConfig({ topics: [{ keywords: ['x'] }], strategy: 'anchor-first' }).strategy).toBe('anchor-first');
    const s = createScorer('anchor-first');
    const ups = s.onPageFetched({
      url: 'http://a.test/',
      depth: 0,
      rel: 0.5,
      relevant: true,
      links: [
        { url: 'http://a.test/plain', contextSim: 0.9, anchorKeywordFreq: 0 },
        { url: 'http://a.test/named', contextSim: 0.1, anchorKeywordFreq: 0.5 },
      ],
    });
    const by = new Map(ups.map((u) => [u.url, u]));
    expect(by.get('http://a.test/named')!.score).toBeCloseTo(0.5 + 1 / 3, 12);
    expect(by.get('http://a.test/plain')!.score).toBeCloseTo(1 / 3, 12);
    expect(by.get('http://a.test/named')!.breakdown.components).toMatchObject({ fAnchor: 0.5, contextSim: 0.1, inlinks: 1 });
  });

  it('an unknown strategy name is one clear error', () => {
    expect(() => createScorer('psychic')).toThrow(/unknown strategy "psychic" \(bfs, best-first/);
  });
});
