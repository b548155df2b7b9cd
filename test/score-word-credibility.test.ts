import { describe, expect, it } from 'vitest';
import { WordCredibility } from '../src/score/word-credibility.js';
import { createScorer } from '../src/score/index.js';
import { parseScoreOptions } from '../src/score/options.js';
import type { FetchedPage } from '../src/score/types.js';

describe('word-evidence credibility per host', () => {
  it('is 0 on a host no page of which was fetched, and grows with pages whose outcome the evidence predicted', () => {
    const c = new WordCredibility({ prior: 5, scale: 4 });
    expect(c.of('new.test')).toBe(0);
    const rounds: number[] = [];
    for (let i = 0; i < 20; i++) {
      c.record('w.test', 0.2, 1);
      c.record('w.test', -0.1, 0);
      rounds.push(c.of('w.test'));
    }
    expect(c.correlation('w.test')).toBeCloseTo(1, 6);
    // n / (n + prior): shrunk towards 0 while few pages are seen, near 1 after many.
    expect(rounds[0]).toBeCloseTo(2 / 7, 6);
    expect(rounds.at(-1)).toBeGreaterThan(0.85);
    expect(c.of('new.test')).toBe(0);
  });

  it("by default (combined's options) counts fully from a host's first pages once the evidence has predicted them, with no shrink towards 0", () => {
    const o = parseScoreOptions({});
    const c = new WordCredibility({ prior: o.linkWordsCredibilityPrior, scale: o.linkWordsCredibilityScale });
    c.record('w.test', 0.2, 1);
    // One page: no correlation yet, so none of it.
    expect(c.of('w.test')).toBe(0);
    c.record('w.test', -0.1, 0);
    c.record('w.test', 0.15, 0.8);
    expect(c.of('w.test')).toBe(1);
    // Still 0 where it did not predict, and on a host not fetched.
    c.record('x.test', 0.2, 0);
    c.record('x.test', -0.1, 1);
    expect(c.of('x.test')).toBe(0);
    expect(c.of('new.test')).toBe(0);
  });

  it('is 0 where the evidence did not predict the outcome: pages named like topical ones that keep turning out irrelevant, or anti-correlated', () => {
    const c = new WordCredibility({ prior: 5, scale: 4 });
    for (let i = 0; i < 30; i++) c.record('forum.test', 0.1 + (i % 5) / 50, 0);
    expect(c.of('forum.test')).toBe(0);
    for (let i = 0; i < 30; i++) c.record('anti.test', i % 2 ? 0.2 : -0.2, i % 2 ? 0 : 1);
    expect(c.correlation('anti.test')).toBeCloseTo(-1, 6);
    expect(c.of('anti.test')).toBe(0);
    // A weak correlation counts in part: scale 4 gives 4 × corr.
    for (let i = 0; i < 400; i++) c.record('weak.test', i % 2 ? 0.2 : -0.2, i % 10 < 6 ? (i % 2 ? 1 : 0) : i % 2 ? 0 : 1);
    expect(c.correlation('weak.test')).toBeCloseTo(0.2, 1);
    expect(c.of('weak.test')).toBeGreaterThan(0.7);
    expect(c.of('weak.test')).toBeLessThan(0.85);
  });
});

describe('combined: the word evidence weighed by its credibility on the target host', () => {
  const link = (host: string, a: string) => ({ url: `http://${host}/wiki/${a.replace(/ /g, '_')}`, anchorText: a, contextSim: 0, anchorKeywordFreq: 0 });
  const page = (url: string, relevant: boolean, links: [string, string][], parentUrl?: string): FetchedPage => ({
    url,
    parentUrl,
    depth: parentUrl ? 1 : 0,
    rel: relevant ? 0.5 : 0.01,
    relevant,
    links: links.map(([h, a]) => link(h, a)),
  });
  /**
   * A portal whose bird articles are relevant and sports articles not, and a forum whose pages
   * are all named like the birds ("Heron view 3") yet every one turns out irrelevant (the test
   * web's "only this author" views, near-duplicates of their thread).
   */
  function crawl(credibility: boolean) {
    const s = createScorer('combined', { learnRescoreEvery: 1, linkWords: true, linkWordsCredibility: credibility });
    const birds = ['Grey heron', 'Little egret', 'Heron nest', 'Egret plumage', 'Heron colony', 'Egret nest', 'Heron plumage', 'Grey egret'];
    const sports = ['Football club', 'Rugby league', 'Football stadium', 'Rugby union', 'Cricket club', 'Cricket ground'];
    const start = 'http://w.test/wiki/Start';
    s.onPageFetched(page(start, true, [...birds.map((b) => ['w.test', b] as [string, string]), ...sports.map((b) => ['w.test', b] as [string, string]), ...Array.from({ length: 12 }, (_, i) => ['forum.test', `Heron view ${i}`] as [string, string])]));
    for (let i = 0; i < 6; i++) {
      s.onPageFetched(page(`http://w.test/wiki/${birds[i].replace(/ /g, '_')}`, true, [['w.test', `Heron ${i}`], ['w.test', `Egret ${i}`], ['forum.test', `Heron view ${i + 20}`]], start));
      s.onPageFetched(page(`http://w.test/wiki/${sports[i].replace(/ /g, '_')}`, false, [['w.test', `Football ${i}`], ['w.test', `Rugby ${i}`]], start));
    }
    for (let i = 0; i < 10; i++) s.onPageFetched(page(`http://forum.test/wiki/Heron_view_${i}`, false, [], start));
    // A last page links both again: each is scored now, with its components.
    const last = new Map(s.onPageFetched(page('http://w.test/wiki/Stadium', false, [['forum.test', 'Heron view 11'], ['w.test', 'Heron egret']], start)).map((u) => [u.url, u]));
    return { s, last };
  }

  it('keeps the evidence where it predicted the outcome, drops it where every page it named turned out irrelevant, and explains both', () => {
    const { last } = crawl(true);
    const forum = last.get('http://forum.test/wiki/Heron_view_11')!.breakdown.components;
    const portal = last.get('http://w.test/wiki/Heron_egret')!.breakdown.components;
    // The words still say "topical" on both; only their credibility differs.
    expect(forum.linkWords).toBeGreaterThan(0);
    expect(portal.linkWords).toBeGreaterThan(0);
    expect(forum.linkWordsCredibility).toBe(0);
    expect(portal.linkWordsCredibility).toBeGreaterThan(0.3);
  });

  it('ranks the forum pages lower than the same crawl without credibility does', () => {
    const on = crawl(true).last.get('http://forum.test/wiki/Heron_view_11')!;
    const off = crawl(false).last.get('http://forum.test/wiki/Heron_view_11')!;
    expect(off.breakdown.components.linkWordsCredibility).toBeUndefined();
    expect(on.score).toBeLessThan(off.score);
  });
});
