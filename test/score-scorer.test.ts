import { describe, expect, it } from 'vitest';
import { createScorer, iPageRank, SITE_CUT_FACTOR, type FetchedPage, type OutLink, type ScoreUpdate } from '../src/score/index.js';
import { IndexedMaxHeap } from '../src/frontier/heap.js';

const L = (url: string, contextSim = 0.5, anchorKeywordFreq = 0, extra: Partial<OutLink> = {}): OutLink => ({ url, contextSim, anchorKeywordFreq, tag: 'a', ...extra });
const P = (url: string, depth: number, rel: number, links: OutLink[], extra: Partial<FetchedPage> = {}): FetchedPage => ({
  url,
  depth,
  rel,
  relevant: rel >= 0.2,
  links,
  ...extra,
});
const byUrl = (ups: ScoreUpdate[]) => new Map(ups.map((u) => [u.url, u]));

describe('topology strategy (seed 000)', () => {
  it('ranks a sibling path below an under-parent path, and another host below both', () => {
    const s = createScorer('topology');
    const ups = byUrl(
      s.onPageFetched(P('http://a.com/news/china/index.html', 0, 0.6, [
        L('http://a.com/news/china/2024/x.html'),
        L('http://a.com/news/world/y.html'),
        L('http://b.com/z.html'),
      ])),
    );
    const under = ups.get('http://a.com/news/china/2024/x.html')!;
    const sib = ups.get('http://a.com/news/world/y.html')!;
    const other = ups.get('http://b.com/z.html')!;
    // one page, degree 0 → Π = 1; A = 3: W = 0.6·w_path/3
    expect(under.score).toBeCloseTo((0.6 * 1) / 3, 12);
    expect(sib.score).toBeCloseTo((0.6 * 0.5) / 3, 12);
    expect(other.score).toBeCloseTo((0.6 * 0.25) / 3, 12);
    expect(under.breakdown.components.wPath).toBe(1);
    expect(sib.breakdown.components.wPath).toBe(0.5);
    expect(under.depth).toBe(1);
  });

  it('a poorly linked (low-degree) parent pulls its children down; many relevant parents accumulate', () => {
    const s = createScorer('topology');
    for (const x of ['X', 'Y', 'Z']) s.onPageFetched(P(`http://s.com/${x}.html`, 1, 0.5, [L('http://s.com/a/H.html'), L('http://s.com/shared.html')]));
    // H has in-degree 3: terms 1,1,1,2 → mean 1.25 → Π(H) = 1.6
    const h = byUrl(s.onPageFetched(P('http://s.com/a/H.html', 2, 0.5, [L('http://s.com/a/h1.html'), L('http://s.com/a/h2.html')])));
    // L has in-degree 0: terms 1,1,1,2,1 → mean 1.2 → Π(L) = 1/1.2
    const l = byUrl(s.onPageFetched(P('http://s.com/b/L.html', 2, 0.5, [L('http://s.com/b/l1.html'), L('http://s.com/b/l2.html')])));
    expect(h.get('http://s.com/a/h1.html')!.score).toBeCloseTo((0.5 * 1 * 1.6) / 2, 12);
    expect(l.get('http://s.com/b/l1.html')!.score).toBeCloseTo((0.5 * 1 * (1 / 1.2)) / 2, 12);
    expect(l.get('http://s.com/b/l1.html')!.score).toBeLessThan(h.get('http://s.com/a/h1.html')!.score);
    // shared.html was linked by X, Y and Z (all Π = 1 at their time, A = 2, sibling/under of /X.html → under)
    const s2 = createScorer('topology');
    let last: ScoreUpdate | undefined;
    for (const x of ['X', 'Y', 'Z']) {
      last = byUrl(s2.onPageFetched(P(`http://s.com/${x}.html`, 1, 0.5, [L('http://s.com/shared.html'), L('http://s.com/o.html')]))).get('http://s.com/shared.html');
    }
    // all three parents have degree 0 → Π = 1 each; W = 3 · 0.5·1/2
    expect(last!.score).toBeCloseTo(3 * 0.25, 12);
    expect(last!.breakdown.components.inlinks).toBe(3);
  });

  const chain = (irrelevant: number, hardFocus: boolean) => {
    // seed (relevant, depth 0) → I1 … In (irrelevant) → R, the relevant page behind the tunnel
    const s = createScorer('topology', { hardFocus });
    s.onPageFetched(P('http://t.com/0.html', 0, 0.8, [L('http://t.com/1.html')]));
    let ups: ScoreUpdate[] = [];
    for (let i = 1; i <= irrelevant; i++) {
      const next = i === irrelevant ? 'http://t.com/R.html' : `http://t.com/${i + 1}.html`;
      ups = s.onPageFetched(P(`http://t.com/${i}.html`, i, 0.05, [L(next)], { parentUrl: `http://t.com/${i - 1}.html` }));
    }
    return byUrl(ups).get('http://t.com/R.html')!;
  };

  it('crosses a tunnel of 2 irrelevant pages but not one of 4 (α_t = 3, first one at depth 1)', () => {
    const two = chain(2, true);
    expect(two.drop).toBeFalsy();
    expect(two.breakdown.components.tunnelBuffer).toBe(2);
    // scored as if the parent were relevant: rel lifted to θ_page = 0.2
    // graph 0→1→2: in-degrees 0,1,1 → Π(2) = √2 / ((1 + 2√2)/3); A = 1, w_path = 1
    expect(two.score).toBeCloseTo(0.2 * (Math.SQRT2 / ((1 + 2 * Math.SQRT2) / 3)), 12);
    const three = chain(3, true);
    expect(three.drop).toBeFalsy();
    expect(three.breakdown.components.tunnelBuffer).toBe(1);
    const four = chain(4, true);
    expect(four.drop).toBe(true);
    expect(four.reason).toBe('tunnel-spent');
    const soft = chain(4, false);
    expect(soft.drop).toBeFalsy();
    expect(soft.breakdown.components.tunnelFactor).toBe(0.5);
    expect(soft.score).toBeCloseTo(0.05 * (Math.SQRT2 / ((1 + 4 * Math.SQRT2) / 5)) * 0.5, 12);
  });

  it('three irrelevant siblings demote the remaining ones (relevance feedback)', () => {
    const s = createScorer('topology');
    const parent = 'http://f.com/list/index.html';
    const kids = [1, 2, 3, 4, 5].map((i) => `http://f.com/list/${i}.html`);
    const first = byUrl(s.onPageFetched(P(parent, 0, 0.5, kids.map((k) => L(k)))));
    const before = first.get(kids[3]!)!.score;
    expect(before).toBeCloseTo(0.5 / 5, 12);
    expect(s.onPageFetched(P(kids[0]!, 1, 0.05, [], { parentUrl: parent }))).toEqual([]);
    expect(s.onPageFetched(P(kids[1]!, 1, 0.05, [], { parentUrl: parent }))).toEqual([]);
    const third = byUrl(s.onPageFetched(P(kids[2]!, 1, 0.05, [], { parentUrl: parent })));
    expect([...third.keys()].sort()).toEqual([kids[3], kids[4]]);
    // re-scoring also refreshes Π(parent): the three fetched kids (in-degree 1) raise the mean
    const bias = 1 / ((1 + 3 * Math.SQRT2) / 4);
    expect(third.get(kids[3]!)!.score).toBeCloseTo(before * bias * 0.5, 12);
    expect(third.get(kids[3]!)!.breakdown.components.feedbackDecay).toBe(0.5);
  });

  it('a relevant child breaks the run', () => {
    const s = createScorer('topology');
    const parent = 'http://f.com/list/index.html';
    const kids = [1, 2, 3, 4, 5].map((i) => `http://f.com/list/${i}.html`);
    s.onPageFetched(P(parent, 0, 0.5, kids.map((k) => L(k))));
    const rels = [0.05, 0.05, 0.9, 0.05];
    const all = rels.flatMap((r, i) => s.onPageFetched(P(kids[i]!, 1, r, [], { parentUrl: parent })));
    expect(all).toEqual([]);
  });
});

