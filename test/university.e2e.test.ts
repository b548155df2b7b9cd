import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzePage } from '../src/extract/page.js';
import { createScorer } from '../src/score/scorer.js';
import type { FetchedPage, ScoreUpdate } from '../src/score/types.js';
import { termAnalyzer } from '../src/text/tokenize.js';
import { DEPARTMENTS, startUniversityWeb, type UniversityWeb } from '../src/testweb/university.js';
import { wikispeediaMissing } from '../src/testweb/wikispeedia.js';

const missing = wikispeediaMissing();
if (missing) console.warn(`skipping the university web's tests: ${missing}`);

describe.skipIf(!!missing)('the university web: entity pages below keyword-free list pages', () => {
  let web: UniversityWeb;
  beforeAll(async () => {
    web = await startUniversityWeb({ analyze: termAnalyzer() });
  });
  afterAll(async () => {
    await web?.close();
  });
  const get = async (url: string) => {
    const res = await fetch(url);
    const html = await res.text();
    return { status: res.status, analysis: res.status < 400 ? analyzePage({ html, url, fetchedAt: new Date('2008-06-01T00:00:00Z') }) : undefined };
  };

  it('has four departments whose home pages lead through sections to lists that name no topic word, half their entries dead', async () => {
    expect(web.seeds).toHaveLength(DEPARTMENTS);
    const analyze = termAnalyzer();
    const queryTerms = new Set(web.topics.flatMap((t) => t.query.flatMap((w) => analyze(w))));
    let entries = 0;
    let dead = 0;
    for (const seed of web.seeds) {
      const home = (await get(seed)).analysis!;
      expect(web.kindOf(seed)).toBe('home');
      const sections = home.links.filter((l) => web.kindOf(l.url) === 'section');
      expect(sections).toHaveLength(3);
      for (const s of sections) {
        const section = (await get(s.url)).analysis!;
        const lists = section.links.filter((l) => web.kindOf(l.url) === 'list');
        expect(lists).toHaveLength(4);
        for (const l of lists) {
          const list = (await get(l.url)).analysis!;
          // Above the entities nothing says what they are about: no title, heading, text or anchor uses a topic's word.
          const words = [list.title, list.text, ...list.links.map((x) => x.anchorText ?? ''), section.text, home.text, l.anchorText ?? ''].flatMap((t) => analyze(t));
          expect(words.filter((w) => queryTerms.has(w))).toEqual([]);
          for (const e of list.links.filter((x) => web.articleOf(x.url) !== undefined)) {
            entries++;
            if (web.kindOf(e.url) === 'dead') dead++;
          }
        }
      }
    }
    expect(dead / entries).toBeGreaterThan(0.4);
    expect(dead / entries).toBeLessThan(0.6);
    // Each topic has a list in every department, and its live entries are its relevant pages.
    for (const t of web.topics) {
      const lists = web.lists.filter((l) => l.topic === t.id);
      expect(new Set(lists.map((l) => l.dept)).size).toBe(DEPARTMENTS);
      const live = lists.flatMap((l) => l.articles).filter((a) => web.isLive(a));
      expect(live.every((a) => web.isRelevant(web.urlOf(a), t.id))).toBe(true);
      expect((await get(web.urlOf(live[0]))).status).toBe(200);
      const gone = lists.flatMap((l) => l.articles).find((a) => !web.isLive(a))!;
      expect((await get(web.urlOf(gone))).status).toBe(404);
      expect(web.isRelevant(web.urlOf(gone), t.id)).toBe(false);
    }
  });

  it("combined raises a list's other entries once two of them are judged relevant (hub evidence), above an untried list's", async () => {
    const t = web.topics[0];
    const list = web.lists.find((l) => l.topic === t.id && l.dept === 0)!;
    const other = web.lists.find((l) => !l.topic && l.dept === 0 && l.articles.filter((a) => web.isLive(a)).length >= 3)!;
    const origin = web.origins[0];
    const scorer = createScorer('combined', { learnRescoreEvery: 1000 });
    const updates: ScoreUpdate[] = [];
    const feed = async (url: string, relevant: boolean, parentUrl?: string) => {
      const a = (await get(url)).analysis!;
      const page: FetchedPage = { url, parentUrl, depth: parentUrl ? 1 : 0, rel: relevant ? 0.3 : 0, relevant, links: a.links.map((l) => ({ url: l.url, anchorText: l.anchorText, context: `${l.contextBefore} ${l.contextAfter}`, contextSim: 0, anchorKeywordFreq: 0 })) };
      updates.push(...scorer.onPageFetched(page));
    };
    const last = (url: string) => updates.filter((u) => u.url === url).at(-1)!;
    await feed(`${origin}/`, false);
    await feed(`${origin}/section/0`, false, `${origin}/`);
    await feed(`${origin}/list/${list.index}`, false, `${origin}/section/0`);
    await feed(`${origin}/list/${other.index}`, false, `${origin}/section/0`);
    const live = list.articles.filter((a) => web.isLive(a)).map((a) => web.urlOf(a));
    const untried = web.urlOf(other.articles.filter((a) => web.isLive(a))[2]);
    const sibling = live[live.length - 1];
    const before = last(sibling).score;
    await feed(live[0], true, `${origin}/list/${list.index}`);
    await feed(live[1], true, `${origin}/list/${list.index}`);
    const after = last(sibling);
    expect(after.breakdown.components.hub).toBeGreaterThan(0);
    expect(after.score).toBeGreaterThan(before);
    expect(after.score).toBeGreaterThan(last(untried).score);
  });
});
