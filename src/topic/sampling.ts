/** Seeded sampling shared by the learned page judge and the harvest sample (reproducible crawls). */
import { uniformInt } from 'pure-rand/distribution/uniformInt';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';

/** Seeded uniform [0, 1) (pure-rand), so a crawl's sampling and its bootstrap are reproducible. */
export class SeededRandom {
  private readonly g: ReturnType<typeof xoroshiro128plus>;
  /** Numbers drawn so far: with the seed, the generator's whole state (`--resume` replays them). */
  draws = 0;
  constructor(readonly seed: number) {
    this.g = xoroshiro128plus(seed | 0);
  }
  next(): number {
    this.draws++;
    return uniformInt(this.g, 0, 0x3fffffff) / 0x40000000;
  }
  /** Where the generator is (plain data, for the judge's snapshot). */
  state(): RandomState {
    return { seed: this.seed, draws: this.draws };
  }
  /** The generator at `state`: the same seed, the same numbers drawn again (a crawl draws at most one per page). */
  static at(state: RandomState): SeededRandom {
    const r = new SeededRandom(state.seed);
    while (r.draws < state.draws) r.next();
    return r;
  }
}

export interface RandomState {
  seed: number;
  draws: number;
}

/** A bounded uniform sample of a stream (reservoir sampling, Vitter's algorithm R). */
export class Reservoir<T> {
  readonly items: T[] = [];
  seen = 0;
  constructor(private readonly cap: number, private rng: SeededRandom) {}
  add(item: T): void {
    this.seen++;
    if (this.items.length < this.cap) this.items.push(item);
    else {
      const j = Math.floor(this.rng.next() * this.seen);
      if (j < this.cap) this.items[j] = item;
    }
  }
  /** Plain data: the items, how many were seen, where the generator is. */
  state(): ReservoirState<T> {
    return { items: [...this.items], seen: this.seen, random: this.rng.state() };
  }
  /** Back to a saved state: the same sample, and the same draws to come. */
  restore(s: ReservoirState<T>): void {
    this.items.length = 0;
    this.items.push(...s.items);
    this.seen = s.seen;
    this.rng = SeededRandom.at(s.random);
  }
}

export interface ReservoirState<T> {
  items: T[];
  seen: number;
  random: RandomState;
}
