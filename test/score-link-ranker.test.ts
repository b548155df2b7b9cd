import { describe, expect, it } from 'vitest';
import { LinkRanker, meanFeatures, siteOf, urlShape, type LinkDescription } from '../src/score/link-ranker.js';
import { createScorer } from '../src/score/index.js';

const link = (url: string, anchorText: string, over: Partial<LinkDescription> = {}): LinkDescription => ({
  url,
  anchorText,
  host: 'w.test',
  parentRelevant: true,
  sinceRelevant: 0,
  ...over,
});

describe('link ranker', () => {
  it('knows nothing before training: zero evidence', () => {
    const r = new LinkRanker();
    expect(r.evidence(r.features(link('http://w.test/wiki/Golden_eagle', 'golden eagle')))).toBe(0);
  });

  it('learns which anchor and URL words lead to relevant pages and generalises to new links', () => {
    const r = new LinkRanker();
    const good = ['Golden_eagle', 'Bald_eagle', 'Harpy_eagle', 'Booted_eagle'];
    const bad = ['Football', 'Cricket', 'Rugby_union', 'Tennis'];
    for (let epoch = 0; epoch < 3; epoch++) {
      for (const g of good) r.learnTarget(r.features(link(`http://w.test/wiki/${g}`, g.replace('_', ' '))), true);
      for (const b of bad) r.learnTarget(r.features(link(`http://w.test/wiki/${b}`, b.replace('_', ' '))), false);
    }
    const eagle = r.features(link('http://w.test/wiki/Steppe_eagle', 'steppe eagle'));
    const sport = r.features(link('http://w.test/wiki/Rugby_league', 'rugby league'));
    expect(r.evidence(eagle)).toBeGreaterThan(0);
    expect(r.evidence(sport)).toBeLessThan(0);
    expect(r.predict(eagle).target).toBeGreaterThan(r.predict(sport).target);
  });

  it('learns links that lead through an off-topic page to relevant ones (the beyond model)', () => {
    const r = new LinkRanker();
    const list = r.features(link('http://w.test/wiki/List_of_birds', 'list of birds', { parentRelevant: false, sinceRelevant: 1 }));
    const other = r.features(link('http://w.test/wiki/Politics', 'politics', { parentRelevant: false, sinceRelevant: 1 }));
    for (let i = 0; i < 10; i++) {
      r.learnTarget(list, false);
      r.learnTarget(other, false);
      r.learnBeyond(list, true);
      r.learnBeyond(other, false);
    }
    expect(r.predict(list).target).toBeLessThan(0.5);
    expect(r.value(list)).toBeGreaterThan(r.value(other));
    expect(r.evidence(list)).toBeGreaterThan(r.evidence(other));
  });

  it('learns one example from a page, however many links pointed to it (AdaGrad: n steps of weight 1/n move a new feature ~2η√n)', () => {
    // The same off-topic forum index, reached by 1 or by 50 navigation links: what it teaches
    // about an unseen link to the same host (a board) must not grow with its in-link count.
    const boardAfter = (inlinks: number, perLink: boolean) => {
      const r = new LinkRanker();
      for (let i = 0; i < 40; i++) r.learnTarget(r.features(link(`http://news.test/a/${i}.html`, `news ${i}`, { host: 'news.test' })), i % 2);
      const links = Array.from({ length: inlinks }, (_, i) => r.features(link('http://forum.test/forum.php', i % 2 ? 'forum' : 'community', { host: 'forum.test', parentRelevant: i % 3 === 0 })));
      if (perLink) for (const f of links) r.learnTarget(f, false, 1 / inlinks);
      else r.learnTargetOfInlinks(links, false);
      return r.predict(r.features(link('http://forum.test/forum-2-1.html', 'earthquake relief', { host: 'forum.test' }))).target;
    };
    expect(Math.abs(boardAfter(50, false) - boardAfter(1, false))).toBeLessThan(0.05);
    // The per-link weighting this replaced: the same page, 50 times the lesson.
    expect(boardAfter(1, true) - boardAfter(50, true)).toBeGreaterThan(0.15);
  });

  it('learns that links to pages offering no links of their own (near-duplicates) lead nowhere beyond', () => {
    // A forum thread's pages lead on to relevant pages; its "only this author" views are
    // near-duplicates whose links are the thread's: nothing new beyond them. Both kinds of link sit
    // in the same topical post text, so without the dead-end examples the beyond model rates them alike.
    const ctx = 'the striker scored twice in the final and the league title';
    const thread = (i: number) => link(`http://f.test/thread-${i}-2-1.html`, `${i}`, { host: 'f.test', context: ctx });
    const view = (i: number) => link(`http://f.test/forum.php?mod=viewthread&tid=${i}&authorid=${i + 7}`, 'only this author', { host: 'f.test', context: ctx });
    const beyondOfView = (deadEnds: boolean) => {
      const r = new LinkRanker();
      for (let i = 0; i < 12; i++) {
        const t = r.features(thread(i));
        r.learnTarget(t, true);
        r.learnBeyond(t, true);
        const v = r.features(view(i));
        r.learnTargetOfInlinks([v], false);
        if (deadEnds) r.learnNothingBeyond([v]);
      }
      return { view: r.predict(r.features(view(99))).beyond, thread: r.predict(r.features(thread(99))).beyond };
    };
    const without = beyondOfView(false);
    const withDeadEnds = beyondOfView(true);
    expect(without.view).toBeGreaterThan(0.5); // the shared context carried the threads' promise over
    expect(withDeadEnds.view).toBeLessThan(without.view - 0.2);
    expect(withDeadEnds.view).toBeLessThan(withDeadEnds.thread);
  });

  it('averages in-links into one feature vector: shared features keep their value, the rest are shared out', () => {
    const r = new LinkRanker();
    const a = r.features(link('http://w.test/wiki/Eagle', 'eagle'));
    const b = r.features(link('http://w.test/wiki/Eagle', 'bird of prey'));
    const mean = meanFeatures([a, b]);
    const own = (f: typeof a) => new Map(Array.from({ length: f.n }, (_, i) => [f.chunk.idx[f.start + i], f.chunk.val[f.start + i]] as const));
    const [ma, mb] = [own(a), own(b)];
    for (const [j, v] of mean) expect(v).toBeCloseTo(((ma.get(j) ?? 0) + (mb.get(j) ?? 0)) / 2, 6);
    const shared = [...ma.keys()].filter((j) => mb.has(j) && ma.get(j) === mb.get(j));
    expect(shared.length).toBeGreaterThan(0); // URL words, host, parent verdict, depth
    for (const j of shared) expect(mean.get(j)).toBeCloseTo(ma.get(j)!, 6);
  });
});

