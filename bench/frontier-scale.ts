/**
 * The in-memory frontier at scale: N queued URLs with what a crawl really queues
 * (depth, parent URL, anchor text, score, combined's ~19 named score components), over many
 * hosts, URLs of news-site shape and length. Reports heap used after a forced GC INCLUDING the
 * URL strings (the workload is generated on the fly, so the only copies left are the frontier's),
 * RSS, and ops/s for offer, re-prioritise (offer of a queued URL with a new score, as the engine
 * does when new in-links arrive), hand-out (`next()`) and finish.
 *
 *   npm run bench:frontier-scale -- [N] [--hosts 10000]
 *   node --expose-gc --import tsx bench/frontier-scale.ts 1000000
 *
 * Then the bare heaps (IndexedMaxHeap keyed by string; IdMaxHeap over slots) at the same N, and
 * the size of the link ranker's per-link features, which the scorer keeps (src/score/types.ts
 * Contribution.link), not the frontier.
 *
 * `--with-scorer`: the honest figure per queued URL — the frontier AND the scorer's state for
 * it (in-link evidence, the link ranker's per-link features, the link graph): N/50 pages of 50
 * new links each go through `combined`'s scorer (src/score/scorer.ts) and its updates into the
 * frontier, as the engine routes a fetched page; heap of both together, and of the scorer alone.
 *
 * `--redis [--clients 4]`: the same workload on the Redis frontier (src/cluster/redis-frontier.ts)
 * instead, from `--clients` workers at once (each its own connection, as worker processes would
 * be), against a redis-server started on loopback without persistence, no politeness delay:
 * ops/s of offer, re-prioritise, hand-out + finish, and Redis's own memory per queued URL.
 */
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import { IndexedMaxHeap } from '../src/frontier/heap.js';
import { Frontier } from '../src/frontier/frontier.js';
import { LinkRanker } from '../src/score/link-ranker.js';
import { createScorer } from '../src/score/index.js';
import { Redis } from 'ioredis';
import { RedisCrawl, RedisFrontier } from '../src/cluster/redis-frontier.js';
import { redisMissing, startRedis } from '../src/testweb/redis-server.js';

const args = process.argv.slice(2);
const flag = (name: string, def: number) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : def;
};
const N = Number(args.find((a, i) => /^\d+$/.test(a) && !args[i - 1]?.startsWith('--')) ?? 1_000_000);
const HOSTS = flag('--hosts', 10_000);
const REDIS = args.includes('--redis');
const WITH_SCORER = args.includes('--with-scorer');
const CLIENTS = flag('--clients', 4);
const LINKS_PER_PARENT = 50;

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) console.warn('warning: run with node --expose-gc for memory numbers');
/** Heap used plus ArrayBuffers, after forced GCs and a pause (buffers are freed by a background sweeper). */
const heapUsed = async () => {
  for (let k = 0; k < 3; k++) {
    gc?.();
    await new Promise((r) => setTimeout(r, 200));
  }
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
};
const MB = (b: number) => (b / 1e6).toFixed(1);

