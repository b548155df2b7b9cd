/**
 * The shared scorer's `pages` stream trimmed into a gzipped archive (src/cluster/redis-scorer-snapshot.ts),
 * against a real redis-server on a loopback port: workers publish scorer inputs and read each
 * other's; the stream stays bounded; a worker that joins after the trimming gets every page in the
 * order one that read the whole stream from the start got them, so its scorer (a pure function of
 * its inputs in order, src/score/scorer.ts) ends in the same state.
 */
import { describe, expect, it } from 'vitest';
import { ArchivedInputStream } from '../src/cluster/redis-scorer-snapshot.js';
import { SharedInputStream } from '../src/cluster/redis-input-stream.js';
import { redisMissing } from '../src/testweb/redis-server.js';
import { useLocalRedis } from './helpers/local-redis.js';

const missing = redisMissing();
if (missing) console.warn(missing);

interface Input { url: string; links: string[] }
const input = (w: number, i: number): Input => ({ url: `http://h${w}.test/p/${i}`, links: Array.from({ length: 20 }, (_, k) => `http://h${(w + k) % 5}.test/p/${i * 7 + k}?ref=${w}`) });

describe.skipIf(!!missing)('the scorer pages stream, archived and trimmed (real redis-server)', () => {
  const { client } = useLocalRedis();

  it('a worker joining after the trimming reads every page in the order of one that read the whole stream; the stream stays bounded', async () => {
    const key = 'fc:{t1}:pages';
    const chunk = 20;
    const ws = [0, 1, 2].map((w) => new ArchivedInputStream<Input>(client(), key, `w${w}`, (r) => r as Input, chunk));
    // A reader from the start that never archives (the stream as it was before): the reference order.
    const whole = new SharedInputStream<Input>(client(), key, 'reader', (r) => r as Input);
    const seen: Input[] = [];
    let maxLength = 0;
    for (let i = 0; i < 100; i++) {
      for (const [w, s] of ws.entries()) await s.publish(input(w, i));
      // The reference reads before the workers' pulls can trim what it has not read yet.
      seen.push(...(await whole.pull()));
      for (const s of ws) await s.pull();
      maxLength = Math.max(maxLength, await client().xlen(key));
    }
    expect(seen).toHaveLength(300);
    expect(ws.reduce((n, s) => n + s.archivedChunks, 0)).toBeGreaterThan(5);
    expect(maxLength).toBeLessThanOrEqual(2 * chunk + ws.length);
    expect(await client().xlen(key)).toBeLessThanOrEqual(2 * chunk + ws.length);
    // A worker that joins now (most of the stream is archived), and a restarted w1.
    const late = new ArchivedInputStream<Input>(client(), key, 'w9', (r) => r as Input, chunk);
    expect(await late.pull()).toEqual(seen);
    const restarted = new ArchivedInputStream<Input>(client(), key, 'w1', (r) => r as Input, chunk);
    expect(await restarted.pull()).toEqual(seen.filter((p) => !p.url.startsWith('http://h1.')));
    // More pages after the join: each once, in order.
    for (const [w, s] of ws.entries()) await s.publish(input(w, 100));
    seen.push(...(await whole.pull()));
    expect(await late.pull()).toEqual(seen.slice(300));
  });

  it('two workers archiving at once: one chunk wins, no page lost or doubled', async () => {
    const key = 'fc:{t2}:pages';
    const chunk = 10;
    const pub = new ArchivedInputStream<Input>(client(), key, 'p', (r) => r as Input, chunk);
    for (let i = 0; i < 35; i++) await pub.publish(input(0, i));
    const a = new ArchivedInputStream<Input>(client(), key, 'a', (r) => r as Input, chunk);
    const b = new ArchivedInputStream<Input>(client(), key, 'b', (r) => r as Input, chunk);
    const [ra, rb] = await Promise.all([a.pull(), b.pull()]);
    expect(ra.map((p) => p.url)).toEqual(rb.map((p) => p.url));
    expect(ra).toHaveLength(35);
    expect(a.archivedChunks + b.archivedChunks).toBe(1);
    expect(await client().xlen(key)).toBe(25);
    const late = new ArchivedInputStream<Input>(client(), key, 'c', (r) => r as Input, chunk);
    expect((await late.pull()).map((p) => p.url)).toEqual(ra.map((p) => p.url));
  });
});
