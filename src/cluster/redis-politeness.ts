/**
 * Per-host politeness of a Redis crawl for the requests a worker makes outside the queue's
 * hand-outs (redirect hops, comment APIs): they take or touch their host's slot in Redis
 * (./redis-frontier.ts `sharedHosts`), so the host's delay holds across all workers.
 */
import { HostPoliteness } from '../frontier/politeness.js';
import type { RedisCrawl } from './redis-crawl.js';
import type { RobotsCache } from '../frontier/robots.js';
import { hostOf } from '../frontier/url-key.js';

/**
 * How long a request that is not a page holds its host's slot in Redis if its worker dies before
 * releasing it (the polite fetch's own timeout is 10 s; a live worker releases at once).
 */
export const HOLD_MS = 60_000;

/**
 * This worker's HostPoliteness, and the host schedule in Redis for the requests it makes outside
 * the queue's hand-outs: they take their host's slot there (`hold`, `holdHop`) or tell Redis
 * they reached it (`touched`), so the host's delay counts from them for every worker.
 */
export class SharedHostPoliteness extends HostPoliteness {
  private holds = 0;

  constructor(
    o: ConstructorParameters<typeof HostPoliteness>[0],
    private readonly shared: {
      crawl: RedisCrawl;
      robots?: Pick<RobotsCache, 'isLoaded' | 'load' | 'crawlDelayMs' | 'block'>;
      /** How long a hold outlives a worker that died before releasing it (ms). */
      holdMs: number;
      /** Sends a mutator whose answer nobody waits for (the frontier's ordered send). */
      send: (p: Promise<unknown>) => void;
    },
  ) {
    super(o);
  }

  /** Take the host's slot in Redis (`own`: the asker's page in flight there), or learn how long to wait for it. */
  async hold(host: string, own: number): Promise<{ token: string } | { waitMs: number }> {
    const { crawl, holdMs } = this.shared;
    const token = `${crawl.workerId}:${++this.holds}`;
    const r = Number(await crawl.call('fcHold', token, host, own, holdMs, this.delayOf(host)));
    return r === 0 ? { token } : { waitMs: r };
  }

  async release(token: string): Promise<void> {
    await this.shared.crawl.call('fcRelease', token);
  }

  /** A redirect hop takes its host's slot in Redis like a hand-out (src/fetch/adaptive/adaptive.ts's HostSchedule). */
  async holdHop(host: string, own: number, maxWaitMs: number): Promise<(() => void) | undefined> {
    const deadline = Date.now() + maxWaitMs;
    for (;;) {
      const r = await this.hold(host, own);
      if ('token' in r) return () => void this.release(r.token).catch(() => undefined);
      const wait = r.waitMs < 0 ? 25 : r.waitMs;
      if (Date.now() + wait > deadline) return undefined;
      await new Promise((ok) => setTimeout(ok, Math.min(wait, 1000)));
    }
  }

  /**
   * robots.txt for a request the queue did not hand out (a redirect hop, a comment API): as at
   * hand-out, its Crawl-delay is published for every worker (the robots.txt request itself counts
   * for the host's schedule in Redis, ./redis-crawl.ts). The reason the URL may not be fetched.
   */
  async robotsBlock(url: string): Promise<string | undefined> {
    const { crawl, robots } = this.shared;
    if (!robots) return undefined;
    if (!robots.isLoaded(url)) {
      const host = hostOf(url);
      const fetchedHere = await crawl.loadRobots(robots, url);
      const delay = robots.crawlDelayMs(host);
      if (delay) await crawl.call('fcCrawlDelay', host, delay);
      if (fetchedHere) super.touched(host);
    }
    return robots.block(url);
  }

  override touched(host: string): void {
    super.touched(host);
    if (this.delayOf(host) > 0) this.shared.send(this.shared.crawl.call('fcTouch', host));
  }
}
