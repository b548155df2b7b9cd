/**
 * A band offer's floor (src/frontier/score-floor.ts), one scenario on both frontier back ends:
 * the in-memory Frontier, and the Redis frontier's `fcOffer` on a real redis-server on loopback.
 * A relevant thread's pages and sibling threads are offered in the thread-page band with a floor;
 * the scorer's later offers and re-scores (its periodic cycle; in Redis also another worker's
 * replayed re-score, more informed than the queued score) may raise them, never lower them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Frontier } from '../src/frontier/frontier.js';
import { RedisCrawl, RedisFrontier } from '../src/cluster/redis-frontier.js';
import { uniqueKeyOf } from '../src/frontier/url-key.js';
import type { QueuedUrl, ScoreComponents } from '../src/frontier/types.js';
import { redisMissing, startRedis, type LocalRedis } from '../src/testweb/redis-server.js';
import { reviveScorerInput } from '../src/crawl/resume.js';

const missing = redisMissing();
if (missing) console.warn(missing);

/** What the scenario does to a frontier: the scorer's offers and re-scores, a plugin's band offers, hand-outs. */
interface Side {
  /** The scorer's offer of a URL (a page's link: the engine's routePage). */
  scorerOffer(url: string, score: number, components?: ScoreComponents): void | Promise<void>;
  /** The scorer's re-score of a queued URL (its periodic cycle; in Redis another worker's, more informed). */
  rescore(url: string, score: number, components?: ScoreComponents): void | Promise<void>;
  /** A plugin's band offer (src/plugins/threads.ts). */
  bandOffer(url: string, score: number, components?: ScoreComponents): void | Promise<void>;
  /** Every URL handed out, best first, once the above are applied. */
  drain(): Promise<QueuedUrl[]>;
}

const u = (p: string) => `http://127.0.0.1:8080/${p}`;

async function scenario(side: Side): Promise<void> {
  // A: the scorer's 0.3, then a sibling-thread offer at the band's 1; the scorer's next offer
  // (0.2) and re-score (0.1) fall back to the floor, with the band's components.
  await side.scorerOffer(u('a'), 0.3, { ranker: 0.3 });
  await side.bandOffer(u('a'), 1, { siblingThread: 1 });
  await side.scorerOffer(u('a'), 0.2, { ranker: 0.2 });
  await side.rescore(u('a'), 0.1, { ranker: 0.1 });
  // B: ordinary link, latest score.
  await side.scorerOffer(u('b'), 0.9);
  await side.rescore(u('b'), 0.5, { ranker: 0.5 });
  // C: the scorer may raise a band URL above its floor (its score and components then).
  await side.bandOffer(u('c'), 1.5);
  await side.rescore(u('c'), 5, { ranker: 5 });
  // E: raised, then lowered: back to the floor, not below.
  await side.bandOffer(u('e'), 2, { threadProbe: 1 });
  await side.rescore(u('e'), 6, { ranker: 6 });
  await side.rescore(u('e'), 0.1, { ranker: 0.1 });
  // F: a band offer below what the scorer holds only sets the floor; it never lowers.
  await side.scorerOffer(u('f'), 3, { ranker: 3 });
  await side.bandOffer(u('f'), 1);
  await side.rescore(u('f'), 0.05, { ranker: 0.05 });
  // G: a new URL offered in the band.
  await side.bandOffer(u('g'), 0.8, { siblingThread: 1 });
  await side.rescore(u('g'), 0.01);
  const got = await side.drain();
  expect(got.map((e) => [e.url, e.score])).toEqual([
    [u('c'), 5],
    [u('e'), 2],
    [u('a'), 1],
    [u('f'), 1],
    [u('g'), 0.8],
    [u('b'), 0.5],
  ]);
  const by = new Map(got.map((e) => [e.url, e]));
  expect(by.get(u('a'))!.components).toEqual({ siblingThread: 1 });
  expect(by.get(u('c'))!.components).toEqual({ ranker: 5 });
  expect(by.get(u('e'))!.components).toEqual({ threadProbe: 1 });
  expect(by.get(u('g'))!.components).toEqual({ siblingThread: 1 });
  expect(by.get(u('b'))!.components).toEqual({ ranker: 0.5 });
}

describe('score floor of band offers (in-memory frontier)', () => {
  it("the scorer's offers and re-scores raise a band offer, never lower it below its floor", async () => {
    const f = new Frontier();
    await scenario({
      scorerOffer: (url, score, components) => void f.offer({ url, depth: 1, score, components }),
      rescore: (url, score, components) => void f.rescore(uniqueKeyOf(url), score, components),
      bandOffer: (url, score, components) => void f.offer({ url, depth: 1, score, components, floor: { score, components } }),
      async drain() {
        const out: QueuedUrl[] = [];
        for (let e = await f.next(); e; e = await f.next()) {
          out.push(e);
          f.finish(e.uniqueKey, e.url);
        }
        return out;
      },
    });
  });

  it('keeps the floor through a snapshot (what --resume loads)', async () => {
    const f = new Frontier();
    f.offer({ url: u('a'), depth: 1, score: 1, floor: { score: 1, components: { siblingThread: 1 } } });
    f.offer({ url: u('a'), depth: 1, score: 0.2 });
    const copy = new Frontier();
    copy.backend.load(f.backend.snapshot());
    copy.rescore(uniqueKeyOf(u('a')), 0.1);
    expect(copy.get(uniqueKeyOf(u('a')))).toMatchObject({ score: 1, components: { siblingThread: 1 }, floor: { score: 1 } });
  });
});

describe.skipIf(!!missing)('score floor of band offers (Redis frontier, real redis-server)', () => {
  let redis: LocalRedis;
  const open: RedisFrontier[] = [];
  beforeAll(async () => {
    redis = await startRedis();
  }, 60_000);
  afterAll(async () => {
    for (const f of open) await f.close().catch(() => undefined);
    await redis?.stop();
  });

  async function worker(crawlId: string, join: boolean): Promise<RedisFrontier> {
    const crawl = await RedisCrawl.join({ url: redis.url, crawlId, worker: join, settings: { maxPages: 0, perHostDelayMs: 0, perHostConcurrency: 8 }, log: () => undefined });
    if (join) await crawl.waitForSeeds();
    const f = new RedisFrontier(crawl, { leaseMs: 30_000, log: () => undefined, shareScorer: { revive: reviveScorerInput } });
    if (!join) f.markSeeded();
    await f.leasesRenewable();
    open.push(f);
    return f;
  }

  it("the scorer's offers and re-scores (its own, and another worker's more informed ones) raise a band offer, never lower it below its floor", async () => {
    const a = await worker('floor', false);
    const b = await worker('floor', true);
    // B's scorer has taken in more pages than A's: without the floor, its re-scores would win
    // (the stale-score rule lets the more informed score lower a queued one).
    for (let i = 0; i < 5; i++) b.tookInOthersPage();
    await scenario({
      // Each step waits for its answer (A and B are two connections: Redis applies them in this order).
      scorerOffer: async (url, score, components) => {
        a.offer({ url, depth: 1, score, components });
        await a.isExhausted();
      },
      rescore: async (url, score, components) => {
        b.rescore(uniqueKeyOf(url), score, components);
        await b.isExhausted();
      },
      bandOffer: async (url, score, components) => {
        a.offer({ url, depth: 1, score, components, floor: { score, components } });
        await a.isExhausted();
      },
      async drain() {
        const out: QueuedUrl[] = [];
        for (let e = await a.next(); e; e = await a.next()) {
          out.push(e);
          await a.finish(e.uniqueKey, e.url);
        }
        return out;
      },
    });
  });
});
