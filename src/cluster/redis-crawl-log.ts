/**
 * One crawl log for all the workers of a shared crawl: every worker appends each of its crawl-log
 * lines to a Redis stream beside its own run folder's file, so a dashboard on any worker, or one
 * watching from outside (`--dashboard --crawl-id NAME`), shows the whole crawl. The stream is
 * capped (about MAX_ENTRIES lines, the oldest dropped first); the per-worker files stay the record
 * (`--report NAME` merges them).
 */
import { Redis } from 'ioredis';
import type { CrawlLogEntry } from '../store/crawl-log.js';
import { crawlPrefix } from './redis-crawl.js';
import { readStreamAfter } from './redis-input-stream.js';

/** Lines kept in the stream (approximately: Redis trims whole nodes). */
export const MAX_ENTRIES = 200_000;
/** Lines read per round trip. */
const BATCH = 1000;

/** The crawl-wide counts a watcher shows: what the frontier's Lua scripts keep in the crawl's meta hash. */
export interface SharedCrawlStatus {
  exists: boolean;
  handedOut: number;
  queued: number;
  leased: number;
  maxPages: number;
  seeded: boolean;
}

export class SharedCrawlLog {
  private lastId = '0';
  private readonly key: string;
  private readonly prefix: string;

  private constructor(
    private readonly redis: Redis,
    readonly crawlId: string,
  ) {
    this.prefix = crawlPrefix(crawlId);
    this.key = `${this.prefix}crawl-log`;
  }

  /** A connection of its own to the crawl's Redis (the frontier's is busy with its scripts). */
  static open(url: string, crawlId: string): SharedCrawlLog {
    return new SharedCrawlLog(new Redis(url, { maxRetriesPerRequest: null, lazyConnect: false }), crawlId);
  }

  /** Append one of this worker's lines (sent at once; Redis keeps the order of one connection). */
  append(entry: CrawlLogEntry, worker: string): Promise<unknown> {
    return this.redis.xadd(this.key, 'MAXLEN', '~', MAX_ENTRIES, '*', 'w', worker, 'e', JSON.stringify(entry));
  }

  /** Every worker's lines appended since the last call, in stream order. */
  async read(): Promise<{ worker: string; entry: CrawlLogEntry }[]> {
    const out: { worker: string; entry: CrawlLogEntry }[] = [];
    for (const { id, fields } of await readStreamAfter(this.redis, this.key, this.lastId, BATCH)) {
      this.lastId = id;
      if (fields.e) out.push({ worker: fields.w ?? '', entry: JSON.parse(fields.e) as CrawlLogEntry });
    }
    return out;
  }

  /** The crawl's shared counts (its meta hash and leases), or exists false when no such crawl is in Redis. */
  async status(): Promise<SharedCrawlStatus> {
    const [meta, leased] = await Promise.all([this.redis.hgetall(`${this.prefix}meta`), this.redis.zcard(`${this.prefix}lease`)]);
    const n = (k: string) => Number(meta[k] ?? 0);
    return { exists: Object.keys(meta).length > 0, handedOut: n('handed'), queued: n('nq'), leased, maxPages: n('maxPages'), seeded: meta.seeded === '1' };
  }

  close(): Promise<unknown> {
    return this.redis.quit().catch(() => this.redis.disconnect());
  }
}
