import { describe, expect, it } from 'vitest';
import {
  LinkGraph,
  childLinkSmoothing,
  dateFromUrl,
  iPageRank,
  iPageRankOfUnfetched,
  linkCoefficient,
  pageLinkTerm,
  parentAnchorPriority,
  parseScoreOptions,
  pathRelation,
  pathWeight,
  relevanceFeedback,
  rwbAdmit,
  scaleFreeCorrection,
  SiteTable,
  siteCutoff,
  timeAwarePriority,
  tunnelBuffer,
  tunnelStep,
  urlFilter,
  type IprNode,
} from '../src/score/index.js';

describe('§3.1 parentAnchorPriority', () => {
  it('is θ·rel(parent) + γ·cos(T, A_u)', () => {
    expect(parentAnchorPriority(0.5, 0.8)).toBeCloseTo(0.4 * 0.5 + 0.6 * 0.8, 12); // 0.68
    expect(parentAnchorPriority(1, 0, 0.3, 0.7)).toBeCloseTo(0.3, 12);
  });
});

describe('§3.2 path relation and link coefficient', () => {
  const parent = 'http://a.com/news/china/index.html';
  it('classifies under, sibling, other and redundant links', () => {
    expect(pathRelation(parent, 'http://a.com/news/china/2024/x.html')).toBe('under');
    expect(pathRelation(parent, 'http://a.com/news/china/y.html')).toBe('under');
    expect(pathRelation(parent, 'http://a.com/news/world/y.html')).toBe('sibling');
    expect(pathRelation('http://a.com/news/2024/0905/a.html', 'http://a.com/news/2024/0906/b.html')).toBe('sibling');
    expect(pathRelation(parent, 'http://a.com/sports/nba/live/z.html')).toBe('other');
    expect(pathRelation(parent, 'http://b.com/news/china/z.html')).toBe('other');
    expect(pathRelation(parent, 'http://a.com/share/x?id=1')).toBe('redundant');
    expect(pathRelation(parent, 'http://a.com/news/china/p.html?print=1')).toBe('redundant');
    expect(pathRelation(parent, 'javascript:void(0)')).toBe('redundant');
    expect(pathRelation(parent, 'http://a.com/news/china/a.jpg', { tag: 'img' })).toBe('redundant');
    expect(pathRelation(parent, 'http://a.com/news/china/q.html', { anchorText: '分享到微博' })).toBe('redundant');
    // a word that merely contains "share" is not a share button
    expect(pathRelation(parent, 'http://a.com/news/china/shareholders.html')).toBe('under');
  });
  it('weights under 1, sibling τ, other τ/2, redundant τ²; ω = w_path + f_anchor', () => {
    expect([pathWeight('under', 0.4), pathWeight('sibling', 0.4), pathWeight('other', 0.4), pathWeight('redundant', 0.4)]).toEqual([
      1, 0.4, 0.2, 0.4 * 0.4,
    ]);
    expect(linkCoefficient(0.5, 0.3)).toBeCloseTo(0.8, 12);
    expect(linkCoefficient(1, 1.7)).toBe(2); // f_anchor clamped to [0,1]
  });
});

describe('§3.2 scale-free correction', () => {
  it('sums rel·ω·Π/A over in-linking parents', () => {
    const w = scaleFreeCorrection([
      { rel: 0.5, omega: 1.5, bias: 2, validLinks: 4 },
      { rel: 1, omega: 0.5, bias: 1, validLinks: 5 },
    ]);
    expect(w).toBeCloseTo(0.375 + 0.1, 12);
  });
  it('keeps Π(j) = (k_j+1)^α / mean (k_l+1)^α from in-degrees of the known graph', () => {
    const g = new LinkGraph(0.5);
    for (const x of ['X', 'Y', 'Z']) g.addPage(`http://s.com/${x}`, 0.5, true, [{ url: 'http://s.com/H', r: 1, valid: true }]);
    g.addPage('http://s.com/H', 0.5, true, [{ url: 'http://s.com/h1', r: 1, valid: true }, { url: 'http://s.com/img.png', r: 0, valid: false }]);
    // terms 1,1,1,√4=2 → mean 1.25
    expect(g.degree('http://s.com/H')).toBe(3);
    expect(g.bias('http://s.com/H')).toBeCloseTo(2 / 1.25, 12);
    expect(g.pages.get('http://s.com/H')!.validLinks).toBe(1);
    // a fetched page gaining an in-link updates the running mean: X now has k = 1
    g.addPage('http://s.com/L', 0.5, true, [{ url: 'http://s.com/X', r: 1, valid: true }]);
    const mean = (1 + Math.SQRT2 + 1 + 2 + 1) / 5;
    expect(g.bias('http://s.com/X')).toBeCloseTo(Math.SQRT2 / mean, 12);
    expect(g.bias('http://s.com/L')).toBeCloseTo(1 / mean, 12);
  });
});

