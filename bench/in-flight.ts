/**
 * `npx tsx bench/in-flight.ts [--k 1,2,3,4,8,16] [--seeds 1-6] [--budget 200]`: what pages in flight
 * cost a best-first crawl, without a network or Redis. The engine's route (`routePage`: judge →
 * scorer → frontier) replayed over the test web's cached page analyses (`bench:replay`'s cache,
 * $REPLAY_CACHE/testweb-42.FINGERPRINT.json: run `npm run bench:replay -- --web testweb` once to fill it), with
 * every page routed k hand-outs late, as a crawl with k pages in flight routes a page while k−1
 * others it handed out are still being fetched. The demo topic and seeds of `bench:redis`, one
 * scorer and one judge: so a harvest gap here between k = 2 and k = 8 is what a single process at
 * concurrency 8, or four workers at 2 each, pays without any of the Redis split (see
 * docs/workers.md). Prints harvest and the page at which the crawl fetched the forum
 * board that decides most of this bench's harvest, per random seed.
 */
import { parseArgs } from 'node:util';
import { parseConfig } from '../src/config/schema.js';
import { PageJudge } from '../src/judge/judge.js';
import { routePage } from '../src/crawl/route.js';
import { crawlScorer } from '../src/crawl/scorer.js';
import { NearDuplicateIndex } from '../src/text/near-duplicate.js';
import { Frontier } from '../src/frontier/frontier.js';
import { RobotsCache } from '../src/frontier/robots.js';
import { crawlUserData } from '../src/frontier/user-data.js';
import { cachedTestWeb } from './redis-cached-web.js';

const { values } = parseArgs({ options: { k: { type: 'string', default: '1,2,3,4,8,16' }, seeds: { type: 'string', default: '1-6' }, budget: { type: 'string', default: '200' } } });
const ks = values.k.split(',').map(Number);
const [s0, s1] = values.seeds.split('-').map(Number);
const budget = Number(values.budget);
if (![...ks, s0, s1 ?? s0, budget].every((n) => Number.isInteger(n) && n >= 1)) {
  process.stderr.write('error: usage: npx tsx bench/in-flight.ts [--k 1,2,8] [--seeds 1-6] [--budget 200]\n');
  process.exit(2);
}
const { web, pageOf } = await cachedTestWeb('bench/in-flight');

try {
  for (const k of ks) {
    const runs: string[] = [];
    let sum = 0;
    for (let seed = s0; seed <= (s1 ?? s0); seed++) {
      const config = parseConfig({ topics: [{ keywords: web.demo.keywords, seeds: web.demo.seeds }], maxPages: budget, randomSeed: seed });
      const judge = await PageJudge.create(config);
      const scorer = crawlScorer(config, judge);
      const nearDuplicates = new NearDuplicateIndex();
      // Per-host concurrency out of the way (bench:redis runs --per-host 8): only the lag differs.
      const frontier = new Frontier({ maxPages: budget, maxDepth: config.maxDepth, robots: new RobotsCache(), perHostConcurrency: 1000 });
      for (const url of web.demo.seeds) frontier.offer({ url, depth: 0, ...scorer.seedScore(url) });
      const inFlight: Awaited<ReturnType<typeof frontier.requestManager.fetchNextRequest>>[] = [];
      let fetched = 0;
      let relevant = 0;
      let board = -1;
      for (;;) {
        while (inFlight.length < k) {
          const r = await frontier.requestManager.fetchNextRequest();
          if (!r) break;
          inFlight.push(r);
        }
        const req = inFlight.shift();
        if (!req) break;
        const page = await pageOf(req.url);
        if (page?.analysis) routePage(page.analysis, { url: req.url, userData: crawlUserData(req), status: page.status }, { judge, scorer, frontier, nearDuplicates });
        if (req.url.endsWith('/forum-2-1.html')) board = fetched;
        if (web.isRelevant(req.url, web.demo.topic)) relevant++;
        fetched++;
        await frontier.requestManager.markRequestHandled(req);
      }
      sum += relevant / fetched;
      runs.push(`${((100 * relevant) / fetched).toFixed(1)}% (board at ${board < 0 ? '–' : board})`);
    }
    console.log(`k=${k}: mean harvest ${((100 * sum) / runs.length).toFixed(1)}%; per seed ${runs.join(', ')}`);
  }
} finally {
  await web.close();
}
