/**
 * `npx tsx bench/redis-split.ts [--setups 1x2,1x8,4x2] [--seeds 1-12] [--budget 200] [--spread 3] [--route-ms 0]`:
 * what splitting one crawl over several workers on Redis costs its harvest, apart from the
 * network's and the machine's noise and apart from pages in flight. Every setup WxS (W workers,
 * S pages in flight each) crawls the test web through the REAL Redis frontier (a redis-server
 * started on loopback: its Lua hand-out, per-host queues, stale-score rule) and each worker's own
 * judge and scorer fed as the engine feeds them (`replayOthers`, then the engine's route), but on
 * `bench:replay`'s cached page analyses and in virtual time: a page takes a fetch time drawn
 * from (seed, URL) alone, uniform in 1 … 1 + spread seconds (so a URL takes as long in every
 * setup); when it "arrives" its worker takes in the other workers' pages so far, and routes it
 * (its links reach Redis) a route time later, uniform in 0 … `--route-ms` (the CPU a loaded
 * machine makes a page wait for: meanwhile the others route theirs, so each worker's scorer takes
 * pages in in its own order), then asks for the next URL. So
 *   1x8 − 1x2 is what 8 pages in flight cost one process (one scorer, one judge), and
 *   4x2 − 1x8 is what the split costs on top of it: four scorers fed in each worker's order,
 *   four judges each learning from a quarter of the pages, scores meeting in Redis.
 * Prints per setup mean harvest (test web's truth; also of the first 50 pages, before the learners
 * have much to go on) and where the forum board came, and paired by
 * seed the differences with 95% intervals. Needs the cache (`npm run bench:replay -- --web testweb`).
 */
import { createHash } from 'node:crypto';
import { parseArgs } from 'node:util';
import { parseConfig } from '../src/config/schema.js';
import { PageJudge } from '../src/judge/judge.js';
import { reviveScorerInput } from '../src/crawl/resume.js';
import { routePage } from '../src/crawl/route.js';
import { crawlScorer } from '../src/crawl/scorer.js';
import { RedisCrawl, RedisFrontier } from '../src/cluster/redis-frontier.js';
import { replayOthers } from '../src/cluster/redis-scorer-pages.js';
import { RobotsCache } from '../src/frontier/robots.js';
import type { QueuedUrl } from '../src/frontier/types.js';
import { uniqueKeyOf } from '../src/frontier/url-key.js';
import type { Scorer } from '../src/score/types.js';
import { redisMissing, startRedis } from '../src/testweb/redis-server.js';
import { NearDuplicateIndex } from '../src/text/near-duplicate.js';
import { pairedInterval } from './paired-interval.js';
import { OneQueue, rankStats, type RankStats } from './redis-order.js';
import { cachedTestWeb, type CachedPage } from './redis-cached-web.js';

const { values } = parseArgs({ options: { setups: { type: 'string', default: '1x2,1x8,4x2' }, seeds: { type: 'string', default: '1-12' }, budget: { type: 'string', default: '200' }, spread: { type: 'string', default: '3' }, 'route-ms': { type: 'string', default: '0' } } });
const setups = values.setups.split(',').map((s) => s.split('x').map(Number) as [number, number]);
const [s0, s1 = s0] = values.seeds.split('-').map(Number);
const budget = Number(values.budget);
const spread = Number(values.spread);
const routeSpread = Number(values['route-ms']);
if (!setups.every(([w, s]) => Number.isInteger(w) && Number.isInteger(s) && w >= 1 && s >= 1) || ![s0, s1, budget].every((n) => Number.isInteger(n) && n >= 1) || !(spread >= 0) || !(routeSpread >= 0)) {
  process.stderr.write('error: usage: npx tsx bench/redis-split.ts [--setups 1x2,1x8,4x2] [--seeds 1-12] [--budget 200] [--spread 3] [--route-ms 0]\n');
  process.exit(2);
}
const missing = redisMissing();
if (missing) {
  process.stderr.write(`${missing}\n`);
  process.exit(0);
}
const { web, pageOf } = await cachedTestWeb('bench/redis-split');
const redis = await startRedis();
// robots.txt for the reference queue (the Redis frontier drops disallowed URLs at hand-out).
const robots = new RobotsCache();
for (const site of web.sites) await robots.load(site.origin);

