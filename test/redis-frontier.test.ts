/**
 * The Redis frontier's scripts against a real redis-server on a loopback port: several
 * RedisFrontier objects in this process stand for workers (each its own connection and id).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisCrawl, RedisFrontier } from '../src/cluster/redis-frontier.js';
import { redisMissing, startRedis, type LocalRedis } from '../src/testweb/redis-server.js';
import { reviveScorerInput } from '../src/crawl/resume.js';
import type { FetchedPage } from '../src/score/types.js';
import { uniqueKeyOf } from '../src/frontier/url-key.js';
import { replayOthers } from '../src/cluster/redis-scorer-pages.js';
import { analyzePage } from '../src/extract/page.js';
import { PageJudge } from '../src/judge/judge.js';
import { MultiTopicModel } from '../src/topic/multi-topic.js';

const missing = redisMissing();
if (missing) console.warn(missing);

let redis: LocalRedis;
let n = 0;
const open: RedisFrontier[] = [];

async function worker(crawlId: string, opts: { maxPages?: number; delay?: number; leaseMs?: number; join?: boolean; log?: string[]; shareScorer?: boolean; shareJudge?: boolean; holdMs?: number } = {}): Promise<RedisFrontier> {
  const crawl = await RedisCrawl.join({
    url: redis.url,
    crawlId,
    worker: !!opts.join,
    settings: { maxPages: opts.maxPages ?? 0, perHostDelayMs: opts.delay ?? 0, perHostConcurrency: 2 },
    log: (l) => opts.log?.push(l),
  });
  if (opts.join) await crawl.waitForSeeds();
  const f = new RedisFrontier(crawl, { leaseMs: opts.leaseMs ?? 30_000, log: (l) => opts.log?.push(l), holdMs: opts.holdMs, shareScorer: opts.shareScorer ? { revive: reviveScorerInput } : undefined, shareJudge: opts.shareJudge });
  if (!opts.join) f.markSeeded();
  await f.leasesRenewable();
  open.push(f);
  return f;
}

const url = (host: number, path: number) => `http://127.0.0.${host}:8080/p${path}.html`;

async function drain(f: RedisFrontier): Promise<string[]> {
  const got: string[] = [];
  for (let e = await f.next(); e; e = await f.next()) {
    got.push(e.url);
    await f.finish(e.uniqueKey, e.url);
  }
  return got;
}

async function until(cond: () => Promise<boolean>, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe.skipIf(!!missing)('Redis frontier (real redis-server)', () => {
  beforeAll(async () => {
    redis = await startRedis({ appendonly: true });
  }, 60_000);
  afterAll(async () => {
    for (const f of open) await f.close().catch(() => undefined);
    await redis?.stop();
  });

  it('hands out best first, de-duplicates, and never hands out a finished URL again', async () => {
    const id = `order-${n++}`;
    const a = await worker(id);
    const b = await worker(id, { join: true });
    a.offer({ url: url(1, 1), depth: 0, score: 1 });
    a.offer({ url: url(2, 2), depth: 0, score: 3 });
    b.offer({ url: url(3, 3), depth: 0, score: 2 });
    b.offer({ url: url(2, 2), depth: 1, score: 0.5 }); // another worker's lower score does not lower it
    const first = await a.next();
    expect(first!.url).toBe(url(2, 2));
    await a.finish(first!.uniqueKey, first!.url);
    b.offer({ url: url(2, 2), depth: 0, score: 100 }); // finished: a duplicate
    const rest = await drain(b);
    expect(rest).toEqual([url(3, 3), url(1, 1)]);
    expect(await a.isExhausted()).toBe(true);
    expect(a.pagesHandedOut).toBe(3);
  });

  it('re-prioritises a queued URL: another worker raises it, its own worker may lower it', async () => {
    const id = `reprio-${n++}`;
    const a = await worker(id);
    const b = await worker(id, { join: true });
    a.offer({ url: url(1, 1), depth: 1, score: 1 });
    a.offer({ url: url(2, 2), depth: 1, score: 2 });
    b.offer({ url: url(1, 1), depth: 1, score: 5 }); // B found a better in-link
    await b.isExhausted(); // B's offers are in (answered after them on B's connection)
    expect((await a.next())!.url).toBe(url(1, 1));
    const c = await worker(id, { join: true });
    c.offer({ url: url(3, 3), depth: 1, score: 10 });
    c.rescore((await import('../src/frontier/url-key.js')).uniqueKeyOf(url(3, 3)), 0.1); // C's own re-scoring lowers it
    await c.isExhausted();
    expect((await b.next())!.url).toBe(url(2, 2));
  });

  it('shares the scorers\' inputs: each worker gets every other worker\'s pages once, in order, dates revived; latest score wins', async () => {
    const id = `share-${n++}`;
    const [a, b, c] = [await worker(id, { shareScorer: true }), await worker(id, { join: true, shareScorer: true }), await worker(id, { join: true, shareScorer: true })];
    const page = (i: number, w: string): FetchedPage => ({
      url: url(1, i),
      depth: 1,
      rel: 0.5,
      relevant: i % 2 === 0,
      publishTime: new Date(Date.UTC(2020, 0, i)),
      links: [{ url: url(2, i), anchorText: `from ${w}`, contextSim: 0.25, anchorKeywordFreq: 0 }],
    });
    for (let i = 1; i <= 3; i++) a.shareScorerInput(page(i, 'a'));
    b.shareScorerInput(page(10, 'b'));
    await a.isExhausted();
    await b.isExhausted(); // both workers' publications are in (answered after them)
    // C asks twice at once (two pages routed concurrently): each page comes back to one call only.
    const [x, y] = await Promise.all([c.othersScorerInputs(), c.othersScorerInputs()]);
    const got = [...x, ...y];
    expect(got.map((p) => p.url).sort()).toEqual([url(1, 1), url(1, 2), url(1, 3), url(1, 10)].sort());
    expect(got.filter((p) => p.links[0].anchorText === 'from a').map((p) => p.url)).toEqual([url(1, 1), url(1, 2), url(1, 3)]);
    expect(got[0].publishTime).toBeInstanceOf(Date);
    // A worker never gets its own pages back; nothing twice.
    expect((await a.othersScorerInputs()).map((p) => p.url)).toEqual([url(1, 10)]);
    expect(await a.othersScorerInputs()).toEqual([]);
    // With shared inputs every scorer has the whole crawl's evidence: another worker may lower a
    // score, once its scorer has taken in as many pages as the one that set it.
    a.offer({ url: url(3, 1), depth: 1, score: 9 });
    a.offer({ url: url(3, 2), depth: 1, score: 5 });
    await a.isExhausted();
    for (const _ of await b.othersScorerInputs()) b.tookInOthersPage();
    b.rescore(uniqueKeyOf(url(3, 1)), 1); // e.g. relevance feedback from B's page
    await b.isExhausted();
    expect((await c.next())!.url).toBe(url(3, 2));
  });

  it("with shared scorers a less informed worker's score never lowers a more informed one's (stale re-scores while pages are in flight)", async () => {
    const id = `stale-${n++}`;
    const [a, b, c] = [await worker(id, { shareScorer: true }), await worker(id, { join: true, shareScorer: true }), await worker(id, { join: true, shareScorer: true })];
    // A's scorer has taken in two pages (its own) when it scores these.
    for (const i of [1, 2]) a.shareScorerInput({ url: url(1, i), depth: 1, rel: 0.5, relevant: true, links: [] });
    for (const [p, score] of [[1, 6], [2, 5], [3, 2], [4, 5]] as const) a.offer({ url: url(3, p), depth: 1, score });
    await a.isExhausted();
    // B's scorer has taken in neither (they were in flight for it): its re-score of 3/2 and its
    // page's lower score for 3/1 are stale and refused; its page's higher one for 3/3 (a new
    // in-link) and a new URL count.
    b.rescore(uniqueKeyOf(url(3, 2)), 1);
    b.offer({ url: url(3, 1), depth: 1, score: 0.1 });
    b.offer({ url: url(3, 3), depth: 1, score: 4 });
    b.offer({ url: url(4, 1), depth: 1, score: 3 });
    await b.isExhausted();
    // Once B's scorer has taken in A's pages its re-score is as informed, and wins (it may lower).
    for (const _ of await b.othersScorerInputs()) b.tookInOthersPage();
    b.rescore(uniqueKeyOf(url(3, 4)), 0.5);
    await b.isExhausted();
    expect(await drain(c)).toEqual([url(3, 1), url(3, 2), url(3, 3), url(4, 1), url(3, 4)]);
    const meta = await b.crawl.redis.hgetall(`${b.crawl.prefix}meta`);
    expect(Number(meta.stale)).toBe(2);
  });

  it("shares the judges' inputs: a worker that fetched neither the seed page nor the others judges a page as the one that did", async () => {
    const id = `judge-${n++}`;
    const [a, b] = [await worker(id, { shareJudge: true }), await worker(id, { join: true, shareJudge: true })];
    const page = (path: string, title: string, body: string) =>
      analyzePage({ html: `<html><head><title>${title}</title></head><body><h1>${title}</h1><p>${body}</p></body></html>`, url: `http://news.test/${path}`, fetchedAt: new Date('2024-01-01') });
    const judgeOf = () => PageJudge.over(new MultiTopicModel([{ keywords: ['heron'], seeds: [] }], { pageThreshold: 0.2 }), 'learned');
    const [ja, jb, alone] = [judgeOf(), judgeOf(), judgeOf()];
    ja.onInput = (input) => a.shareJudgeInput(input);
    // A fetched the seed page and a few more (one that can never be relevant: a 404).
    ja.judge(page('seed', 'Herons of the river', 'The grey heron wades in rivers and lakes, hunts fish and frogs, nests in colonies of sticks high in trees.'), { isSeed: true });
    ja.judge(page('1', 'Heron chicks', 'Heron chicks hatch in spring; both parents bring fish to the nest in the colony until the young can fly.'), { isSeed: false });
    ja.judge(page('2', 'Car prices', 'New car prices rose this year; dealers offer discounts on last year models and cheap loans.'), { isSeed: false });
    ja.judge(page('gone', 'Not found', 'Not found'), { isSeed: false, status: 404 });
    await a.isExhausted(); // A's publications are in
    const got = await b.othersJudgeInputs();
    expect(got.map((i) => i.kind)).toEqual(['page', 'page', 'page', 'never']);
    expect(got[0]).toMatchObject({ kind: 'page', isSeed: true });
    expect((got[0] as { tf: Map<string, number> }).tf).toBeInstanceOf(Map);
    expect(await b.othersJudgeInputs()).toEqual([]); // nothing twice
    expect(await a.othersJudgeInputs()).toEqual([]); // never its own
    for (const input of got) jb.replay(input);
    // The next page: B's judge has A's seed set, IDF and classifier, and says what A's says.
    const next = page('3', 'Heron colony', 'A heron colony in the trees by the lake: the birds fish in the shallows and feed their chicks.');
    const [va, vb, vAlone] = [ja.judge(next, { isSeed: false }), jb.judge(next, { isSeed: false }), alone.judge(next, { isSeed: false })];
    expect(vb.simD).toBeCloseTo(va.simD, 9);
    expect(vb.probability).toBeCloseTo(va.probability!, 9);
    expect(vAlone.simD).toBe(0); // a judge that saw no seed page has no seed set
  });

  it("replays the others' pages into the scorer and sends the re-scores of queued URLs it makes on them, never their links' own scores", async () => {
    const id = `replay-${n++}`;
    const [a, b] = [await worker(id, { shareScorer: true }), await worker(id, { join: true, shareScorer: true })];
    a.offer({ url: url(3, 1), depth: 1, score: 9 }); // queued by A; B's cycle will lower it
    a.offer({ url: url(3, 2), depth: 1, score: 5 });
    a.offer({ url: url(2, 1), depth: 2, score: 4 }); // A's page's link, scored by A
    a.offer({ url: url(4, 1), depth: 0, score: 1000 }); // a seed: never re-scored
    a.shareScorerInput({ url: url(1, 1), depth: 1, rel: 0.5, relevant: true, links: [{ url: url(2, 1), anchorText: 'x', contextSim: 0.2, anchorKeywordFreq: 0 }] });
    await a.isExhausted();
    const seen: string[] = [];
    // A scorer whose periodic re-scoring falls on A's page: it re-scores A's link and every queued URL.
    const scorer = {
      onPageFetched: (p: FetchedPage) => {
        seen.push(p.url);
        return [url(2, 1), url(3, 1), url(4, 1)].map((u) => ({ url: u, depth: 1, score: 0.5, breakdown: { score: 0.5, components: {} } }));
      },
    };
    await replayOthers(b, scorer, (u) => u === url(4, 1));
    await b.isExhausted();
    expect(seen).toEqual([url(1, 1)]);
    // The seed, then A's own score of its link (4) above B's cycle re-score of 3/1 (0.5, latest wins) below 3/2 (5).
    expect((await drain(b)).slice(0, 4)).toEqual([url(4, 1), url(3, 2), url(2, 1), url(3, 1)]);
  });

  it('never hands out more than the shared budget, whoever asks', async () => {
    const id = `budget-${n++}`;
    const ws = [await worker(id, { maxPages: 25 }), await worker(id, { join: true }), await worker(id, { join: true }), await worker(id, { join: true })];
    for (let i = 0; i < 200; i++) ws[i % 4].offer({ url: url(1 + (i % 7), i), depth: 1, score: Math.random() });
    const got = (await Promise.all(ws.map(drain))).flat();
    expect(got.length).toBe(25);
    expect(new Set(got).size).toBe(25);
    for (const w of ws) expect(await w.isExhausted()).toBe(true);
  });

  it('gives a dead worker\'s leased URLs to another worker after the lease times out', async () => {
    const id = `lease-${n++}`;
    const log: string[] = [];
    const a = await worker(id, { leaseMs: 400 });
    const b = await worker(id, { join: true, leaseMs: 400, log });
    a.offer({ url: url(1, 1), depth: 0, score: 2 });
    a.offer({ url: url(2, 2), depth: 0, score: 1 });
    const taken = await a.next();
    expect(taken!.url).toBe(url(1, 1));
    // A dies: no renewal, no finish (its connection is dropped without a word).
    await a.close();
    expect(await b.isExhausted()).toBe(false); // a lease is out: not over
    const got: string[] = [];
    await until(async () => {
      const e = await b.next();
      if (e) {
        got.push(e.url);
        await b.finish(e.uniqueKey, e.url);
      }
      return got.length === 2;
    });
    expect(got.sort()).toEqual([url(1, 1), url(2, 2)].sort());
    expect(await b.isExhausted()).toBe(true);
    expect(b.pagesHandedOut).toBe(2); // the expired lease's page went back to the budget
  });

  it('starts a joined worker only once the first worker has seeded the crawl', async () => {
    const id = `seeding-${n++}`;
    const crawl = await RedisCrawl.join({ url: redis.url, crawlId: id, worker: false, settings: { maxPages: 0, perHostDelayMs: 0, perHostConcurrency: 2 } });
    const first = new RedisFrontier(crawl);
    open.push(first);
    let joinedYet = false;
    const joining = worker(id, { join: true }).then((f) => ((joinedYet = true), f));
    // Nothing queued yet, and not seeded: the joined worker is still waiting (not ended).
    await first.isExhausted();
    await new Promise((r) => setTimeout(r, 400));
    expect(joinedYet).toBe(false);
    first.offer({ url: url(1, 1), depth: 0, score: 1 });
    first.markSeeded();
    const joined = await joining;
    expect(await drain(joined)).toEqual([url(1, 1)]);
    expect(await joined.isExhausted()).toBe(true);
  });

  it('tells a joined worker the crawl was never seeded when its first worker died before seeding', async () => {
    const id = `seeder-died-${n++}`;
    const first = await RedisCrawl.join({ url: redis.url, crawlId: id, worker: false, seederTtlMs: 300, settings: { maxPages: 0, perHostDelayMs: 0, perHostConcurrency: 2 } });
    const lines: string[] = [];
    const joined0 = await RedisCrawl.join({ url: redis.url, crawlId: id, worker: true, settings: { maxPages: 0, perHostDelayMs: 0, perHostConcurrency: 2 }, log: (l) => lines.push(l) });
    const outcome = joined0.waitForSeeds().then(
      () => 'joined',
      (e: Error) => e.message,
    );
    await until(async () => lines.length > 0);
    expect(lines[0]).toMatch(/Waiting for the first worker .* to offer its seeds/);
    // The first worker stops without seeding (as a kill -9 would: its mark is no longer renewed).
    await first.close();
    expect(await outcome).toMatch(/was started but never seeded .* start a run without --worker again/);
    await joined0.close();
    // A run without --worker seeds it (the crawl's settings stay), and workers join again.
    const again = await worker(id);
    again.offer({ url: url(1, 2), depth: 0, score: 1 });
    await again.isExhausted(); // answered after the offer, sent before it on again's connection
    const joined = await worker(id, { join: true });
    expect(await drain(joined)).toEqual([url(1, 2)]);
  });

  it('keeps a live worker\'s leases by renewing them', async () => {
    const id = `renew-${n++}`;
    const a = await worker(id, { leaseMs: 600 });
    const b = await worker(id, { join: true, leaseMs: 600 });
    a.offer({ url: url(1, 1), depth: 0, score: 1 });
    const e = await a.next();
    await new Promise((r) => setTimeout(r, 2400)); // four lease lengths
    expect(await b.next()).toBeNull();
    await a.finish(e!.uniqueKey, e!.url);
    expect(await b.isExhausted()).toBe(true);
  });

  it('keeps its leases while its main thread is busy (renewed from a thread of its own)', async () => {
    const id = `busy-${n++}`;
    const a = await worker(id, { leaseMs: 600 });
    const b = await worker(id, { join: true, leaseMs: 600 });
    a.offer({ url: url(1, 1), depth: 0, score: 1 });
    const e = await a.next();
    await new Promise((r) => setTimeout(r, 300)); // the heartbeat thread has the key
    const end = Date.now() + 3000; // five lease lengths with no event loop at all
    while (Date.now() < end);
    expect(await b.next()).toBeNull();
    await a.finish(e!.uniqueKey, e!.url);
    expect(await b.isExhausted()).toBe(true);
  });

  it('holds the per-host delay across workers, counted from the previous request\'s finish', async () => {
    const id = `delay-${n++}`;
    const a = await worker(id, { delay: 500 });
    const b = await worker(id, { join: true });
    for (let i = 0; i < 3; i++) a.offer({ url: url(1, i), depth: 1, score: 1 });
    const starts: number[] = [];
    const finishes: number[] = [];
    let done = 0;
    const run = async (f: RedisFrontier) => {
      while (done < 3) {
        const e = await f.next();
        if (!e) {
          await new Promise((r) => setTimeout(r, 10));
          continue;
        }
        starts.push(Date.now());
        await new Promise((r) => setTimeout(r, 50));
        finishes.push(Date.now());
        await f.finish(e.uniqueKey, e.url);
        done++;
      }
    };
    await Promise.all([run(a), run(b)]);
    starts.sort((x, y) => x - y);
    finishes.sort((x, y) => x - y);
    for (let i = 1; i < 3; i++) expect(starts[i] - finishes[i - 1]).toBeGreaterThanOrEqual(490);
  });

  it('paces requests that are not pages (comment APIs) and redirect hops with the pages, across workers', async () => {
    const id = `holds-${n++}`;
    const host = '127.0.0.9:8080';
    const a = await worker(id, { delay: 400, holdMs: 500 });
    const b = await worker(id, { join: true, delay: 400, holdMs: 500 });
    const held = await a.sharedHosts.hold(host, 0);
    expect('token' in held).toBe(true);
    // The host is taken: B's request waits until A's ends, and no page of it is handed out meanwhile.
    expect(await b.sharedHosts.hold(host, 0)).toEqual({ waitMs: -1 });
    a.offer({ url: `http://${host}/p1.html`, depth: 1, score: 1 });
    await a.isExhausted();
    expect(await b.next()).toBeNull();
    await a.sharedHosts.release((held as { token: string }).token);
    const t0 = Date.now();
    const w = await b.sharedHosts.hold(host, 0);
    expect('waitMs' in w && w.waitMs > 200 && w.waitMs <= 400).toBe(true); // the delay counts from the release
    await until(async () => Date.now() - t0 >= 400);
    const page = (await b.next())!;
    expect(page.url).toBe(`http://${host}/p1.html`);
    // B's page handler makes a request to its own page's host: its page does not block it, other workers' requests wait.
    const own = await b.sharedHosts.hold(host, 1);
    expect('token' in own).toBe(true);
    expect(await a.sharedHosts.hold(host, 0)).toEqual({ waitMs: -1 });
    // A worker that dies holding a host (B never releases this one): the hold ends after holdMs.
    await b.finish(page.uniqueKey, page.url);
    await until(async () => 'token' in (await a.sharedHosts.hold(host, 0)));
    // A redirect hop through a worker's politeness reaches Redis: the delay counts from it for every worker.
    a.politeness.touched('127.0.0.11:8080');
    a.offer({ url: 'http://127.0.0.11:8080/p2.html', depth: 1, score: 1 });
    await a.isExhausted();
    expect(await b.next()).toBeNull();
    await until(async () => (await b.next()) !== null);
  });

  it('survives a Redis restart: commands wait, state comes back from the AOF', async () => {
    const id = `restart-${n++}`;
    const log: string[] = [];
    const a = await worker(id, { log });
    for (let i = 0; i < 5; i++) a.offer({ url: url(1 + i, i), depth: 1, score: i });
    const e = await a.next();
    await redis.kill();
    const finishing = a.finish(e!.uniqueKey, e!.url); // sent while Redis is down
    await until(async () => log.some((l) => /unreachable/.test(l)));
    await redis.restart();
    await finishing;
    await until(async () => log.some((l) => /back/.test(l)));
    const rest = await drain(a);
    expect(rest.length).toBe(4);
    expect(new Set([e!.url, ...rest]).size).toBe(5);
  }, 60_000);
  it("fetches an origin's robots.txt once when the worker fetching it stores it and lets go between another's read and lock", async () => {
    const id = `robots-once-${n++}`;
    const settings = { maxPages: 0, perHostDelayMs: 0, perHostConcurrency: 2 };
    const a = await RedisCrawl.join({ url: redis.url, crawlId: id, worker: false, settings });
    const b = await RedisCrawl.join({ url: redis.url, crawlId: id, worker: true, settings });
    const robotsUrl = 'http://127.0.0.7:8080/robots.txt';
    let requests = 0;
    let letGo!: () => void;
    const bMayAnswer = new Promise<void>((r) => (letGo = r));
    const answer = async () => ((requests += 1), { status: 200, text: 'User-agent: *\nDisallow: /private/\n' });
    // B holds the origin's lock and fetches; its answer waits until A has read Redis's copy (none yet).
    const bBusy = b.sharedRobotsFetch(async () => (await bMayAnswer, answer()))(robotsUrl, 5_000);
    await until(async () => (await a.redis.keys(`*robotslock*`)).some((k) => k.includes(id)));
    const realGet = a.redis.hget.bind(a.redis);
    let reads = 0;
    (a.redis as unknown as { hget: (...args: string[]) => Promise<string | null> }).hget = async (...args: string[]) => {
      const got = await realGet(args[0], args[1]);
      // A's first read missed: B stores the file and lets go of the lock before A tries to take it.
      if (reads++ === 0) (letGo(), await bBusy);
      return got;
    };
    const seenByA = await a.sharedRobotsFetch(answer)(robotsUrl, 5_000);
    expect(requests).toBe(1);
    expect(seenByA && 'text' in seenByA ? seenByA.text : undefined).toContain('Disallow: /private/');
    await a.close();
    await b.close();
  });
});
