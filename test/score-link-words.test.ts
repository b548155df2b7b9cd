import { describe, expect, it } from 'vitest';
import { linkWords, LinkWordModel } from '../src/score/link-words.js';
import { RunningRank } from '../src/topic/running-rank.js';
import { createScorer } from '../src/score/index.js';

const ids = (m: LinkWordModel, texts: string[]) => m.ids(texts.flatMap((t) => linkWords({ url: `http://w.test/wiki/${t.replace(/ /g, '_')}`, anchorText: t }, 'w.test')));

describe('link-word model', () => {
  it('says nothing before a relevant page is seen', () => {
    const m = new LinkWordModel();
    expect(m.evidence(ids(m, ['Grey heron']))).toBe(0);
    m.observe(ids(m, ['Football', 'Rugby league']), false);
    expect(m.evidence(ids(m, ['Grey heron']))).toBe(0);
  });

  it('learns the words the links of relevant pages use, and generalises to a link no page has used', () => {
    const m = new LinkWordModel();
    m.observe(ids(m, ['Heron', 'Egret', 'Plumage', 'Africa']), true);
    m.observe(ids(m, ['Grey heron', 'Nest', 'Plumage', 'Europe']), true);
    m.observe(ids(m, ['Egret', 'Heron', 'Nest']), true);
    m.observe(ids(m, ['Football', 'Rugby league', 'Europe', 'Africa']), false);
    m.observe(ids(m, ['Football club', 'Cricket', 'Europe']), false);
    for (const sport of ['Tennis', 'Golf', 'Hockey', 'Baseball', 'Rugby league']) m.observe(ids(m, [sport, 'Football', 'League']), false);
    const heron = m.evidence(ids(m, ['Grey egret']));
    const rugby = m.evidence(ids(m, ['Rugby union']));
    const europe = m.evidence(ids(m, ['Europe']));
    expect(heron).toBeGreaterThan(0);
    expect(rugby).toBeLessThan(0);
    // A word used as often by the links of relevant pages as by all: near 0, between the two.
    expect(europe).toBeLessThan(heron);
    expect(europe).toBeGreaterThan(rugby);
  });

  it('takes a word no page has used as no evidence, not as evidence against the link', () => {
    const m = new LinkWordModel();
    m.observe(ids(m, ['Heron', 'Egret']), true);
    m.observe(ids(m, ['Football', 'Cricket']), false);
    // "Forum" is on no page yet: a link "Heron forum" is as good as "Heron", not halfway to "Football".
    expect(m.evidence(ids(m, ['Heron forum']))).toBeCloseTo(m.evidence(ids(m, ['Heron'])), 12);
    expect(m.evidence(m.ids(['viewthread', 'forum']))).toBe(0);
    expect(m.evidence(ids(m, ['Football']))).toBeLessThan(0);
  });

  it('takes soft labels: a half-relevant page counts half', () => {
    const full = new LinkWordModel();
    const half = new LinkWordModel();
    for (const m of [full, half]) m.observe(ids(m, ['Football']), false);
    full.observe(ids(full, ['Heron']), 1);
    half.observe(ids(half, ['Heron']), 0.5);
    half.observe(ids(half, ['Swan']), 1);
    expect(half.relevantPages).toBe(1.5);
    expect(half.evidence(ids(half, ['Heron']))).toBeLessThan(full.evidence(ids(full, ['Heron'])));
    expect(half.evidence(ids(half, ['Heron']))).toBeGreaterThan(half.evidence(ids(half, ['Football'])));
  });
});

describe('running rank', () => {
  it('gives the share of earlier values below, 0 for the first', () => {
    const r = new RunningRank();
    expect(r.rankThenAdd(5)).toBe(0);
    expect(r.rankThenAdd(7)).toBe(1);
    expect(r.rankThenAdd(6)).toBe(0.5);
    expect(r.rankThenAdd(1)).toBe(0);
  });

  it('keeps a bounded uniform sample that still ranks a long stream', () => {
    const r = new RunningRank(50, 7);
    let x = 12345;
    for (let i = 0; i < 5000; i++) {
      x = (x * 1103515245 + 12345) % 2 ** 31;
      r.rankThenAdd(x / 2 ** 31);
    }
    expect(r.rankThenAdd(0.5)).toBeGreaterThan(0.25);
    expect(r.rankThenAdd(0.5)).toBeLessThan(0.75);
    expect(r.rankThenAdd(0.95)).toBeGreaterThan(0.8);
  });
});