/** A uniform draw in [0, 1) from (seed, what, URL) alone: the same in every setup. */
function draw(seed: number, what: string, url: string): number {
  return createHash('sha256').update(`${seed} ${what} ${url}`).digest().readUInt32BE(0) / 2 ** 32;
}

/** A URL's fetch time in this seed's web (ms). */
const fetchMs = (seed: number, url: string) => 1000 * (1 + spread * draw(seed, 'fetch', url));

/** How long its worker takes from the page's arrival (when it takes in the others' pages) to its links in Redis (ms). */
const routeDelayMs = (seed: number, url: string) => routeSpread * draw(seed, 'route', url);

interface Worker {
  frontier: RedisFrontier;
  judge: PageJudge;
  scorer: Scorer;
}

interface Result {
  harvest: number;
  /** Harvest of the first 50 pages (before the learners have much to go on). */
  first50: number;
  board: number;
  pages: number;
  /** The handed-out URLs' ranks in the reference order. */
  rank: RankStats;
  /** Per page, ms its worker spent feeding the others' pages into its scorer first, and routing it. */
  replayMs: number;
  routeMs: number;
}

async function crawl(seed: number, nWorkers: number, slots: number): Promise<Result> {
  const config = parseConfig({ topics: [{ keywords: web.demo.keywords, seeds: web.demo.seeds }], maxPages: budget, randomSeed: seed, perHostConcurrency: 8 });
  const crawlId = `split-${nWorkers}x${slots}-${seed}`;
  const seedKeys = new Set(web.demo.seeds.map(uniqueKeyOf));
  const workers: Worker[] = [];
  for (let w = 0; w < nWorkers; w++) {
    const c = await RedisCrawl.join({ url: redis.url, crawlId, worker: w > 0, settings: { maxPages: budget, perHostDelayMs: 0, perHostConcurrency: 8 }, log: () => undefined });
    if (w > 0) await c.waitForSeeds();
    const judge = await PageJudge.create(config);
    const scorer = crawlScorer(config, judge);
    const frontier = new RedisFrontier(c, { maxDepth: config.maxDepth, robots: new RobotsCache(), shareScorer: { revive: reviveScorerInput }, log: () => undefined });
    await frontier.leasesRenewable();
    if (w === 0) {
      for (const url of web.demo.seeds) frontier.offer({ url, depth: 0, ...scorer.seedScore(url) });
      frontier.markSeeded();
    }
    workers.push({ frontier, judge, scorer });
  }
  // The reference order: one scorer taking in every page as it is routed, one process's queue.
  const ref = crawlScorer(config, workers[0].judge);
  const refQueue = new OneQueue();
  for (const k of seedKeys) refQueue.offer(k, config.score.seedScore);
  const ranks: (number | undefined)[] = [];
  let replayMs = 0;
  let routeMs = 0;
  const nearDuplicates = new NearDuplicateIndex(); // one index for all (Redis shares it, src/cluster/redis-near-duplicate.ts)
  // Pages in flight, by the virtual time they arrive; idle slots ask again after every route.
  // Pages in flight by the virtual time they arrive (a worker then takes in the others' pages so
  // far) and, `routeMs` later, are routed (their links reach Redis, the slot asks again).
  const inFlight: { at: number; w: number; entry: QueuedUrl; routing?: CachedPage }[] = [];
  const idle: number[] = [];
  for (let s = 0; s < slots; s++) for (let w = 0; w < nWorkers; w++) idle.push(w);
  const fetched: string[] = [];
  let now = 0;
  const fill = async () => {
    for (let i = 0; i < idle.length; ) {
      const w = idle[i];
      const entry = await workers[w].frontier.next();
      if (!entry) {
        i++;
        continue;
      }
      idle.splice(i, 1);
      ranks.push(refQueue.rank(entry.uniqueKey));
      refQueue.take(entry.uniqueKey);
      inFlight.push({ at: now + fetchMs(seed, entry.url), w, entry });
    }
  };
  await fill();
  while (inFlight.length) {
    inFlight.sort((a, b) => a.at - b.at);
    const { at, w, entry, routing } = inFlight.shift()!;
    now = at;
    const { frontier, judge, scorer } = workers[w];
    if (!routing) {
      const page: CachedPage = await pageOf(entry.url);
      if (page.analysis) {
        const t0 = performance.now();
        await replayOthers(frontier, scorer, (url) => seedKeys.has(uniqueKeyOf(url)));
        replayMs += performance.now() - t0;
        inFlight.push({ at: now + routeDelayMs(seed, entry.url), w, entry, routing: page });
        continue;
      }
    } else {
      const t1 = performance.now();
      const { scorerInput } = routePage(
        routing.analysis!,
        { url: entry.url, uniqueKey: entry.uniqueKey, userData: { depth: entry.depth, parentUrl: entry.parentUrl, anchorText: entry.anchorText, score: entry.score, components: entry.components }, status: routing.status },
        { judge, scorer, frontier, nearDuplicates, skipUpdate: (url) => seedKeys.has(uniqueKeyOf(url)), onScorerInput: (p) => frontier.shareScorerInput(p) },
      );
      routeMs += performance.now() - t1;
      for (const u of ref.onPageFetched(scorerInput)) {
        const k = uniqueKeyOf(u.url);
        if (seedKeys.has(k) || !robots.isAllowed(u.url)) continue;
        if (u.drop) refQueue.drop(k);
        else refQueue.offer(k, u.score);
      }
    }
    await frontier.finish(entry.uniqueKey, entry.url);
    fetched.push(entry.url);
    idle.push(w);
    await fill();
  }
  for (const x of workers) await x.frontier.close();
  return {
    harvest: fetched.filter((u) => web.isRelevant(u, web.demo.topic)).length / Math.max(1, fetched.length),
    first50: fetched.slice(0, 50).filter((u) => web.isRelevant(u, web.demo.topic)).length / Math.max(1, Math.min(50, fetched.length)),
    board: fetched.findIndex((u) => u.endsWith('/forum-2-1.html')) + 1,
    pages: fetched.length,
    rank: rankStats(ranks),
    replayMs: replayMs / Math.max(1, fetched.length),
    routeMs: routeMs / Math.max(1, fetched.length),
  };
}