describe('§3.2 tunnelling and relevance feedback', () => {
  it('step = floor(α_t / d): depth 1 → 3, 2 → 1, 3 → 1, ≥4 → 0', () => {
    expect([1, 2, 3, 4, 7].map((d) => tunnelStep(d, 3))).toEqual([3, 1, 1, 0, 0]);
    expect(tunnelStep(0, 3)).toBe(3); // a seed counts as depth 1
  });
  it('a relevant page resets the buffer; an irrelevant one starts or decrements it', () => {
    expect(tunnelBuffer(true, 2, 1)).toBeUndefined();
    expect(tunnelBuffer(false, undefined, 2)).toBe(1);
    expect(tunnelBuffer(false, 3, 2)).toBe(2);
    expect(tunnelBuffer(false, 0, 2)).toBe(0);
  });
  it('r consecutive irrelevant children trigger once; a relevant child resets the run', () => {
    let s = { run: 0, demoted: false };
    const seen: boolean[] = [];
    for (const rel of [false, false, true, false, false, false, false]) {
      const n = relevanceFeedback(s, rel, 3);
      seen.push(n.triggered);
      s = { run: n.run, demoted: n.demoted };
    }
    expect(seen).toEqual([false, false, false, false, false, true, false]);
    expect(s.demoted).toBe(true);
  });
});

describe('§3.3 child-link smoothing', () => {
  it('uses the mean of relevant link sims when most links are relevant', () => {
    const t = pageLinkTerm([0.9, 0.5, 0.1, 0.3], 0.2);
    expect(t.relevant).toBe(3);
    expect(t.c).toBeCloseTo((0.9 + 0.5 + 0.3) / 3, 12);
    expect(childLinkSmoothing(0.1, t.c)).toBeCloseTo(0.8 * 0.1 + 0.2 * (1.7 / 3), 12);
  });
  it('uses the mean over all links in between, and nothing when most are irrelevant', () => {
    expect(pageLinkTerm([0.3, 0, 0, 0, 0.1], 0.2).c).toBeCloseTo(0.08, 12); // m/n = 0.2
    expect(pageLinkTerm([0.3, 0, 0, 0, 0, 0], 0.2).c).toBeUndefined(); // m/n = 1/6 < 0.2
    expect(childLinkSmoothing(0.3, undefined)).toBe(0.3);
    expect(pageLinkTerm([]).c).toBeUndefined();
  });
});

describe('§3.4 publish time', () => {
  it('multiplies by e^{Pr} only when prio ≥ 0.4', () => {
    expect(timeAwarePriority(0.5, 0.6)).toBeCloseTo(0.5 * Math.exp(0.6), 12);
    expect(timeAwarePriority(0.4, 1)).toBeCloseTo(0.4 * Math.E, 12);
    expect(timeAwarePriority(0.39, 1)).toBe(0.39);
  });
  it('reads dates out of URLs in the four documented shapes', () => {
    const iso = (u: string) => dateFromUrl(u)?.toISOString().slice(0, 10);
    expect(iso('http://news.sina.com.cn/c/20080905/n123.shtml')).toBe('2008-09-05');
    expect(iso('http://x.com/a/2008-09-05/b.html')).toBe('2008-09-05');
    expect(iso('http://x.com/2008/09/05/b.html')).toBe('2008-09-05');
    expect(iso('http://x.com/2008/0905/b.html')).toBe('2008-09-05');
    expect(iso('http://x.com/t20121130_402848.htm')).toBe('2012-11-30');
    expect(iso('http://x.com/2008/02/31/b.html')).toBeUndefined(); // not a calendar date
    expect(iso('http://20080905.com/index.html')).toBeUndefined(); // never from the host
    expect(iso('http://x.com/article/123456789.html')).toBeUndefined();
  });
});

