/**
 * `classic` must not end with "frontier empty" long before its budget on a few-host web: a site
 * cutoff (§3.6) that dropped every queued URL of a host once it had served 100 irrelevant pages
 * would drop the whole of a web of one or two hosts. A cut site goes to the back of the queue
 * instead: fetched only once no other site has anything left.
 */
import { describe, expect, it } from 'vitest';
import { createScorer, type ScoreUpdate } from '../src/score/index.js';

/** A one-host web: 800 pages, 6 links each, a third of them relevant (seeded, reproducible). */
function web(host: string, n = 800) {
  let seed = 11;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const url = (i: number) => `http://${host}/p${i}.html`;
  const relevant = Array.from({ length: n }, () => rnd() < 0.33);
  const links = Array.from({ length: n }, () => Array.from({ length: 6 }, () => Math.floor(rnd() * n)));
  return { url, relevant, links, n };
}

/** Crawl it with the scorer alone: best score first, until the budget or an empty queue. */
function crawl(strategy: 'classic' | 'best-first', budget: number) {
  const w = web('uni.edu');
  const s = createScorer(strategy);
  const queue = new Map<string, number>([[w.url(0), 1000]]);
  const apply = (ups: ScoreUpdate[]) => {
    for (const u of ups) if (u.drop) queue.delete(u.url);
    else queue.set(u.url, u.score);
  };
  const seen = new Set<string>();
  let fetched = 0;
  while (fetched < budget && queue.size) {
    const [url] = [...queue].reduce((a, b) => (b[1] > a[1] ? b : a));
    queue.delete(url);
    seen.add(url);
    const i = Number(/p(\d+)/.exec(url)![1]);
    const rel = w.relevant[i] ? 0.5 : 0.02;
    apply(
      s.onPageFetched({
        url,
        depth: fetched === 0 ? 0 : 1,
        rel,
        relevant: rel >= 0.2,
        links: w.links[i].filter((j) => !seen.has(w.url(j))).map((j) => ({ url: w.url(j), contextSim: w.relevant[j] ? 0.4 : 0.1, anchorKeywordFreq: 0, tag: 'a' })),
      }),
    );
    fetched++;
  }
  return { fetched, queued: queue.size };
}

describe('classic site cutoff on a one-host web', () => {
  it('spends the whole budget when the web has pages left (was: frontier empty after the 100th irrelevant page)', () => {
    const best = crawl('best-first', 400);
    expect(best.fetched).toBe(400);
    const classic = crawl('classic', 400);
    expect(classic.fetched).toBe(400);
  });
});

describe('classic site cutoff keeps its purpose on several hosts', () => {
  it('a site past its cutoff is fetched only after every uncut site’s URLs', () => {
    const s = createScorer('classic', { siteCutoff: 2 });
    const off = Array.from({ length: 4 }, (_, i) => `http://off.com/p${i}.html`);
    s.onPageFetched({ url: 'http://hub.com/', depth: 0, rel: 0.5, relevant: true, links: [...off, 'http://good.com/weak.html'].map((u) => ({ url: u, contextSim: u.includes('good') ? 0.01 : 0.9, anchorKeywordFreq: 0, tag: 'a' })) });
    let ups: ScoreUpdate[] = [];
    for (const u of off.slice(0, 3)) ups = ups.concat(s.onPageFetched({ url: u, depth: 1, rel: 0.01, relevant: false, links: [] }));
    const last = (u: string) => ups.filter((x) => x.url === u).at(-1)!;
    expect(last('http://off.com/p3.html').drop).toBeFalsy();
    const weak = s.onPageFetched({ url: 'http://hub2.com/', depth: 0, rel: 0.01, relevant: false, links: [{ url: 'http://good.com/other.html', contextSim: 0.01, anchorKeywordFreq: 0, tag: 'a' }] });
    expect(last('http://off.com/p3.html').score).toBeLessThan(weak.find((x) => x.url === 'http://good.com/other.html')!.score);
  });
});