const results = new Map<string, Result[]>();
try {
  for (let seed = s0; seed <= s1; seed++) {
    const line: string[] = [];
    for (const [w, s] of setups) {
      const r = await crawl(seed, w, s);
      const key = `${w}x${s}`;
      results.set(key, [...(results.get(key) ?? []), r]);
      line.push(`${key} ${(100 * r.harvest).toFixed(1)}% (board ${r.board || '–'}, rank ${r.rank.mean.toFixed(1)}, best ${(100 * r.rank.best).toFixed(0)}%)`);
    }
    console.log(`seed ${seed}: ${line.join(', ')}`);
  }
  const keys = [...results.keys()];
  for (const k of keys) {
    const rs = results.get(k)!;
    const boards = rs.map((r) => r.board).filter((b) => b > 0);
    const mean = (f: (r: Result) => number) => rs.reduce((s, r) => s + f(r), 0) / rs.length;
    console.log(
      `${k}: harvest ${(100 * mean((r) => r.harvest)).toFixed(1)}% (first 50 pages ${(100 * mean((r) => r.first50)).toFixed(1)}%), board at ${boards.length ? (boards.reduce((s, b) => s + b, 0) / boards.length).toFixed(0) : '–'} on average (${rs.length - boards.length} never); handed-out URLs' rank in one scorer's order: mean ${mean((r) => r.rank.mean).toFixed(2)}, one scorer's best ${(100 * mean((r) => r.rank.best)).toFixed(0)}%, top 5 ${(100 * mean((r) => r.rank.top5)).toFixed(0)}%; per page ${mean((r) => r.replayMs).toFixed(0)} ms replaying others' pages before its route, ${mean((r) => r.routeMs).toFixed(0)} ms routing it`,
    );
  }
  for (let i = 0; i < keys.length; i++)
    for (let j = i + 1; j < keys.length; j++) {
      const d = pairedInterval(results.get(keys[j])!.map((r, n) => 100 * (r.harvest - results.get(keys[i])![n].harvest)));
      if (d) console.log(`${keys[j]} − ${keys[i]}: ${d.mean >= 0 ? '+' : ''}${d.mean.toFixed(1)} points (95% ${d.low.toFixed(1)} … ${d.high.toFixed(1)}, n ${d.n})`);
    }
} finally {
  await redis.stop();
  await web.close();
}