/** Independent fixed-point solver: (I - d·M) x = (1-d)·1 by Gaussian elimination. */
function solveIpr(nodes: Map<string, IprNode>, d: number): Map<string, number> {
  const keys = [...nodes.keys()];
  const n = keys.length;
  const idx = new Map(keys.map((k, i) => [k, i]));
  const a = keys.map(() => new Array<number>(n + 1).fill(0));
  for (let i = 0; i < n; i++) {
    a[i]![i] = 1;
    a[i]![n] = 1 - d;
  }
  for (const [t, node] of nodes) {
    const sum = [...node.out.values()].reduce((x, y) => x + y, 0);
    for (const [target, r] of node.out) {
      const i = idx.get(target);
      if (i !== undefined) a[i]![idx.get(t)!]! -= (d * r) / sum;
    }
  }
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(a[r]![c]!) > Math.abs(a[p]![c]!)) p = r;
    [a[c], a[p]] = [a[p]!, a[c]!];
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const f = a[r]![c]! / a[c]![c]!;
      for (let k = c; k <= n; k++) a[r]![k]! -= f * a[c]![k]!;
    }
  }
  return new Map(keys.map((k, i) => [k, a[i]![n]! / a[i]![i]!]));
}

describe('§3.5 IPageRank', () => {
  // A→B (.5), A→C (.5), A→X (1, X unfetched), B→C (1), C→A (1)
  const nodes = new Map<string, IprNode>([
    ['A', { init: 0.6, out: new Map([['B', 0.5], ['C', 0.5], ['X', 1]]) }],
    ['B', { init: 0.4, out: new Map([['C', 1]]) }],
    ['C', { init: 0.8, out: new Map([['A', 1]]) }],
  ]);
  it('one iteration matches the hand computation (flow ∝ link relevance, not 1/outdegree)', () => {
    const one = iPageRank(nodes, 0.85, 1);
    expect(one.get('A')).toBeCloseTo(0.15 + 0.85 * 0.8, 12); // 0.83
    expect(one.get('B')).toBeCloseTo(0.15 + 0.85 * ((0.6 * 0.5) / 2), 12); // 0.2775
    expect(one.get('C')).toBeCloseTo(0.15 + 0.85 * ((0.6 * 0.5) / 2 + 0.4), 12); // 0.6175
  });
  it('converges to the fixed point of an independent linear solve', () => {
    const exact = solveIpr(nodes, 0.85);
    const it200 = iPageRank(nodes, 0.85, 200);
    for (const k of ['A', 'B', 'C']) expect(it200.get(k)).toBeCloseTo(exact.get(k)!, 9);
    // 5 iterations (the default) are already within a few percent
    const five = iPageRank(nodes);
    for (const k of ['A', 'B', 'C']) expect(Math.abs(five.get(k)! - exact.get(k)!)).toBeLessThan(0.05);
  });
  it('values an unfetched URL from its fetched in-linkers', () => {
    expect(iPageRankOfUnfetched([{ ipr: 0.9, r: 1, rSum: 2 }, { ipr: 0.5, r: 0.2, rSum: 0 }])).toBeCloseTo(0.15 + 0.85 * 0.45, 12);
  });
  it('RWB admits above c, explores the band [c-b, c) with probability p, rejects below', () => {
    let calls = 0;
    const r = (v: number) => () => {
      calls++;
      return v;
    };
    expect(rwbAdmit(0.25, 0.2, 0.1, 0.3, r(0))).toBe('admit');
    expect(rwbAdmit(0.15, 0.2, 0.1, 0.3, r(0.29))).toBe('explore');
    expect(rwbAdmit(0.15, 0.2, 0.1, 0.3, r(0.3))).toBe('reject');
    expect(rwbAdmit(0.05, 0.2, 0.1, 0.3, r(0))).toBe('reject');
    expect(calls).toBe(2); // the generator is drawn only inside the band
  });
});

