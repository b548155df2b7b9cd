/**
 * The adaptive fetcher's data path (src/fetch/adaptive/adaptive-data.ts) on hand-made pages of shapes the
 * test web does not use: a Next.js-style `__NEXT_DATA__` script with nested props, an API URL built
 * from a token of the page URL (not written in the HTML), comments by XHR with recurring authors;
 * and pages where it must be refused: text computed by the script (in no JSON), JSON present but
 * the browser showing something else. "Rendered" pages are what the page's script would build.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyzePage } from '../src/extract/page.js';
import { inlineJsonOf } from '../src/extract/inline-json.js';
import { DEFAULT_POLICY, shingleF1, signalsOf } from '../src/fetch/adaptive/adaptive.js';
import { COST_SAMPLES, DataPaths, openDataPaths, serveFromData, type DataPathEvent, type Xhr } from '../src/fetch/adaptive/adaptive-data.js';
import { readJsonLines } from '../src/store/jsonl.js';

const at = new Date('2024-05-01T00:00:00Z');
const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');
const words = ['earthquake', 'rescue', 'teams', 'reached', 'the', 'valley', 'after', 'roads', 'reopened', 'villagers', 'shelter', 'supplies', 'aftershock', 'bridge', 'medical', 'volunteers'];
/** A deterministic sentence list (long enough for the main-text extractor). */
const paras = (seed: number, n: number) =>
  Array.from({ length: n }, (_, i) => Array.from({ length: 40 }, (_, k) => words[(seed * 7 + i * 13 + k * (seed % 5 + 1)) % words.length]).join(' ') + ` (${seed}.${i}).`);

const page = (title: string, body: string, scripts = '') =>
  `<!DOCTYPE html><html><head><meta charset="utf-8"><title>${esc(title)}</title></head><body><nav><a href="/">Home</a> <a href="/world">World</a></nav>${body}<footer><a href="/about">About</a></footer>${scripts}</body></html>`;

function paths() {
  return new DataPaths({ ...DEFAULT_POLICY });
}

async function learn(dp: DataPaths, url: string, httpHtml: string, renderedHtml: string, xhr: Xhr[] = []) {
  const browser = signalsOf(analyzePage({ html: renderedHtml, url, fetchedAt: at }), renderedHtml, xhr, at);
  return dp.learn({ url, httpHtml, renderedHtml, xhr, fetchedAt: at, browser });
}

// ------------------------------------------------------------ Next.js-style __NEXT_DATA__, nested props

function nextStory(id: number, sections: number, section = 'story') {
  const story = {
    headline: `Valley rescue update number ${id}`,
    byline: { name: `Reporter ${id % 3}` },
    sections: Array.from({ length: sections }, (_, s) => ({ heading: `Part ${s + 1} of story ${id}`, paras: paras(id * 10 + s, 1 + ((id + s) % 3)) })),
  };
  const data = { props: { pageProps: { story, related: [{ slug: 'x', title: 'Other story' }] } }, page: '/story/[id]', buildId: 'b1' };
  const url = `https://news.example/${section}/${id}`;
  const http = page('Daily', '<div id="__next"></div>', `<script id="__NEXT_DATA__" type="application/json">${JSON.stringify(data).replace(/</g, '\\u003c')}</script><script src="/_next/main.js"></script>`);
  const article = `<article><h1>${esc(story.headline)}</h1><p class="by">By ${esc(story.byline.name)}</p>${story.sections
    .map((s) => `<section><h2>${esc(s.heading)}</h2>${s.paras.map((p) => `<p>${esc(p)}</p>`).join('')}</section>`)
    .join('')}</article>`;
  const rendered = page(`${story.headline} | Daily`, `<div id="__next">${article}</div>`, `<script id="__NEXT_DATA__" type="application/json">${JSON.stringify(data)}</script><script src="/_next/main.js"></script>`);
  return { url, http, rendered };
}

// ------------------------------------------------------------ an API URL built from a page-URL token

function apiStory(id: number, comments: number) {
  const url = `https://paper.example/world/quake-relief-${id}`;
  const api = `https://paper.example/api/v2/stories/${id}?lang=en`;
  const users = ['ann', 'bo', 'cy'];
  const json = {
    story: { title: `Relief convoy ${id} arrives`, body: paras(id, 3) },
    comments: Array.from({ length: comments }, (_, i) => ({ author: users[i % 3], text: `Comment ${i} on ${id}: ${paras(id + i, 1)[0].slice(0, 60)}`, time: '2024-04-30 10:00' })),
  };
  // the script builds the URL from location: it is in no string of the HTML
  const script = `<script>fetch('/api/v2/stories/' + location.pathname.split('-').pop() + '?lang=en').then(r => r.json()).then(render)</script>`;
  const http = page('Paper', '<main id="app"><p class="spinner">Loading…</p></main>', script);
  const rendered = page(
    'Paper',
    `<main id="app"><h1>${esc(json.story.title)}</h1>${json.story.body.map((p) => `<p>${esc(p)}</p>`).join('')}<ol class="comments">${json.comments.map((c) => `<li><b>${c.author}</b> <time>${c.time}</time><span>${esc(c.text)}</span></li>`).join('')}</ol></main>`,
    script,
  );
  return { url, api, json, http, rendered };
}

