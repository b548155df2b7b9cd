/**
 * Shingle hash (32 bits) → the pages whose sample holds it, for the near-duplicate index
 * (./near-duplicate.ts): open addressing with linear probing in two typed arrays (8 bytes a
 * slot, at most 3/4 full), since nearly every hash is held by one page; the few held by several
 * pages keep a list beside. Hand-written because a `Map<number, number[]>` cost ~90 bytes per
 * entry, and the index holds 256 entries per page (~24 KB per page, 480 MB at 20,000 pages).
 * Deletion shifts the following run back (no tombstones), so the table never degrades.
 */
export class HashPostings {
  private keys: Uint32Array;
  /** 0: empty slot; n > 0: held by page n - 1 alone; -1: by several, listed in `several`. */
  private vals: Int32Array;
  private mask: number;
  private used = 0;
  private readonly several = new Map<number, number[]>();

  constructor(capacity = 1024) {
    let cap = 16;
    while (cap < capacity) cap *= 2;
    this.keys = new Uint32Array(cap);
    this.vals = new Int32Array(cap);
    this.mask = cap - 1;
  }

  /** Bytes held by the table (the lists of shared hashes not counted). */
  get bytes(): number {
    return this.keys.byteLength + this.vals.byteLength;
  }

  private slot(h: number): number {
    let i = h & this.mask;
    while (this.vals[i] !== 0 && this.keys[i] !== h) i = (i + 1) & this.mask;
    return i;
  }

  /** How many pages hold `h`. */
  count(h: number): number {
    const v = this.vals[this.slot(h)];
    return v === 0 ? 0 : v > 0 ? 1 : this.several.get(h)!.length;
  }

  /** Calls `each` with every page holding `h`. */
  forEach(h: number, each: (page: number) => void): void {
    const v = this.vals[this.slot(h)];
    if (v > 0) each(v - 1);
    else if (v < 0) for (const p of this.several.get(h)!) each(p);
  }

  add(h: number, page: number): void {
    if ((this.used + 1) * 4 > this.vals.length * 3) this.grow();
    const i = this.slot(h);
    const v = this.vals[i];
    if (v === 0) {
      this.keys[i] = h;
      this.vals[i] = page + 1;
      this.used++;
    } else if (v > 0) {
      this.several.set(h, [v - 1, page]);
      this.vals[i] = -1;
    } else this.several.get(h)!.push(page);
  }

  remove(h: number, page: number): void {
    const i = this.slot(h);
    const v = this.vals[i];
    if (v === 0) return;
    if (v > 0) {
      if (v - 1 === page) this.deleteAt(i);
      return;
    }
    const rest = this.several.get(h)!.filter((p) => p !== page);
    if (rest.length > 1) return void this.several.set(h, rest);
    this.several.delete(h);
    if (rest.length === 1) this.vals[i] = rest[0] + 1;
    else this.deleteAt(i);
  }

  /** Empty slot `i`, moving back each following entry whose home is not between it and its place. */
  private deleteAt(i: number): void {
    const m = this.mask;
    let j = i;
    for (;;) {
      j = (j + 1) & m;
      if (this.vals[j] === 0) break;
      const home = this.keys[j] & m;
      if (i <= j ? i < home && home <= j : i < home || home <= j) continue;
      this.keys[i] = this.keys[j];
      this.vals[i] = this.vals[j];
      i = j;
    }
    this.vals[i] = 0;
    this.used--;
  }

  private grow(): void {
    const { keys, vals } = this;
    this.keys = new Uint32Array(keys.length * 2);
    this.vals = new Int32Array(vals.length * 2);
    this.mask = this.keys.length - 1;
    for (let i = 0; i < keys.length; i++) {
      if (vals[i] === 0) continue;
      const s = this.slot(keys[i]);
      this.keys[s] = keys[i];
      this.vals[s] = vals[i];
    }
  }
}