describe('semantic strategy (seed 001)', () => {
  it('a link on a mostly relevant page beats the same link on a page of irrelevant links', () => {
    const s = createScorer('semantic');
    const good = byUrl(s.onPageFetched(P('http://g.com/a.html', 0, 0.5, [L('http://g.com/x.html', 0.3), L('http://g.com/y.html', 0.9), L('http://g.com/z.html', 0.6)])));
    const bad = byUrl(s.onPageFetched(P('http://b.com/a.html', 0, 0.5, [L('http://b.com/x.html', 0.3), ...[1, 2, 3, 4, 5].map((i) => L(`http://b.com/${i}.html`, 0))])));
    expect(good.get('http://g.com/x.html')!.score).toBeCloseTo(0.8 * 0.3 + 0.2 * 0.6, 12);
    expect(bad.get('http://b.com/x.html')!.score).toBeCloseTo(0.3, 12); // m/n = 1/6: no child term
    expect(good.get('http://g.com/x.html')!.score).toBeGreaterThan(bad.get('http://b.com/x.html')!.score);
  });
});

describe('time strategy (seed 003)', () => {
  const hot = (d: Date) => (d >= new Date('2008-09-01') && d < new Date('2008-10-01') ? 0.8 : 0);
  const inWindow = (d: Date) => d >= new Date('2008-01-01');
  it('a dated URL inside the hot period gains e^{Pr}; one outside the window is dropped', () => {
    const s = createScorer('time', {}, { timePr: hot, inTimeWindow: inWindow });
    const ups = byUrl(
      s.onPageFetched(P('http://n.com/index.html', 0, 0.5, [
        L('http://n.com/2008/0905/a.html', 0.6),
        L('http://n.com/2008/1105/b.html', 0.6),
        L('http://n.com/2007-09-05/c.html', 0.6),
        L('http://n.com/2008/0906/d.html', 0.1),
      ])),
    );
    const prio = 0.4 * 0.5 + 0.6 * 0.6; // 0.56
    expect(ups.get('http://n.com/2008/0905/a.html')!.score).toBeCloseTo(prio * Math.exp(0.8), 12);
    expect(ups.get('http://n.com/2008/1105/b.html')!.score).toBeCloseTo(prio, 12);
    expect(ups.get('http://n.com/2007-09-05/c.html')!.drop).toBe(true);
    expect(ups.get('http://n.com/2007-09-05/c.html')!.reason).toBe('outside-time-window');
    // prio = 0.26 < 0.4: no time boost even in the hot period
    expect(ups.get('http://n.com/2008/0906/d.html')!.score).toBeCloseTo(0.26, 12);
  });
  it('an undated URL inherits the parent page’s publish time', () => {
    const s = createScorer('time', {}, { timePr: hot });
    const ups = byUrl(s.onPageFetched(P('http://n.com/p.html', 0, 0.5, [L('http://n.com/q.html', 0.6)], { publishTime: new Date('2008-09-10') })));
    expect(ups.get('http://n.com/q.html')!.breakdown.components.timeFactor).toBeCloseTo(Math.exp(0.8), 12);
  });
});

