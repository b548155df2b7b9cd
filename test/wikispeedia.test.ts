import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { articleBody, renderArticle, startWikispeediaWeb, wikispeediaDir, wikispeediaMissing, type WikispeediaWeb } from '../src/testweb/wikispeedia.js';

describe('Wikispeedia rendering (no data needed)', () => {
  it('drops the header naming the category and the licence footer', () => {
    const text = '   #copyright\n\nBird\n\n2007 Schools Wikipedia Selection. Related subjects: Birds\n\n   Birds are animals.\n\n   Retrieved from " http://en.wikipedia.org/wiki/Bird"\n   licence text\n';
    const body = articleBody(text);
    expect(body).toContain('Birds are animals.');
    expect(body).not.toContain('Related subjects');
    expect(body).not.toContain('licence');
    expect(body).not.toContain('#copyright');
  });

  it('links the first whole-word mention and lists unmentioned targets under See also', () => {
    const html = renderArticle('Bird', 'Related subjects: Birds\n\nA birdhouse is not an Egg. The egg and the Dodo.\n\nEgg again.', ['Egg', 'Dodo', 'Mercury_%28planet%29'], (n) => `/wiki/${n}`);
    expect(html).toContain('<title>Bird - Wikispeedia</title>');
    expect(html).toContain('an <a href="/wiki/Egg">Egg</a>. The egg');
    expect(html).toContain('the <a href="/wiki/Dodo">Dodo</a>.');
    expect(html).toContain('<h2>See also</h2><ul><li><a href="/wiki/Mercury_%28planet%29">Mercury (planet)</a></li></ul>');
    expect(html.match(/href="\/wiki\/Egg"/g)).toHaveLength(1);
  });
});

const missing = wikispeediaMissing();
if (missing) console.warn(`skipping Wikispeedia server tests: ${missing}`);

describe.skipIf(!!missing)('Wikispeedia web on loopback', () => {
  let web: WikispeediaWeb;
  beforeAll(async () => {
    web = await startWikispeediaWeb();
  });
  afterAll(async () => {
    await web?.close();
  });

  it('serves an article with every real link of links.tsv and no ground truth in the page', async () => {
    const res = await fetch(web.urlOf('Bird'));
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('<h1>Bird</h1>');
    expect(html).not.toContain('Related subjects');
    const expected = readFileSync(join(wikispeediaDir(), 'links.tsv'), 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('Bird\t'))
      .map((l) => l.split('\t')[1]);
    expect(expected).toHaveLength(56);
    const hrefs = new Set([...html.matchAll(/href="\/wiki\/([^"]+)"/g)].map((m) => m[1]));
    expect([...hrefs].sort()).toEqual([...new Set(expected)].sort());
  });

  it('answers 404 for an unknown article and serves robots.txt', async () => {
    expect((await fetch(`${web.origin}/wiki/No_such_article_xyz`)).status).toBe(404);
    expect(await (await fetch(`${web.origin}/robots.txt`)).text()).toContain('Allow: /');
  });

  it('labels pages by category prefix, however the URL is encoded', () => {
    expect(web.isRelevant(web.urlOf('Bird'), 'birds')).toBe(true);
    expect(web.isRelevant(web.urlOf('Jupiter'), 'birds')).toBe(false);
    // Jupiter is in Science.Physics.The_Planets, not Space_Astronomy.
    expect(web.isRelevant(web.urlOf('Jupiter'), 'space')).toBe(false);
    expect(web.isRelevant(`${web.origin}/wiki/%C3%85land`, 'countries')).toBe(web.isRelevant(`${web.origin}/wiki/Åland`, 'countries'));
    expect(web.isRelevant('http://example.com/wiki/Bird', 'birds')).toBe(false);
    expect(() => web.isRelevant(web.urlOf('Bird'), 'nope')).toThrow(/unknown topic "nope"/);
  });

  it('counts each topic from categories.tsv (hand-counted with uniq -c)', () => {
    expect(web.size).toBe(4598);
    expect(web.relevantTotal('birds')).toBe(161);
    expect(web.relevantTotal('countries')).toBe(229);
    expect(web.relevantTotal('elements')).toBe(119);
    expect(web.relevantTotal('music')).toBe(97);
  });

  it('draws seeds reproducibly from the topic', () => {
    const a = web.seeds('elements', 5, 7);
    expect(a).toEqual(web.seeds('elements', 5, 7));
    expect(new Set(a).size).toBe(5);
    for (const u of a) expect(web.isRelevant(u, 'elements')).toBe(true);
    expect(web.seeds('elements', 5, 8)).not.toEqual(a);
  });
});
