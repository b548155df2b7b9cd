/**
 * The rank of a value among the values seen before it (the share below it, 0 for the first),
 * over a bounded uniform sample (Vitter's algorithm R, a deterministic stream), so a long crawl
 * keeps a fixed memory and the rank follows the values' drift. Used by combined's topical label
 * (src/score/topical-label.ts); the page judge's rank verdict keeps its reference by terms, to
 * score it again (./rank-verdict.ts).
 */

export interface RunningRankState {
  sorted: number[];
  seen: number;
  rng: number;
}

export class RunningRank {
  private sorted: number[] = [];
  private seen = 0;
  private rng: number;

  constructor(
    private readonly capacity = 2000,
    seed = 1,
  ) {
    this.rng = seed >>> 0 || 1;
  }

  /** xorshift32: the sample's replacement draws (deterministic across --resume). */
  private next(): number {
    let x = this.rng;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.rng = x >>> 0 || 1;
    return this.rng / 2 ** 32;
  }

  private lowerBound(x: number): number {
    let lo = 0,
      hi = this.sorted.length;
    while (lo < hi) {
      const m = (lo + hi) >> 1;
      if (this.sorted[m] < x) lo = m + 1;
      else hi = m;
    }
    return lo;
  }

  /** How many values have been ranked. */
  get count(): number {
    return this.seen;
  }

  /** Share of the sampled earlier values below x; then x joins the sample. */
  rankThenAdd(x: number): number {
    const at = this.lowerBound(x);
    const rank = this.sorted.length ? at / this.sorted.length : 0;
    this.seen++;
    if (this.sorted.length < this.capacity) this.sorted.splice(at, 0, x);
    else if (this.next() * this.seen < this.capacity) {
      this.sorted.splice(Math.floor(this.next() * this.sorted.length), 1);
      this.sorted.splice(this.lowerBound(x), 0, x);
    }
    return rank;
  }

  state(): RunningRankState {
    return { sorted: [...this.sorted], seen: this.seen, rng: this.rng };
  }

  /** A sample larger than this one keeps (a snapshot from a larger capacity) is thinned evenly, still sorted. */
  restore(s: RunningRankState): void {
    const step = Math.max(1, s.sorted.length / this.capacity);
    this.sorted = s.sorted.length <= this.capacity ? [...s.sorted] : Array.from({ length: this.capacity }, (_, i) => s.sorted[Math.floor(i * step)]!);
    this.seen = s.seen;
    this.rng = s.rng >>> 0 || 1;
  }
}