describe('ipagerank strategy (seed 004)', () => {
  it('recomputes IPR every iprEvery pages and values unfetched URLs from in-linkers', () => {
    const s = createScorer('ipagerank', { iprEvery: 2, linkThreshold: 0.2 }, { randomSeed: 5 });
    s.onPageFetched(P('http://i.com/A.html', 0, 0.6, [L('http://i.com/B.html', 0.5), L('http://i.com/X.html', 1)]));
    const ups = byUrl(s.onPageFetched(P('http://i.com/B.html', 1, 0.4, [L('http://i.com/A.html', 1), L('http://i.com/X.html', 0.5)])));
    const expected = iPageRank(
      new Map([
        ['http://i.com/A.html', { init: 0.6, out: new Map([['http://i.com/B.html', 0.5], ['http://i.com/X.html', 1]]) }],
        ['http://i.com/B.html', { init: 0.4, out: new Map([['http://i.com/A.html', 1], ['http://i.com/X.html', 0.5]]) }],
      ]),
    );
    expect(s.ipageRanks().get('http://i.com/A.html')).toBeCloseTo(expected.get('http://i.com/A.html')!, 12);
    const a = expected.get('http://i.com/A.html')!;
    const b = expected.get('http://i.com/B.html')!;
    expect(ups.get('http://i.com/X.html')!.score).toBeCloseTo(0.15 + 0.85 * ((a * 1) / 1.5 + (b * 0.5) / 1.5), 12);
  });
  it('RWB exploration is reproducible from the random seed', () => {
    const run = (seed: number) => {
      const s = createScorer('ipagerank', {}, { randomSeed: seed });
      const links = Array.from({ length: 40 }, (_, i) => L(`http://r.com/${i}.html`, 0.05));
      return s.onPageFetched(P('http://r.com/index.html', 0, 0.5, links)).map((u) => !u.drop);
    };
    const a = run(3);
    expect(run(3)).toEqual(a);
    const admitted = a.filter(Boolean).length;
    expect(admitted).toBeGreaterThan(0); // p = 0.3 of 40 in the band
    expect(admitted).toBeLessThan(40);
  });
});

