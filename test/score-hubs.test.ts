import { describe, expect, it } from 'vitest';
import { HubTable } from '../src/score/hubs.js';
import { createScorer, type FetchedPage, type ScoreUpdate } from '../src/score/index.js';

describe('hub table: what a page\'s links have led to', () => {
  it('says nothing of a page none of whose children has been judged', () => {
    const h = new HubTable();
    h.record('http://w.test/A', 1, [], ['http://w.test/B']);
    expect(h.evidence(['http://w.test/A'])).toBe(0);
    expect(h.evidence(['http://w.test/unknown'])).toBe(0);
  });

  it('rates a parent by its children\'s labels against the crawl\'s rate, more surely the more children', () => {
    const h = new HubTable();
    h.record('http://w.test/List', 0, [], []);
    h.record('http://w.test/Element', 1, [], []);
    for (let i = 0; i < 3; i++) h.record(`http://w.test/k${i}`, 1, ['http://w.test/List'], []);
    for (let i = 0; i < 3; i++) h.record(`http://w.test/o${i}`, 0, ['http://w.test/Element'], []);
    const listAfter3 = h.evidence(['http://w.test/List']);
    expect(listAfter3).toBeGreaterThan(0);
    expect(h.evidence(['http://w.test/Element'])).toBeLessThan(0);
    for (let i = 3; i < 10; i++) h.record(`http://w.test/k${i}`, 1, ['http://w.test/List'], []);
    expect(h.evidence(['http://w.test/List'])).toBeGreaterThan(listAfter3);
  });

  it('pools its parents\' children: a link on every page of a site weighs as the site\'s children, however many parents', () => {
    const h = new HubTable();
    // Ten article pages, each with one judged child off topic and one on topic: each says 1/2.
    for (let i = 0; i < 10; i++) {
      h.record(`http://w.test/art${i}`, 1, [], []);
      h.record(`http://w.test/nav${i}`, 0, [`http://w.test/art${i}`], []);
      h.record(`http://w.test/on${i}`, 1, [`http://w.test/art${i}`], []);
    }
    const arts = Array.from({ length: 10 }, (_, i) => `http://w.test/art${i}`);
    // Pooled: the share of all ten parents' children, not ten times one parent's evidence.
    expect(Math.abs(h.evidence(arts) - h.evidence([arts[0]]))).toBeLessThan(0.5);
    expect(h.evidence(arts)).toBeLessThan(2 * Math.abs(h.evidence([arts[0]])) + 0.1);
  });

  it('counts a page\'s links to pages judged before it (co-citation), once each, and reports whose tally moved', () => {
    const h = new HubTable();
    h.record('http://w.test/Georgia', 1, [], []);
    h.record('http://w.test/Malawi', 1, [], []);
    const changed = h.record('http://w.test/List_of_countries', 0, [], ['http://w.test/Georgia', 'http://w.test/Malawi', 'http://w.test/Malawi', 'http://w.test/Unfetched']);
    expect(changed).toEqual(['http://w.test/List_of_countries']);
    expect(h.childrenOf('http://w.test/List_of_countries')).toEqual({ n: 2, sum: 2 });
    expect(h.evidence(['http://w.test/List_of_countries'])).toBeGreaterThan(0);
    // Judged twice (another learner asking again): counted once.
    expect(h.record('http://w.test/Georgia', 1, ['http://w.test/List_of_countries'], [])).toEqual([]);
    expect(h.childrenOf('http://w.test/List_of_countries')).toEqual({ n: 2, sum: 2 });
  });

  it('counts a list page for its own links, as no page\'s child', () => {
    const h = new HubTable();
    // A topical forum index (its headlines are on the topic), then a thread page off it that links back.
    h.record('http://f.test/forum', 1, [], [], true);
    const changed = h.record('http://f.test/thread', 0, ['http://f.test/forum'], ['http://f.test/forum', 'http://f.test/view']);
    expect(changed).toEqual(['http://f.test/forum']);
    expect(h.childrenOf('http://f.test/forum')).toEqual({ n: 1, sum: 0 });
    expect(h.childrenOf('http://f.test/thread')).toBeUndefined();
    // Another index fetched after it, linked from the thread: still nobody's child.
    expect(h.record('http://f.test/board', 1, ['http://f.test/thread'], [], true)).toEqual([]);
    expect(h.childrenOf('http://f.test/thread')).toBeUndefined();
    expect(h.evidence(['http://f.test/thread'])).toBe(0);
    // Nor part of the crawl's rate: one page judged, label 0.
    expect(h.baseRate()).toBeCloseTo(1 / 3);
    // Recorded once: the index judged again does not become a child.
    expect(h.record('http://f.test/forum', 1, ['http://f.test/thread'], [])).toEqual([]);
    expect(h.childrenOf('http://f.test/thread')).toBeUndefined();
  });

  it('round-trips its state', () => {
    const h = new HubTable();
    h.record('http://w.test/P', 0, [], []);
    h.record('http://w.test/C', 1, ['http://w.test/P'], []);
    h.record('http://w.test/Index', 1, [], [], true);
    const copy = new HubTable();
    copy.restore(structuredClone(h.state()));
    expect(copy.evidence(['http://w.test/P'])).toBe(h.evidence(['http://w.test/P']));
    copy.record('http://w.test/D', 1, ['http://w.test/P'], []);
    expect(h.childrenOf('http://w.test/P')).toEqual({ n: 1, sum: 1 });
    // The list page stays nobody's child in the copy.
    copy.record('http://w.test/E', 0, [], ['http://w.test/Index']);
    expect(copy.childrenOf('http://w.test/E')).toBeUndefined();
  });
});

