/**
 * Dead-link demotion (issue #21): a host, or a directory of it, that keeps answering 404 (or
 * 200 error pages) loses priority. Old webs are full of links to people and pages long gone
 * (`/~jdoe/…`); each costs a fetch, and the link context cannot tell (the anchor still reads
 * "John's home page"). Not in METHODS: a multiplier on any strategy's score except bfs.
 *
 *   factor(u) = max(floor, s(host) · s(dir)),   s(k) = (ok_k + a) / (n_k + a)
 *
 * a smoothed success rate per key with `a` pseudo-answers that worked (a = 2: one dead answer
 * costs a third, ten cost five sixths), so a healthy host with an occasional dead link barely
 * moves, and `floor` keeps a demoted URL fetchable once better ones run out.
 */

interface KeyStats {
  n: number;
  dead: number;
}

export interface DeadLinkOptions {
  /** Pseudo-count of working answers per key (smoothing); default 2. */
  prior?: number;
  /** Lowest factor; default 0.05. */
  floor?: number;
  /** Re-score a key's queued URLs when its factor fell by more than this share since the last time; default 0.1. */
  rescoreDrop?: number;
}

function keysOf(url: string): [string, string] | undefined {
  try {
    const u = new URL(url);
    return [u.host, u.host + u.pathname.slice(0, u.pathname.lastIndexOf('/') + 1)];
  } catch {
    return undefined;
  }
}

export class DeadLinkTracker {
  private readonly stats = new Map<string, KeyStats>();
  /** Queued URLs by key (host and directory), for re-scoring. */
  private readonly queued = new Map<string, Set<string>>();
  /** Factor of each key when its queued URLs were last re-scored. */
  private readonly lastRescored = new Map<string, number>();
  private readonly prior: number;
  private readonly floor: number;
  private readonly rescoreDrop: number;

  constructor(o: DeadLinkOptions = {}) {
    this.prior = o.prior ?? 2;
    this.floor = o.floor ?? 0.05;
    this.rescoreDrop = o.rescoreDrop ?? 0.1;
  }

  private success(key: string): number {
    const s = this.stats.get(key);
    return s ? (s.n - s.dead + this.prior) / (s.n + this.prior) : 1;
  }

  /** Multiplier in [floor, 1] for a URL's score. */
  factor(url: string): number {
    const k = keysOf(url);
    if (!k) return 1;
    const f = this.success(k[0]) * this.success(k[1]);
    return f >= 1 ? 1 : Math.max(this.floor, f);
  }

  track(url: string): void {
    for (const k of keysOf(url) ?? []) {
      let set = this.queued.get(k);
      if (!set) this.queued.set(k, (set = new Set()));
      set.add(url);
    }
  }

  untrack(url: string): void {
    for (const k of keysOf(url) ?? []) this.queued.get(k)?.delete(url);
  }

  /** A fetched URL answered (dead: non-2xx or an error page). Returns queued URLs whose factor moved enough to re-score. */
  record(url: string, dead: boolean): string[] {
    const keys = keysOf(url);
    if (!keys) return [];
    const out = new Set<string>();
    for (const k of keys) {
      let s = this.stats.get(k);
      if (!s) this.stats.set(k, (s = { n: 0, dead: 0 }));
      s.n++;
      if (dead) s.dead++;
      const now = this.success(k);
      const last = this.lastRescored.get(k) ?? 1;
      if (Math.abs(now - last) > this.rescoreDrop * last) {
        this.lastRescored.set(k, now);
        for (const u of this.queued.get(k) ?? []) out.add(u);
      }
    }
    return [...out];
  }
}
