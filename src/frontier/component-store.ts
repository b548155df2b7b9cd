/**
 * The named score components of queued entries (`QueuedUrl.components`, shown by `--explain`,
 * the crawl log and the report), stored compactly by entry slot.
 *
 * A components record is a few dozen numbers under names that repeat from entry to entry
 * (combined writes the same ~19 names for every link). As a JS object that is ~270 bytes
 * (hidden class, property array, one boxed double per fractional value). Here the list of names
 * (the record's *shape*) is interned once, and the values go into one Float32Array in blocks of
 * the shape's length, freed blocks reused by length: 4 bytes per value.
 *
 * Precision: components explain a score, they do not decide anything (the score itself is kept
 * as a full double by the queue). A value reads back as the shortest decimal that rounds to the
 * same float32, so any value written with up to 7 significant digits (0.7, 1.1, 0.25, counts)
 * comes back exactly, and others agree to 7 significant digits (`--explain` prints 4).
 */

/** The shortest decimal (≤ 9 digits) that rounds to this float32: 0.7f reads back as 0.7. */
export function fromFloat32(v: number): number {
  // Integers below 2^24 are exact in float32 (counts); larger float32s are integers too, but rounded ones.
  if ((Number.isInteger(v) && Math.abs(v) < 16777216) || !Number.isFinite(v)) return v;
  for (let p = 7; p < 9; p++) {
    const d = Number(v.toPrecision(p));
    if (Math.fround(d) === v) return d;
  }
  return Number(v.toPrecision(9));
}

/** Values live in chunks of 2^20 floats (a block never spans two), so growing never copies them. */
const CHUNK_BITS = 20;
const CHUNK = 1 << CHUNK_BITS;