describe('classic strategy (seed 002)', () => {
  it('weakens stoplisted anchors and sends a site’s queue to the back after its cutoff', () => {
    const s = createScorer('classic', { siteCutoff: 1 });
    const ups = byUrl(
      s.onPageFetched(P('http://c.com/index.html', 0, 0.5, [
        L('http://c.com/a.html', 0.5, 0, { anchorText: '神舟六号' }),
        L('http://c.com/b.html', 0.5, 0, { anchorText: '更多' }),
        L('http://c.com/c.html', 0.5),
        L('http://c.com/about.html', 0.5),
      ])),
    );
    // prio = 0.2 + 0.3 = 0.5; site bonus 1 + 0.1·(1/1)
    expect(ups.get('http://c.com/a.html')!.score).toBeCloseTo(0.5 * 1.1, 12);
    expect(ups.get('http://c.com/b.html')!.score).toBeCloseTo(0.5 * 0.5 * 1.1, 12);
    expect(ups.get('http://c.com/about.html')!.drop).toBe(true);
    expect(s.onPageFetched(P('http://c.com/a.html', 1, 0.05, []))).toEqual([]); // 1 irrelevant tolerated
    const cut = s.onPageFetched(P('http://c.com/b.html', 1, 0.05, []));
    // Not dropped (a one-site web ran dry): re-scored below any uncut site's URL.
    expect(cut.map((u) => [u.url, !!u.drop])).toEqual([['http://c.com/c.html', false]]);
    expect(cut[0]!.breakdown.components.siteCutoff).toBe(SITE_CUT_FACTOR);
    expect(cut[0]!.score).toBeCloseTo(0.5 * (1 + 0.1 / 3) * SITE_CUT_FACTOR, 15);
  });
});

describe('combined strategy', () => {
  it('multiplies the smoothed parent/anchor priority by ω, Π, IPR and site factors (hand-computed)', () => {
    const s = createScorer('combined', { learnWeights: false });
    const ups = byUrl(
      s.onPageFetched(P('http://s.com/news/index.html', 0, 0.6, [
        L('http://s.com/news/a.html', 0.5, 0.2),
        L('http://t.com/x.html', 0.5, 0.2),
        L('http://t.com/y.html', 0),
      ])),
    );
    // C(p) = 0.5 (2 of 3 links relevant); smoothed = 0.5; prio = 0.24 + 0.3 = 0.54
    // IPR(u) = 0.15 + 0.85·0.6·0.5/1 = 0.405 → factor 1 + 0.1·0.255
    const iprF = 1 + 0.1 * (0.405 - 0.15);
    const a = ups.get('http://s.com/news/a.html')!;
    expect(a.score).toBeCloseTo(0.54 * 1.2 * iprF * 1.1, 12);
    expect(ups.get('http://t.com/x.html')!.score).toBeCloseTo(0.54 * 0.45 * iprF * 1.0, 12);
    expect(Object.keys(a.breakdown.components)).toEqual(
      expect.arrayContaining(['parentPriority', 'smoothedSim', 'wPath', 'omega', 'scaleFree', 'feedbackDecay', 'ipagerank', 'iprFactor', 'siteBonus']),
    );
  });
});