describe('a site is its host without the port', () => {
  it('names the site alike on every port, IPv6 literals included', () => {
    expect(siteOf('127.0.0.1:45895')).toBe('127.0.0.1');
    expect(siteOf('127.0.0.1')).toBe('127.0.0.1');
    expect(siteOf('[::1]:8080')).toBe('[::1]');
    expect(siteOf('[::1]')).toBe('[::1]');
  });

  it('gives a link the same hashed features and the same kind on any port (replays on ephemeral ports rank alike)', () => {
    const r = new LinkRanker();
    const on = (port: number) => link(`http://127.0.0.1:${port}/wiki/Grey_heron`, 'grey heron', { host: `127.0.0.1:${port}` });
    const a = r.features(on(45895));
    const b = r.features(on(37087));
    expect([...meanFeatures([b])]).toEqual([...meanFeatures([a])]);
    expect(meanFeatures([a]).size).toBeGreaterThan(3);
    expect(r.kindFeature('http://127.0.0.1:37087/wiki/Grey_heron', '127.0.0.1:37087')).toBe(r.kindFeature('http://127.0.0.1:45895/wiki/Grey_heron', '127.0.0.1:45895'));
    // Another site is another feature.
    expect(r.kindFeature('http://127.0.0.2:45895/wiki/Grey_heron', '127.0.0.2:45895')).not.toBe(r.kindFeature('http://127.0.0.1:45895/wiki/Grey_heron', '127.0.0.1:45895'));
  });
});

