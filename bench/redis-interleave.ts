/**
 * `npx tsx bench/redis-interleave.ts DIR [--concurrency 1]`: how far down ONE scorer's order the
 * URLs a crawl handed out came from, for a folder `npm run bench:redis -- --keep` kept (one worker
 * or several; no network but the test web's robots.txt). One scorer takes in every page of the
 * crawl (all workers' `scorer-pages.jsonl`) in the order they were routed (crawl-log time), and
 * keeps the queue a single process would have had (a URL's latest score wins; robots.txt-disallowed
 * URLs never queued, as the hand-out drops them). When a worker asked for a URL is not logged: the
 * model is that its k-th page was asked for once its (k − concurrency)-th was routed; with
 * `--concurrency 1` (the default) it reproduces a one-worker crawl best (its hand-outs are one
 * scorer's best most of the time, nearly always in its top 5), since a worker's slot
 * frees well after its page is routed (the dataset, threads and adaptive fetcher's work follow).
 *
 * Per crawl: the handed-out URL's rank in that queue (0 = one scorer's best: mean, median, share
 * best, share in the top 5), how the score Redis held for it (crawl log) compares with one
 * scorer's (share within 1%, median relative difference: the workers' scorers, each fed in its
 * own order, and the stale-score rule against one scorer), and the forum board's rank.
 * Several workers route pages while others are asked for, so the model's timing error grows with
 * workers: read a difference in rank between one worker and four as an upper bound of what the
 * hand-out and the split cost the order.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { parseConfig } from '../src/config/schema.js';
import { PageJudge } from '../src/judge/judge.js';
import { ScorerInputLog } from '../src/crawl/resume.js';
import { crawlScorer } from '../src/crawl/scorer.js';
import { uniqueKeyOf } from '../src/frontier/url-key.js';
import type { FetchedPage } from '../src/score/types.js';
import { RobotsCache } from '../src/frontier/robots.js';
import { CrawlLog, type CrawlLogEntry } from '../src/store/crawl-log.js';
import { startTestWeb } from '../src/testweb/index.js';
import { rebaseOntoOrigins } from './rebase-origins.js';
import { OneQueue, rankStats } from './redis-order.js';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { concurrency: { type: 'string', default: '1' } } });
const dir = positionals[0];
const slots = Number(values.concurrency);
if (!dir || !existsSync(join(dir, 'runs')) || !Number.isInteger(slots) || slots < 1) {
  process.stderr.write('error: usage: npx tsx bench/redis-interleave.ts DIR [--concurrency 1] (a folder bench:redis --keep printed)\n');
  process.exit(2);
}

interface Page {
  key: string;
  url: string;
  /** Routed at (crawl-log time, ms). */
  routed: number;
  /** Asked for at: when its worker routed its page `slots` pages before this one (−∞ for its first pages). */
  asked: number;
  loggedScore?: number;
  input?: FetchedPage;
}

// robots.txt as the crawl read it: a disallowed URL is handed out and dropped at once, never fetched.
const web = await startTestWeb();
const here = rebaseOntoOrigins(web.sites.map((s) => s.origin));
const robots = new RobotsCache();
for (const s of web.sites) await robots.load(s.origin);
const allowed = (url: string) => robots.isAllowed(here(url));

async function replayCrawl(id: string, folders: string[]): Promise<void> {
  const state = JSON.parse(readFileSync(join(dir, 'runs', folders[0], 'state.json'), 'utf8')) as { config: Record<string, unknown> };
  const config = parseConfig({ ...state.config, resume: false });
  const seeds = new Set(config.topics.flatMap((t) => t.seeds).map(uniqueKeyOf));
  const pages: Page[] = [];
  for (const f of folders) {
    const inputs = new Map<string, FetchedPage>();
    const sp = join(dir, 'runs', f, 'scorer-pages.jsonl');
    if (existsSync(sp)) for (const p of ScorerInputLog.read(sp)) inputs.set(p.url, p);
    const own = CrawlLog.read(join(dir, 'runs', f, 'crawl-log.jsonl')).sort((a: CrawlLogEntry, b: CrawlLogEntry) => Date.parse(a.time) - Date.parse(b.time));
    own.forEach((e, k) =>
      pages.push({ key: uniqueKeyOf(e.url), url: e.url, routed: Date.parse(e.time), asked: k >= slots ? Date.parse(own[k - slots].time) : -Infinity, loggedScore: e.score, input: inputs.get(e.url) }),
    );
  }
  const byRoute = [...pages].sort((a, b) => a.routed - b.routed);
  const byAsk = [...pages].sort((a, b) => a.asked - b.asked || a.routed - b.routed);
  const scorer = crawlScorer(config, await PageJudge.create(config));
  const queue = new OneQueue();
  for (const s of seeds) queue.offer(s, config.score.seedScore);
  let routed = 0;
  const routeUntil = (t: number) => {
    for (; routed < byRoute.length && byRoute[routed].routed <= t; routed++) {
      const input = byRoute[routed].input;
      if (!input) continue;
      for (const u of scorer.onPageFetched(input)) {
        const k = uniqueKeyOf(u.url);
        if (seeds.has(k) || !allowed(u.url)) continue;
        if (u.drop) queue.drop(k);
        else queue.offer(k, u.score);
      }
    }
  };
  const ranks: (number | undefined)[] = [];
  const relDiffs: number[] = [];
  let board = '';
  for (const [i, p] of byAsk.entries()) {
    routeUntil(p.asked);
    const rank = queue.rank(p.key);
    ranks.push(rank);
    const one = queue.score.get(p.key);
    if (one !== undefined && p.loggedScore !== undefined && !seeds.has(p.key)) relDiffs.push(Math.abs(p.loggedScore - one) / Math.max(1e-9, Math.abs(one)));
    if (/\/forum-2-1\.html$/.test(p.url)) board = `board handed out ${i + 1}th: rank ${rank ?? '–'} of ${queue.score.size} in one scorer's queue (score ${one?.toFixed(3) ?? '–'}, Redis held ${p.loggedScore?.toFixed(3) ?? '–'})`;
    queue.take(p.key);
  }
  const s = rankStats(ranks);
  relDiffs.sort((a, b) => a - b);
  console.log(`${id} (${folders.length} worker${folders.length > 1 ? 's' : ''}, ${pages.length} pages):`);
  console.log(`  rank in one scorer's queue of the URL handed out: mean ${s.mean.toFixed(1)}, median ${s.median}, best ${(100 * s.best).toFixed(0)}%, top 5 ${(100 * s.top5).toFixed(0)}% (n ${s.n}, not in it ${s.unknown})`);
  console.log(`  score Redis held vs one scorer's: within 1% for ${relDiffs.filter((d) => d <= 0.01).length}/${relDiffs.length}, median difference ${(100 * (relDiffs[Math.floor(relDiffs.length / 2)] ?? NaN)).toFixed(1)}%, 90th percentile ${(100 * (relDiffs[Math.floor(relDiffs.length * 0.9)] ?? NaN)).toFixed(1)}%`);
  console.log(`  ${board || 'board never handed out'}`);
}

const crawls = new Map<string, string[]>();
for (const d of readdirSync(join(dir, 'runs')).sort()) {
  if (!existsSync(join(dir, 'runs', d, 'crawl-log.jsonl'))) continue;
  const id = d.replace(/\.w\d+$/, '');
  crawls.set(id, [...(crawls.get(id) ?? []), d]);
}
try {
  for (const [id, folders] of crawls) await replayCrawl(id, folders);
} finally {
  await web.close();
}
