/**
 * Host politeness: which hosts may be fetched now (a minimum delay and a concurrency cap per
 * host, robots.txt `Crawl-delay` included). It wraps the queue's pick the way Crawlee's
 * ThrottlingRequestManager wraps a request manager: the queue proposes hosts best first, this
 * says yes or no, and the queue never pops and re-pushes URLs to wait.
 */
export interface HostPolitenessOptions {
  /** Minimum milliseconds between two hand-outs to one host. */
  perHostDelayMs?: number;
  /** At most this many requests in flight per host. */
  perHostConcurrency?: number;
  /** A longer per-host delay (e.g. robots.txt Crawl-delay), in milliseconds. */
  hostDelayMs?: (host: string) => number | undefined;
  /** Clock, injectable for tests. */
  now?: () => number;
}

export class HostPoliteness {
  private readonly inFlightPerHost = new Map<string, number>();
  private readonly lastFetchPerHost = new Map<string, number>();
  private readonly perHostDelayMs: number;
  private readonly perHostConcurrency: number;
  readonly now: () => number;

  constructor(private readonly o: HostPolitenessOptions = {}) {
    this.perHostDelayMs = o.perHostDelayMs ?? 0;
    this.perHostConcurrency = o.perHostConcurrency ?? Number.POSITIVE_INFINITY;
    this.now = o.now ?? Date.now;
  }

  /**
   * Milliseconds until this host may be fetched again (0 = now, Infinity = after a request ends).
   * `own`: requests in flight that belong to the asker (a page whose handler makes a sub-request
   * to its own host) and must not hold it up.
   */
  wait(host: string, now = this.now(), own = 0): number {
    const inFlight = Math.max(0, (this.inFlightPerHost.get(host) ?? 0) - own);
    if (inFlight >= this.perHostConcurrency) return Number.POSITIVE_INFINITY;
    const delay = this.delayOf(host);
    // With a delay, one request at a time, and the delay counts from the previous request's
    // end: gaps between requests as the server sees them are then never shorter than it.
    if (delay > 0 && inFlight > 0) return Number.POSITIVE_INFINITY;
    const last = this.lastFetchPerHost.get(host);
    if (last === undefined || delay === 0) return 0;
    return Math.max(0, last + delay - now);
  }

  delayOf(host: string): number {
    return Math.max(this.perHostDelayMs, this.o.hostDelayMs?.(host) ?? 0);
  }

  /** A request to the host starts. */
  started(host: string): void {
    this.inFlightPerHost.set(host, (this.inFlightPerHost.get(host) ?? 0) + 1);
    this.lastFetchPerHost.set(host, this.now());
  }

  /** A request to the host ended (handled, failed or given back for a retry). */
  ended(host: string): void {
    const n = (this.inFlightPerHost.get(host) ?? 1) - 1;
    if (n <= 0) this.inFlightPerHost.delete(host);
    else this.inFlightPerHost.set(host, n);
    if (this.delayOf(host) > 0) this.lastFetchPerHost.set(host, Math.max(this.lastFetchPerHost.get(host) ?? 0, this.now()));
  }

  /**
   * Milliseconds until the host's delay since its last request has passed, requests in flight
   * not counted: for a redirect hop, which belongs to a request already handed out.
   */
  paceWait(host: string, now = this.now()): number {
    const last = this.lastFetchPerHost.get(host);
    const delay = this.delayOf(host);
    return last === undefined || delay === 0 ? 0 : Math.max(0, last + delay - now);
  }

  /** A request the queue did not hand out (a redirect hop) reached the host now: later ones wait the delay from it. */
  touched(host: string): void {
    if (this.delayOf(host) > 0) this.lastFetchPerHost.set(host, Math.max(this.lastFetchPerHost.get(host) ?? 0, this.now()));
  }

  /** A request the queue did not hand out (robots.txt) reached the host: the delay counts from it. */
  touchedOnce(host: string): void {
    if (this.delayOf(host) > 0 && !this.lastFetchPerHost.has(host)) this.lastFetchPerHost.set(host, this.now());
  }
}
