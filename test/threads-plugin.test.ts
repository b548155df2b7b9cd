/**
 * The reply-thread plugin's decisions (METHODS §4) on plain data: what is offered for revisit,
 * in which order, within which share of the budget, and which threads stop. Pages are the test
 * web's real forum HTML rendered from its model at a chosen time (no server, no browser).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Request } from 'crawlee';
import { afterAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config/schema.js';
import type { CrawlContext, PageEvent } from '../src/crawl/engine.js';
import {
  isNewReply, mergePages, threadPageScore, planRevisits, revisitAllowance, splitPageUrls, threadsPlugin, type ReplyRecord,
} from '../src/plugins/threads.js';
import { Frontier } from '../src/frontier/frontier.js';
import { DEFAULT_SCORE_BANDS } from '../src/score/bands.js';
const REVISIT_SCORE_BASE = DEFAULT_SCORE_BANDS.revisit;
import { ProgressReporter } from '../src/report/progress.js';
import { resolveOptions } from '../src/testweb/index.js';
import { generateModel } from '../src/testweb/model.js';
import { resolve as resolveRoute } from '../src/testweb/render.js';

const HOUR = 3_600_000;
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('revisitAllowance', () => {
  it('a budgeted crawl gives revisits at most share · maxPages pages', () => {
    expect(revisitAllowance({ share: 0.2, maxPages: 50, offered: 3, handedOut: 40, discoveryQueued: 100, watch: false })).toBe(7);
    expect(revisitAllowance({ share: 0.2, maxPages: 50, offered: 10, handedOut: 40, discoveryQueued: 0, watch: false })).toBe(0);
    expect(revisitAllowance({ share: 0, maxPages: 50, offered: 0, handedOut: 0, discoveryQueued: 0, watch: false })).toBe(0);
  });
  it('without a budget (watch): share of pages handed out while discovery waits, all once it is empty', () => {
    // floor(0.2 · 25) − 2 = 3
    expect(revisitAllowance({ share: 0.2, maxPages: 50, offered: 2, handedOut: 24, discoveryQueued: 7, watch: true })).toBe(3);
    expect(revisitAllowance({ share: 0.2, maxPages: 50, offered: 9, handedOut: 24, discoveryQueued: 0, watch: true })).toBe(Number.POSITIVE_INFINITY);
  });
});

describe('planRevisits', () => {
  const due = [
    { id: 'a', url: 'u/a', h: 2 },
    { id: 'b', url: 'u/b', h: 9.5 },
    { id: 'c', url: 'u/c', h: 16 },
    { id: 'd', url: 'u/d', h: 9.5 },
  ];
  it('hottest first, ties by id, pending ones skipped, capped by the allowance; score orders them in the frontier', () => {
    expect(planRevisits(due, new Set(), 10).map((r) => r.id)).toEqual(['c', 'b', 'd', 'a']);
    expect(planRevisits(due, new Set(['c']), 2).map((r) => [r.id, r.score])).toEqual([
      ['b', REVISIT_SCORE_BASE + 9.5],
      ['d', REVISIT_SCORE_BASE + 9.5],
    ]);
    expect(planRevisits(due, new Set(), 0)).toEqual([]);
  });
});

describe('page bookkeeping', () => {
  it('splits comment-API pages (same path as a captured XHR) from HTML pages', () => {
    const r = splitPageUrls(
      ['http://n.test/a/1.html?page=2', 'http://n.test/api/comments?aid=7&page=2', 'http://n.test/api/comments?aid=7&page=3'],
      ['http://n.test/api/comments?aid=7&page=1'],
    );
    expect(r).toEqual({ html: ['http://n.test/a/1.html?page=2'], api: ['http://n.test/api/comments?aid=7&page=2', 'http://n.test/api/comments?aid=7&page=3'] });
  });
  it('keeps pages in pager order so the last one is the latest page', () => {
    let k = mergePages([], 'p1', ['p2', 'p3']);
    k = mergePages(k, 'p3', ['p1', 'p2']);
    expect(k).toEqual(['p1', 'p2', 'p3']);
    expect(mergePages(k, 'p3', ['p2', 'p4'])).toEqual(['p1', 'p2', 'p3', 'p4']);
  });
  it('thread pages score like the page found (≥ 1 when relevant), never above revisit priority', () => {
    expect(threadPageScore(0.3, true)).toBe(1);
    expect(threadPageScore(0.3, false)).toBeUndefined(); // off-topic thread: left to the scorer
    expect(threadPageScore(1000, true)).toBe(20); // a seed thread's pages stay below revisits (100 + H)
  });
  it('a new reply is younger than the first visit; without a time, one found on a revisit', () => {
    const first = '2008-06-01T04:00:00.000Z';
    expect(isNewReply({ author: 'x', text: 't', time: '2008-06-01T05:00:00.000Z' }, first, false)).toBe(true);
    expect(isNewReply({ author: 'x', text: 't', time: '2008-05-31T05:00:00.000Z' }, first, true)).toBe(false);
    expect(isNewReply({ author: 'x', text: 't' }, first, true)).toBe(true);
    expect(isNewReply({ author: 'x', text: 't' }, first, false)).toBe(false);
    expect(isNewReply({ author: 'x', text: 't', time: '2008-06-01T05:00:00.000Z' }, undefined, true)).toBe(false); // first visit
  });
});

describe('threadsPlugin on rendered forum pages', () => {
  const o = resolveOptions({});
  const model = generateModel({ seed: o.seed, articlesPerChannel: o.articlesPerChannel, portals: o.portals, thucnews: false, start: o.start });
  const origin = 'http://forum.test';
  const t0 = model.start;
  // Threads picked by their model heat: a hot one (many recent replies), a warm one, and a
  // cold one nobody answered for 11 days (H ≈ e^(−11/3) ≈ 0.03, below the floor 1).
  const threads = [...model.threads.values()];
  const shown = (tid: number, at: number) => model.threads.get(tid)!.replyTimes.filter((x) => x <= at).length;
  const hotT = threads.find((t) => t.heat === 'hot' && shown(t.tid, t0) > 100)!;
  const warmT = threads.find((t) => t.heat === 'warm' && shown(t.tid, t0) > 15 && t0 - t.created < 4 * 24 * HOUR)!;
  const coldT = threads.find((t) => t.heat === 'cold' && t.created <= t0 - 10 * 24 * HOUR && shown(t.tid, t0 + 200 * HOUR) === 0)!;

  function setup(maxPages: number, share: number) {
    const dir = mkdtempSync(join(tmpdir(), 'threads-plugin-'));
    dirs.push(dir);
    const config = parseConfig({ topics: [{ keywords: ['地震'], seeds: [origin + '/'] }], maxPages, threads: { revisitShare: share } });
    const frontier = new Frontier({ maxPages });
    let now = t0;
    const plugin = threadsPlugin({ now: () => new Date(now) });
    const ctx: CrawlContext = { config, runId: 'r', runDir: dir, storageDir: dir, frontier, progress: new ProgressReporter({ quiet: true }) };
    plugin.beforeRun!(ctx);
    const visit = async (path: string, userData: Record<string, unknown> = { depth: 1, score: 0.5 }) => {
      const route = resolveRoute(model, 'forum', path, now, { slowPageMs: 0 })!;
      const html = route.respond({ model, origin: () => origin, now }).body as string;
      const url = origin + path;
      const event = {
        rendered: { request: new Request({ url, userData }), url, status: 200, contentType: 'text/html', html, fetchedAt: new Date(), xhrJson: [] },
        verdict: { relevant: true },
      } as unknown as PageEvent;
      await plugin.onPage!(event, ctx);
    };
    return { plugin, frontier, ctx, visit, setNow: (t: number) => (now = t), dir };
  }

  it('follows every page of a thread, revisits the latest page of due threads hottest first, never a cold one', async () => {
    expect([hotT, warmT, coldT].every(Boolean)).toBe(true);
    const s = setup(100, 0.2);
    for (const t of [coldT, warmT, hotT]) await s.visit(`/thread-${t.tid}-1-1.html`);
    const hotPages = Math.ceil((shown(hotT.tid, t0) + 1) / 10);
    // Pages 2..last of the hot thread are queued (good score: the page's own, at least 1).
    for (let p = 2; p <= hotPages; p++) expect(s.frontier.get(new Request({ url: `${origin}/thread-${hotT.tid}-${p}-1.html` }).uniqueKey)?.score).toBe(1);
    const store = s.plugin.store!;
    expect(store.get(coldT.tid.toString()) ?? store.hottest(10, new Date(t0)).find((r) => r.url.includes(`thread-${coldT.tid}-`))).toBeDefined();
    const cold = store.hottest(10, new Date(t0)).find((r) => r.url.includes(`thread-${coldT.tid}-`))!;
    expect(cold.nextVisit).toBeNull(); // below the floor: never revisited

    // Nothing is due right away.
    s.plugin.tick();
    expect([...s.frontier.queued()].filter((q) => q.revisit)).toEqual([]);
    // 200 h later both live threads are due: queued hot first (higher score), at their latest page.
    s.setNow(t0 + 200 * HOUR);
    s.plugin.tick();
    const revisits = [...s.frontier.queued()].filter((q) => q.revisit).sort((a, b) => b.score - a.score);
    expect(revisits.map((r) => r.url)).toEqual([`${origin}/thread-${hotT.tid}-${hotPages}-1.html`, expect.stringContaining(`thread-${warmT.tid}-`)]);
    // Not offered twice while waiting.
    s.plugin.tick();
    expect([...s.frontier.queued()].filter((q) => q.revisit)).toHaveLength(2);
    // The frontier hands the hot revisit out first.
    const first = await s.frontier.requestManager.fetchNextRequest();
    expect(first?.url).toBe(revisits[0].url);
    expect(first?.userData.revisit).toBe(true);
    s.plugin.afterRun!({} as never, s.ctx);
  });

  it('revisits take at most revisitShare of the budget', async () => {
    const s = setup(10, 0.1); // one revisit
    for (const t of [warmT, hotT]) await s.visit(`/thread-${t.tid}-1-1.html`);
    s.setNow(t0 + 200 * HOUR);
    s.plugin.tick();
    const revisits = [...s.frontier.queued()].filter((q) => q.revisit);
    expect(revisits).toHaveLength(1);
    expect(revisits[0].url).toContain(`thread-${hotT.tid}-`);
    expect(s.plugin.stats().revisitsOffered).toBe(1);
    s.plugin.afterRun!({} as never, s.ctx);
  });

  it('a revisit records exactly the replies that arrived since the first visit', async () => {
    const s = setup(100, 0.5);
    const last = Math.ceil((shown(hotT.tid, t0) + 1) / 10);
    await s.visit(`/thread-${hotT.tid}-${last}-1.html`);
    const later = t0 + 5 * HOUR;
    s.setNow(later);
    // Revisit the same last page: new floors on it are new replies; later pages get queued.
    await s.visit(`/thread-${hotT.tid}-${last}-1.html`, { depth: 0, score: 101, revisit: true });
    const lines = readFileSync(s.plugin.repliesPath!, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as ReplyRecord);
    const before = shown(hotT.tid, t0);
    const after = shown(hotT.tid, later);
    expect(after).toBeGreaterThan(before);
    // Floors on that page: (last−1)·10+1 … last·10; replies are floors 2…; floor f has reply time replyTimes[f−2].
    const expected: number[] = [];
    for (let f = before + 2; f <= Math.min(after + 1, last * 10); f++) expected.push(f);
    expect(expected.length).toBeGreaterThan(0);
    expect(lines.map((l) => l.floor)).toEqual(expected);
    for (const l of lines) {
      expect(Math.abs(Date.parse(l.time!) - hotT.replyTimes[l.floor! - 2])).toBeLessThan(60_000); // shown to the minute
      expect(l.revisit).toBe(true);
    }
    if (after + 1 > last * 10) expect(s.frontier.get(new Request({ url: `${origin}/thread-${hotT.tid}-${last + 1}-1.html` }).uniqueKey)).toBeDefined();
    s.plugin.afterRun!({} as never, s.ctx);
  });
});
