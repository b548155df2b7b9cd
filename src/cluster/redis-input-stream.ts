/**
 * One Redis stream of a crawl's learning inputs, written by every worker and read by every
 * other one: the scorer's input of each fetched page (./redis-scorer-pages.ts) and what the page
 * judge learned from it (./redis-judge-inputs.ts). Each worker publishes its own inputs and,
 * before it scores or judges a page of its own, takes in the others' published since it last
 * looked, in stream order; a worker that joins late reads the stream from its start, as
 * `--resume` replays its own logs.
 */
import type { Redis } from 'ioredis';

/** Entries read per round trip. */
const BATCH = 500;

/**
 * Every entry of a stream after `afterId`, as its id and fields, read in batches of `batch` (one
 * reader for the crawl's streams: the learning inputs here, the shared crawl log).
 */
export async function readStreamAfter(redis: Redis, key: string, afterId: string, batch = BATCH): Promise<{ id: string; fields: Record<string, string> }[]> {
  const out: { id: string; fields: Record<string, string> }[] = [];
  let last = afterId;
  for (;;) {
    const r = (await redis.xread('COUNT', batch, 'STREAMS', key, last)) as [string, [string, string[]][]][] | null;
    const entries = r?.[0]?.[1] ?? [];
    for (const [id, flat] of entries) {
      last = id;
      const fields: Record<string, string> = {};
      for (let i = 0; i + 1 < flat.length; i += 2) fields[flat[i]] = flat[i + 1];
      out.push({ id, fields });
    }
    if (entries.length < batch) return out;
  }
}

export class SharedInputStream<T> {
  /** The last stream id read ('0' = from the start: a late worker replays everything). */
  protected lastId = '0';
  private pulling?: Promise<T[]>;
  /** Other workers' inputs taken in by this worker. */
  replayed = 0;

  constructor(
    protected readonly redis: Redis,
    /** The stream's key. */
    protected readonly key: string,
    protected readonly workerId: string,
    /** From its JSON form back to the input (dates, maps). */
    protected readonly revive: (raw: unknown) => T,
    /** To a form JSON keeps (maps as entries). */
    private readonly plain: (input: T) => unknown = (x) => x,
  ) {}

  /** Publish one input (sent at once; Redis keeps the order of one connection). */
  publish(input: T): Promise<unknown> {
    return this.redis.xadd(this.key, '*', 'w', this.workerId, 'p', JSON.stringify(this.plain(input)));
  }

  /** The other workers' inputs published since the last call, in stream order, each returned once even when callers overlap. */
  async pull(): Promise<T[]> {
    while (this.pulling) await this.pulling.catch(() => undefined);
    this.pulling = this.read();
    try {
      return await this.pulling;
    } finally {
      this.pulling = undefined;
    }
  }

  /** Read what `pull` returns (./redis-scorer-snapshot.ts reads an archive first). */
  protected async read(): Promise<T[]> {
    const out: T[] = [];
    for (const { id, fields: f } of await readStreamAfter(this.redis, this.key, this.lastId)) {
      this.lastId = id;
      if (f.w === this.workerId || !f.p) continue;
      out.push(this.revive(JSON.parse(f.p)));
    }
    this.replayed += out.length;
    return out;
  }
}
