/**
 * What the shared scorer's snapshot costs (src/cluster/redis-scorer-state.ts), against what it
 * saves a late worker: a crawl's real `scorer-pages.jsonl` (repeated with their own URLs for a
 * longer crawl) fed into a `combined` scorer with the default score options; then the state's
 * bytes (v8, and gzipped as Redis keeps it), the writer's pause (serialise; gzip runs off the main
 * thread), a joiner's restore (gunzip + deserialise + restore) against replaying every page, and
 * the heap the scorer holds. No Redis: CPU and bytes only.
 *
 *   npx tsx bench/scorer-snapshot.ts <run>/scorer-pages.jsonl [--repeat 1,5,25]
 */
import { performance } from 'node:perf_hooks';
import { deserialize, serialize } from 'node:v8';
import { gunzipSync, gzipSync } from 'node:zlib';
import { ScorerInputLog } from '../src/crawl/resume.js';
import { createScorer } from '../src/score/index.js';
import type { FetchedPage } from '../src/score/types.js';

const file = process.argv[2];
const at = process.argv.indexOf('--repeat');
const repeats = (at > 0 ? process.argv[at + 1] : '1,5,25').split(',').map(Number);
if (!file) throw new Error('usage: bench/scorer-snapshot.ts <scorer-pages.jsonl> [--repeat 1,5,25]');
const base = ScorerInputLog.read(file);
// A repeated copy gets its own URLs (a longer crawl's pages, not the same ones again).
const copy = (r: number): FetchedPage[] => (r === 0 ? base : (JSON.parse(JSON.stringify(base).replaceAll('http://', `http://r${r}.`)) as FetchedPage[]).map((p) => ({ ...p, publishTime: p.publishTime && new Date(p.publishTime) })));
const ms = (t: number) => (performance.now() - t).toFixed(0);

console.log(`${file}: ${base.length} pages a copy; combined, default score options`);
console.log('| pages | replay all (ms) | state v8 | gzipped (Redis) | serialise (ms, writer pauses) | gzip (ms, off thread) | restore: gunzip + deserialise + restore (ms) | input JSON of the pages |');
console.log('|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const repeat of repeats) {
  const pages = Array.from({ length: repeat }, (_, r) => copy(r)).flat();
  const scorer = createScorer('combined');
  let t = performance.now();
  for (const p of pages) scorer.onPageFetched(p);
  const replay = ms(t);
  t = performance.now();
  const raw = serialize(scorer.state());
  const ser = ms(t);
  t = performance.now();
  const gz = gzipSync(raw);
  const zip = ms(t);
  t = performance.now();
  createScorer('combined').restore(deserialize(gunzipSync(gz)));
  const restore = ms(t);
  const input = pages.reduce((n, p) => n + JSON.stringify(p).length, 0);
  console.log(`| ${pages.length} | ${replay} | ${(raw.length / 1e6).toFixed(1)} MB | ${(gz.length / 1e6).toFixed(2)} MB | ${ser} | ${zip} | ${restore} | ${(input / 1e6).toFixed(1)} MB |`);
}
