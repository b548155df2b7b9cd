/**
 * Indexed binary max-heap keyed by string (a URL's unique key). Scores change after enqueueing
 * (METHODS §3: new in-links, feedback, IPageRank), so besides push/pop it supports update and
 * remove of any key in O(log n).
 *
 * Layout (why hand-written: no maintained npm heap offers keyed decrease/increase-key with a
 * compact layout): every key gets a *slot*, kept in a SlotMaxHeap (below): scores in a
 * Float64Array by slot, the heap an Int32Array of slots, `pos` slot → heap index. The only
 * per-entry objects are the key string itself and one Map entry (key → slot). Freed slots are
 * reused through a free list. The frontier uses it for hosts; its URLs go straight into
 * SlotMaxHeaps over the queue's own columns.
 */

export interface HeapEntry {
  key: string;
  score: number;
}

const INITIAL_CAPACITY = 16;

export class IndexedMaxHeap {
  private slotOf = new Map<string, number>();
  private keys: (string | undefined)[] = [];
  /** Scores by slot; queue order stays 0, so a slot's heap key is its score. */
  private readonly cols: SlotColumns = { score: new Float64Array(INITIAL_CAPACITY), queuedAt: new Float64Array(INITIAL_CAPACITY), pos: new Int32Array(INITIAL_CAPACITY) };
  private heap = new SlotMaxHeap(this.cols);
  private freeSlots: number[] = [];
  private nextSlot = 0;

  get size(): number {
    return this.heap.size;
  }

  has(key: string): boolean {
    return this.slotOf.has(key);
  }

  /** The key's current score, or undefined when absent. */
  get(key: string): number | undefined {
    const s = this.slotOf.get(key);
    return s === undefined ? undefined : this.cols.score[s];
  }

  /** Insert a new key; throws when it is already present (use `set` for insert-or-update). */
  push(key: string, score: number): void {
    if (this.slotOf.has(key)) throw new Error(`IndexedMaxHeap.push: key already present: ${key}`);
    this.insert(key, score);
  }

  /** Insert the key, or change its score when present. Returns true when it was new. */
  set(key: string, score: number): boolean {
    const s = this.slotOf.get(key);
    if (s === undefined) {
      this.insert(key, score);
      return true;
    }
    this.reprioritise(s, score);
    return false;
  }

  /** Change a present key's score (up or down); false when the key is absent. */
  update(key: string, score: number): boolean {
    const s = this.slotOf.get(key);
    if (s === undefined) return false;
    this.reprioritise(s, score);
    return true;
  }

  peek(): HeapEntry | undefined {
    const s = this.heap.peek();
    return s < 0 ? undefined : { key: this.keys[s]!, score: this.cols.score[s]! };
  }

  pop(): HeapEntry | undefined {
    const s = this.heap.peek();
    if (s < 0) return undefined;
    const entry = { key: this.keys[s]!, score: this.cols.score[s]! };
    this.removeSlot(s);
    return entry;
  }

  remove(key: string): boolean {
    const s = this.slotOf.get(key);
    if (s === undefined) return false;
    this.removeSlot(s);
    return true;
  }

  clear(): void {
    this.slotOf.clear();
    this.keys = [];
    this.freeSlots = [];
    this.nextSlot = 0;
    this.heap = new SlotMaxHeap(this.cols);
  }

  /** Entries in no particular order. */
  *entries(): IterableIterator<HeapEntry> {
    for (const s of this.heap.slots()) yield { key: this.keys[s]!, score: this.cols.score[s]! };
  }

  /** For tests: true when every parent's score ≥ its children's and the indexes agree. */
  checkInvariants(): boolean {
    if (this.slotOf.size !== this.heap.size) return false;
    for (const s of this.heap.slots()) if (this.slotOf.get(this.keys[s]!) !== s) return false;
    return this.heap.checkInvariants();
  }

  // ---- internals ------------------------------------------------------------------------

  private insert(key: string, score: number): void {
    if (Number.isNaN(score)) throw new Error(`IndexedMaxHeap: score of ${key} is NaN`);
    let s = this.freeSlots.pop();
    if (s === undefined) {
      s = this.nextSlot++;
      if (s >= this.cols.score.length) this.growSlots();
    }
    this.slotOf.set(key, s);
    this.keys[s] = key;
    this.cols.score[s] = score;
    this.heap.push(s);
  }

  private reprioritise(s: number, score: number): void {
    if (Number.isNaN(score)) throw new Error(`IndexedMaxHeap: score of ${this.keys[s]} is NaN`);
    const old = this.cols.score[s]!;
    this.cols.score[s] = score;
    this.heap.changed(s, old);
  }

  private removeSlot(s: number): void {
    this.heap.remove(s);
    this.slotOf.delete(this.keys[s]!);
    this.keys[s] = undefined;
    this.freeSlots.push(s);
  }

