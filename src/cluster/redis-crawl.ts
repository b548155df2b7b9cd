/**
 * A connection to one crawl shared through Redis, and this process's place in it: joining
 * (creating the crawl's settings, or waiting for them as `--worker`), the worker number and run
 * folder, running the Lua scripts (./redis-scripts.ts), robots.txt shared by all workers, and
 * the messages when Redis goes away and comes back. The frontier on it: ./redis-frontier.ts.
 */
import { hostname } from 'node:os';
import { Redis } from 'ioredis';
import { UserError } from '../config/errors.js';
import { REDIS_SCRIPTS, type RedisScriptName } from './redis-scripts.js';
import type { RobotsCache } from '../frontier/robots.js';

/** The crawl-wide settings the first worker writes and every worker obeys. */
export interface SharedCrawlSettings {
  maxPages: number;
  perHostDelayMs: number;
  perHostConcurrency: number;
}

export interface JoinOptions {
  url: string;
  crawlId: string;
  /** Join a crawl someone else started (wait for it to exist); false: create it if new. */
  worker: boolean;
  settings: SharedCrawlSettings;
  log?: (line: string) => void;
  /** How long a worker waits for the crawl to be started (ms). */
  waitForCrawlMs?: number;
  /**
   * How long the first worker's "seeding" mark outlives its last renewal (ms, default 30 s): a
   * joined worker waits for the seeds while the mark lives, and gives up once it is gone unseeded.
   */
  seederTtlMs?: number;
}

type RobotsText = { status: number; text: string } | { failure: string } | undefined;
type FetchText = (url: string, timeoutMs: number) => Promise<RobotsText>;

/** Keys of one crawl (the `{…}` hash tag keeps them on one Redis Cluster slot). */
export function crawlPrefix(crawlId: string): string {
  return `fc:{${crawlId}}:`;
}

/** A connection to one shared crawl, and this process's place in it (worker number, run id). */
export class RedisCrawl {
  readonly prefix: string;
  readonly workerId: string;
  /** This worker's run folder name: `<crawl-id>.w<N>`. */
  readonly runId: string;
  /** Origins whose robots.txt this worker fetched itself (the others came from Redis). */
  private readonly robotsFetchedHere = new Set<string>();
  private down = false;
  /** Renews this run's "seeding" mark until its seeds are in (the first worker only). */
  private seedingTimer?: NodeJS.Timeout;

  private constructor(
    readonly redis: Redis,
    readonly url: string,
    readonly crawlId: string,
    readonly workerNumber: number,
    readonly settings: SharedCrawlSettings,
    private readonly log: (line: string) => void,
  ) {
    this.prefix = crawlPrefix(crawlId);
    this.workerId = `${hostname()}:${process.pid}:w${workerNumber}`;
    this.runId = `${crawlId}.w${workerNumber}`;
    redis.on('reconnecting', () => {
      if (this.down) return;
      this.down = true;
      this.log(`Redis at ${url} is unreachable: the crawl waits and retries (fetched pages are in the crawl log)`);
    });
    redis.on('ready', () => {
      if (!this.down) return;
      this.down = false;
      this.log(`Redis at ${url} is back: carrying on`);
    });
  }

