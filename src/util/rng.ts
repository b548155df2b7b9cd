/**
 * Seeded randomness (pure-rand's xoroshiro128+, with named sub-streams), for every stage: the
 * adaptive fetcher's re-checks and the test webs' generators alike. Stage-free: imports nothing
 * from src/.
 */
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import { uniformInt } from 'pure-rand/distribution/uniformInt';

type Gen = ReturnType<typeof xoroshiro128plus>;

/** FNV-1a over a string: turns (seed, label) into an independent sub-seed. */
export function hash32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export class Rng {
  private g: Gen;
  constructor(readonly seed: number) {
    this.g = xoroshiro128plus(seed | 0);
  }
  /**
   * An independent stream keyed by a label, so content generated lazily (a reply, a comment)
   * does not depend on the order in which other content was generated.
   */
  fork(label: string): Rng {
    return new Rng(hash32(`${this.seed}:${label}`));
  }
  int(min: number, max: number): number {
    return uniformInt(this.g, min, max);
  }
  /** Uniform in [0, 1). */
  float(): number {
    return uniformInt(this.g, 0, 0x3fffffff) / 0x40000000;
  }
  chance(p: number): boolean {
    return this.float() < p;
  }
  pick<T>(arr: readonly T[]): T {
    if (arr.length === 0) throw new Error('pick from empty array');
    return arr[this.int(0, arr.length - 1)];
  }
  /** Fisher–Yates on a copy. */
  shuffle<T>(arr: readonly T[]): T[] {
    const a = arr.slice();
    for (let i = a.length - 1; i > 0; i--) {
      const j = this.int(0, i);
      [a[i], a[j]] = [a[j], a[i]];
    }
    return a;
  }
  sample<T>(arr: readonly T[], n: number): T[] {
    return this.shuffle(arr).slice(0, Math.min(n, arr.length));
  }
  /** Exponential with the given mean. */
  exp(mean: number): number {
    return -Math.log(1 - this.float()) * mean;
  }
}