describe('§3.6 filters and site table', () => {
  const o = parseScoreOptions({ denyDomains: ['ads.com'] });
  const f = (url: string, link = {}) => urlFilter(url, link, o);
  it('drops non-pages and stop paths, weakens stoplisted anchors', () => {
    expect(f('mailto:a@b.com').reason).toBe('scheme');
    expect(f('ftp://x.com/a').reason).toBe('scheme');
    expect(f('http://x.com/a/report.PDF').reason).toBe('extension');
    expect(f('http://x.com/song.mp3?x=1').reason).toBe('extension');
    expect(f('http://x.com/a/about.html').reason).toBe('path-end');
    expect(f('http://x.com/list/next').reason).toBe('path-end');
    expect(f('http://x.com/a.jpg', { tag: 'img' }).reason).toBe('not-a-page');
    expect(f('http://cdn.ads.com/x.html').reason).toBe('denied-domain');
    expect(f('http://x.com/news.html', { anchorText: ' 更多 ' })).toEqual({ keep: true, weight: 0.5 });
    expect(f('http://x.com/news.html', { anchorText: '神舟六号发射' })).toEqual({ keep: true, weight: 1 });
    const allow = parseScoreOptions({ allowDomains: ['sina.com.cn'] });
    expect(urlFilter('http://news.sina.com.cn/a.html', {}, allow).keep).toBe(true);
    expect(urlFilter('http://evilsina.com.cn/a.html', {}, allow).reason).toBe('not-allowed-domain');
  });
  it('drops search-results URLs and pathologically repetitive URLs (spider traps)', () => {
    expect(f('http://s.com/s?wd=%E5%A5%A5%E8%BF%90&pn=10').reason).toBe('search-results');
    expect(f('http://s.com/search?Q=birds').reason).toBe('search-results'); // keys compare case-insensitively
    expect(f('http://bbs.com/forum.php?mod=viewthread&tid=7').keep).toBe(true);
    expect(urlFilter('http://s.com/s?wd=x', {}, parseScoreOptions({ skipQueryKeys: [] })).keep).toBe(true);
    // maxRepeats 2: a word or segment may occur twice, not three times
    expect(f('http://t.com/list?tag=%E5%9B%BE%E7%89%87+%E5%9B%BE%E7%89%87').keep).toBe(true);
    expect(f('http://t.com/list?tag=%E5%9B%BE%E7%89%87+%E5%9B%BE%E7%89%87+%E5%9B%BE%E7%89%87').reason).toBe('repetitive');
    expect(f('http://t.com/a/b/a/b/a/x.html').reason).toBe('repetitive');
    expect(f('http://t.com/a/b/a/b/x.html').keep).toBe(true);
    expect(urlFilter('http://t.com/a/a/a/a', {}, parseScoreOptions({ maxRepeats: 0 })).keep).toBe(true);
  });
  it('cuts a site after more than `cutoff` irrelevant pages; site relevance = relevant/fetched', () => {
    const t = new SiteTable();
    t.record('a.com', false);
    expect(t.isCut('a.com', 0)).toBe(true); // 0 = every page must be relevant
    expect(t.isCut('a.com', 1)).toBe(false);
    t.record('a.com', true);
    t.record('a.com', false);
    expect(t.isCut('a.com', 1)).toBe(true);
    expect(t.relevance('a.com')).toBeCloseTo(1 / 3, 12);
    expect(t.relevance('b.com')).toBe(0);
    expect(siteCutoff(undefined, 0)).toBe(false);
  });
  it('rejects bad options with a readable message', () => {
    expect(() => parseScoreOptions({ tau: 2 })).toThrow(/score options: tau/);
    expect(() => parseScoreOptions({ nope: 1 })).toThrow(/score options/);
  });
});