// ---- the workload: deterministic in the index, generated on the fly -------------------------
const rng = xoroshiro128plus(17);
const rand = () => uniformFloat64(rng);
const WORDS = 'world europe asia politics business markets economy climate science health technology sports football election court police minister president storm earthquake rescue floods energy prices inflation central bank talks summit report analysis opinion video live update city council school university hospital'.split(' ');
const ZH = '地震救援进展灾区继续余震股市收盘新闻报道经济政策国际体育科技教育健康天气交通文化旅游财经观察评论'.split('');
/** A small deterministic hash, so URL i is the same string every time it is generated. */
const mix = (i: number, salt: number) => {
  let h = Math.imul(i ^ salt, 0x9e3779b1);
  h ^= h >>> 15;
  h = Math.imul(h, 0x85ebca6b);
  return (h ^ (h >>> 13)) >>> 0;
};
const hostName = (h: number) => `www.${WORDS[h % WORDS.length]}${h}-news.com`;
/** As the crawl has them: parsed by the WHATWG URL parser (flat strings, as from the page's links). */
const href = (s: string) => new URL(s).href;
function urlOf(i: number): string {
  const h = mix(i, 1) % HOSTS;
  const words: string[] = [];
  const nWords = 3 + (mix(i, 2) % 5);
  for (let k = 0; k < nWords; k++) words.push(WORDS[mix(i, 10 + k) % WORDS.length]!);
  const m = 1 + (mix(i, 3) % 12);
  const d = 1 + (mix(i, 4) % 28);
  return href(`https://${hostName(h)}/2024/${String(m).padStart(2, '0')}/${String(d).padStart(2, '0')}/${WORDS[mix(i, 5) % WORDS.length]}/${words.join('-')}-${100000 + (i % 900000)}${i}.html`);
}
/** Links come in pages: 50 children share one parent URL (one string, as from one fetched page). */
function parentOf(p: number): string {
  return href(`https://${hostName(mix(p, 7) % HOSTS)}/${WORDS[p % WORDS.length]}/index-${p}.html`);
}
function anchorOf(i: number): string {
  if (mix(i, 20) % 10 < 3) {
    const n = 8 + (mix(i, 21) % 16);
    const c: string[] = [];
    for (let k = 0; k < n; k++) c.push(ZH[mix(i, 30 + k) % ZH.length]!);
    return c.join('');
  }
  const n = 3 + (mix(i, 22) % 9);
  const w: string[] = [];
  for (let k = 0; k < n; k++) w.push(WORDS[mix(i, 40 + k) % WORDS.length]!);
  w[0] = w[0]![0]!.toUpperCase() + w[0]!.slice(1);
  return w.join(' ');
}
/** combined's components as a crawl records them (the key set of a real crawl log line). */
function componentsOf(parentShared: number[]): Record<string, number> {
  const sim = rand();
  const c: Record<string, number> = {
    inlinks: 1 + Math.floor(rand() * 2),
    contextSim: sim,
    parentPriority: rand(),
    smoothedSim: sim * 0.9 + 0.05,
    pageLinkTerm: parentShared[0]!,
    wPath: rand() < 0.5 ? 1 : 0.25,
    omega: rand() < 0.5 ? 2 : 1.25,
    scaleFree: parentShared[1]!,
    stoplist: 1,
    feedbackDecay: 1,
    inlinkBonus: 1,
    linkTarget: rand(),
    linkBeyond: rand(),
    linkRanker: rand() * 4 - 2,
    ipagerank: rand(),
    iprFactor: 1 + rand() * 0.05,
    siteBonus: parentShared[2]!,
    fixedProduct: rand() * 2,
  };
  c.learnedWeight = rand();
  return c;
}