describe('data path: recipes learnt from renderings', () => {
  it('reads inline JSON blocks with JSON.parse only (script id, variable, JSON.parse string; never a JS literal)', () => {
    const html = `<script id="__NEXT_DATA__" type="application/json">{"a":1}</script><script>window.__INITIAL_STATE__ = {"b":[1,2]}; var X = JSON.parse("{\\"c\\":\\"d\\"}"); var Y = {e: 1}; var Z = {"f": "}"};</script>`;
    expect(inlineJsonOf(html)).toEqual([
      { key: 'script#__NEXT_DATA__', json: { a: 1 } },
      { key: 'var __INITIAL_STATE__', json: { b: [1, 2] } },
      { key: 'var X', json: { c: 'd' } },
      { key: 'var Z', json: { f: '}' } },
    ]);
  });

  it('Next.js-style nested props: learnt on three pages, the fourth served from its __NEXT_DATA__ like the rendering', async () => {
    const dp = paths();
    const lessons = [];
    for (const [id, n] of [[1, 2], [2, 3], [3, 1]]) {
      const s = nextStory(id, n);
      expect(dp.decide(s.url)).toBeUndefined();
      lessons.push(await learn(dp, s.url, s.http, s.rendered));
    }
    expect(lessons.map((l) => l.equivalent)).toEqual([true, true, true]);
    // sections and their paragraphs (different counts on every page) are repeats, not copies of page one
    expect(lessons[2].why).toMatch(/rebuilt it: 3 in a row/);
    expect(lessons[0].why).toMatch(/inline script#__NEXT_DATA__ into #__next, title/);
    const s = nextStory(4, 4);
    const d = dp.decide(s.url);
    expect(d?.mode).toBe('http+data');
    const served = await serveFromData(dp, { url: s.url, html: s.http, fetchedAt: at }, async () => undefined);
    if ('failed' in served) throw new Error(served.failed);
    const want = analyzePage({ html: s.rendered, url: s.url, fetchedAt: at });
    expect(want.text.length).toBeGreaterThan(500);
    expect(shingleF1(served.analysis.text, want.text)).toBeGreaterThanOrEqual(0.98);
    expect(served.analysis.title).toBe(want.title);
  });

  it('an API URL built from a page-URL token: the next page requests its own id, comments by XHR fed to the thread analysis', async () => {
    const dp = paths();
    for (const [id, n] of [[101, 5], [202, 3], [303, 4]] as const) {
      const s = apiStory(id, n);
      const l = await learn(dp, s.url, s.http, s.rendered, [{ url: s.api, json: s.json }, { url: 'https://paper.example/api/ads.json', json: { slot: 'top' } }]);
      expect(l.equivalent, l.why).toBe(true);
    }
    const s = apiStory(4077, 2);
    expect(dp.decide(s.url)?.mode).toBe('http+data');
    const asked: string[] = [];
    const served = await serveFromData(dp, { url: s.url, html: s.http, fetchedAt: at }, async (urls) => {
      asked.push(...urls);
      return urls.includes(s.api) ? { url: s.api, json: s.json } : undefined;
    });
    if ('failed' in served) throw new Error(served.failed);
    expect(asked).toEqual([s.api]);
    const want = signalsOf(analyzePage({ html: s.rendered, url: s.url, fetchedAt: at }), s.rendered, [{ url: s.api, json: s.json }], at);
    const got = signalsOf(served.analysis, served.html, served.xhr, at);
    expect(shingleF1(got.text, want.text)).toBeGreaterThanOrEqual(0.98);
    expect(want.xhrReplies).toBe(2);
    expect(got.xhrReplies).toBe(want.xhrReplies);
  });

  it('refuses a page whose text the script computes (in no JSON)', async () => {
    const dp = paths();
    for (let id = 1; id <= 5; id++) {
      const data = { a: id * 3, b: id * 4 };
      const text = paras(id, 3);
      const http = page('Sums', '<div id="out"></div>', `<script>var DATA = ${JSON.stringify(data)};</script>`);
      // the script writes text derived from the numbers, not the numbers
      const rendered = page('Sums', `<div id="out">${text.map((p) => `<p>${esc(p)}</p>`).join('')}<p>The total is ${['seven', 'fourteen', 'twenty-one', 'twenty-eight', 'thirty-five'][id - 1]}.</p></div>`, `<script>var DATA = ${JSON.stringify(data)};</script>`);
      const l = await learn(dp, `https://calc.example/sum/${id}`, http, rendered);
      expect(l.equivalent).toBe(false);
      expect(l.why).toMatch(/no data path/);
    }
    expect(dp.decide('https://calc.example/sum/6')).toBeUndefined();
  });

  it('refuses a pattern whose JSON is there but the browser shows other text (the script transforms it)', async () => {
    const dp = paths();
    const lessons = [];
    for (let id = 1; id <= 6; id++) {
      const text = paras(id, 3);
      const data = { title: `Encoded story ${id}`, body: text.map((p) => [...p].reverse().join('')) };
      const http = page('Enc', '<div id="story"></div>', `<script>var STORY = ${JSON.stringify(data)};</script>`);
      const rendered = page('Enc', `<div id="story"><h1>${data.title}</h1>${text.map((p) => `<p>${esc(p)}</p>`).join('')}</div>`, `<script>var STORY = ${JSON.stringify(data)};</script>`);
      lessons.push(await learn(dp, `https://enc.example/s/${id}`, http, rendered));
      expect(dp.decide(`https://enc.example/s/${id + 1}`)).toBeUndefined();
    }
    // a recipe may be induced on one page (the title is bound, the body copied as it was), but never rebuilds another
    expect(lessons.slice(1).every((l) => !/rebuilt it/.test(l.why))).toBe(true);
  });

  it('a served pattern whose data disappears falls back (the next page renders)', async () => {
    const dp = paths();
    for (const [id, n] of [[1, 2], [2, 3], [3, 1]]) {
      const s = nextStory(id, n);
      await learn(dp, s.url, s.http, s.rendered);
    }
    const s = nextStory(9, 2);
    const served = await serveFromData(dp, { url: s.url, html: s.http.replace(/__NEXT_DATA__/, 'OTHER'), fetchedAt: at }, async () => undefined);
    expect(served).toEqual({ failed: 'no inline script#__NEXT_DATA__ on the page' });
    expect(dp.decide(s.url)).toBeUndefined();
  });

  it('a settled recipe serves only while its pages cost less than renderings: a costlier data path renders, the re-check share still measures it', async () => {
    const dp = paths();
    for (const [id, n] of [[1, 2], [2, 3], [3, 1]]) {
      const s = nextStory(id, n);
      await learn(dp, s.url, s.http, s.rendered);
    }
    const modes = (from: number) => Array.from({ length: 200 }, (_, i) => dp.decide(nextStory(from + i, 1).url)?.mode);
    const share = (ms: (string | undefined)[], m: string) => ms.filter((x) => x === m).length / ms.length;
    // Not timed on both paths yet: the recipe serves (apart from its re-check share).
    expect(share(modes(100), 'http+data')).toBeGreaterThan(0.8);
    // The data path costs more than rendering on this pattern (its API waits for the host's slot).
    for (let i = 0; i < COST_SAMPLES; i++) {
      dp.observeCost(nextStory(10 + i, 1).url, 'data', 1500);
      dp.observeCost(nextStory(20 + i, 1).url, 'render', 400);
    }
    const costly = modes(400);
    expect(share(costly, 'browser')).toBeGreaterThan(0.75);
    // a share is still served from the data (so the comparison follows the load), as many as the re-checks
    expect(share(costly, 'http+data')).toBeGreaterThan(0.02);
    expect(share(costly, 'http+data')).toBeLessThan(0.25);
    const why = Array.from({ length: 20 }, (_, i) => dp.decide(nextStory(800 + i, 1).url)).find((x) => x?.mode === 'browser' && !x.dataRecheck)?.why;
    expect(why).toMatch(/data path takes 1500 ms a page against 400 ms to render: render/);
    // Renderings turn slow (a loaded machine): the recent pages weigh most, and the data path serves again.
    for (let i = 0; i < 8; i++) dp.observeCost(nextStory(30 + i, 1).url, 'render', 3000);
    expect(dp.costOf(nextStory(1, 1).url)?.render.meanMs).toBeGreaterThan(1500);
    expect(share(modes(1000), 'http+data')).toBeGreaterThan(0.8);
  });

  it("a host's settled recipe serves its other patterns after one rendering it rebuilds (the prior), and is not borrowed where it does not fit", async () => {
    const dp = paths();
    for (const [id, n] of [[1, 2], [2, 3], [3, 1]]) {
      const s = nextStory(id, n);
      await learn(dp, s.url, s.http, s.rendered);
    }
    const sport = nextStory(50, 2, 'sport');
    expect(dp.decide(sport.url)).toBeUndefined();
    const l = await learn(dp, sport.url, sport.http, sport.rendered);
    expect(l.why).toMatch(/data path of pattern news\.example\/story\/# .* serves this pattern too/);
    expect(dp.decide(nextStory(51, 3, 'sport').url)?.mode).toBe('http+data');
    // another pattern of the host built another way (the API-token shape): the recipe does not fit, it is induced
    const other = apiStory(77, 2);
    const otherUrl = other.url.replace('paper.example/world', 'news.example/world');
    const o = await learn(dp, otherUrl, other.http, other.rendered.replace(/paper\.example/g, 'news.example'), [{ url: other.api.replace('paper.example', 'news.example'), json: other.json }]);
    expect(o.why).not.toMatch(/serves this pattern too/);
    expect(o.why).toMatch(/data path learnt .*1 of 3/);
    expect(dp.decide(otherUrl)).toBeUndefined();
  });

  it('window.__INITIAL_STATE__ with HTML-valued leaves (a CMS body as markup): the element is bound to the markup, links included', async () => {
    const story = (id: number) => {
      const body = paras(id, 2 + (id % 3)).map((p, i) => `<p>${esc(p)}${i === 0 ? ` <a href="/tag/quake-${id}">more</a>` : ''}</p>`).join('\n');
      const state = { post: { id, title: { rendered: `Shelter report ${id}` }, content: { rendered: body } } };
      const script = `<script>window.__INITIAL_STATE__ = ${JSON.stringify(state).replace(/</g, '\\u003c')};</script>`;
      const url = `https://blog.example/${2024}/05/${id}/`;
      const http = page('Blog', '<div id="root"><div class="skeleton"></div></div>', script);
      const rendered = page('Blog', `<div id="root"><article><h1>${esc(state.post.title.rendered)}</h1><div class="entry">${body}</div></article></div>`, script);
      return { url, http, rendered };
    };
    const dp = paths();
    for (const id of [11, 12, 13]) {
      const s = story(id);
      const l = await learn(dp, s.url, s.http, s.rendered);
      expect(l.equivalent, l.why).toBe(true);
    }
    const s = story(14);
    expect(dp.decide(s.url)?.mode).toBe('http+data');
    const served = await serveFromData(dp, { url: s.url, html: s.http, fetchedAt: at }, async () => undefined);
    if ('failed' in served) throw new Error(served.failed);
    const want = analyzePage({ html: s.rendered, url: s.url, fetchedAt: at });
    expect(shingleF1(served.analysis.text, want.text)).toBeGreaterThanOrEqual(0.98);
    expect(served.analysis.links.map((l) => l.url)).toContain('https://blog.example/tag/quake-14');
  });
});

describe('data path: kept in the run folder for --resume (openDataPaths)', () => {
  // no seeded re-checks: every decision on a settled pattern is the data path
  const OPTS = { ...DEFAULT_POLICY, recheckShare: 0 };

  it('a settled recipe read back serves at once; a state from a page the crawl log lacks is not replayed', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'fc-data-paths-')), 'adaptive-data.jsonl');
    const first = openDataPaths(OPTS, file);
    const learnt: string[] = [];
    for (const [id, n] of [[1, 2], [2, 3], [3, 1]]) {
      const s = nextStory(id, n);
      expect((await learn(first.paths, s.url, s.http, s.rendered)).equivalent).toBe(true);
      learnt.push(s.url);
    }
    first.close();
    const next = nextStory(4, 4);
    expect(first.paths.decide(next.url)?.mode).toBe('http+data');
    // one line per lesson, each the pattern's whole state after it
    const lines = readJsonLines<DataPathEvent>(file);
    expect(lines.map((e) => [e.url, e.state.streak])).toEqual(learnt.map((u, i) => [u, i + 1]));

    // every page logged: the resumed crawl serves the pattern from its data without a render
    const resumed = openDataPaths(OPTS, file, { pages: 3, fetched: () => true });
    expect(resumed.paths.decide(next.url)?.mode).toBe('http+data');
    const served = await serveFromData(resumed.paths, { url: next.url, html: next.http, fetchedAt: at }, async () => undefined);
    if ('failed' in served) throw new Error(served.failed);
    expect(served.analysis.text.length).toBeGreaterThan(500);
    resumed.close();

    // the third page's crawl-log line was lost with the crash: it is fetched again, so its lesson is not kept
    const partial = openDataPaths(OPTS, file, { pages: 2, fetched: (u) => u !== learnt[2] });
    expect(partial.paths.decide(next.url)).toBeUndefined();
    expect(partial.paths.settled()).toEqual([]);
    partial.close();
    // a fresh run (no --resume) does not read the file at all
    const fresh = openDataPaths(OPTS, file);
    expect(fresh.paths.decide(next.url)).toBeUndefined();
    fresh.close();
  });
});
