import { describe, expect, it, vi } from 'vitest';
import { TopicalLabel } from '../src/score/topical-label.js';
import { createScorer, type FetchedPage, type OutLink } from '../src/score/index.js';

describe('the label combined\'s learners train on (src/score/topical-label.ts)', () => {
  const page = (url: string, relevant: boolean, evidence?: number) => ({ url, relevant, evidence });

  it('is the verdict during the warm-up, then the mean of the verdict and the evidence rank to the power', () => {
    const l = new TopicalLabel({ mode: 'mean', power: 3, warmup: 4 });
    for (let i = 0; i < 4; i++) expect(l.of(page(`w${i}`, i % 2 === 0, i))).toBe(i % 2 === 0 ? 1 : 0);
    // Evidence 10 ranks above all four earlier values (rank 1): an irrelevant verdict halves it.
    expect(l.of(page('a', false, 10))).toBeCloseTo(0.5, 10);
    // Evidence 1.5 ranks above 2 of 5 (0, 1): rank 0.4, a relevant verdict: (1 + 0.064) / 2.
    expect(l.of(page('b', true, 1.5))).toBeCloseTo((1 + 0.4 ** 3) / 2, 10);
  });

  it('mode rank is the rank alone, mode verdict the verdict alone, and a page without evidence its verdict', () => {
    const rank = new TopicalLabel({ mode: 'rank', power: 1, warmup: 0 });
    rank.of(page('x', false, 0));
    expect(rank.of(page('y', false, 5))).toBe(1);
    expect(rank.of(page('z', true))).toBe(1);
    const verdict = new TopicalLabel({ mode: 'verdict', power: 1, warmup: 0 });
    verdict.of(page('x', false, 0));
    expect(verdict.of(page('y', false, 5))).toBe(0);
  });

  it('gives a page asked again the same label without ranking it twice', () => {
    const l = new TopicalLabel({ mode: 'rank', power: 1, warmup: 0 });
    l.of(page('a', false, 1));
    const first = l.of(page('b', false, 2));
    expect(l.of(page('b', false, 2))).toBe(first);
    // Had b joined the sample twice, c (between a and b) would rank 1/3, not 1/2.
    expect(l.of(page('c', false, 1.5))).toBeCloseTo(0.5, 10);
  });
});

describe('combined: its learned weights and link ranker train on that label', () => {
  const L = (url: string): OutLink => ({ url, contextSim: 0.3, anchorKeywordFreq: 0, tag: 'a', anchorText: 'x' });
  const P = (url: string, relevant: boolean, evidence: number, links: OutLink[], parentUrl?: string): FetchedPage => ({ url, depth: parentUrl ? 1 : 0, rel: relevant ? 0.5 : 0.05, relevant, evidence, links, parentUrl });
  const labelsSeen = (learnLabel: 'mean' | 'verdict') => {
    const s = createScorer('combined', { learnLabel });
    const update = vi.spyOn(s.learner!, 'update');
    // 40 pages from a hub (warm-up 30), then one judged irrelevant whose term evidence ranks top.
    const kids = Array.from({ length: 41 }, (_, i) => L(`http://w.org/p${i}`));
    s.onPageFetched(P('http://w.org/', true, 0, kids));
    for (let i = 0; i < 40; i++) s.onPageFetched(P(`http://w.org/p${i}`, i % 2 === 0, i / 100, [], 'http://w.org/'));
    s.onPageFetched(P('http://w.org/p40', false, 5, [], 'http://w.org/'));
    return update.mock.calls.map(([, y]) => Number(y));
  };

  it('an irrelevant verdict on a page the term evidence ranks first is a half-positive example, and only with learnLabel mean', () => {
    const mean = labelsSeen('mean');
    expect(mean.at(-1)).toBeCloseTo(0.5, 10);
    expect(mean.slice(0, 29).every((y) => y === 0 || y === 1)).toBe(true);
    expect(labelsSeen('verdict').at(-1)).toBe(0);
  });
});