describe('the kind of a link\'s target and the ranker\'s optimism about it', () => {
  it('shapes a URL by its runs of letters and digits: one shape per kind of page, whatever the words or ids', () => {
    expect(urlShape('http://bbs.test/forum-2-1.html')).toBe('/a-0-0.a');
    expect(urlShape('http://bbs.test/forum-17-3.html')).toBe('/a-0-0.a');
    expect(urlShape('http://bbs.test/forum.php')).toBe('/a.a');
    expect(urlShape('http://bbs.test/forum.php?mod=viewthread&tid=12')).toBe('/a.a?a=a&a=0');
    expect(urlShape('http://news.test/news/2008/05/12/a1234.html')).toBe('/a/0/0/0/a0.a');
    expect(urlShape('http://w.test/wiki/Grey_Heron')).toBe('/a/a');
    expect(urlShape('http://w.test/wiki/%E5%9C%B0%E9%9C%87')).toBe('/a/a'); // 地震, decoded: letters of any script
  });

  it('gives a name of any number of words one shape, and keeps a page family apart from the rest', () => {
    expect(urlShape('http://w.test/wiki/Heron')).toBe(urlShape('http://w.test/wiki/Great_Blue_Heron'));
    expect(urlShape('http://w.test/wiki/Category:Birds')).toBe(urlShape('http://w.test/wiki/Category:Birds_of_North_America'));
    expect(urlShape('http://w.test/wiki/Category:Birds')).not.toBe(urlShape('http://w.test/wiki/Birds'));
    expect(urlShape('http://news.test/2008/05/how-the-quake-struck.html')).toBe(urlShape('http://news.test/2008/06/aftershocks.html'));
    expect(urlShape('http://w.test/search?q=grey+heron')).toBe('/a?a=a');
    // Digits between words are ids, not words: a board and its page stay a shape of their own.
    expect(urlShape('http://bbs.test/forum-2-1.html')).not.toBe(urlShape('http://bbs.test/forum.html'));
  });

  it('loses its optimism about a page family once pages of it are judged off-topic, whatever their titles\' lengths', () => {
    const r = new LinkRanker();
    const article = (name: string, relevant: boolean) => r.learnTargetOfInlinks([r.features(link(`http://w.test/wiki/${name}`, name.replace(/_/g, ' ')))], relevant);
    for (let i = 0; i < 20; i++) article(i % 2 ? `Heron_${'x'.repeat(i)}` : `Rock_${'y'.repeat(i)}_band`, i % 2 === 1);
    const titles = ['Birds', 'Wading_birds', 'Birds_of_Europe', 'Extinct_birds_of_Africa', 'Birds', 'Herons', 'Sea_birds', 'Birds_of_prey'];
    for (const t of titles) r.learnTargetOfInlinks([r.features(link(`http://w.test/wiki/Category:${t}`, t.replace(/_/g, ' ')))], false);
    const optimism = (url: string) => {
      const l = link(url, 'birds of the world');
      return r.optimism(r.features(l), r.kindFeature(l.url, l.host), 1);
    };
    // A title longer than any judged: still the family the crawl has learned about.
    const family = optimism('http://w.test/wiki/Category:Birds_of_the_Indian_Ocean_islands');
    const unseen = optimism('http://w.test/w/index.php?title=Birds&action=history');
    expect(family).toBeLessThan(unseen / 2);
  });

  it('is optimistic about a kind no fetched page has taught, less so as pages of the kind are judged', () => {
    const r = new LinkRanker();
    const article = (i: number) => link(`http://news.test/news/2008/05/${i}/a${i}.html`, `quake news ${i}`, { host: 'news.test' });
    for (let i = 0; i < 30; i++) r.learnTargetOfInlinks([r.features(article(i))], i % 3 === 0);
    const kindOf = (l: LinkDescription) => r.kindFeature(l.url, l.host);
    const fresh = article(99);
    const board = link('http://bbs.test/forum-2-1.html', 'quake relief', { host: 'bbs.test' });
    const known = r.optimism(r.features(fresh), kindOf(fresh), 1);
    const unseen = r.optimism(r.features(board), kindOf(board), 1);
    expect(known).toBeGreaterThan(0); // an upper bound is never below the estimate
    expect(unseen).toBeGreaterThan(known + 0.3);
    // One board judged (off-topic): the doubt about boards shrinks, and more pages shrink it further.
    r.learnTargetOfInlinks([r.features(board)], false);
    const board2 = link('http://bbs.test/forum-3-1.html', 'sports talk', { host: 'bbs.test' });
    const afterOne = r.optimism(r.features(board2), kindOf(board2), 1);
    expect(afterOne).toBeLessThan(unseen);
    for (let i = 4; i < 24; i++) r.learnTargetOfInlinks([r.features(link(`http://bbs.test/forum-${i}-1.html`, `board ${i}`, { host: 'bbs.test' }))], false);
    expect(r.optimism(r.features(board2), kindOf(board2), 1)).toBeLessThan(afterOne);
  });

  it('adds nothing before training, with κ = 0, or for a link whose features lack the kind', () => {
    const r = new LinkRanker();
    const board = link('http://bbs.test/forum-2-1.html', 'quake relief', { host: 'bbs.test' });
    expect(r.optimism(r.features(board), r.kindFeature(board.url, board.host), 1)).toBe(0);
    r.learnTarget(r.features(link('http://w.test/wiki/A', 'a')), true);
    expect(r.optimism(r.features(board), r.kindFeature(board.url, board.host), 0)).toBe(0);
    const other = link('http://w.test/wiki/B', 'b');
    expect(r.optimism(r.features(other), r.kindFeature(board.url, board.host), 1)).toBe(0);
  });

  it('scales with κ (standard deviations of the kind\'s weight)', () => {
    const r = new LinkRanker();
    for (let i = 0; i < 10; i++) r.learnTarget(r.features(link(`http://w.test/wiki/P${i}`, `p ${i}`)), i % 2 === 0);
    const board = link('http://bbs.test/forum-2-1.html', 'quake relief', { host: 'bbs.test' });
    const f = r.features(board);
    const k = r.kindFeature(board.url, board.host);
    expect(r.optimism(f, k, 2)).toBeGreaterThan(r.optimism(f, k, 1));
  });
});

