/**
 * What the near-duplicate index costs: heap bytes per remembered page of the
 * in-process index (src/text/near-duplicate.ts) at its default limit, bytes per page of its
 * `--resume` journal line, and for a Redis crawl (src/cluster/redis-near-duplicate.ts) Redis's
 * memory per page and round trips per page when several workers check pages at once.
 * Pages: forum-post-like Chinese texts of ~1,500 characters; a quarter of each worker's pages
 * are excerpts ("only this author" views) of pages other workers checked.
 *
 *   npm run bench:near-duplicate -- [--pages 20000] [--workers 4] [--redis-pages 4000]
 */
import { Redis } from 'ioredis';
import { SharedNearDuplicates } from '../src/cluster/redis-near-duplicate.js';
import { crawlPrefix } from '../src/cluster/redis-frontier.js';
import { encodeSketch, NearDuplicateIndex } from '../src/text/near-duplicate.js';
import { redisMissing, startRedis } from '../src/testweb/redis-server.js';

const arg = (name: string, d: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : d;
};
const PAGES = arg('pages', 20_000);
const WORKERS = arg('workers', 4);
const REDIS_PAGES = arg('redis-pages', 4_000);

/**
 * Post `p` of page `page`: 150 characters drawn from 2,500 common CJK code points, the first
 * ones far more often (roughly as in real text); distinct pages share no long runs.
 */
function post(page: number, p: number): string {
  let x = (page * 7919 + p * 104729 + 1) >>> 0;
  let s = '';
  for (let i = 0; i < 150; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    const u = ((x >>> 8) % 10_000) / 10_000;
    s += String.fromCharCode(0x4e00 + Math.floor(2500 * u * u));
  }
  return s;
}
const page = (n: number) => Array.from({ length: 10 }, (_, p) => post(n, p)).join('\n');

/** JS heap plus typed arrays' backing stores (outside the heap: the samples and the hash table). */
function heapMb(): number {
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

// 1. The in-process index at its limit: heap per page, journal line per page.
if (!(globalThis as { gc?: () => void }).gc) console.log('(run with node --expose-gc for exact heap figures: npm run bench:near-duplicate)');
const before = heapMb();
const idx = new NearDuplicateIndex({ maxPages: PAGES });
let line = 0;
const t0 = performance.now();
for (let i = 0; i < PAGES; i++) {
  const url = `https://bbs.example.com/thread-${100000 + i}-1-1.html`;
  idx.check(url, page(i), url);
  if (i === 0) line = Buffer.byteLength(encodeSketch([...idx.sketches()][0])) + 1;
}
const ms = (performance.now() - t0) / PAGES;
const heap = heapMb() - before;
console.log(`in-process index: ${PAGES} pages remembered, heap + typed arrays ${(heap / 1e6).toFixed(1)} MB = ${Math.round(heap / PAGES)} bytes/page; check ${ms.toFixed(2)} ms/page (~1,500-character pages); --resume journal ${line} bytes/page`);

// 2. Redis: workers checking at once.
const missing = redisMissing();
if (missing) {
  console.log(`Redis part skipped: ${missing}`);
} else {
  const redis = await startRedis({});
  const prefix = crawlPrefix('bench-neardup');
  const clients = Array.from({ length: WORKERS }, () => new Redis(redis.url));
  const ws = clients.map((c) => new SharedNearDuplicates(c, prefix));
  const perWorker = Math.floor(REDIS_PAGES / WORKERS);
  const t1 = performance.now();
  let dups = 0;
  await Promise.all(
    ws.map(async (w, wi) => {
      for (let i = 0; i < perWorker; i++) {
        const n = wi * perWorker + i;
        // Every fourth page: a view (two posts) of a page another worker checked a little earlier.
        const other = ((wi + 1) % WORKERS) * perWorker + Math.max(0, i - 3);
        const view = i % 4 === 3;
        const text = view ? `${post(other, 2)}\n${post(other, 7)}` : page(n);
        const url = view ? `https://bbs.example.com/forum.php?tid=${other}&authorid=${n}` : `https://bbs.example.com/thread-${n}-1-1.html`;
        if ((await w.check(url, text, url)) !== undefined) dups++;
      }
    }),
  );
  const secs = (performance.now() - t1) / 1000;
  const checked = ws.reduce((s, w) => s + w.stats.checked, 0);
  const calls = ws.reduce((s, w) => s + w.stats.calls, 0);
  const probe = new Redis(redis.url);
  const listBytes = Number(await probe.memory('USAGE', `${prefix}neardup`, 'SAMPLES', 0));
  const stored = await probe.llen(`${prefix}neardup`);
  console.log(
    `Redis, ${WORKERS} workers at once: ${checked} pages checked (${dups} near-duplicates), ${calls} round trips = ${(calls / checked).toFixed(2)} per page ` +
      `(${(calls / (checked - dups)).toFixed(2)} per new page); list ${stored} sketches, ${(listBytes / 1e6).toFixed(1)} MB = ${Math.round(listBytes / stored)} bytes/page; ${(checked / secs).toFixed(0)} pages/s`,
  );
  probe.disconnect();
  for (const c of clients) c.disconnect();
  await redis.stop();
}