  private growSlots(): void {
    const cap = this.cols.score.length * 2;
    const score = new Float64Array(cap);
    score.set(this.cols.score);
    this.cols.score = score;
    this.cols.queuedAt = new Float64Array(cap);
    const pos = new Int32Array(cap);
    pos.set(this.cols.pos);
    this.cols.pos = pos;
  }
}

/**
 * Per-slot columns a SlotMaxHeap reads (the owner may replace the arrays when it grows them).
 * A slot's heap key is `score − queuedAt·1e-12`: equal scores are served oldest first, and
 * computing the key instead of storing it saves 8 bytes per entry (the same arithmetic gives
 * the same double every time). At 1e-12 per URL even a million URLs shift a score by only 1e-6.
 */
export interface SlotColumns {
  score: Float64Array;
  /** Queue order (a counter). */
  queuedAt: Float64Array;
  /** pos[slot]: the slot's index in the one heap that holds it. */
  pos: Int32Array;
}

/** The heap key of a slot (see SlotColumns). */
export function slotPriority(cols: SlotColumns, slot: number): number {
  return cols.score[slot]! - cols.queuedAt[slot]! * 1e-12;
}

/**
 * Max-heap of integer slots whose priorities and positions live in shared columns: the frontier
 * keeps one per host, and a queued URL costs its heap 4 bytes (plus 12 in the shared columns)
 * with no per-entry object or Map entry. Same sift rules as IndexedMaxHeap, so equal inputs give
 * equal orders. The caller guarantees a slot is in at most one heap at a time.
 */
export class SlotMaxHeap {
  private items = new Int32Array(4);
  private n = 0;

  constructor(private readonly cols: SlotColumns) {}

  get size(): number {
    return this.n;
  }

  /** The slot with the highest priority, or −1 when empty. */
  peek(): number {
    return this.n === 0 ? -1 : this.items[0]!;
  }

  /** Add a slot whose priority is already in the columns. */
  push(slot: number): void {
    if (this.n >= this.items.length) {
      const items = new Int32Array(this.items.length * 2);
      items.set(this.items);
      this.items = items;
    }
    this.items[this.n] = slot;
    this.cols.pos[slot] = this.n;
    this.n++;
    this.siftUp(this.n - 1);
  }

  /** A held slot's priority changed from `old` to what the columns now say. */
  changed(slot: number, old: number): void {
    const p = slotPriority(this.cols, slot);
    const i = this.cols.pos[slot]!;
    if (p > old) this.siftUp(i);
    else if (p < old) this.siftDown(i);
  }

  /** Remove a held slot. */
  remove(slot: number): void {
    const i = this.cols.pos[slot]!;
    const last = this.n - 1;
    this.n--;
    if (i !== last) {
      const moved = this.items[last]!;
      this.items[i] = moved;
      this.cols.pos[moved] = i;
      if (i > 0 && slotPriority(this.cols, this.items[(i - 1) >> 1]!) < slotPriority(this.cols, moved)) this.siftUp(i);
      else this.siftDown(i);
    }
    // Shrink a heap that emptied a lot (hosts drain): its memory goes back with its entries.
    if (this.items.length > 64 && this.n < this.items.length / 4) this.items = this.items.slice(0, this.items.length / 2);
  }

  /** Slots held, in heap order (not sorted). */
  slots(): Int32Array {
    return this.items.subarray(0, this.n);
  }

  /** For tests: parents ≥ children and positions agree. */
  checkInvariants(): boolean {
    const pos = this.cols.pos;
    for (let i = 0; i < this.n; i++) {
      const s = this.items[i]!;
      if (pos[s] !== i) return false;
      if (i > 0 && slotPriority(this.cols, this.items[(i - 1) >> 1]!) < slotPriority(this.cols, s)) return false;
    }
    return true;
  }

  private siftUp(i: number): void {
    const items = this.items;
    const { score, queuedAt, pos } = this.cols;
    const s = items[i]!;
    const sc = score[s]! - queuedAt[s]! * 1e-12;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const ps = items[p]!;
      if (score[ps]! - queuedAt[ps]! * 1e-12 >= sc) break;
      items[i] = ps;
      pos[ps] = i;
      i = p;
    }
    items[i] = s;
    pos[s] = i;
  }

  private siftDown(i: number): void {
    const items = this.items;
    const { score, queuedAt, pos } = this.cols;
    const n = this.n;
    const s = items[i]!;
    const sc = score[s]! - queuedAt[s]! * 1e-12;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      let c = l;
      const pl = score[items[l]!]! - queuedAt[items[l]!]! * 1e-12;
      if (r < n && score[items[r]!]! - queuedAt[items[r]!]! * 1e-12 > pl) c = r;
      const cs = items[c]!;
      if (score[cs]! - queuedAt[cs]! * 1e-12 <= sc) break;
      items[i] = cs;
      pos[cs] = i;
      i = c;
    }
    items[i] = s;
    pos[s] = i;
  }
}