  /** Connect, create the crawl (or, as `--worker`, wait for it), and take a worker number. */
  static async join(o: JoinOptions): Promise<RedisCrawl> {
    const log = o.log ?? ((l: string) => process.stderr.write(`${l}\n`));
    const redis = new Redis(o.url, {
      lazyConnect: true,
      // Commands wait through a Redis restart instead of failing: the crawl carries on after it.
      maxRetriesPerRequest: null,
      retryStrategy: (times) => Math.min(250 * times, 2000),
      connectionName: `focused-crawler:${o.crawlId}`,
    });
    let lastError = '';
    redis.on('error', (e: Error) => {
      lastError = (e as NodeJS.ErrnoException).code ?? e.message;
    });
    try {
      await Promise.race([redis.connect(), new Promise((_, no) => setTimeout(() => no(new Error('no answer within 10 s')), 10_000).unref())]);
    } catch (e) {
      redis.disconnect();
      throw new UserError(`cannot reach Redis at ${o.url} (${lastError || (e as Error).message}): start redis-server or fix --frontier`);
    }
    for (const [name, lua] of Object.entries(REDIS_SCRIPTS)) redis.defineCommand(name, { numberOfKeys: 0, lua });
    const prefix = crawlPrefix(o.crawlId);
    const metaKey = `${prefix}meta`;
    const seederKey = `${prefix}seeder`;
    const seederTtlMs = o.seederTtlMs ?? 30_000;
    if (o.worker) {
      await waitForCrawl(redis, o, log);
    } else {
      const s = o.settings;
      // The "seeding" mark is set with the crawl, in one step, so a worker that sees the crawl
      // sees the mark too; it lives while this run renews it (until its seeds are offered).
      await redis
        .multi()
        .hsetnx(metaKey, 'maxPages', s.maxPages)
        .hsetnx(metaKey, 'perHostDelayMs', s.perHostDelayMs)
        .hsetnx(metaKey, 'perHostConcurrency', s.perHostConcurrency)
        .hsetnx(metaKey, 'createdAt', new Date().toISOString())
        .set(seederKey, String(process.pid), 'PX', seederTtlMs)
        .exec();
    }
    const n = await redis.hincrby(metaKey, 'workers', 1);
    const m = await redis.hgetall(metaKey);
    const settings: SharedCrawlSettings = { maxPages: Number(m.maxPages), perHostDelayMs: Number(m.perHostDelayMs), perHostConcurrency: Number(m.perHostConcurrency) };
    const crawl = new RedisCrawl(redis, o.url, o.crawlId, n, settings, log);
    if (!o.worker) {
      crawl.seedingTimer = setInterval(() => void redis.pexpire(seederKey, seederTtlMs).catch(() => undefined), Math.max(50, seederTtlMs / 4));
      crawl.seedingTimer.unref();
    }
    const mine = o.settings;
    if (o.worker && (mine.maxPages !== settings.maxPages || mine.perHostDelayMs !== settings.perHostDelayMs || mine.perHostConcurrency !== settings.perHostConcurrency)) {
      log(`Crawl "${o.crawlId}" runs with budget ${settings.maxPages}, delay ${settings.perHostDelayMs} ms, ${settings.perHostConcurrency} per host (set by its first worker; this worker's flags for them are ignored)`);
    }
    return crawl;
  }

  /**
   * The seeds are offered (sent before this on the same connection): from now on an empty queue
   * with no leases out ends the crawl, and joined workers start.
   */
  markSeeded(): Promise<unknown> {
    clearInterval(this.seedingTimer);
    this.seedingTimer = undefined;
    return this.redis.multi().hset(`${this.prefix}meta`, 'seeded', 1).del(`${this.prefix}seeder`).exec();
  }

