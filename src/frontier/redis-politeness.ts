/**
 * Per-host politeness of a Redis crawl for the requests a worker makes outside the queue's
 * hand-outs (redirect hops, comment APIs): they take or touch their host's slot in Redis
 * (./redis.ts `sharedHosts`), so the host's delay holds across all workers.
 */
import { HostPoliteness } from './politeness.js';

/**
 * How long a request that is not a page holds its host's slot in Redis if its worker dies before
 * releasing it (the polite fetch's own timeout is 10 s; a live worker releases at once).
 */
export const HOLD_MS = 60_000;

/** Take the host's slot in Redis, or learn how long to wait for it. */
export type HoldHost = (host: string, own: number) => Promise<{ token: string } | { waitMs: number }>;

/**
 * This worker's HostPoliteness, telling Redis about the requests it makes outside the queue's
 * hand-outs (a page's redirect hops): the host's delay then counts from them for every worker.
 */
export class SharedHostPoliteness extends HostPoliteness {
  constructor(
    o: ConstructorParameters<typeof HostPoliteness>[0],
    private readonly onTouched: (host: string) => void,
    private readonly hold: HoldHost,
    private readonly release: (token: string) => Promise<unknown>,
  ) {
    super(o);
  }

  /** A redirect hop takes its host's slot in Redis like a hand-out (src/fetch/adaptive.ts's HostSchedule). */
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

  override touched(host: string): void {
    super.touched(host);
    if (this.delayOf(host) > 0) this.onTouched(host);
  }
}