function popcount(m: number): number {
  m -= (m >>> 1) & 0x55555555;
  m = (m & 0x33333333) + ((m >>> 2) & 0x33333333);
  return (Math.imul((m + (m >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24) & 0xff;
}

function grownInt(a: Int32Array, min: number, fill: number): Int32Array {
  let cap = a.length * 2;
  while (cap < min) cap *= 2;
  const b = new Int32Array(cap).fill(fill);
  b.set(a);
  return b;
}

export class ComponentStore {
  private readonly shapeIds = new Map<string, number>();
  private readonly shapes: string[][] = [];
  /** Per slot: shape id (−1 = no components), own block, positions taken from its group's reference, group. */
  private shapeOf: Int32Array = new Int32Array(1024).fill(-1);
  private atOf: Int32Array = new Int32Array(1024);
  private maskOf: Int32Array = new Int32Array(1024);
  private groupOf: Int32Array = new Int32Array(1024).fill(-1);
  /** Per group: the reference record's shape (−1 = none) and block, and how many slots use the group. */
  private refShape: Int32Array = new Int32Array(256).fill(-1);
  private refAt: Int32Array = new Int32Array(256);
  private groupUsers: Int32Array = new Int32Array(256);
  private readonly chunks: Float32Array[] = [];
  /** Values used in the last chunk. */
  private used = 0;
  /** Free block offsets, by block length. */
  private free: number[][] = [];
  /** Values held in free blocks, and in all blocks (live + free). */
  private freeValues = 0;
  private heldValues = 0;

  /**
   * Set (or replace, or with undefined clear) a slot's components. Slots of one `group` (the
   * queue passes the parent URL's id: a page's links share its page-level factors) store only
   * the values that differ from the group's reference record, the first one stored for it.
   */
  set(slot: number, c: Record<string, number> | undefined, group = -1): void {
    this.clear(slot);
    if (c === undefined) return;
    // Free blocks are reused only by records of their length: when records change length (a
    // re-scored link no longer shares its page's values), repack once a quarter is free.
    if (this.freeValues > 1 << 16 && this.freeValues * 4 > this.heldValues) this.compact();
    const names = Object.keys(c);
    const sig = names.join('\u0000');
    let shape = this.shapeIds.get(sig);
    if (shape === undefined) {
      shape = this.shapes.length;
      this.shapes.push(names);
      this.shapeIds.set(sig, shape);
    }
    const len = names.length;
    if (slot >= this.shapeOf.length) this.growSlots(slot + 1);
    let mask = 0;
    if (group >= 0) {
      if (group >= this.refShape.length) this.growGroups(group + 1);
      this.groupUsers[group]!++;
      if (this.refShape[group]! < 0) {
        const at = this.alloc(len);
        const chunk = this.chunks[at >>> CHUNK_BITS]!;
        const off = at & (CHUNK - 1);
        for (let i = 0; i < len; i++) chunk[off + i] = c[names[i]!]!;
        this.refShape[group] = shape;
        this.refAt[group] = at;
      }
      if (this.refShape[group] === shape) {
        const at = this.refAt[group]!;
        const ref = this.chunks[at >>> CHUNK_BITS]!;
        const off = at & (CHUNK - 1);
        for (let i = 0; i < Math.min(len, 32); i++) if (Object.is(Math.fround(c[names[i]!]!), ref[off + i])) mask |= 1 << i;
      }
    }
    const own = len - popcount(mask);
    const at = this.alloc(own);
    const chunk = this.chunks[at >>> CHUNK_BITS];
    const off = at & (CHUNK - 1);
    for (let i = 0, k = 0; i < len; i++) if (i >= 32 || !(mask & (1 << i))) chunk![off + k++] = c[names[i]!]!;
    this.shapeOf[slot] = shape;
    this.atOf[slot] = at;
    this.maskOf[slot] = mask;
    this.groupOf[slot] = group;
  }

  /** Values the store holds in blocks, live or free (for tests and benchmarks). */
  get valuesHeld(): number {
    return this.heldValues;
  }

  get(slot: number): Record<string, number> | undefined {
    if (slot >= this.shapeOf.length) return undefined;
    const shape = this.shapeOf[slot]!;
    if (shape < 0) return undefined;
    const names = this.shapes[shape]!;
    const mask = this.maskOf[slot]!;
    const at = this.atOf[slot]!;
    const chunk = this.chunks[at >>> CHUNK_BITS];
    const off = at & (CHUNK - 1);
    let ref: Float32Array | undefined;
    let refOff = 0;
    if (mask) {
      const g = this.groupOf[slot]!;
      ref = this.chunks[this.refAt[g]! >>> CHUNK_BITS]!;
      refOff = this.refAt[g]! & (CHUNK - 1);
    }
    const c: Record<string, number> = {};
    for (let i = 0, k = 0; i < names.length; i++) c[names[i]!] = fromFloat32(i < 32 && mask & (1 << i) ? ref![refOff + i]! : chunk![off + k++]!);
    return c;
  }

  clear(slot: number): void {
    if (slot >= this.shapeOf.length) return;
    const shape = this.shapeOf[slot]!;
    if (shape < 0) return;
    const len = this.shapes[shape]!.length;
    this.release(this.atOf[slot]!, len - popcount(this.maskOf[slot]!));
    const g = this.groupOf[slot]!;
    if (g >= 0 && --this.groupUsers[g]! === 0) {
      // The group's last slot went: so does its reference record.
      this.release(this.refAt[g]!, this.shapes[this.refShape[g]!]!.length);
      this.refShape[g] = -1;
    }
    this.shapeOf[slot] = -1;
    this.groupOf[slot] = -1;
  }

  private release(at: number, len: number): void {
    if (len === 0) return;
    (this.free[len] ??= []).push(at);
    this.freeValues += len;
  }

  /** Copy every live block (records and group references) into fresh chunks, in order; no free blocks after. */
  private compact(): void {
    const old = this.chunks.splice(0);
    this.used = 0;
    this.free = [];
    this.freeValues = 0;
    this.heldValues = 0;
    const move = (at: number, len: number): number => {
      const to = this.alloc(len);
      const src = old[at >>> CHUNK_BITS]!;
      const from = at & (CHUNK - 1);
      this.chunks[to >>> CHUNK_BITS]!.set(src.subarray(from, from + len), to & (CHUNK - 1));
      return to;
    };
    for (let g = 0; g < this.refShape.length; g++) {
      const shape = this.refShape[g]!;
      if (shape >= 0) this.refAt[g] = move(this.refAt[g]!, this.shapes[shape]!.length);
    }
    for (let slot = 0; slot < this.shapeOf.length; slot++) {
      const shape = this.shapeOf[slot]!;
      if (shape < 0) continue;
      const own = this.shapes[shape]!.length - popcount(this.maskOf[slot]!);
      if (own > 0) this.atOf[slot] = move(this.atOf[slot]!, own);
    }
  }

  private alloc(len: number): number {
    if (len === 0) return 0;
    const reused = this.free[len]?.pop();
    if (reused !== undefined) {
      this.freeValues -= len;
      return reused;
    }
    this.heldValues += len;
    if (len > CHUNK) throw new RangeError(`ComponentStore: more than ${CHUNK} components`);
    for (;;) {
      const last = this.chunks[this.chunks.length - 1];
      if (last && this.used + len <= last.length) break;
      if (last && last.length < CHUNK) {
        // The first chunk starts small (most frontiers are small) and grows to a full one.
        const bigger = new Float32Array(Math.min(CHUNK, last.length * 4));
        bigger.set(last.subarray(0, this.used));
        this.chunks[this.chunks.length - 1] = bigger;
        continue;
      }
      if (this.chunks.length >= 1 << (31 - CHUNK_BITS)) throw new RangeError('ComponentStore: full');
      this.chunks.push(new Float32Array(this.chunks.length === 0 ? 1 << 12 : CHUNK));
      this.used = 0;
    }
    const at = ((this.chunks.length - 1) << CHUNK_BITS) | this.used;
    this.used += len;
    return at;
  }

  private growSlots(min: number): void {
    this.shapeOf = grownInt(this.shapeOf, min, -1);
    this.atOf = grownInt(this.atOf, min, 0);
    this.maskOf = grownInt(this.maskOf, min, 0);
    this.groupOf = grownInt(this.groupOf, min, -1);
  }

  private growGroups(min: number): void {
    this.refShape = grownInt(this.refShape, min, -1);
    this.refAt = grownInt(this.refAt, min, 0);
    this.groupUsers = grownInt(this.groupUsers, min, 0);
  }
}