// ---- the Redis frontier: the same workload from several clients --------------------------------
async function redisFrontierBench(): Promise<void> {
  const missing = redisMissing();
  if (missing) {
    console.log(missing);
    return;
  }
  const server = await startRedis();
  const admin = new Redis(server.url);
  const usedMemory = async () => Number(/used_memory:(\d+)/.exec(await admin.info('memory'))![1]);
  try {
    const workers: RedisFrontier[] = [];
    for (let c = 0; c < CLIENTS; c++) {
      const crawl = await RedisCrawl.join({ url: server.url, crawlId: 'scale', worker: c > 0, settings: { maxPages: 0, perHostDelayMs: 0, perHostConcurrency: 1_000_000 }, log: () => undefined });
      if (c === 0) await crawl.markSeeded();
      else await crawl.waitForSeeds();
      workers.push(new RedisFrontier(crawl, { log: () => undefined }));
    }
    const memBefore = await usedMemory();
    const rate = (n: number, ms: number) => `${Math.round(n / (ms / 1000)).toLocaleString('en')}`;
    // Each client offers whole pages' links (parent, anchors, components), pipelined on its
    // connection as a worker routing a page does, and waits for its batch to be answered.
    const CHUNK = 5_000;
    let t = performance.now();
    await Promise.all(
      workers.map(async (w, c) => {
        for (let start = c * CHUNK; start < N; start += CLIENTS * CHUNK) {
          let parent = '';
          let sharedC: number[] = [];
          for (let i = start; i < Math.min(N, start + CHUNK); i++) {
            if (i % LINKS_PER_PARENT === 0 || i === start) {
              parent = parentOf(Math.floor(i / LINKS_PER_PARENT));
              sharedC = [rand(), 0.8 + rand() * 0.4, rand() < 0.5 ? 1 : 1.1];
            }
            w.offer({ url: urlOf(i), depth: 1 + (i % 5), parentUrl: parent, anchorText: anchorOf(i), score: rand(), components: componentsOf(sharedC) });
          }
          await w.isExhausted(); // answered after this client's offers
        }
      }),
    );
    const offerMs = performance.now() - t;
    const memAfter = await usedMemory();
    await workers[0].isExhausted(); // the crawl's numbers now
    const status = workers[0].shared;
    if (status.queued !== N) throw new Error(`queued ${status.queued} of ${N}`);
    // Re-prioritise: an offer of a queued URL with a new score and components (another page's in-link).
    t = performance.now();
    await Promise.all(
      workers.map(async (w, c) => {
        for (let start = c * CHUNK; start < N; start += CLIENTS * CHUNK) {
          for (let k = start; k < Math.min(N, start + CHUNK); k++) {
            const i = Math.floor(rand() * N);
            w.offer({ url: urlOf(i), depth: 2, parentUrl: parentOf(Math.floor(rand() * (N / LINKS_PER_PARENT))), anchorText: anchorOf(i), score: rand(), components: componentsOf([rand(), 1, 1]) });
          }
          await w.isExhausted();
        }
      }),
    );
    const rescoreMs = performance.now() - t;
    const memAfterRescore = await usedMemory();
    t = performance.now();
    const counts = await Promise.all(
      workers.map(async (w) => {
        let n = 0;
        for (let e = await w.next(); e; e = await w.next()) {
          await w.finish(e.uniqueKey, e.url);
          n++;
        }
        return n;
      }),
    );
    const handMs = performance.now() - t;
    const handed = counts.reduce((a, b) => a + b, 0);
    if (handed !== N) throw new Error(`handed out ${handed} of ${N}`);
    const memAfterAll = await usedMemory();
    console.log(`Redis frontier: ${N.toLocaleString('en')} queued URLs on ${HOSTS.toLocaleString('en')} hosts, the same workload as the in-memory run, ${CLIENTS} clients (redis-server on loopback, no persistence, no delay)`);
    console.log(`Redis used_memory ${MB(memAfter - memBefore)} MB queued (${((memAfter - memBefore) / N).toFixed(0)} bytes/URL: entry JSON with its components, per-host sorted set, seen set); ${MB(memAfterRescore - memBefore)} MB after ${N.toLocaleString('en')} re-prioritisations; ${MB(memAfterAll - memBefore)} MB after handing out and finishing all (the seen set stays)`);
    console.log(`offer                 ${rate(N, offerMs).padStart(10)} ops/s  (pipelined Lua scripts, all clients together)`);
    console.log(`re-prioritise         ${rate(N, rescoreMs).padStart(10)} ops/s  (offer of a queued URL, new score + components)`);
    console.log(`hand-out + finish     ${rate(handed, handMs).padStart(10)} URLs/s (two round trips each, all clients together)`);
    for (const w of workers) await w.close();
  } finally {
    admin.disconnect();
    await server.stop();
  }
}

// ---- the frontier with the scorer's state for what it queues -----------------------------------
async function frontierWithScorerBench(): Promise<void> {
  const base = await heapUsed();
  const rssBase = process.memoryUsage().rss;
  const scorer = createScorer('combined');
  const f = new Frontier();
  const pages = Math.ceil(N / LINKS_PER_PARENT);
  const t = process.hrtime.bigint();
  let queued = 0;
  for (let p = 0; p < pages; p++) {
    const links = [];
    for (let i = p * LINKS_PER_PARENT; i < Math.min(N, (p + 1) * LINKS_PER_PARENT); i++)
      links.push({ url: urlOf(i), anchorText: anchorOf(i), context: `${anchorOf(i + 1)} ${anchorOf(i + 2)}`, contextSim: rand() * 0.3, anchorKeywordFreq: rand() < 0.2 ? rand() : 0, tag: 'a' });
    const rel = rand();
    const url = parentOf(p);
    const anchors = new Map(links.map((l) => [l.url, l.anchorText]));
    for (const u of scorer.onPageFetched({ url, depth: 1 + (p % 4), rel, relevant: rel > 0.5, links })) {
      if (u.drop) continue;
      const item = { url: u.url, depth: u.depth, parentUrl: u.parentUrl ?? url, anchorText: anchors.get(u.url), score: u.score, components: u.breakdown.components };
      if (f.offer(item) === 'queued') queued++;
    }
  }
  const secs = Number(process.hrtime.bigint() - t) / 1e9;
  const both = await heapUsed();
  const rss = process.memoryUsage().rss;
  // The frontier alone at the same content, for the split: a second frontier fed from the first.
  const g = new Frontier();
  for (const e of f.queued()) g.offer({ url: e.url, depth: e.depth, parentUrl: e.parentUrl, anchorText: e.anchorText, score: e.score, components: e.components });
  const withSecond = await heapUsed();
  const frontierOnly = withSecond - both;
  if (!f.hasSeen(urlOf(0)) || !g.hasSeen(urlOf(0)) || !scorer) throw new Error('lost'); // keeps all three alive through the GCs
  console.log(`Frontier + combined's scorer: ${pages.toLocaleString('en')} pages of ${LINKS_PER_PARENT} new links routed (${secs.toFixed(0)} s), ${queued.toLocaleString('en')} URLs queued, the scorer's pending links for them`);
  console.log(`heap used ${MB(both - base)} MB for both (${((both - base) / queued).toFixed(0)} bytes per queued URL); RSS grew ${MB(rss - rssBase)} MB`);
  console.log(`of which the frontier ${MB(frontierOnly)} MB (${(frontierOnly / queued).toFixed(0)} bytes/URL) and the scorer ${MB(both - base - frontierOnly)} MB (${((both - base - frontierOnly) / queued).toFixed(0)} bytes/URL: in-link evidence, link features, link graph, pages)`);
}