describe('combined: bounded accumulation, feedback only through irrelevant parents', () => {
  it('in-links from more relevant parents raise a URL by at most inlinkShare', () => {
    const s = createScorer('combined', { learnWeights: false });
    const hub = 'http://hub.com/h.html';
    let last: ScoreUpdate | undefined;
    for (let i = 1; i <= 5; i++) last = byUrl(s.onPageFetched(P(`http://p${i}.com/x.html`, 0, 0.5, [L(hub, 0.5)]))).get(hub);
    // term = prio 0.5 × ω 0.25 (other host) × Π 1; IPR excess ≥ 1 → ×1.1; 4 other parents → tanh(4)
    expect(last!.score).toBeCloseTo(0.5 * 0.25 * (1 + 0.25 * Math.tanh(4)) * 1.1, 12);
    expect(last!.score).toBeLessThan(0.5 * 0.25 * 1.25 * 1.1);
  });
  it('does not demote the children of a relevant parent, does for an irrelevant one', () => {
    for (const [rel, expected] of [[0.5, 1], [0.1, 0.5]] as const) {
      const s = createScorer('combined', { learnWeights: false });
      const parent = 'http://f.com/list/index.html';
      const kids = [1, 2, 3, 4].map((i) => `http://f.com/list/${i}.html`);
      s.onPageFetched(P(parent, 1, rel, kids.map((k) => L(k))));
      const ups = [0, 1, 2].flatMap((i) => s.onPageFetched(P(kids[i]!, 2, 0.05, [], { parentUrl: parent })));
      if (expected === 1) expect(ups).toEqual([]);
      else expect(byUrl(ups).get(kids[3]!)!.breakdown.components.feedbackDecay).toBe(0.5);
    }
  });
});

describe('periodic re-scoring (IPageRank cycle)', () => {
  it('reports only the queued URLs whose score moved', () => {
    const s = createScorer('combined', { iprEvery: 3, learnWeights: false });
    const u = 'http://c.com/u.html';
    const first = byUrl(s.onPageFetched(P('http://a.com/A.html', 0, 0.6, [L(u, 0.5)])));
    // before the cycle IPR(A) is its initial value rel = 0.6
    expect(first.get(u)!.breakdown.components.ipagerank).toBeCloseTo(0.15 + 0.85 * 0.6, 12);
    s.onPageFetched(P('http://i.com/I.html', 0, 0.05, [L('http://c.com/w.html', 0.5)]));
    const cycle = s.onPageFetched(P('http://j.com/J.html', 0, 0.05, []));
    // IPR(A) = 0.15 (no relevant in-links); w (only an irrelevant in-linker) did not move
    expect(cycle.map((x) => x.url)).toEqual([u]);
    expect(cycle[0]!.score).toBeCloseTo(0.54 * 0.25 * (1 + 0.1 * (0.15 + 0.85 * 0.15 - 0.15)), 12);
  });
});

describe('bfs strategy', () => {
  it('yields FIFO (breadth-first) order through a max-heap', () => {
    const web: Record<string, string[]> = {
      S: ['a', 'b', 'c'],
      a: ['d', 'b', 'e'],
      b: ['f', 'S'],
      c: ['g', 'd'],
      d: ['h'],
      e: [],
      f: ['a'],
      g: ['i'],
      h: [],
      i: [],
    };
    const url = (k: string) => `http://w.com/${k}.html`;
    const s = createScorer('bfs');
    const heap = new IndexedMaxHeap();
    const depth = new Map<string, number>([[url('S'), 0]]);
    heap.push(url('S'), s.seedScore(url('S')).score);
    const order: string[] = [];
    const seen = new Set([url('S')]);
    for (let e = heap.pop(); e; e = heap.pop()) {
      order.push(e.key.slice(13, -5));
      const k = e.key.slice(13, -5);
      const ups = s.onPageFetched(P(e.key, depth.get(e.key)!, 0.5, web[k]!.map((c) => L(url(c)))));
      for (const u of ups) {
        if (seen.has(u.url)) continue;
        seen.add(u.url);
        depth.set(u.url, u.depth);
        heap.push(u.url, u.score);
      }
    }
    // reference: a plain FIFO queue
    const ref: string[] = [];
    const q = ['S'];
    const vis = new Set(q);
    while (q.length) {
      const k = q.shift()!;
      ref.push(k);
      for (const c of web[k]!) if (!vis.has(c)) (vis.add(c), q.push(c));
    }
    expect(order).toEqual(ref);
    expect(order).toEqual(['S', 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i']);
    expect(depth.get(url('i'))).toBe(3);
  });
});
