/**
 * A relevant forum thread's sibling threads (src/plugins/sibling-threads.ts), on plain data and
 * through the reply plugin with the test web's real board HTML: the listing's next unfetched
 * thread is offered in the thread-page band, two off-topic siblings in a row end the walk, a
 * thread linked from a thread (no listing) brings nothing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Request } from 'crawlee';
import { afterAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config/schema.js';
import type { CrawlContext, PageEvent } from '../src/crawl/engine.js';
import { listingTemplate, siblingThreads } from '../src/plugins/sibling-threads.js';
import { threadsPlugin } from '../src/plugins/threads.js';
import { BUILTIN_MATCHERS } from '../src/extract/replies/index.js';
import { Frontier } from '../src/frontier/frontier.js';
import { uniqueKeyOf } from '../src/frontier/url-key.js';
import { ProgressReporter } from '../src/report/progress.js';
import { resolveOptions } from '../src/testweb/index.js';
import { generateModel } from '../src/testweb/model.js';
import { resolve as resolveRoute } from '../src/testweb/render.js';

const discuz = BUILTIN_MATCHERS.find((m) => m.name === 'discuz')!;
const o = 'http://forum.test';
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('siblingThreads', () => {
  const board = `${o}/forum-2-1.html`;
  const links = [
    `${o}/forum.php`,
    `${o}/thread-10-1-1.html`,
    `${o}/thread-10-1-1.html`, // title and reply count link to the same thread
    `${o}/thread-11-1-1.html`,
    `${o}/thread-11-3-1.html`, // a later page of thread 11: the same thread
    `http://other.test/thread-12-1-1.html`, // another host
    `${o}/thread-13-1-1.html`,
    `${o}/forum-2-2.html`,
    `${o}/thread-14-1-1.html`,
  ];
  const q = (over: Partial<Parameters<typeof siblingThreads>[0]> = {}) =>
    siblingThreads({ pageUrl: `${o}/thread-10-1-1.html`, parentUrl: board, parentLinks: links, matcher: discuz, fetched: () => false, offered: new Set(), max: 1, ...over });

  it('the listing\'s next thread of the same template, another id, same host, in page order', () => {
    expect(q()).toEqual([{ url: `${o}/thread-11-1-1.html`, id: '11' }]);
    expect(q({ max: 3 }).map((s) => s.id)).toEqual(['11', '13', '14']);
  });

  it('skips threads fetched by the crawl or offered before; none when off or from a thread page', () => {
    expect(q({ fetched: (u) => u.includes('thread-11-'), offered: new Set(['13']) })).toEqual([{ url: `${o}/thread-14-1-1.html`, id: '14' }]);
    expect(q({ max: 0 })).toEqual([]);
    expect(q({ parentUrl: `${o}/thread-9-1-1.html` })).toEqual([]);
    expect(q({ matcher: { url: '' } })).toEqual([]);
  });
});

describe('listingTemplate', () => {
  it('a page listing three threads of a template (and none of its pages itself) is a listing of it', () => {
    const t = (id: number) => `${o}/thread-${id}-1-1.html`;
    expect(listingTemplate(`${o}/forum-2-1.html`, [t(1), t(1), t(2), t(3)], BUILTIN_MATCHERS)?.name).toBe('discuz');
    expect(listingTemplate(`${o}/forum-2-1.html`, [t(1), t(1), `${o}/thread-1-2-1.html`, t(2)], BUILTIN_MATCHERS)).toBeUndefined();
    expect(listingTemplate(`${o}/thread-9-1-1.html`, [t(1), t(2), t(3)], BUILTIN_MATCHERS)).toBeUndefined();
    expect(listingTemplate(`http://portal.test/`, [t(1), t(2), t(3)], BUILTIN_MATCHERS)).toBeUndefined(); // another host's threads
  });
});

describe('the reply plugin offers a relevant thread\'s sibling on its board', () => {
  const opts = resolveOptions({});
  const model = generateModel({ seed: opts.seed, articlesPerChannel: opts.articlesPerChannel, portals: opts.portals, thucnews: false, start: opts.start });
  const now = model.start;
  const page = (path: string) => resolveRoute(model, 'forum', path, now, { slowPageMs: 0 })!.respond({ model, origin: () => o, now }).body as string;
  const quake = model.boards.find((b) => b.topic === 'quake')!;
  const boardUrl = `${o}/forum-${quake.fid}-1.html`;
  // The board's links as the scorer's graph holds them (page order).
  const boardLinks = [...page(`/forum-${quake.fid}-1.html`).matchAll(/href="([^"]+)"/g)].map((m) => new URL(m[1], boardUrl).href);
  const listed = [...new Set(boardLinks.filter((u) => /thread-\d+-1-1\.html$/.test(u)))];
  const special = 'http://news.test/s2008/dizhen/'; // the topic's special page, judged relevant, links the board

  /** The plugin on a Frontier whose board links are as the scorer's graph holds them; `inFlight` pages of another host handed out and not finished. */
  async function harness(inFlight = 0) {
    const dir = mkdtempSync(join(tmpdir(), 'sibling-threads-'));
    dirs.push(dir);
    const config = parseConfig({ topics: [{ keywords: ['地震'], seeds: [o + '/'] }], maxPages: 100 });
    const frontier = new Frontier({ maxPages: 100, perHostConcurrency: 100 });
    for (let i = 0; i < inFlight; i++) frontier.offer({ url: `http://busy.test/${i}.html`, depth: 1, score: 5 });
    for (let i = 0; i < inFlight; i++) expect(await frontier.next()).toBeTruthy();
    const fetched = new Set<string>([boardUrl]);
    const ctx: CrawlContext = {
      config, runId: 'r', runDir: dir, storageDir: dir, frontier, progress: new ProgressReporter({ quiet: true }),
      links: { outLinks: (u) => (u === boardUrl ? boardLinks : undefined), fetched: (u) => fetched.has(u), relevant: (u) => (fetched.has(u) ? u === special : undefined) },
    };
    const plugin = threadsPlugin({ now: () => new Date(now) });
    plugin.beforeRun!(ctx);
    // Every thread link queued low, as the scorer ranks them from a board judged not relevant.
    for (const u of listed) frontier.offer({ url: u, depth: 3, parentUrl: boardUrl, score: 0.05 });
    const visit = async (url: string, relevant: boolean, parentUrl = boardUrl) => {
      if (url === boardUrl) {
        const event = { rendered: { request: new Request({ url, userData: { depth: 2, score: 0.15, parentUrl } }), url, status: 200, contentType: 'text/html', html: page(`/forum-${quake.fid}-1.html`), fetchedAt: new Date(), xhrJson: [] }, verdict: { relevant } } as unknown as PageEvent;
        return plugin.onPage!(event, ctx);
      }
      // Handed out as the frontier holds it (a sibling carries its mark), then fetched.
      const q = frontier.get(uniqueKeyOf(url));
      fetched.add(url);
      frontier.markSeen([uniqueKeyOf(url)]);
      const event = {
        rendered: { request: new Request({ url, userData: { depth: 3, score: q?.score ?? 0.05, parentUrl, ...(q?.components ? { components: q.components } : {}) } }), url, status: 200, contentType: 'text/html', html: page(new URL(url).pathname), fetchedAt: new Date(), xhrJson: [] },
        verdict: { relevant },
      } as unknown as PageEvent;
      await plugin.onPage!(event, ctx);
    };
    const score = (u: string) => frontier.get(uniqueKeyOf(u))?.score;
    return { frontier, fetched, ctx, plugin, visit, score };
  }

  it('one at a time with one page in flight, only from a listing, and two off-topic siblings in a row end the walk', async () => {
    expect(listed.length).toBeGreaterThanOrEqual(7);
    const { frontier, fetched, ctx, plugin, visit, score } = await harness();
    // The board itself, reached from a page judged not relevant: no probe; from the relevant
    // special page: its first thread is probed in the band.
    await visit(boardUrl, false, 'http://news.test/other.html');
    expect(score(listed[0])).toBe(0.05);
    fetched.add(special);
    await visit(boardUrl, false, special);
    expect(score(listed[0])).toBe(1);
    expect(frontier.get(uniqueKeyOf(listed[0]))?.components).toEqual({ siblingThread: 1, threadProbe: 1 });
    await visit(listed[0], false); // an off-topic (or misjudged) probe: one miss, the next is tried
    expect(score(listed[1])).toBe(1);
    await visit(listed[1], true); // relevant: brings the board's first thread not fetched nor offered
    expect(score(listed[2])).toBe(1);
    expect(frontier.get(uniqueKeyOf(listed[2]))?.components).toEqual({ siblingThread: 1 });
    expect(score(listed[4])).toBe(0.05);
    await visit(listed[3], true, listed[1]); // reached from a thread page, not the board: nothing
    expect(score(listed[4])).toBe(0.05);
    await visit(listed[2], true); // the sibling, relevant: the next one
    expect(score(listed[4])).toBe(1);
    await visit(listed[4], false); // a sibling judged off-topic: one miss, the walk goes on
    expect(score(listed[5])).toBe(1);
    await visit(listed[5], false); // the second in a row: the walk ends
    expect(score(listed[6])).toBe(0.05);
    expect(plugin.stats().siblingsOffered).toBe(5); // the probe and four siblings
    plugin.afterRun!({} as never, ctx);
  });

  it("keeps as many of the listing's next threads offered as the crawl has pages in flight, and the scorer's re-scores do not lower them", async () => {
    expect(listed.length).toBeGreaterThanOrEqual(12);
    const { frontier, fetched, ctx, plugin, visit, score } = await harness(4);
    fetched.add(special);
    await visit(boardUrl, false, special); // the probe: one thread, as with one page in flight
    expect(listed.map(score).slice(0, 3)).toEqual([1, 0.05, 0.05]);
    // Fetched '.', offered in the band '1', as the scorer queued it '0'.
    const open = (n: number) => listed.slice(0, n).map((u) => (fetched.has(u) ? '.' : score(u) === 1 ? '1' : '0')).join('');
    await visit(listed[0], true); // relevant: the listing's next 4 threads (4 pages in flight)
    expect(open(7)).toBe('.111100');
    // The scorer's re-scores of queued siblings do not take them out of the band.
    frontier.rescore(uniqueKeyOf(listed[1]), 0.04);
    frontier.offer({ url: listed[2], depth: 3, parentUrl: boardUrl, score: 0.03 });
    expect(open(7)).toBe('.111100');
    await visit(listed[1], true); // each relevant one slides the window by one
    expect(open(8)).toBe('..111100');
    await visit(listed[2], false); // one miss: the walk goes on
    expect(open(8)).toBe('...11110');
    await visit(listed[3], false); // two in a row: no more offers
    expect(open(9)).toBe('....11100');
    await visit(listed[4], true); // a relevant one brings the walk back
    expect(open(11)).toBe('.....111100');
    expect(plugin.stats().siblingsOffered).toBe(9); // the probe and listed[1..8], each once
    plugin.afterRun!({} as never, ctx);
  });
});
