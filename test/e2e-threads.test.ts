/**
 * End to end on the test web (real headless Chromium): a crawl of the forum with the reply
 * plugin, the server clock moved on between rounds. Hot threads are revisited before cold
 * ones, the replies they captured are the ones the test web really added (its model knows
 * them), and cold threads are not revisited.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config/schema.js';
import { runCrawl, type CrawlPlugin, type CrawlResult } from '../src/crawl/engine.js';
import { threadsPlugin, type ReplyRecord, type ThreadsPlugin } from '../src/plugins/threads.js';
import { ProgressReporter } from '../src/report/progress.js';
import { resolveOptions, startTestWeb, type TestWeb } from '../src/testweb/index.js';
import { generateModel, replyText, type Thread } from '../src/testweb/model.js';
import type { ThreadRecord } from '../src/store/threads.js';
import type { CrawlLogEntry } from '../src/store/crawl-log.js';

const HOUR = 3_600_000;
const ROUND_PAGES = 10;
const ROUND_HOURS = 12;

let web: TestWeb;
let dir: string;
let result: CrawlResult;
let plugin: ThreadsPlugin;
let stored: Record<string, ThreadRecord>;
let replies: ReplyRecord[];
const o = resolveOptions({});
const model = generateModel({ seed: o.seed, articlesPerChannel: o.articlesPerChannel, portals: o.portals, thucnews: false, start: o.start });
const tidOf = (url: string) => Number(/thread-(\d+)-/.exec(url)?.[1] ?? /tid=(\d+)/.exec(url)?.[1]);
const threadOf = (rec: { url: string }): Thread => model.threads.get(tidOf(rec.url))!;

beforeAll(async () => {
  web = await startTestWeb({});
  dir = mkdtempSync(join(tmpdir(), 'e2e-threads-'));
  if (process.env.KEEP) console.log(dir);
  const forum = web.sites.find((s) => s.kind === 'forum')!.origin;
  // Seeds: the first pages of a dozen threads the model calls hot, warm and cold (hot ones of
  // 4–9 pages, so following every page fits the small budget); depth 1 keeps the crawl on them.
  const shown = (t: Thread) => t.replyTimes.filter((x) => x <= model.start).length;
  const all = [...model.threads.values()].filter((t) => t.created <= model.start);
  const pick = (heat: Thread['heat'], ok: (t: Thread) => boolean) => all.filter((t) => t.heat === heat && ok(t)).slice(0, 4);
  const chosen = [
    ...pick('hot', (t) => shown(t) >= 30 && shown(t) < 90),
    ...pick('warm', (t) => shown(t) >= 10 && shown(t) < 40),
    ...pick('cold', (t) => model.start - t.created > 10 * 24 * HOUR),
  ];
  const config = parseConfig({
    topics: [{ keywords: ['地震', '救援'], seeds: chosen.map((t) => `${forum}/thread-${t.tid}-1-1.html`) }],
    allowPrivate: web.sites.map((s) => s.origin), // the test web's loopback sites (src/fetch/gate/gate.ts)
    strategy: 'bfs',
    maxDepth: 1,
    maxPages: 90,
    maxConcurrency: 1, // fetch order = hand-out order, so the revisit order is observable
    storageDir: dir,
    allowDomains: [new URL(forum).host],
    // Shorter intervals than the 1-day default so a few simulated rounds reach them.
    threads: { revisitShare: 0.3, baseIntervalHours: 6 },
  });
  plugin = threadsPlugin({ now: () => web.clock.now() });
  let pages = 0;
  // Rounds: the server's clock moves on every ROUND_PAGES pages (after the reply plugin has seen the page).
  const rounds: CrawlPlugin = {
    name: 'rounds',
    onPage() {
      if (++pages % ROUND_PAGES === 0) web.clock.advance(ROUND_HOURS * HOUR);
    },
  };
  result = await runCrawl({ config, plugins: [plugin, rounds], runId: 'threads', progress: new ProgressReporter({ quiet: true }) });
  stored = (JSON.parse(readFileSync(join(result.runDir, 'threads.json'), 'utf8')) as { threads: Record<string, ThreadRecord> }).threads;
  const path = join(result.runDir, 'replies.jsonl');
  replies = existsSync(path) ? readFileSync(path, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as ReplyRecord) : [];
  const s = plugin.stats();
  console.log(`e2e threads: ${result.fetched} pages, ${s.threads} threads, ${s.revisitsFetched} revisits (${s.revisitsOffered} queued), ${s.newReplies} new replies, ${Object.values(stored).filter((r) => r.nextVisit === null).length} threads dropped below the floor`);
}, 240_000);

afterAll(async () => {
  await web?.close();
  if (dir && !process.env.KEEP) rmSync(dir, { recursive: true, force: true });
});

describe('reply threads on the test web forum', () => {
  it('finds threads, revisits within the budget share', () => {
    expect(result.fetched).toBe(90);
    expect(Object.keys(stored).length).toBe(12);
    const s = plugin.stats();
    expect(s.revisitsFetched).toBeGreaterThanOrEqual(3);
    expect(s.revisitsOffered).toBeLessThanOrEqual(Math.floor(0.3 * 90));
    // Pages fetched at revisit priority (revisits and the new pages they uncovered) stay within the share.
    const log = readFileSync(result.logPath, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { score?: number });
    // Revisit priority is 100 + H, H well under 100 (seeds are queued at 1000).
    const atRevisitPriority = log.filter((e) => (e.score ?? 0) >= 100 && (e.score ?? 0) < 200).length;
    expect(atRevisitPriority).toBeGreaterThanOrEqual(s.revisitsFetched);
    expect(atRevisitPriority).toBeLessThanOrEqual(Math.floor(0.3 * 90));
    expect(result.summaryLines.join('\n')).toMatch(/reply threads\s+\d+ found/);
  });

  it('revisits hot threads first: within a round by hotness, and no cold thread before a hot one', () => {
    const revs = plugin.revisits();
    const byBatch = new Map<number, number[]>();
    for (const r of revs) byBatch.set(r.batch, [...(byBatch.get(r.batch) ?? []), r.h]);
    for (const hs of byBatch.values()) expect(hs).toEqual([...hs].sort((a, b) => b - a));
    const heat = revs.map((r) => threadOf({ url: r.url }).heat);
    expect(heat).toContain('hot');
    const firstCold = heat.indexOf('cold');
    if (firstCold >= 0) expect(heat.indexOf('hot')).toBeLessThan(firstCold);
  });

  it('cold threads stop: below the floor they are never queued again', () => {
    const revisited = new Set(plugin.revisits().map((r) => r.threadId));
    const dropped = Object.values(stored).filter((r) => r.nextVisit === null);
    expect(dropped.length).toBeGreaterThan(0);
    for (const r of dropped) {
      // A dropped thread's last visit put it below the floor; nothing after.
      const h = r.hotness[r.hotness.length - 1].h;
      expect(h).toBeLessThan(1);
      expect(plugin.revisits().filter((v) => v.threadId === r.id && v.at > r.visits[r.visits.length - 1].at)).toEqual([]);
    }
    // The cold threads nobody answered in weeks were seen once and never revisited.
    const stale = Object.values(stored).filter((r) => threadOf(r).heat === 'cold' && r.replyTimes.length === 0);
    for (const r of stale) expect(revisited.has(r.id)).toBe(false);
  });

  it('captures the replies the test web really added, and only those', () => {
    expect(replies.length).toBeGreaterThan(0);
    for (const rep of replies) {
      const t = threadOf(rep);
      const f = rep.floor!;
      expect(f).toBeGreaterThanOrEqual(2);
      // Floor f is reply f−1, arrived at replyTimes[f − 2] (the page shows it to the minute).
      expect(Math.abs(Date.parse(rep.time!) - t.replyTimes[f - 2])).toBeLessThan(60_000);
      expect(t.replyTimes[f - 2]).toBeLessThanOrEqual(Date.parse(rep.foundAt));
      expect(Date.parse(rep.time!)).toBeGreaterThan(Date.parse(stored[rep.threadId].firstSeen) - 60_000);
      expect(rep.text.replace(/\s+/g, '')).toContain(replyText(model, t.topic, `r:${t.tid}:${f - 1}`).replace(/\s+/g, ''));
    }
    // Recall on every revisited page: each reply the model shows on it that arrived after the
    // thread's first visit is in the records.
    const got = new Set(replies.map((r) => `${r.threadId}#${r.floor}`));
    let expected = 0;
    for (const v of plugin.revisits()) {
      const t = threadOf(v);
      const page = Number(/thread-\d+-(\d+)-/.exec(v.url)?.[1] ?? 1);
      const first = Date.parse(stored[v.threadId].firstSeen);
      const at = Date.parse(v.at);
      const shownNow = t.replyTimes.filter((x) => x <= at).length;
      for (let f = Math.max(2, (page - 1) * 10 + 1); f <= Math.min(page * 10, shownNow + 1); f++) {
        if (t.replyTimes[f - 2] > first) {
          expected++;
          expect(got.has(`${v.threadId}#${f}`)).toBe(true);
        }
      }
    }
    expect(expected).toBeGreaterThan(0);
  });

  it('the crawl log names the reply matcher that decided each thread page, with its confidence', () => {
    const log = readFileSync(join(result.runDir, 'crawl-log.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as CrawlLogEntry);
    const threadPages = log.filter((e) => Number.isFinite(tidOf(e.url)) && e.status === 200);
    expect(threadPages.length).toBeGreaterThan(0);
    for (const e of threadPages) {
      // The test web's forum is Discuz-shaped: its built-in template decides.
      expect(e.thread?.matcher).toBe('discuz');
      expect(e.thread!.confidence).toBeGreaterThan(0.5);
      expect(e.thread!.confidence).toBeLessThanOrEqual(1);
    }
  });
});
