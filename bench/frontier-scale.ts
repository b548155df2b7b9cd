/**
 * Frontier heap at scale: push 1,000,000 URLs, update 1,000,000 random scores, pop all; then the
 * whole Frontier (offer, rescore, fetchNextRequest + markRequestHandled) at the same N.
 * Run: node --expose-gc --import tsx bench/frontier-scale.ts [N]
 * Prints µs per operation and the heap's own bytes per URL (the URL strings are allocated
 * before the first measurement, so they are not counted: they exist in any frontier).
 */
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import { IndexedMaxHeap } from '../src/frontier/heap.js';

const N = Number(process.argv[2] ?? 1_000_000);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) console.warn('warning: run with node --expose-gc for memory numbers');
const heapUsed = () => {
  gc?.();
  gc?.();
  return process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
};

const rng = xoroshiro128plus(7);
const urls = Array.from({ length: N }, (_, i) => `https://news.example.com/2024/${i % 997}/article-${i}.html`);
const scores = Float64Array.from({ length: N }, () => uniformFloat64(rng));
const updates = Int32Array.from({ length: N }, () => Math.floor(uniformFloat64(rng) * N));
const stringsBytes = heapUsed();

const h = new IndexedMaxHeap();
let t = process.hrtime.bigint();
for (let i = 0; i < N; i++) h.push(urls[i]!, scores[i]!);
const pushNs = Number(process.hrtime.bigint() - t);
const afterPush = heapUsed();

t = process.hrtime.bigint();
for (let i = 0; i < N; i++) h.update(urls[updates[i]!]!, uniformFloat64(rng));
const updateNs = Number(process.hrtime.bigint() - t);

t = process.hrtime.bigint();
let last = Infinity;
let popped = 0;
for (let e = h.pop(); e; e = h.pop()) {
  if (e.score > last) throw new Error('heap order violated');
  last = e.score;
  popped++;
}
const popNs = Number(process.hrtime.bigint() - t);
if (popped !== N) throw new Error(`popped ${popped} of ${N}`);

const us = (ns: number) => (ns / N / 1000).toFixed(3);
console.log(`N = ${N.toLocaleString('en')}`);
console.log(`push   ${us(pushNs)} µs/op`);
console.log(`update ${us(updateNs)} µs/op (random key, random new score)`);
console.log(`pop    ${us(popNs)} µs/op`);
console.log(`heap structure: ${((afterPush - stringsBytes) / N).toFixed(1)} bytes/URL (excluding the URL strings themselves)`);

// ---- The whole Frontier: offer (normalise + de-duplicate + per-host heaps), rescore, hand out.
// URLs spread over 1,000 hosts; no politeness delay, so every hand-out is a real pick.
{
  const { Frontier, uniqueKeyOf } = await import('../src/frontier/frontier.js');
  const hostUrls = Array.from({ length: N }, (_, i) => `https://h${i % 1000}.example.com/2024/${i % 997}/article-${i}.html`);
  const base = heapUsed();
  const f = new Frontier();
  let t0 = process.hrtime.bigint();
  for (let i = 0; i < N; i++) f.offer({ url: hostUrls[i]!, depth: 1, score: scores[i]! });
  const offerNs = Number(process.hrtime.bigint() - t0);
  const afterOffer = heapUsed();
  const keys = hostUrls.map((u) => uniqueKeyOf(u));
  t0 = process.hrtime.bigint();
  for (let i = 0; i < N; i++) f.rescore(keys[updates[i]!]!, uniformFloat64(rng));
  const rescoreNs = Number(process.hrtime.bigint() - t0);
  t0 = process.hrtime.bigint();
  let n = 0;
  for (let r = await f.requestManager.fetchNextRequest(); r; r = await f.requestManager.fetchNextRequest()) {
    await f.requestManager.markRequestHandled(r);
    n++;
  }
  const fetchNs = Number(process.hrtime.bigint() - t0);
  if (n !== N) throw new Error(`handed out ${n} of ${N}`);
  console.log(`\nFrontier (${N.toLocaleString('en')} URLs on 1,000 hosts)`);
  console.log(`offer            ${us(offerNs)} µs/op (URL normalisation, de-duplication, host heaps)`);
  console.log(`rescore          ${us(rescoreNs)} µs/op`);
  console.log(`fetchNextRequest ${us(fetchNs)} µs/op (+ markRequestHandled)`);
  console.log(`frontier: ${((afterOffer - base) / N).toFixed(1)} bytes/URL queued (entries, keys, seen set, heaps; URL strings excluded)`);
}
