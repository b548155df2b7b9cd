/** Seeded sampling shared by the learned page judge and the harvest sample (reproducible crawls). */
import { uniformInt } from 'pure-rand/distribution/uniformInt';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';

/** Seeded uniform [0, 1) (pure-rand), so a crawl's sampling and its bootstrap are reproducible. */
export class SeededRandom {
  private readonly g: ReturnType<typeof xoroshiro128plus>;
  constructor(seed: number) {
    this.g = xoroshiro128plus(seed | 0);
  }
  next(): number {
    return uniformInt(this.g, 0, 0x3fffffff) / 0x40000000;
  }
}

/** A bounded uniform sample of a stream (reservoir sampling, Vitter's algorithm R). */
export class Reservoir<T> {
  readonly items: T[] = [];
  seen = 0;
  constructor(private readonly cap: number, private readonly rng: SeededRandom) {}
  add(item: T): void {
    this.seen++;
    if (this.items.length < this.cap) this.items.push(item);
    else {
      const j = Math.floor(this.rng.next() * this.seen);
      if (j < this.cap) this.items[j] = item;
    }
  }
}
