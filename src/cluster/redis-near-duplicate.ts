/**
 * One near-duplicate index for all workers of a Redis crawl: a page whose text
 * a page of ANY worker showed is a near-duplicate (two workers no longer both save the same
 * thread's "only this author" views).
 *
 * In Redis: a list of page sketches (src/text/near-duplicate.ts `encodeSketch`, ~1.4 KB each) in
 * the order they were accepted, and the count ever appended. Each worker keeps a mirror of the
 * list (a `NearDuplicateIndex`) and checks a page against it in memory; a page that is no
 * near-duplicate is appended by one Lua script only if the worker has read every sketch before
 * it (its count equals the list's). Otherwise the script returns the sketches the worker has
 * not read; the worker adds them and checks again. So the list is one order in which every
 * page was checked against all pages before it: no two workers can both accept near-duplicates
 * of each other (optimistic concurrency with an atomic compare-and-append).
 * Why not the whole check in Lua: the inverted index (hash → pages) would be ~256 Redis entries
 * per page; the list is one entry per page, and each worker's mirror answers in memory.
 *
 * Bounded: the list keeps the newest `maxPages` sketches (default 20,000: ~30 MB in Redis), as
 * each mirror does. Cost per page: a near-duplicate found in the mirror needs no round trip; a
 * new page one, plus one per retry when other workers appended since (a worker that joins late
 * reads the list in batches first). A page fetched again (its lease expired with its worker)
 * finds its own sketch and is itself, not a copy.
 */
import type { Redis } from 'ioredis';
import { decodeSketch, encodeSketch, NearDuplicateIndex, shingleHashes, type NearDuplicateOptions } from '../text/near-duplicate.js';

/** Sketches returned per round trip to a worker that is behind. */
const BATCH = 500;

/**
 * KEYS: the sketch list, the count ever appended. ARGV: sketches the caller has read, the sketch
 * to append, most kept, most returned. Returns {1, count} when appended, else
 * {0, count, position of the first sketch returned, sketches}.
 */
const APPEND_IF_CURRENT = `
local n = tonumber(redis.call('GET', KEYS[2]) or '0')
local seq = tonumber(ARGV[1])
if seq == n then
  redis.call('RPUSH', KEYS[1], ARGV[2])
  n = n + 1
  redis.call('SET', KEYS[2], n)
  if redis.call('LLEN', KEYS[1]) > tonumber(ARGV[3]) then redis.call('LPOP', KEYS[1]) end
  return {1, n}
end
local len = redis.call('LLEN', KEYS[1])
local base = n - len
local from = seq - base
-- Behind the kept window, or ahead of a list Redis lost (restarted empty): read from its start.
if from < 0 or seq > n then from = 0 end
return {0, n, base + from, redis.call('LRANGE', KEYS[1], from, from + tonumber(ARGV[4]) - 1)}
`;

type AppendReply = [1, number] | [0, number, number, string[]];

export class SharedNearDuplicates {
  /** This worker's mirror of the shared list. */
  readonly index: NearDuplicateIndex;
  private readonly keys: [string, string];
  /** Sketches of the shared list this worker has read (its position in the list's history). */
  private seq = 0;
  private chain: Promise<unknown> = Promise.resolve();
  /** Pages checked, and round trips to Redis made for them (the cost per page). */
  readonly stats = { checked: 0, calls: 0, readFromOthers: 0 };

  constructor(private readonly redis: Redis, prefix: string, options: NearDuplicateOptions = {}) {
    this.index = new NearDuplicateIndex(options);
    this.keys = [`${prefix}neardup`, `${prefix}neardup:n`];
    if (!(redis as unknown as Record<string, unknown>).fcNearDuplicateAppend) redis.defineCommand('fcNearDuplicateAppend', { numberOfKeys: 2, lua: APPEND_IF_CURRENT });
  }

  /**
   * The earlier page of the crawl (its URL, fetched by any worker) whose text contains this
   * one's, or undefined; a page that is none is added to the shared list. Calls of one worker
   * run one after another (its mirror's position must not move under a check).
   */
  check(url: string, text: string, id: string): Promise<string | undefined> {
    const run = this.chain.then(() => this.checkNow(url, text, id));
    this.chain = run.catch(() => undefined);
    return run;
  }

  private async checkNow(url: string, text: string, id: string): Promise<string | undefined> {
    this.stats.checked++;
    const all = shingleHashes(text);
    if (all.length === 0) return undefined;
    for (;;) {
      const of = this.index.find(all, id);
      if (of !== undefined) return of;
      if (this.index.has(id)) return undefined;
      const sketch = this.index.sketch(id, url, all);
      const reply = (await (this.redis as unknown as Record<string, (...a: (string | number)[]) => Promise<AppendReply>>).fcNearDuplicateAppend(
        ...this.keys,
        this.seq,
        encodeSketch(sketch),
        this.index.maxPages,
        BATCH,
      )) as AppendReply;
      this.stats.calls++;
      if (Number(reply[0]) === 1) {
        this.index.add(sketch);
        this.seq = Number(reply[1]);
        return undefined;
      }
      const [, , start, entries] = reply as [0, number, number, string[]];
      for (const e of entries) this.index.add(decodeSketch(e));
      this.stats.readFromOthers += entries.length;
      this.seq = Number(start) + entries.length;
    }
  }
}