describe('combined with the link-word evidence', () => {
  const page = (url: string, evidence: number, anchors: string[], parentUrl?: string) => ({
    url,
    parentUrl,
    depth: parentUrl ? 1 : 0,
    rel: 0.01,
    relevant: false,
    evidence,
    links: anchors.map((a) => ({ url: `http://w.test/wiki/${a.replace(/ /g, '_')}`, anchorText: a, contextSim: 0, anchorKeywordFreq: 0 })),
  });

  it('ranks a link named like the links of topical pages first, by the judge evidence even when every verdict is "irrelevant", and explains it', () => {
    const s = createScorer('combined', { learnRescoreEvery: 1, linkWords: true });
    // The evidence rank becomes the label once 30 pages are ranked.
    for (let i = 0; i < 30; i++) s.onPageFetched(page(`http://w.test/wiki/Page_${i}`, 0.05 + i / 100, [`Town ${i}`, 'List']));
    // Pages the keyword judge calls irrelevant, but whose topic evidence differs.
    s.onPageFetched(page('http://w.test/wiki/Start', 0.1, ['Heron', 'Egret', 'Football', 'Cricket']));
    s.onPageFetched(page('http://w.test/wiki/Heron', 2.0, ['Grey heron', 'Egret', 'Plumage'], 'http://w.test/wiki/Start'));
    s.onPageFetched(page('http://w.test/wiki/Egret', 1.8, ['Little egret', 'Grey heron', 'Plumage'], 'http://w.test/wiki/Start'));
    s.onPageFetched(page('http://w.test/wiki/Football', 0.2, ['Football club', 'Rugby league'], 'http://w.test/wiki/Start'));
    const ups = s.onPageFetched(page('http://w.test/wiki/Cricket', 0.1, ['Purple heron', 'Rugby union'], 'http://w.test/wiki/Start'));
    const heron = ups.filter((u) => u.url.endsWith('Purple_heron')).at(-1)!;
    const rugby = ups.filter((u) => u.url.endsWith('Rugby_union')).at(-1)!;
    expect(heron.breakdown.components.linkWords).toBeGreaterThan(rugby.breakdown.components.linkWords);
    expect(heron.score).toBeGreaterThan(rugby.score);
  });

  it('labels the first pages by their verdict: a rank among a handful of pages says little', () => {
    // On the test web the first article with any evidence ranked
    // 1 among the home pages, so an off-topic channel's words became "topical" and led the crawl.
    const s = createScorer('combined', { learnRescoreEvery: 1, linkWords: true });
    s.onPageFetched(page('http://w.test/wiki/Start', 0, ['Bank merger', 'Heron']));
    s.onPageFetched(page('http://w.test/wiki/Bank_merger', 0.9, ['Bank shares', 'Stock index'], 'http://w.test/wiki/Start'));
    s.onPageFetched({ ...page('http://w.test/wiki/Heron', 0.3, ['Grey heron', 'Egret'], 'http://w.test/wiki/Start'), relevant: true });
    const ups = s.onPageFetched(page('http://w.test/wiki/Other', 0.1, ['Grey egret', 'Bank index'], 'http://w.test/wiki/Start'));
    const egret = ups.filter((u) => u.url.endsWith('Grey_egret')).at(-1)!;
    const bank = ups.filter((u) => u.url.endsWith('Bank_index')).at(-1)!;
    expect(egret.breakdown.components.linkWords).toBeGreaterThan(0);
    expect(bank.breakdown.components.linkWords).toBeLessThan(egret.breakdown.components.linkWords);
  });

  it('learns from the pages’ own words too: a link named by words topical pages talk about, that no link has used yet', () => {
    const s = createScorer('combined', { learnRescoreEvery: 1, linkWords: true });
    expect(s.readsPageWords).toBe(true);
    expect(createScorer('combined', { linkWords: false }).readsPageWords).toBe(false);
    for (let i = 0; i < 30; i++) s.onPageFetched({ ...page(`http://w.test/wiki/Page_${i}`, 0.05 + i / 100, [`Town ${i}`]), words: ['town', 'river'] });
    // The topical pages' text speaks of herons; no link so far says "heron" or "cricket".
    s.onPageFetched({ ...page('http://w.test/wiki/Egret', 2.0, ['Plumage']), words: ['egret', 'heron', 'plumage', 'wade'] });
    s.onPageFetched({ ...page('http://w.test/wiki/Stork', 1.8, ['Plumage']), words: ['stork', 'heron', 'nest'] });
    s.onPageFetched({ ...page('http://w.test/wiki/Football', 0.1, ['Stadium']), words: ['football', 'cricket', 'stadium'] });
    const ups = s.onPageFetched({ ...page('http://w.test/wiki/Start', 0.1, ['Purple heron', 'Cricket']), words: ['river'] });
    const heron = ups.find((u) => u.url.endsWith('Purple_heron'))!.breakdown.components.linkWords!;
    const cricket = ups.find((u) => u.url.endsWith('Cricket'))!.breakdown.components.linkWords!;
    expect(heron).toBeGreaterThan(0);
    expect(cricket).toBeLessThan(0);
  });

  it('is on by default, and off with linkWords false', () => {
    const on = createScorer('combined');
    on.onPageFetched({ ...page('http://w.test/wiki/Heron', 2, ['Egret']), relevant: true });
    const onUps = on.onPageFetched(page('http://w.test/wiki/Egret', 1, ['Grey heron'], 'http://w.test/wiki/Heron'));
    expect(onUps.find((u) => u.url.endsWith('Grey_heron'))!.breakdown.components.linkWords).toBeDefined();
    const s = createScorer('combined', { linkWords: false });
    s.onPageFetched(page('http://w.test/wiki/Heron', 2, ['Egret']));
    const ups = s.onPageFetched(page('http://w.test/wiki/Egret', 1, ['Grey heron'], 'http://w.test/wiki/Heron'));
    expect(ups.find((u) => u.url.endsWith('Grey_heron'))!.breakdown.components.linkWords).toBeUndefined();
  });
});