if (WITH_SCORER) {
  await frontierWithScorerBench();
  process.exit(0);
}

if (REDIS) {
  await redisFrontierBench();
  process.exit(0);
}

// ---- the Frontier ------------------------------------------------------------------------------
const base = await heapUsed();
const rssBase = process.memoryUsage().rss;
const f = new Frontier();
let offerNs = 0;
let parent = '';
let shared: number[] = [];
const BATCH = 10_000;
for (let start = 0; start < N; start += BATCH) {
  const items = [];
  for (let i = start; i < Math.min(N, start + BATCH); i++) {
    if (i % LINKS_PER_PARENT === 0) {
      parent = parentOf(i / LINKS_PER_PARENT);
      shared = [rand(), 0.8 + rand() * 0.4, rand() < 0.5 ? 1 : 1.1];
    }
    items.push({ url: urlOf(i), depth: 1 + (i % 5), parentUrl: parent, anchorText: anchorOf(i), score: rand(), components: componentsOf(shared) });
  }
  const t = process.hrtime.bigint();
  for (const it of items) if (f.offer(it) !== 'queued') throw new Error(`not queued: ${it.url}`);
  offerNs += Number(process.hrtime.bigint() - t);
}
const afterOffer = await heapUsed();
const rssAfterOffer = process.memoryUsage().rss;
if (f.size !== N) throw new Error(`queued ${f.size} of ${N}`);

// Re-prioritise: a queued URL found again by another page gets a new score and components.
const M = N;
let rescoreNs = 0;
for (let start = 0; start < M; start += BATCH) {
  const items = [];
  for (let k = start; k < Math.min(M, start + BATCH); k++) {
    const i = Math.floor(rand() * N);
    items.push({ url: urlOf(i), depth: 2, parentUrl: parentOf(Math.floor(rand() * (N / LINKS_PER_PARENT))), anchorText: anchorOf(i), score: rand(), components: componentsOf(shared) });
  }
  const t = process.hrtime.bigint();
  for (const it of items) if (f.offer(it) !== 'rescored') throw new Error(`not rescored: ${it.url}`);
  rescoreNs += Number(process.hrtime.bigint() - t);
}
const afterRescore = await heapUsed();

// Hand out everything, best first, finishing in batches (as a crawl with many pages in flight).
let handNs = 0;
let finishNs = 0;
let handed = 0;
let last = Infinity;
const PAR = 1000;
for (;;) {
  const out = [];
  let t = process.hrtime.bigint();
  for (let k = 0; k < PAR; k++) {
    const e = await f.next();
    if (!e) break;
    out.push(e);
  }
  handNs += Number(process.hrtime.bigint() - t);
  if (!out.length) break;
  for (const e of out) {
    // Within one batch nothing is re-queued, so scores come out in order (ties: older first).
    if (e.score > last + 1e-6) throw new Error('hand-out order violated');
    last = e.score;
  }
  last = Infinity;
  t = process.hrtime.bigint();
  for (const e of out) f.finish(e.uniqueKey, e.url);
  finishNs += Number(process.hrtime.bigint() - t);
  handed += out.length;
}
if (handed !== N) throw new Error(`handed out ${handed} of ${N}`);
const afterAll = await heapUsed();
if (!f.hasSeen(urlOf(0))) throw new Error('seen set lost a URL'); // (also keeps the frontier alive through the GC above)

