/**
 * Dead links: a non-2xx or soft-404 page is never a positive example, never counts
 * as one of its site's irrelevant pages (the site cutoff is about topics, not link rot), and a
 * host or directory that keeps answering 404 loses priority.
 */
import { describe, expect, it } from 'vitest';
import { createScorer, DeadLinkTracker, type FetchedPage, type OutLink, type ScoreUpdate } from '../src/score/index.js';

const L = (url: string, contextSim = 0.5): OutLink => ({ url, contextSim, anchorKeywordFreq: 0, tag: 'a' });
const P = (url: string, depth: number, rel: number, links: OutLink[], extra: Partial<FetchedPage> = {}): FetchedPage => ({ url, depth, rel, relevant: rel >= 0.2, links, ...extra });
const scoreOf = (ups: ScoreUpdate[], url: string) => ups.filter((u) => u.url === url).at(-1)?.score;

describe('DeadLinkTracker', () => {
  it('demotes a directory, then its host, as they keep answering 404 (smoothed success rate, floored)', () => {
    const t = new DeadLinkTracker();
    expect(t.factor('http://a.edu/~x/1.html')).toBe(1);
    t.record('http://a.edu/~x/0.html', true);
    // host 2/3, directory 2/3
    expect(t.factor('http://a.edu/~x/1.html')).toBeCloseTo((2 / 3) * (2 / 3), 12);
    expect(t.factor('http://a.edu/~y/1.html')).toBeCloseTo(2 / 3, 12);
    expect(t.factor('http://b.edu/~x/1.html')).toBe(1);
    for (let i = 1; i < 40; i++) t.record(`http://a.edu/~x/${i}.html`, true);
    expect(t.factor('http://a.edu/~x/99.html')).toBe(0.05);
    // answers that work bring a host back
    for (let i = 0; i < 200; i++) t.record(`http://a.edu/~z/${i}.html`, false);
    expect(t.factor('http://a.edu/~z/x.html')).toBeGreaterThan(0.8);
  });

  it('names the queued URLs to re-score when their factor drops', () => {
    const t = new DeadLinkTracker();
    t.track('http://a.edu/~x/q.html');
    t.track('http://a.edu/~y/q.html');
    t.track('http://b.edu/q.html');
    expect(new Set(t.record('http://a.edu/~x/0.html', true))).toEqual(new Set(['http://a.edu/~x/q.html', 'http://a.edu/~y/q.html']));
    t.untrack('http://a.edu/~y/q.html');
    expect(t.record('http://a.edu/~x/1.html', true)).toEqual(['http://a.edu/~x/q.html']);
    expect(t.record('http://b.edu/ok.html', false)).toEqual([]);
  });
});

describe('scorer: dead pages', () => {
  for (const strategy of ['best-first', 'classic', 'combined'] as const) {
    it(`${strategy}: a directory that keeps answering 404 loses priority against an equal link elsewhere`, () => {
      const s = createScorer(strategy);
      const dead = Array.from({ length: 8 }, (_, i) => `http://dead.edu/~gone/p${i}.html`);
      s.onPageFetched(P('http://hub.edu/', 0, 0.6, [...dead.map((u) => L(u)), L('http://dead.edu/~gone/later.html'), L('http://live.edu/later.html')]));
      let ups: ScoreUpdate[] = [];
      for (const u of dead) ups = ups.concat(s.onPageFetched(P(u, 1, 0, [], { parentUrl: 'http://hub.edu/', status: 404 })));
      const demoted = scoreOf(ups, 'http://dead.edu/~gone/later.html');
      expect(demoted).toBeDefined();
      const fresh = s.onPageFetched(P('http://hub2.edu/', 0, 0.6, [L('http://other.edu/x.html')]));
      expect(demoted!).toBeLessThan(0.5 * scoreOf(fresh, 'http://other.edu/x.html')!);
      expect(ups.find((u) => u.url === 'http://dead.edu/~gone/later.html')!.breakdown.components.deadLinkFactor).toBeLessThan(0.5);
    });
  }

  it('dead pages are not counted in the site table (no site cutoff from link rot) and never train the learner', () => {
    const s = createScorer('combined');
    const dead = Array.from({ length: 5 }, (_, i) => `http://dead.edu/p${i}.html`);
    s.onPageFetched(P('http://hub.edu/', 0, 0.6, dead.map((u) => L(u))));
    for (const u of dead) s.onPageFetched(P(u, 1, 0.9, [], { parentUrl: 'http://hub.edu/', status: 404 }));
    s.onPageFetched(P('http://dead.edu/soft.html', 1, 0, [], { neverRelevant: 'error-page' }));
    expect(s.sites.get('dead.edu')).toBeUndefined();
    expect(s.learner!.updates).toBe(0);
  });

  it('classic: a host whose links are mostly dead is not cut off by its dead links', () => {
    const s = createScorer('classic', { siteCutoff: 3 });
    const dead = Array.from({ length: 6 }, (_, i) => `http://uni.edu/~old${i}/`);
    s.onPageFetched(P('http://uni.edu/', 0, 0.6, [...dead.map((u) => L(u)), L('http://uni.edu/dept/students.html')]));
    let ups: ScoreUpdate[] = [];
    for (const u of dead) ups = ups.concat(s.onPageFetched(P(u, 1, 0, [], { parentUrl: 'http://uni.edu/', status: 404 })));
    expect(ups.filter((u) => u.url === 'http://uni.edu/dept/students.html' && u.drop)).toEqual([]);
    expect(s.sites.isCut('uni.edu', 3)).toBe(false);
  });
});
