/**
 * A fetch order that does not depend on timing. With N pages in flight, which page finishes
 * first depends on the server, the browser and the machine's load; a frontier that hands out the
 * best URL "now" and pages that update it as they finish make a different crawl on every run
 * (the same demo gave 22, 13 and 16 relevant pages in three runs). Here:
 *
 *   - pages are routed (judged, scored, their links offered) in hand-out order: page n waits
 *     for page n-1's routing, whatever order their fetches finished in;
 *   - the n-th URL is chosen right after page n-W's routing (W = the crawl's concurrency), from
 *     the frontier as exactly those n-W pages left it, never "when a slot frees";
 *   - the choice honours each host's concurrency counting every chosen page not yet routed
 *     (never fewer than the real requests in flight); its delay is honoured when the chosen page
 *     is started, by the real clock, and only decides when, never which.
 *
 * So the same crawl, seed and web give the same fetch order and counts. Fetches still overlap
 * (W at a time); only the routing of a page that finished early waits for the pages before it.
 * Once the crawl is stopped (time limit, Ctrl-C, memory) the order is given up, so nothing waits
 * for a page that will never come.
 */
import type { HostPoliteness } from './politeness.js';
import type { QueuedUrl } from './types.js';
import { hostOf } from './url-key.js';

/** What the order needs of a frontier: its choice under a given host rule, and its real politeness. */
export interface OrderedSource {
  /** Choose (and journal as handed out) the best URL whose host `eligible` accepts; null when none. */
  select(eligible: (host: string) => boolean): Promise<QueuedUrl | null>;
  readonly politeness: HostPoliteness;
  /** No budget left, or nothing queued. */
  nothingLeftToChoose(): boolean;
}

export class FetchOrder {
  /** Chosen, not yet started, in choice order. */
  private readonly chosen: QueuedUrl[] = [];
  private readonly numberOf = new Map<string, number>();
  private readonly hostOfNumber = new Map<number, string>();
  /** Chosen and not yet routed, per host: the choice's host concurrency. */
  private readonly unrouted = new Map<string, number>();
  private readonly routedOutOfTurn = new Set<number>();
  private readonly waiting = new Map<number, () => void>();
  /** Routing in progress or queued, per unique key (a second call for one key waits for the first). */
  private readonly routing = new Map<string, Promise<void>>();
  private count = 0;
  private routed = 0;
  private started?: Promise<void>;
  private abandoned = false;

  constructor(
    private readonly source: OrderedSource,
    /** Pages chosen ahead of the routing: the crawl's concurrency. */
    private readonly window: number,
    private readonly perHostConcurrency: number,
  ) {}

  /** The order is on (not given up at a stop). */
  get active(): boolean {
    return !this.abandoned;
  }

  /** Hand-out number of a chosen URL (1-based), for tests and the crawl log. */
  handOutNumber(uniqueKey: string): number | undefined {
    return this.numberOf.get(uniqueKey);
  }

  /**
   * The next chosen URL whose host may be fetched now (by the real clock and requests in
   * flight), or null. The first call makes the first choices.
   */
  async next(): Promise<QueuedUrl | null> {
    await (this.started ??= this.fill());
    const p = this.source.politeness;
    const now = p.now();
    const i = this.chosen.findIndex((e) => p.wait(hostOf(e.url), now) === 0);
    if (i < 0) return null;
    const [entry] = this.chosen.splice(i, 1);
    p.started(hostOf(entry.url));
    return entry;
  }

  /** True when `next()` would return null now. */
  hasNothingToHandOut(): boolean {
    if (!this.started) return false;
    const p = this.source.politeness;
    const now = p.now();
    return !this.chosen.some((e) => p.wait(hostOf(e.url), now) === 0);
  }

  /** Nothing chosen waits to start, and the frontier has nothing more to give. */
  isExhausted(): boolean {
    return this.started !== undefined && this.chosen.length === 0 && this.source.nothingLeftToChoose();
  }

  /** Chosen URLs not yet started (they count as queued for the progress line). */
  get pendingCount(): number {
    return this.chosen.length;
  }

  /**
   * Run `route` (a page's routing: judge, score, offer its links, log it) in hand-out order.
   * A key the order did not hand out (or after a stop) runs at once.
   */
  run(uniqueKey: string, route: () => Promise<void>): Promise<void> {
    const n = this.numberOf.get(uniqueKey);
    if (n === undefined || this.abandoned) return route();
    const earlier = this.routing.get(uniqueKey);
    if (earlier) return earlier.then(route, route);
    const p = (async () => {
      await this.turn(n);
      try {
        await route();
      } finally {
        await this.done(n);
      }
    })();
    this.routing.set(uniqueKey, p);
    return p;
  }

  /** Give the order up (the crawl is stopping): every waiting page routes now. */
  abandon(): void {
    this.abandoned = true;
    for (const wake of this.waiting.values()) wake();
    this.waiting.clear();
  }

  /** Give the order up as soon as `fetcher` is stopped. */
  givenUpWhenStopped(fetcher: { stop(reason?: string): void }): void {
    const stop = fetcher.stop.bind(fetcher);
    fetcher.stop = (reason?: string) => {
      this.abandon();
      stop(reason);
    };
  }

  private turn(n: number): Promise<void> {
    if (this.abandoned || n === this.routed + 1) return Promise.resolve();
    return new Promise((resolve) => this.waiting.set(n, resolve));
  }

  private async done(n: number): Promise<void> {
    this.routedOutOfTurn.add(n);
    while (this.routedOutOfTurn.delete(this.routed + 1)) {
      this.routed++;
      const host = this.hostOfNumber.get(this.routed)!;
      this.hostOfNumber.delete(this.routed);
      const left = (this.unrouted.get(host) ?? 1) - 1;
      if (left > 0) this.unrouted.set(host, left);
      else this.unrouted.delete(host);
    }
    // The choices this routing allows, made before the next page's routing can change the frontier.
    await this.fill();
    const wake = this.waiting.get(this.routed + 1);
    if (wake) {
      this.waiting.delete(this.routed + 1);
      wake();
    }
  }

  /** Choose until W pages are chosen and not routed, or the frontier has nothing eligible. */
  private async fill(): Promise<void> {
    while (!this.abandoned && this.count < this.routed + this.window) {
      const entry = await this.source.select((host) => this.hostMayBeChosen(host));
      if (!entry) return;
      const n = ++this.count;
      const host = hostOf(entry.url);
      this.numberOf.set(entry.uniqueKey, n);
      this.hostOfNumber.set(n, host);
      this.unrouted.set(host, (this.unrouted.get(host) ?? 0) + 1);
      this.chosen.push(entry);
    }
  }

  /** A host's concurrency, counted in chosen-not-routed pages; with a delay, one at a time (as HostPoliteness). */
  private hostMayBeChosen(host: string): boolean {
    const n = this.unrouted.get(host) ?? 0;
    if (n >= this.perHostConcurrency) return false;
    return n === 0 || this.source.politeness.delayOf(host) === 0;
  }
}
