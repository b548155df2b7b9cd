/**
 * Dead-link demotion: a host, or a directory of it, that keeps answering 404 (or
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

import { ownString } from './own-string.js';
import { refill } from './state-data.js';

/** One key (a host, or a directory of it): its answers, and its queued URLs for re-scoring. */
export interface KeyStats {
  n: number;
  dead: number;
  /** The one queued URL while there is one (most directories of a news site), then a Set (~150 bytes). */
  queued: string | Set<string> | undefined;
  /** Factor of the key when its queued URLs were last re-scored. */
  lastRescored: number;
}

/** The host's and the directory's stats of a queued URL, kept with it so its factor needs no URL parse (it is read on every re-score). */
export type DeadLinkKeys = readonly [KeyStats, KeyStats];

/** Options of a DeadLinkTracker: smoothing, floor and re-score threshold. */
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

/** Learns which hosts and directories answer with errors and lowers the score of their queued URLs. */
export class DeadLinkTracker {
  /** By key (host and directory); a key with n = 0 scores as an unknown one. */
  private readonly stats = new Map<string, KeyStats>();
  private readonly prior: number;
  private readonly floor: number;
  private readonly rescoreDrop: number;

  constructor(o: DeadLinkOptions = {}) {
    this.prior = o.prior ?? 2;
    this.floor = o.floor ?? 0.05;
    this.rescoreDrop = o.rescoreDrop ?? 0.1;
  }

  private entry(key: string): KeyStats {
    let s = this.stats.get(key);
    if (!s) this.stats.set(ownString(key), (s = { n: 0, dead: 0, queued: undefined, lastRescored: 1 }));
    return s;
  }

  private success(s: KeyStats | undefined): number {
    return s ? (s.n - s.dead + this.prior) / (s.n + this.prior) : 1;
  }

  /** Multiplier in [floor, 1] for a URL's score (its keys from track(), or parsed from the URL). */
  factor(url: string, keys?: DeadLinkKeys): number {
    let f: number;
    if (keys) f = this.success(keys[0]) * this.success(keys[1]);
    else {
      const k = keysOf(url);
      if (!k) return 1;
      f = this.success(this.stats.get(k[0])) * this.success(this.stats.get(k[1]));
    }
    return f >= 1 ? 1 : Math.max(this.floor, f);
  }

  /** A URL was queued: returns its keys, to pass to factor() and untrack(). */
  track(url: string): DeadLinkKeys | undefined {
    const k = keysOf(url);
    if (!k) return undefined;
    const keys = [this.entry(k[0]), this.entry(k[1])] as const;
    for (const s of keys) {
      const q = s.queued;
      if (q === undefined) s.queued = url;
      else if (typeof q === 'string') {
        if (q !== url) s.queued = new Set([q, url]);
      } else q.add(url);
    }
    return keys;
  }

  untrack(url: string, keys?: DeadLinkKeys): void {
    for (const s of keys ?? (keysOf(url) ?? []).map((k) => this.stats.get(k))) {
      if (!s) continue;
      if (s.queued === url) s.queued = undefined;
      else if (typeof s.queued === 'object') s.queued.delete(url);
    }
  }

  /** A fetched URL answered (dead: non-2xx or an error page). Returns queued URLs whose factor moved enough to re-score. */
  record(url: string, dead: boolean): string[] {
    const keys = keysOf(url);
    if (!keys) return [];
    const out = new Set<string>();
    for (const k of keys) {
      const s = this.entry(k);
      s.n++;
      if (dead) s.dead++;
      const now = this.success(s);
      const last = s.lastRescored;
      if (Math.abs(now - last) > this.rescoreDrop * last) {
        s.lastRescored = now;
        if (typeof s.queued === 'string') out.add(s.queued);
        else if (s.queued) for (const u of s.queued) out.add(u);
      }
    }
    return [...out];
  }

  /** Its state as plain data, live (see src/score/state-data.ts); queued URLs' `deadKeys` point into it. */
  state(): DeadLinkState {
    return { v: 1, stats: this.stats };
  }

  restore(s: DeadLinkState): void {
    refill(this.stats, s.stats);
  }
}

/** A DeadLinkTracker's saved state (for resume). */
export interface DeadLinkState {
  v: 1;
  stats: Map<string, KeyStats>;
}