describe('combined with the link ranker', () => {
  const page = (url: string, relevant: boolean, links: { url: string; anchorText: string }[], parentUrl?: string) => ({
    url,
    parentUrl,
    depth: parentUrl ? 1 : 0,
    rel: relevant ? 0.3 : 0.01,
    relevant,
    links: links.map((l) => ({ ...l, contextSim: 0, anchorKeywordFreq: 0 })),
  });

  it('ranks a sibling link like the ones that led to relevant pages above one like those that did not, and explains it', () => {
    const s = createScorer('combined', { learnRescoreEvery: 1 });
    const fetched = [['Golden_eagle', true], ['Bald_eagle', true], ['Harpy_eagle', true], ['Football', false], ['Football_pitch', false], ['American_football', false]] as const;
    const kids = [...fetched.map(([n]) => n), 'Steppe_eagle', 'Football_club'].map((n) => ({ url: `http://w.test/wiki/${n}`, anchorText: n.replace('_', ' ') }));
    s.onPageFetched(page('http://w.test/wiki/Eagle', true, kids));
    for (const [n, rel] of fetched) s.onPageFetched(page(`http://w.test/wiki/${n}`, rel, [], 'http://w.test/wiki/Eagle'));
    // A new page links both remaining kinds again, so both are re-scored with the trained ranker.
    const ups = s.onPageFetched(page('http://w.test/wiki/Birds_of_prey', true, kids.slice(-2), undefined));
    const eagle = ups.filter((u) => u.url.endsWith('Steppe_eagle')).at(-1)!;
    const rugby = ups.filter((u) => u.url.endsWith('Football_club')).at(-1)!;
    expect(eagle.score).toBeGreaterThan(rugby.score);
    expect(eagle.breakdown.components.linkRanker).toBeGreaterThan(0);
    expect(eagle.breakdown.components.linkRanker).toBeGreaterThan(rugby.breakdown.components.linkRanker);
    expect(eagle.breakdown.components.linkTarget).toBeGreaterThan(rugby.breakdown.components.linkTarget);
  });

  it('a page that offers no links (a near-duplicate) teaches the link ranker that links like its in-link lead nowhere beyond', () => {
    const s = createScorer('combined', { learnRescoreEvery: 1 });
    const thread = 'http://f.test/thread-1-1-1.html';
    const views = [1, 2, 3, 4, 5].map((i) => ({ url: `http://f.test/forum.php?mod=viewthread&tid=1&authorid=${i}`, anchorText: 'only this author' }));
    const pages = [2, 3].map((i) => ({ url: `http://f.test/thread-1-${i}-1.html`, anchorText: `${i}` }));
    s.onPageFetched(page(thread, true, [...views, ...pages]));
    // Three views fetched: near-duplicates, so the route offers none of their links.
    for (const v of views.slice(0, 3)) s.onPageFetched({ ...page(v.url, false, [], thread), nearDuplicate: true });
    const ups = s.onPageFetched(page('http://f.test/thread-1-9-1.html', true, [views[4], pages[1]]));
    const view = ups.filter((u) => u.url === views[4].url).at(-1)!.breakdown.components;
    const next = ups.filter((u) => u.url === pages[1].url).at(-1)!.breakdown.components;
    // Without the dead-end examples nothing trains "beyond" here: every link's would be 0.5.
    expect(view.linkBeyond).toBeLessThan(0.45);
    expect(view.linkBeyond).toBeLessThan(next.linkBeyond);
  });

  it('explains its optimism about the target\'s kind as linkExplore (absent with linkExplore: 0)', () => {
    const run = (linkExplore: number) => {
      const s = createScorer('combined', { learnRescoreEvery: 1, linkExplore });
      s.onPageFetched(page('http://w.test/wiki/Eagle', true, [{ url: 'http://w.test/wiki/A', anchorText: 'a' }]));
      const ups = s.onPageFetched(page('http://w.test/wiki/A', true, [{ url: 'http://w.test/wiki/B', anchorText: 'b' }, { url: 'http://bbs.test/forum-2-1.html', anchorText: 'eagle forum' }], 'http://w.test/wiki/Eagle'));
      return { board: ups.filter((u) => u.url.endsWith('forum-2-1.html')).at(-1)!.breakdown.components, article: ups.filter((u) => u.url.endsWith('/B')).at(-1)!.breakdown.components };
    };
    const on = run(1);
    expect(on.board.linkExplore).toBeGreaterThan(on.article.linkExplore);
    expect(run(0).board.linkExplore).toBeUndefined();
  });

  it('is off with linkRanker: false (no ranker components)', () => {
    const s = createScorer('combined', { linkRanker: false });
    s.onPageFetched(page('http://w.test/wiki/Eagle', true, [{ url: 'http://w.test/wiki/A', anchorText: 'a' }]));
    const ups = s.onPageFetched(page('http://w.test/wiki/A', true, [{ url: 'http://w.test/wiki/B', anchorText: 'b' }], 'http://w.test/wiki/Eagle'));
    expect(ups.find((u) => u.url.endsWith('/B'))!.breakdown.components.linkRanker).toBeUndefined();
  });
});