  /**
   * A joined worker (`--worker`) waits for the crawl's seeds while the first worker's "seeding"
   * mark lives. Called once the worker is ready to fetch (judge, scorer and fetcher built), so
   * its start-up overlaps the first worker's seeding instead of following it. A first worker
   * that died before offering its seeds leaves a crawl that would never start: that is a clear
   * error, not a wait for ever.
   */
  async waitForSeeds(): Promise<void> {
    let said = false;
    for (;;) {
      const [[, seeded], [, seeding]] = (await this.redis.multi().hget(`${this.prefix}meta`, 'seeded').exists(`${this.prefix}seeder`).exec()) as [unknown, unknown][];
      if (seeded) return;
      if (!seeding)
        throw new UserError(
          `crawl "${this.crawlId}" at ${this.url} was started but never seeded (its first worker stopped before offering its seeds): start a run without --worker again (it seeds the crawl; seeds already offered are not offered twice)`,
        );
      if (!said) this.log(`Waiting for the first worker of crawl "${this.crawlId}" to offer its seeds…`);
      said = true;
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** Run one of the Lua scripts. */
  call(name: RedisScriptName, ...args: (string | number)[]): Promise<unknown> {
    return (this.redis as unknown as Record<RedisScriptName, (...a: (string | number)[]) => Promise<unknown>>)[name](this.prefix, ...args);
  }

  /**
   * robots.txt through Redis: the first worker to need an origin's file fetches it (others
   * needing it meanwhile wait for it: one request per origin for the whole crawl) and stores it;
   * the others read it. The request counts as the host's last one for every worker's schedule.
   * A failed fetch (5xx, no answer) is asked again after a minute, as RFC 9309 says.
   */
  sharedRobotsFetch(fetchText: FetchText): FetchText {
    return async (url, timeoutMs) => {
      const { origin, host } = new URL(url);
      const lock = `${this.prefix}robotslock:${origin}`;
      const stored = async (): Promise<{ hit: true; value: RobotsText } | { hit: false }> => {
        const cached = await this.redis.hget(`${this.prefix}robots`, origin);
        if (!cached) return { hit: false };
        const c = JSON.parse(cached) as { status: number; text: string; at: number; failure?: string };
        if ((c.status >= 200 && c.status < 500) || Date.now() - c.at < 60_000) return { hit: true, value: c.status ? { status: c.status, text: c.text } : c.failure ? { failure: c.failure } : undefined };
        return { hit: false };
      };
      for (;;) {
        const before = await stored();
        if (before.hit) return before.value;
        if (await this.redis.set(lock, this.workerId, 'PX', timeoutMs + 5_000, 'NX')) break;
        await new Promise((ok) => setTimeout(ok, 50)); // another worker is fetching it
      }
      try {
        // Read again under the lock: the worker that held it may have stored the file and let go
        // between this worker's read above and its lock (clean-clone CI at load 20: two fetches).
        const meanwhile = await stored();
        if (meanwhile.hit) return meanwhile.value;
        const r = await fetchText(url, timeoutMs);
        this.robotsFetchedHere.add(origin);
        const answer = r && 'status' in r ? r : undefined;
        await this.call('fcRobots', origin, JSON.stringify({ status: answer?.status ?? 0, text: answer?.text ?? '', at: Date.now(), ...(r && 'failure' in r ? { failure: r.failure } : {}) }), host);
        return r;
      } finally {
        await this.redis.del(lock);
      }
    };
  }

  /** Load an origin's robots.txt; true when this worker's request reached the host (not Redis's copy). */
  async loadRobots(robots: Pick<RobotsCache, 'load'>, url: string): Promise<boolean> {
    const origin = new URL(url).origin;
    const before = this.robotsFetchedHere.has(origin);
    await robots.load(url);
    return !before && this.robotsFetchedHere.has(origin);
  }

  async close(): Promise<void> {
    clearInterval(this.seedingTimer);
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}


/** A joined worker (`--worker`) waits for the crawl to be created, up to `waitForCrawlMs`. */
async function waitForCrawl(redis: Redis, o: JoinOptions, log: (line: string) => void): Promise<void> {
  const deadline = Date.now() + (o.waitForCrawlMs ?? 120_000);
  let said = false;
  while (!(await redis.hexists(`${crawlPrefix(o.crawlId)}meta`, 'createdAt'))) {
    if (Date.now() > deadline) {
      redis.disconnect();
      throw new UserError(`no crawl "${o.crawlId}" at ${o.url}: start its first worker without --worker (it seeds the crawl)`);
    }
    if (!said) log(`Waiting for crawl "${o.crawlId}" to be started at ${o.url} (by a run without --worker)…`);
    said = true;
    await new Promise((r) => setTimeout(r, 300));
  }
}
