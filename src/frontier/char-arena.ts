/**
 * Characters of many strings in a few big byte buffers, for the frontier's keys and anchor texts.
 * A string costs its characters (1 byte each when all are below U+0100, else 2: exact
 * for any string, lone surrogates included) plus the two numbers its owner keeps: where it is
 * (`at`) and its byte length with the width in the low bit (`lw`). Reading gives a fresh flat
 * string, so a stored text never keeps a larger one alive (a substring of a page's text would).
 *
 * Buffers are chunks of 4 MiB (a string never spans two), so growing never copies them; freed
 * blocks are reused by strings of the same byte length.
 */
const CHUNK_BITS = 22;
export const ARENA_CHUNK = 1 << CHUNK_BITS;

export class CharArena {
  private readonly chunks: Buffer[] = [];
  /** Bytes used in the last chunk. */
  private used = 0;
  /** Freed block positions, by byte length. */
  private readonly free: number[][] = [];

  /** Store s.slice(start); returns where (`at`) and sets `lastLw` (byte length × 2 + wide). */
  put(s: string, start = 0): number {
    let wide = 0;
    for (let k = start; k < s.length; k++) {
      if (s.charCodeAt(k) > 0xff) {
        wide = 1;
        break;
      }
    }
    const len = (s.length - start) << wide;
    this.lastLw = len * 2 + wide;
    if (len === 0) return 0;
    if (len > ARENA_CHUNK) throw new RangeError(`CharArena: string longer than ${ARENA_CHUNK >> 1} characters`);
    let at = this.free[len]?.pop();
    if (at === undefined) {
      while (this.used + len > (this.chunks[this.chunks.length - 1]?.length ?? 0)) this.newChunk();
      at = ((this.chunks.length - 1) << CHUNK_BITS) | this.used;
      this.used += len;
    }
    this.chunks[at >>> CHUNK_BITS]!.write(start ? s.slice(start) : s, at & (ARENA_CHUNK - 1), wide ? 'utf16le' : 'latin1');
    return at >>> 0;
  }

  /** Byte length × 2 + wide of the string last `put`. */
  lastLw = 0;

  get(at: number, lw: number): string {
    const len = lw >>> 1;
    if (len === 0) return '';
    const a = at & (ARENA_CHUNK - 1);
    return this.chunks[at >>> CHUNK_BITS]!.toString(lw & 1 ? 'utf16le' : 'latin1', a, a + len);
  }

  /** Does the stored string equal s.slice(start)? (No string is built.) */
  equals(at: number, lw: number, s: string, start = 0): boolean {
    const rest = s.length - start;
    const wide = lw & 1;
    const len = lw >>> 1;
    if (len !== rest << wide) return false;
    if (len === 0) return true;
    const a = at & (ARENA_CHUNK - 1);
    const bytes = this.chunks[at >>> CHUNK_BITS]!;
    if (wide) {
      for (let k = 0; k < rest; k++) if ((bytes[a + 2 * k]! | (bytes[a + 2 * k + 1]! << 8)) !== s.charCodeAt(start + k)) return false;
      return true;
    }
    for (let k = 0; k < rest; k++) if (bytes[a + k] !== s.charCodeAt(start + k)) return false;
    return true;
  }

  /** The block may be reused by a string of the same byte length. */
  release(at: number, lw: number): void {
    const len = lw >>> 1;
    if (len > 0) (this.free[len] ??= []).push(at);
  }

  /** Bytes of the buffers (for benchmarks). */
  get bytesHeld(): number {
    return this.chunks.reduce((s, c) => s + c.length, 0);
  }

  private newChunk(): void {
    if (this.chunks.length >= 1 << (32 - CHUNK_BITS)) throw new RangeError('CharArena: full (4 GiB)');
    // The first chunk starts small (most frontiers are small) and grows to a full one.
    const last = this.chunks[this.chunks.length - 1];
    if (last && last.length < ARENA_CHUNK) {
      const bigger = Buffer.alloc(Math.min(ARENA_CHUNK, last.length * 4));
      last.copy(bigger, 0, 0, this.used);
      this.chunks[this.chunks.length - 1] = bigger;
      return;
    }
    this.chunks.push(Buffer.alloc(this.chunks.length === 0 ? 1 << 14 : ARENA_CHUNK));
    this.used = 0;
  }
}

/** An optional text per slot (the queue's anchor texts), its characters in a CharArena. */
export class TextColumn {
  private readonly arena = new CharArena();
  private at = new Uint32Array(1024);
  /** Byte length × 2 + wide; −1 = no text. */
  private lw = new Int32Array(1024).fill(-1);

  /** Set, replace or (undefined) clear a slot's text. */
  set(slot: number, text: string | undefined): void {
    if (slot >= this.lw.length) this.grow(slot + 1);
    const old = this.lw[slot]!;
    if (old >= 0) this.arena.release(this.at[slot]!, old);
    this.lw[slot] = -1;
    if (text === undefined) return;
    this.at[slot] = this.arena.put(text);
    this.lw[slot] = this.arena.lastLw;
  }

  get(slot: number): string | undefined {
    const lw = slot < this.lw.length ? this.lw[slot]! : -1;
    return lw < 0 ? undefined : this.arena.get(this.at[slot]!, lw);
  }

  private grow(min: number): void {
    let cap = this.lw.length * 2;
    while (cap < min) cap *= 2;
    const at = new Uint32Array(cap);
    at.set(this.at);
    this.at = at;
    const lw = new Int32Array(cap).fill(-1);
    lw.set(this.lw);
    this.lw = lw;
  }
}
