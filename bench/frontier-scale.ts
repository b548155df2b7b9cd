/**
 * The in-memory frontier at scale (issue #17): N queued URLs with what a crawl really queues
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
 */
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import { IndexedMaxHeap } from '../src/frontier/heap.js';
import { Frontier } from '../src/frontier/frontier.js';
import { LinkRanker } from '../src/score/link-ranker.js';

const args = process.argv.slice(2);
const flag = (name: string, def: number) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : def;
};
const N = Number(args.find((a, i) => /^\d+$/.test(a) && !args[i - 1]?.startsWith('--')) ?? 1_000_000);
const HOSTS = flag('--hosts', 10_000);
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
  const entries = kept.reduce((s, k) => s + k.idx.length, 0);
  console.log(`link ranker features (scorer side, per in-link): ${(bytes / n).toFixed(1)} bytes/link, ${(entries / n).toFixed(1)} hashed features per link (${n.toLocaleString('en')} links)`);
}