/** A fetched page for the scorer: relevant or not, with its links (anchor text = the URL's last segment). */
const page = (url: string, relevant: boolean, links: string[], parentUrl?: string, extra: Partial<FetchedPage> = {}): FetchedPage => ({
  ...extra,
  url,
  parentUrl,
  depth: parentUrl ? 1 : 0,
  rel: relevant ? 0.3 : 0.01,
  relevant,
  links: links.map((u) => ({ url: u, anchorText: u.split('/').pop()!, contextSim: 0, anchorKeywordFreq: 0 })),
});
/** A URL's latest re-score among the scorer's updates. */
const last = (ups: ScoreUpdate[], url: string) => ups.filter((u) => u.url === url).at(-1)!;

describe('combined: a list page judged off topic whose links lead to topical pages', () => {
  const w = (n: string) => `http://w.test/wiki/${n}`;

  /**
   * A relevant article (Sodium) links to six off-topic pages and one element; an off-topic list
   * (Periodic table) links to six elements and one off-topic page. Three of each's links are
   * fetched, the list's all relevant, the article's all not. Returns the last scores of a queued
   * link of each, by words that say nothing (names the ranker has never seen).
   */
  const run = (hubEvidence: number) => {
    const s = createScorer('combined', { learnRescoreEvery: 1000, hubEvidence, linkExplore: 0 });
    const sodiumKids = ['Color', 'Glass', 'Soviet_Union', 'Salt_mine', 'Street_lamp', 'Soap'].map(w);
    const tableKids = ['Argon', 'Boron', 'Cobalt', 'Dysprosium', 'Erbium', 'Fermium'].map(w);
    const all: ScoreUpdate[] = [];
    all.push(...s.onPageFetched(page(w('Sodium'), true, sodiumKids)));
    all.push(...s.onPageFetched(page(w('Periodic_table'), false, tableKids)));
    for (let i = 0; i < 3; i++) {
      all.push(...s.onPageFetched(page(sodiumKids[i], false, [], w('Sodium'))));
      all.push(...s.onPageFetched(page(tableKids[i], true, [], w('Periodic_table'))));
    }
    return { element: last(all, tableKids[5]), other: last(all, sodiumKids[5]) };
  };

  it('ranks the list\'s queued links above the relevant article\'s, re-scored as its children are judged, and explains it', () => {
    const on = run(3);
    expect(on.element.score).toBeGreaterThan(on.other.score);
    expect(on.element.breakdown.components.hub).toBeGreaterThan(0);
    // The article's children off the topic lend its other links no promise, and take none away.
    expect(on.other.breakdown.components.hub).toBe(0);
    // On by default; off, the parent's verdict puts the relevant article's links first.
    expect(createScorer('combined').options.hubEvidence).toBe(3);
    const off = run(0);
    expect(off.element.score).toBeLessThan(off.other.score);
    expect(off.element.breakdown.components.hub).toBeUndefined();
  });
});

describe('combined: hub evidence lends no promise through a relevant parent', () => {
  const f = (n: string) => `http://f.test/${n}`;

  /**
   * A relevant thread page links to its next pages and to views of itself; an off-topic board
   * links to threads. Two of each's links are fetched and judged relevant. The thread's relevance
   * already lends its links its promise (the §3.1 parent term); counted again as hub evidence it
   * pulled a thread's views of itself forward with its next pages, so only the board's children
   * gain by it.
   */
  it("raises an off-topic list's other links, not a relevant page's", () => {
    const s = createScorer('combined', { learnRescoreEvery: 1000, linkExplore: 0, hubEvidence: 1 });
    const threadKids = ['thread-p2', 'thread-p3', 'thread-view-a', 'thread-view-b'].map(f);
    const boardKids = ['t1', 't2', 't3', 't4'].map(f);
    const all: ScoreUpdate[] = [];
    all.push(...s.onPageFetched(page(f('thread'), true, threadKids)));
    all.push(...s.onPageFetched(page(f('board'), false, boardKids)));
    for (let i = 0; i < 2; i++) {
      all.push(...s.onPageFetched(page(threadKids[i], true, [], f('thread'))));
      all.push(...s.onPageFetched(page(boardKids[i], true, [], f('board'))));
    }
    expect(last(all, boardKids[3]).breakdown.components.hub).toBeGreaterThan(0);
    expect(last(all, threadKids[3]).breakdown.components.hub).toBe(0);
  });

  it('lowers no link: a page whose children were off the topic leaves its other links where the rest of the score puts them', () => {
    const s = createScorer('combined', { learnRescoreEvery: 1000, linkExplore: 0, hubEvidence: 1 });
    const kids = ['a', 'b', 'c', 'd'].map(f);
    const all: ScoreUpdate[] = [];
    all.push(...s.onPageFetched(page(f('portal'), false, kids)));
    all.push(...s.onPageFetched(page(f('other'), true, [])));
    for (let i = 0; i < 3; i++) all.push(...s.onPageFetched(page(kids[i], false, [], f('portal'))));
    expect(last(all, kids[3]).breakdown.components.hub).toBe(0);
  });

  it("lends a thread page judged off the topic no promise for linking back to its topical forum index", () => {
    const s = createScorer('combined', { learnRescoreEvery: 1000, linkExplore: 0, hubEvidence: 1 });
    const views = ['view-a', 'view-b'].map(f);
    const all: ScoreUpdate[] = [];
    // The index: a list page whose headlines are on the topic (relevant to the scorer).
    all.push(...s.onPageFetched(page(f('forum'), true, [f('thread')], undefined, { listPage: true })));
    // The thread, missed by the judge, links back to the index and to views of itself.
    all.push(...s.onPageFetched(page(f('thread'), false, [f('forum'), ...views], f('forum'))));
    const view = last(all, views[1]);
    expect(view.breakdown.components.hub).toBe(0);
  });
});
