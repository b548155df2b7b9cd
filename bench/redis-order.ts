/**
 * One process's queue, as a reference order for the Redis benches (bench/redis-interleave.ts,
 * bench/redis-split.ts): key → score, a URL's latest score wins (the in-memory frontier's rule);
 * a URL's rank is how many queued URLs score higher (0 = the best one).
 */

export interface RankStats {
  n: number;
  mean: number;
  median: number;
  best: number;
  top5: number;
  unknown: number;
}

export function rankStats(ranks: (number | undefined)[]): RankStats {
  const known = ranks.filter((r): r is number => r !== undefined).sort((a, b) => a - b);
  const n = known.length;
  return {
    n,
    mean: n ? known.reduce((s, r) => s + r, 0) / n : NaN,
    median: n ? known[Math.floor(n / 2)] : NaN,
    best: n ? known.filter((r) => r === 0).length / n : NaN,
    top5: n ? known.filter((r) => r < 5).length / n : NaN,
    unknown: ranks.length - n,
  };
}

/** One process's queue: key → score, a URL's latest score wins; rank = how many queued keys score higher. */
export class OneQueue {
  readonly score = new Map<string, number>();
  private readonly gone = new Set<string>();
  rank(key: string): number | undefined {
    const s = this.score.get(key);
    if (s === undefined) return undefined;
    let r = 0;
    for (const x of this.score.values()) if (x > s) r++;
    return r;
  }
  take(key: string): void {
    this.score.delete(key);
    this.gone.add(key);
  }
  offer(key: string, s: number): void {
    if (!this.gone.has(key)) this.score.set(key, s);
  }
  drop(key: string): void {
    this.score.delete(key);
    this.gone.add(key);
  }
}

