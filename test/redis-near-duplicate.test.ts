/**
 * The near-duplicate index shared by the workers of a Redis crawl (src/cluster/redis-near-duplicate.ts),
 * against a real redis-server on a loopback port: each "worker" is its own connection and mirror.
 */
import { describe, expect, it } from 'vitest';
import { SharedNearDuplicates } from '../src/cluster/redis-near-duplicate.js';
import { crawlPrefix } from '../src/cluster/redis-frontier.js';
import { decodeSketch, NearDuplicateIndex, shingleHashes } from '../src/text/near-duplicate.js';
import { redisMissing } from '../src/testweb/redis-server.js';
import { useLocalRedis } from './helpers/local-redis.js';
import { chinese, words } from './helpers/texts.js';

const missing = redisMissing();
if (missing) console.warn(missing);

let local: ReturnType<typeof useLocalRedis>;
let n = 0;

function workers(crawlId: string, count: number, maxPages?: number): SharedNearDuplicates[] {
  return Array.from({ length: count }, () => {
    return new SharedNearDuplicates(local.client(), crawlPrefix(crawlId), { maxPages });
  });
}

/** The shared list as stored, oldest first. */
async function stored(crawlId: string): Promise<string[]> {
  return local.client().lrange(`${crawlPrefix(crawlId)}neardup`, 0, -1);
}

describe.skipIf(!!missing)('the near-duplicate index shared through Redis (real redis-server)', () => {
  local = useLocalRedis();

  it("one worker's page makes another worker's view of it a near-duplicate; a page fetched again is itself", async () => {
    const id = `views-${n++}`;
    const [a, b] = workers(id, 2);
    const posts = Array.from({ length: 10 }, (_, i) => chinese(i + 1, 120));
    expect(await a.check('https://f.test/thread-1', posts.join('\n'), 'k-thread')).toBeUndefined();
    expect(await b.check('https://f.test/thread-1?authorid=3', `${posts[2]}\n${posts[7]}`, 'k-view')).toBe('https://f.test/thread-1');
    // Its lease expired with worker a: worker b fetches the thread again: the same page, not a copy, not stored twice.
    expect(await b.check('https://f.test/thread-1', posts.join('\n'), 'k-thread')).toBeUndefined();
    expect((await stored(id)).length).toBe(1);
    // A near-duplicate the mirror knows costs no round trip.
    const calls = b.stats.calls;
    expect(await b.check('https://f.test/thread-1?authorid=4', posts[5], 'k-view2')).toBe('https://f.test/thread-1');
    expect(b.stats.calls).toBe(calls);
  });

  it('four workers checking copies of the same pages at once: one copy of each accepted, and the list is an order with no page contained in an earlier one', async () => {
    const id = `race-${n++}`;
    const ws = workers(id, 4);
    const pages = Array.from({ length: 12 }, (_, p) => Array.from({ length: 6 }, (_, i) => words(p * 10 + i + 1, 60)));
    // Each worker gets every page in its own form (identical, reversed posts, shuffled), all at once.
    const form = (posts: string[], w: number) => (w === 0 ? posts : w === 1 ? [...posts].reverse() : w === 2 ? [...posts.slice(3), ...posts.slice(0, 3)] : [...posts.slice(1), posts[0]]).join('\n');
    const answers = await Promise.all(ws.flatMap((w, wi) => pages.map((posts, p) => w.check(`https://x.test/p${p}/w${wi}`, form(posts, wi), `p${p}/w${wi}`))));
    const accepted = answers.filter((a) => a === undefined).length;
    expect(accepted).toBe(pages.length);
    const list = (await stored(id)).map(decodeSketch);
    expect(list.length).toBe(pages.length);
    // Replayed in the list's order through one local index, no page is a near-duplicate of an earlier one.
    const one = new NearDuplicateIndex();
    for (const s of list) {
      expect(one.find(fullOf(s.url, pages, form), s.id)).toBeUndefined();
      one.add(s);
    }
    // Every page's copies name the one accepted copy.
    for (const [i, a] of answers.entries()) {
      if (a === undefined) continue;
      expect(list.map((s) => s.url)).toContain(a);
      expect(a.split('/')[3]).toBe(`p${i % pages.length}`);
    }
  });

  it('Redis restarted empty: the workers carry on with what their mirrors know, and the list starts again', async () => {
    const id = `flushed-${n++}`;
    const [a, b] = workers(id, 2);
    const texts = Array.from({ length: 4 }, (_, i) => words(i + 600, 150));
    expect(await a.check('t0', texts[0], 't0')).toBeUndefined();
    expect(await b.check('t1', texts[1], 't1')).toBeUndefined();
    await local.client().flushdb();
    // a is ahead of the emptied list: its new page is appended after it reads from the start.
    expect(await a.check('t2', texts[2], 't2')).toBeUndefined();
    expect((await stored(id)).map((l) => decodeSketch(l).id)).toEqual(['t2']);
    // b learns it, and still knows t0 and t1 from before.
    expect(await b.check('t2-copy', texts[2], 't2-copy')).toBe('t2');
    expect(await b.check('t0-copy', texts[0], 't0-copy')).toBe('t0');
  });

  it('bounded: Redis keeps the newest maxPages sketches, and a worker far behind reads from the oldest kept', async () => {
    const id = `bounded-${n++}`;
    const [a, b] = workers(id, 2, 5);
    const texts = Array.from({ length: 9 }, (_, i) => words(i + 800, 100));
    for (const [i, t] of texts.entries()) expect(await a.check(`u${i}`, t, `u${i}`)).toBeUndefined();
    const list = await stored(id);
    expect(list.map((l) => decodeSketch(l).id)).toEqual(['u4', 'u5', 'u6', 'u7', 'u8']);
    // b joins late: the oldest pages are forgotten by all, the kept ones known.
    expect(await b.check('again8', texts[8], 'again8')).toBe('u8');
    expect(await b.check('again0', texts[0], 'again0')).toBeUndefined();
    expect(b.index.size).toBeLessThanOrEqual(5);
  });
});

function fullOf(url: string, pages: string[][], form: (posts: string[], w: number) => string): Uint32Array {
  const [, p, w] = /p(\d+)\/w(\d+)$/.exec(url)!;
  return shingleHashes(form(pages[Number(p)], Number(w)));
}
