/**
 * What the shared scorer's inputs cost in Redis per page, before and after archiving
 * (src/cluster/redis-scorer-snapshot.ts): a crawl's real `scorer-pages.jsonl` published by 3
 * workers into one stream on a loopback redis-server, once as a plain stream (no worker trims it)
 * and once archived; bytes by MEMORY USAGE (SAMPLES 0: exact) of every key, divided by pages.
 *
 *   npx tsx bench/scorer-archive-bytes.ts <run>/scorer-pages.jsonl [--repeat 4]
 */
import { readFileSync } from 'node:fs';
import { Redis } from 'ioredis';
import { SharedInputStream } from '../src/cluster/redis-input-stream.js';
import { ArchivedInputStream } from '../src/cluster/redis-scorer-snapshot.js';
import { startRedis } from '../src/testweb/redis-server.js';

const file = process.argv[2];
const repeat = Number(process.argv[process.argv.indexOf('--repeat') + 1]) || 1;
if (!file) throw new Error('usage: bench/scorer-archive-bytes.ts <scorer-pages.jsonl> [--repeat N]');
const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
// Repeated copies get their own URLs (a longer crawl's pages, not the same ones again).
const pages = Array.from({ length: repeat }, (_, r) => lines.map((l) => JSON.parse(r ? l.replaceAll('http://', `http://r${r}.`) : l) as object)).flat();

const redis = await startRedis({});
const bytes = async (r: Redis, prefix: string) => {
  let total = 0;
  for (const k of await r.keys(`${prefix}*`)) total += Number(await r.call('MEMORY', 'USAGE', k, 'SAMPLES', '0'));
  return total;
};
try {
  const rows: string[] = [];
  for (const mode of ['stream', 'archived'] as const) {
    const conns = [0, 1, 2].map(() => new Redis(redis.url));
    const key = `fc:{${mode}}:pages`;
    const ws = conns.map((c, w) => (mode === 'stream' ? new SharedInputStream<object>(c, key, `w${w}`, (x) => x as object) : new ArchivedInputStream<object>(c, key, `w${w}`, (x) => x as object)));
    for (let i = 0; i < pages.length; i++) {
      await ws[i % 3].publish(pages[i]);
      if (i % 10 === 9) for (const s of ws) await s.pull();
    }
    for (const s of ws) await s.pull();
    const b = await bytes(conns[0], `fc:{${mode}}`);
    rows.push(`| ${mode} | ${pages.length} | ${await conns[0].xlen(key)} | ${(b / 1e6).toFixed(2)} MB | ${Math.round(b / pages.length)} B |`);
    for (const c of conns) c.disconnect();
  }
  console.log(`${file} (${lines.length} pages × ${repeat}, JSON ${Math.round(pages.reduce((n: number, p) => n + JSON.stringify(p).length, 0) / pages.length)} B/page)`);
  console.log('| stream | pages | stream entries | Redis bytes | per page |\n|---|---:|---:|---:|---:|');
  for (const r of rows) console.log(r);
} finally {
  await redis.stop();
}
