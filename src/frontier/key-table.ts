/**
 * Every unique key the frontier has seen, interned as a dense id (0, 1, 2…) in a compact,
 * exact form: the de-duplication set of a million-URL crawl.
 *
 * Why hand-written: a `Set<string>` of a million ~100-character URLs costs ~116 bytes per string
 * plus ~20 per set entry, and the queue needs a key → id map on top. Here a key is split into
 * its origin (`https://host`, interned once per host) and the rest, whose characters go into a
 * CharArena (./char-arena.ts: 1 byte per character when all are below U+0100). An
 * open-addressing hash table (linear probing, load ≤ 1/2) maps a key's 32-bit hash to its id,
 * and a hit is confirmed by comparing the stored characters with the key's, so membership is
 * exact (no false positives). About 28 bytes per key besides its characters. Keys are never
 * removed: once seen, always seen.
 */
import { CharArena } from './char-arena.js';

const INITIAL_IDS = 1024;

function hashOf(s: string): number {
  // FNV-1a over UTF-16 code units, then a final avalanche (the table masks the low bits).
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  return h >>> 0;
}

/** Where the origin ends: after `scheme://host[:port]`, or 0 when the key is not such a URL. */
function originEnd(s: string): number {
  const scheme = s.indexOf('://');
  if (scheme < 0 || scheme > 10) return 0;
  const slash = s.indexOf('/', scheme + 3);
  return slash < 0 ? s.length : slash;
}

export class KeyTable {
  private readonly originIds = new Map<string, number>();
  private readonly origins: string[] = [];
  /** Per id: origin id, where the other characters are in the arena, their byte length × 2 + wide, hash. */
  private originOf = new Uint32Array(INITIAL_IDS);
  private at = new Uint32Array(INITIAL_IDS);
  private lw = new Uint32Array(INITIAL_IDS);
  private hashes = new Uint32Array(INITIAL_IDS);
  private readonly chars = new CharArena();
  /** Open addressing: id + 1, 0 = empty. */
  private table = new Int32Array(2 * INITIAL_IDS);
  private n = 0;

  /** Keys interned so far (ids are 0 … size − 1). */
  get size(): number {
    return this.n;
  }

  /** The key's id, or −1 when it was never added. */
  find(key: string): number {
    const h = hashOf(key);
    const mask = this.table.length - 1;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const v = this.table[i]!;
      if (v === 0) return -1;
      const id = v - 1;
      if (this.hashes[id] === h && this.equals(id, key)) return id;
    }
  }

  has(key: string): boolean {
    return this.find(key) >= 0;
  }

  /** The key's id, added when new. */
  add(key: string): number {
    const h = hashOf(key);
    const mask = this.table.length - 1;
    let i = h & mask;
    for (; ; i = (i + 1) & mask) {
      const v = this.table[i]!;
      if (v === 0) break;
      const id = v - 1;
      if (this.hashes[id] === h && this.equals(id, key)) return id;
    }
    const id = this.n;
    if (id >= this.originOf.length) this.growIds();
    const end = originEnd(key);
    const origin = key.slice(0, end);
    let o = this.originIds.get(origin);
    if (o === undefined) {
      o = this.origins.length;
      this.origins.push(origin);
      this.originIds.set(origin, o);
    }
    this.at[id] = this.chars.put(key, end);
    this.lw[id] = this.chars.lastLw;
    this.originOf[id] = o;
    this.hashes[id] = h;
    this.n++;
    this.table[i] = id + 1;
    if (this.n * 2 > this.table.length) this.rehash();
    return id;
  }

  /** The key of an id. */
  key(id: number): string {
    if (id < 0 || id >= this.n) throw new RangeError(`KeyTable: no id ${id}`);
    return this.origins[this.originOf[id]!]! + this.chars.get(this.at[id]!, this.lw[id]!);
  }

  private equals(id: number, key: string): boolean {
    const origin = this.origins[this.originOf[id]!]!;
    return key.startsWith(origin) && this.chars.equals(this.at[id]!, this.lw[id]!, key, origin.length);
  }

  private growIds(): void {
    const grow = (a: Uint32Array) => {
      const b = new Uint32Array(a.length * 2);
      b.set(a);
      return b;
    };
    this.originOf = grow(this.originOf);
    this.at = grow(this.at);
    this.lw = grow(this.lw);
    this.hashes = grow(this.hashes);
  }

  private rehash(): void {
    const table = new Int32Array(this.table.length * 2);
    const mask = table.length - 1;
    for (let id = 0; id < this.n; id++) {
      let i = this.hashes[id]! & mask;
      while (table[i] !== 0) i = (i + 1) & mask;
      table[i] = id + 1;
    }
    this.table = table;
  }
}