const perSec = (ops: number, ns: number) => Math.round(ops / (ns / 1e9)).toLocaleString('en');
const us = (ops: number, ns: number) => (ns / ops / 1000).toFixed(2);
let urlChars = 0;
let anchorChars = 0;
for (let i = 0; i < 1000; i++) (urlChars += urlOf(i).length), (anchorChars += anchorOf(i).length);
console.log(`Frontier: ${N.toLocaleString('en')} queued URLs on ${HOSTS.toLocaleString('en')} hosts (${LINKS_PER_PARENT} links per parent page; URLs ${(urlChars / 1000).toFixed(0)} chars and anchors ${(anchorChars / 1000).toFixed(0)} chars on average, 3 in 10 anchors Chinese; 19 score components each)`);
console.log(`heap used ${MB(afterOffer - base)} MB after forced GC, including the URL strings (${((afterOffer - base) / N).toFixed(1)} bytes/URL); RSS grew ${MB(rssAfterOffer - rssBase)} MB`);
console.log(`after ${M.toLocaleString('en')} re-prioritisations: ${MB(afterRescore - base)} MB; after handing out and finishing all: ${MB(afterAll - base)} MB (the seen set stays)`);
console.log(`offer          ${perSec(N, offerNs).padStart(10)} ops/s  (${us(N, offerNs)} µs/op: URL key, de-duplication, host heaps)`);
console.log(`re-prioritise  ${perSec(M, rescoreNs).padStart(10)} ops/s  (${us(M, rescoreNs)} µs/op: offer of a queued URL, new score + components)`);
console.log(`hand-out       ${perSec(N, handNs).padStart(10)} ops/s  (${us(N, handNs)} µs/op: next(), best host first)`);
console.log(`finish         ${perSec(N, finishNs).padStart(10)} ops/s  (${us(N, finishNs)} µs/op)`);

// ---- the bare heap, keyed by string (hosts use it) ------------------------------------------
{
  const keys = Array.from({ length: N }, (_, i) => `k${i}`);
  const h = new IndexedMaxHeap();
  let t = process.hrtime.bigint();
  for (let i = 0; i < N; i++) h.push(keys[i]!, rand());
  const pushNs = Number(process.hrtime.bigint() - t);
  t = process.hrtime.bigint();
  for (let i = 0; i < N; i++) h.update(keys[Math.floor(rand() * N)]!, rand());
  const updateNs = Number(process.hrtime.bigint() - t);
  t = process.hrtime.bigint();
  let prev = Infinity;
  for (let e = h.pop(); e; e = h.pop()) {
    if (e.score > prev) throw new Error('heap order violated');
    prev = e.score;
  }
  const popNs = Number(process.hrtime.bigint() - t);
  console.log(`\nIndexedMaxHeap (string keys), N = ${N.toLocaleString('en')}: push ${us(N, pushNs)} µs, update ${us(N, updateNs)} µs, pop ${us(N, popNs)} µs`);
}

// ---- the link ranker's features: kept by the scorer per in-link (not by the frontier) -------
{
  const n = Math.min(N, 100_000);
  const ranker = new LinkRanker();
  const b = await heapUsed();
  const kept = [];
  for (let i = 0; i < n; i++) {
    const url = urlOf(i);
    kept.push(ranker.features({ url, anchorText: anchorOf(i), context: `${anchorOf(i + 1)} ${anchorOf(i + 2)} ${anchorOf(i + 3)}`, host: hostName(mix(i, 1) % HOSTS), parentRelevant: i % 3 === 0, sinceRelevant: i % 4 }));
  }
  const bytes = await heapUsed() - b;
  const entries = kept.reduce((s, k) => s + k.n, 0);
  console.log(`link ranker features (scorer side, per in-link): ${(bytes / n).toFixed(1)} bytes/link, ${(entries / n).toFixed(1)} hashed features per link (${n.toLocaleString('en')} links)`);
}
