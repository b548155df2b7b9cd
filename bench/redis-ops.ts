/**
 * `npx tsx bench/redis-ops.ts [N] [--clients 4]`: the Redis frontier's operations per second on
 * the frontier-scale workload (bench/frontier-scale.ts: N URLs over 1,000 hosts, no politeness
 * delay, every hand-out a real pick): offer N URLs, re-score N/2 of them, then hand out and
 * finish them all, from `--clients` workers at once (each its own connection, as worker
 * processes would be), against a redis-server this bench starts on loopback (no persistence).
 * Also Redis's own memory per queued URL (INFO used_memory). Default N = 200,000.
 */
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { RedisCrawl, RedisFrontier } from '../src/frontier/redis.js';
import { uniqueKeyOf } from '../src/frontier/url-key.js';
import { redisMissing, startRedis } from '../src/testweb/redis-server.js';

const { values, positionals } = parseArgs({ options: { clients: { type: 'string', default: '4' } }, allowPositionals: true });
const N = Number(positionals[0] ?? 200_000);
const clients = Number(values.clients);
if (!Number.isInteger(N) || N < 1 || !Number.isInteger(clients) || clients < 1) {
  process.stderr.write('error: usage: npx tsx bench/redis-ops.ts [N] [--clients C]\n');
  process.exit(2);
}
const missing = redisMissing();
if (missing) {
  process.stderr.write(`${missing}\n`);
  process.exit(0);
}

const redis = await startRedis();
const admin = new Redis(redis.url);
try {
  const crawlId = 'ops';
  const workers: RedisFrontier[] = [];
  for (let i = 0; i < clients; i++) {
    const crawl = await RedisCrawl.join({ url: redis.url, crawlId, worker: i > 0, settings: { maxPages: 0, perHostDelayMs: 0, perHostConcurrency: 1_000_000 }, log: () => undefined });
    workers.push(new RedisFrontier(crawl, { log: () => undefined }));
  }
  workers[0].markSeeded();
  const memBefore = Number(/used_memory:(\d+)/.exec(await admin.info('memory'))![1]);
  const url = (i: number) => `https://h${i % 1000}.example.com/2024/${i % 997}/article-${i}.html`;
  const rate = (n: number, ms: number) => `${Math.round(n / (ms / 1000)).toLocaleString('en')} ops/s`;

  // Offers: each client sends its share, pipelined on its connection (as a worker routing pages does).
  let t = performance.now();
  const chunk = 10_000;
  await Promise.all(
    workers.map(async (w, c) => {
      for (let start = c * chunk; start < N; start += clients * chunk) {
        for (let i = start; i < Math.min(N, start + chunk); i++) w.offer({ url: url(i), depth: 1, score: (i * 7919) % 1000 / 1000 });
        await w.isExhausted(); // waits for this client's pipelined offers
      }
    }),
  );
  const offerMs = performance.now() - t;
  const memAfter = Number(/used_memory:(\d+)/.exec(await admin.info('memory'))![1]);

  t = performance.now();
  const rescores = Math.floor(N / 2);
  await Promise.all(
    workers.map(async (w, c) => {
      for (let i = c; i < rescores; i += clients) w.rescore(uniqueKeyOf(url((i * 2654435761) % N)), Math.random());
      await w.isExhausted();
    }),
  );
  const rescoreMs = performance.now() - t;

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

  console.log(`Redis frontier, N = ${N.toLocaleString('en')} URLs on 1,000 hosts, ${clients} clients (redis-server 7 on loopback, no persistence)`);
  console.log(`| operation | ops/s |`);
  console.log(`|---|---:|`);
  console.log(`| offer (pipelined) | ${rate(N, offerMs)} |`);
  console.log(`| rescore (pipelined) | ${rate(rescores, rescoreMs)} |`);
  console.log(`| hand-out + finish (two round trips each) | ${rate(handed, handMs)} |`);
  console.log(`Redis memory: ${((memAfter - memBefore) / N).toFixed(0)} bytes per queued URL (entry JSON, per-host sorted set, seen set)`);
  console.log(`Command: npx tsx bench/redis-ops.ts ${N} --clients ${clients}`);
  for (const w of workers) await w.close();
} finally {
  admin.disconnect();
  await redis.stop();
}
