/**
 * The in-memory frontier back end: a best-first queue with de-duplication (FrontierBackend, the
 * contract in ./types.ts). State changes only through `apply(op)`, for live calls and journal
 * replay alike.
 *
 * Order: one max-heap of URLs per host, and a heap of hosts keyed by each host's best URL score.
 * Politeness then only skips *hosts*, never pops and re-pushes URLs, and every operation stays
 * O(log n) even when scores change after enqueueing (METHODS §3: new in-links, feedback and
 * IPageRank re-score URLs).
 *
 * Memory (a million queued URLs in ≤ 300 MB of heap, strings included): no object
 * per entry. Every key ever seen is an id in a KeyTable (./key-table.ts: characters in a byte
 * buffer, origins interned, exact); a queued or in-flight entry is a *slot* in typed-array
 * columns (key id, host id, depth, score, queue order, heap position), its parent URL an id in a
 * reference-counted StringPool (./string-pool.ts: a page's links share it), its components a
 * block in a ComponentStore (./component-store.ts), its anchor text characters in a CharArena
 * (./char-arena.ts). `get`, `pickBest` and `queued` build QueuedUrl objects on demand; nobody
 * holds them for long. The URL itself is stored only where it differs from the unique key.
 *
 * Long because: every entry field is a column of its own here, and alloc, free, update, snapshot
 * and load move them all together (split up, a field added would have to be added in two files).
 */
import { TextColumn } from './char-arena.js';
import { ComponentStore } from './component-store.js';
import { IndexedMaxHeap, SlotMaxHeap, slotPriority, type SlotColumns } from './heap.js';
import { KeyTable } from './key-table.js';
import { StringPool } from './string-pool.js';
import type { FrontierBackend, FrontierOp, FrontierState, QueuedUrl, ScoreFloor } from './types.js';
import { hostOf } from './url-key.js';

const REVISIT = 1;

function grown<T extends Int32Array | Float64Array | Uint8Array>(a: T, min: number, fill?: number): T {
  let cap = a.length * 2;
  while (cap < min) cap *= 2;
  const b = new (a.constructor as { new (n: number): T })(cap);
  if (fill !== undefined) b.fill(fill);
  b.set(a);
  return b;
}

export class BestFirstQueue implements FrontierBackend {
  /** Every unique key ever queued, dropped or marked: de-duplication outlives the entry. */
  private readonly keys = new KeyTable();
  /** Per key id: the slot of its queued entry, −1 when not queued. */
  private queuedSlot = new Int32Array(1024).fill(-1);
  /** Entries handed out and not finished: key id → slot (snapshots put them back in the queue). */
  private readonly inFlightSlots = new Map<number, number>();
  /** Why a key was dropped (robots, filters, hard focus), for `--explain`: key id → reason. */
  private readonly dropReasons = new Map<number, string>();

  // ---- entry columns, by slot --------------------------------------------------------------
  private keyIdOf = new Int32Array(1024);
  private hostIdOf = new Int32Array(1024);
  private depthOf = new Int32Array(1024);
  private parentOf = new Int32Array(1024);
  private flagsOf = new Uint8Array(1024);
  private readonly anchors = new TextColumn();
  /** The URL, where it differs from the unique key (fragment, query order, host case…). */
  private readonly urlOf = new Map<number, string>();
  private readonly components = new ComponentStore();
  /** Band offers' floors (./score-floor.ts), by slot: few entries have one. */
  private readonly floorOf = new Map<number, ScoreFloor>();
  private readonly parents = new StringPool();
  /** Score, queue order and heap position (read by the host heaps). */
  private readonly cols: SlotColumns = { score: new Float64Array(1024), queuedAt: new Float64Array(1024), pos: new Int32Array(1024) };
  private freeSlots: number[] = [];
  private nextSlot = 0;
  private queuedCount = 0;

  // ---- hosts ---------------------------------------------------------------------------------
  private readonly hostIds = new Map<string, number>();
  private readonly hostNames: string[] = [];
  private readonly urlHeaps: (SlotMaxHeap | undefined)[] = [];
  private readonly hostHeap = new IndexedMaxHeap();

  private _handedOut = 0;
  private _sequence = 0;
  private _revisitCount = 0;

  apply(op: FrontierOp): void {
    switch (op.o) {
      case 'q': {
        const e = op.e;
        if (Number.isNaN(e.score)) throw new Error(`frontier: score of ${e.uniqueKey} is NaN`);
        const id = this.keys.add(e.uniqueKey);
        this.ensureKeys(id);
        const old = this.queuedSlot[id]!;
        if (old >= 0) this.update(old, e);
        else {
          this.insert(id, e);
          if (e.revisit) this._revisitCount++;
        }
        this._sequence = Math.max(this._sequence, e.queuedAt + 1);
        break;
      }
      case 's': {
        const id = this.keys.find(op.k);
        const slot = id >= 0 ? this.queuedSlot[id]! : -1;
        if (slot < 0) break;
        if (Number.isNaN(op.s)) throw new Error(`frontier: score of ${op.k} is NaN`);
        const old = slotPriority(this.cols, slot);
        this.cols.score[slot] = op.s;
        if (op.c) this.components.set(slot, op.c, this.parentOf[slot]);
        this.reprioritise(slot, old);
        break;
      }
      case 'x': {
        const id = this.keys.add(op.k);
        this.ensureKeys(id);
        const slot = this.queuedSlot[id]!;
        if (slot >= 0) {
          this.unqueue(slot);
          this.freeSlot(slot);
        }
        this.dropReasons.set(id, op.r ?? 'dropped');
        break;
      }
      case 'n':
        this.ensureKeys(this.keys.add(op.k));
        break;
      case 'h': {
        const id = this.keys.find(op.k);
        const slot = id >= 0 ? this.queuedSlot[id]! : -1;
        if (slot >= 0) {
          this.unqueue(slot);
          // A key handed out twice without a finish (replay of an odd journal): the newer wins.
          const was = this.inFlightSlots.get(id);
          if (was !== undefined) this.freeSlot(was);
          this.inFlightSlots.set(id, slot);
        }
        this._handedOut = op.n;
        break;
      }
      case 'f': {
        const id = this.keys.find(op.k);
        const slot = id >= 0 ? this.inFlightSlots.get(id) : undefined;
        if (slot !== undefined) {
          this.inFlightSlots.delete(id);
          this.freeSlot(slot);
        }
        break;
      }
    }
  }

  pickBest(eligible: (host: string) => boolean): { entry: QueuedUrl; skippedHosts: number } | undefined {
    const skipped: { key: string; score: number }[] = [];
    let found: { entry: QueuedUrl; skippedHosts: number } | undefined;
    while (this.hostHeap.size > 0) {
      const top = this.hostHeap.pop()!;
      skipped.push(top);
      if (!eligible(top.key)) continue;
      const best = this.urlHeaps[this.hostIds.get(top.key)!]!.peek();
      found = { entry: this.entryAt(best), skippedHosts: skipped.length - 1 };
      break;
    }
    for (const s of skipped) this.hostHeap.set(s.key, s.score);
    return found;
  }

  get(uniqueKey: string): QueuedUrl | undefined {
    const id = this.keys.find(uniqueKey);
    const slot = id >= 0 ? this.queuedSlot[id]! : -1;
    return slot >= 0 ? this.entryAt(slot) : undefined;
  }

  inFlight(uniqueKey: string): QueuedUrl | undefined {
    const id = this.keys.find(uniqueKey);
    const slot = id >= 0 ? this.inFlightSlots.get(id) : undefined;
    return slot === undefined ? undefined : this.entryAt(slot);
  }

  hasSeen(uniqueKey: string): boolean {
    return this.keys.has(uniqueKey);
  }

  dropReason(uniqueKey: string): string | undefined {
    const id = this.keys.find(uniqueKey);
    return id >= 0 ? this.dropReasons.get(id) : undefined;
  }

  /** Queued entries, built one at a time (in slot order). */
  *queued(): IterableIterator<QueuedUrl> {
    for (const slot of this.queuedSlots()) yield this.entryAt(slot);
  }

  hosts(): IterableIterator<string> {
    return this.hostNamesQueued();
  }

  get size(): number {
    return this.queuedCount;
  }

  get handedOut(): number {
    return this._handedOut;
  }

  get sequence(): number {
    return this._sequence;
  }

  get revisitCount(): number {
    return this._revisitCount;
  }

  snapshot(): FrontierState {
    const seen: string[] = [];
    for (let id = 0; id < this.keys.size; id++) if (this.queuedSlot[id]! < 0 && !this.inFlightSlots.has(id)) seen.push(this.keys.key(id));
    return {
      sequence: this._sequence,
      revisitCount: this._revisitCount,
      handedOut: this._handedOut,
      entries: [...this.queued()],
      inFlight: this.inFlightEntriesList(),
      seen,
      dropped: [...this.dropReasons].map(([id, r]): [string, string] => [this.keys.key(id), r]),
    };
  }

  load(s: FrontierState): void {
    this._sequence = s.sequence;
    this._handedOut = s.handedOut;
    for (const e of s.entries) this.apply({ o: 'q', e });
    // Counted by the snapshot, not by the revisit entries it still holds.
    this._revisitCount = s.revisitCount;
    for (const e of s.inFlight) {
      const id = this.keys.add(e.uniqueKey);
      this.ensureKeys(id);
      const slot = this.allocSlot(id, e);
      const was = this.inFlightSlots.get(id);
      if (was !== undefined) this.freeSlot(was);
      this.inFlightSlots.set(id, slot);
    }
    for (const k of s.seen) this.ensureKeys(this.keys.add(k));
    for (const [k, r] of s.dropped) {
      const id = this.keys.add(k);
      this.ensureKeys(id);
      this.dropReasons.set(id, r);
    }
  }

  /**
   * Put an in-flight entry back in the queue (a crash stopped its fetch). Not an op: it undoes a
   * hand-out that never completed, and the Frontier snapshots right after restoring.
   */
  requeueInFlight(uniqueKey: string): boolean {
    const e = this.inFlight(uniqueKey);
    if (!e) return false;
    const id = this.keys.find(uniqueKey);
    this.freeSlot(this.inFlightSlots.get(id)!);
    this.inFlightSlots.delete(id);
    this.apply({ o: 'q', e });
    this._handedOut--;
    return true;
  }

  /** Entries handed out and not finished. */
  get inFlightCount(): number {
    return this.inFlightSlots.size;
  }

  inFlightEntriesList(): QueuedUrl[] {
    return [...this.inFlightSlots.values()].map((slot) => this.entryAt(slot));
  }

  // ---- internals -----------------------------------------------------------------------------

  private *queuedSlots(): IterableIterator<number> {
    for (let slot = 0; slot < this.nextSlot; slot++) {
      const id = this.keyIdOf[slot]!;
      if (id >= 0 && this.queuedSlot[id] === slot) yield slot;
    }
  }

  private *hostNamesQueued(): IterableIterator<string> {
    for (const e of this.hostHeap.entries()) yield e.key;
  }

  /** The QueuedUrl of a slot, as plain data (fields in the interface's order, as snapshots print them). */
  private entryAt(slot: number): QueuedUrl {
    const uniqueKey = this.keys.key(this.keyIdOf[slot]!);
    const e: QueuedUrl = { url: this.urlOf.get(slot) ?? uniqueKey, uniqueKey, depth: this.depthOf[slot]! } as QueuedUrl;
    const parent = this.parentOf[slot]!;
    if (parent >= 0) e.parentUrl = this.parents.get(parent);
    const anchor = this.anchors.get(slot);
    if (anchor !== undefined) e.anchorText = anchor;
    e.score = this.cols.score[slot]!;
    const c = this.components.get(slot);
    if (c) e.components = c;
    if (this.flagsOf[slot]! & REVISIT) e.revisit = true;
    e.queuedAt = this.cols.queuedAt[slot]!;
    const floor = this.floorOf.get(slot);
    if (floor) e.floor = floor;
    return e;
  }

  private ensureKeys(id: number): void {
    if (id >= this.queuedSlot.length) this.queuedSlot = grown(this.queuedSlot, id + 1, -1);
  }

  /** A new slot holding the entry's fields (not in any heap yet). */
  private allocSlot(keyId: number, e: QueuedUrl): number {
    let slot = this.freeSlots.pop();
    if (slot === undefined) {
      slot = this.nextSlot++;
      if (slot >= this.keyIdOf.length) this.growSlots(slot + 1);
    }
    this.keyIdOf[slot] = keyId;
    this.hostIdOf[slot] = this.hostId(hostOf(e.url));
    this.depthOf[slot] = e.depth;
    this.parentOf[slot] = e.parentUrl === undefined ? -1 : this.parents.acquire(e.parentUrl);
    this.anchors.set(slot, e.anchorText);
    this.cols.score[slot] = e.score;
    this.cols.queuedAt[slot] = e.queuedAt;
    this.flagsOf[slot] = e.revisit ? REVISIT : 0;
    if (e.url !== e.uniqueKey) this.urlOf.set(slot, e.url);
    this.components.set(slot, e.components, this.parentOf[slot]);
    if (e.floor) this.floorOf.set(slot, e.floor);
    else this.floorOf.delete(slot);
    return slot;
  }

  private freeSlot(slot: number): void {
    const parent = this.parentOf[slot]!;
    if (parent >= 0) this.parents.release(parent);
    this.parentOf[slot] = -1;
    this.anchors.set(slot, undefined);
    this.urlOf.delete(slot);
    this.components.set(slot, undefined);
    this.floorOf.delete(slot);
    this.keyIdOf[slot] = -1;
    this.freeSlots.push(slot);
  }

  private insert(keyId: number, e: QueuedUrl): void {
    const slot = this.allocSlot(keyId, e);
    this.queuedSlot[keyId] = slot;
    this.queuedCount++;
    const host = this.hostIdOf[slot]!;
    let heap = this.urlHeaps[host];
    if (!heap) heap = this.urlHeaps[host] = new SlotMaxHeap(this.cols);
    heap.push(slot);
    this.hostHeap.set(this.hostNames[host]!, slotPriority(this.cols, heap.peek()));
  }

  /** A re-queue of a queued key: the fields the op carries replace the entry's (as Object.assign). */
  private update(slot: number, e: Partial<QueuedUrl>): void {
    const old = slotPriority(this.cols, slot);
    if ('url' in e && e.url !== undefined) {
      if (e.url !== e.uniqueKey) this.urlOf.set(slot, e.url);
      else this.urlOf.delete(slot);
    }
    if ('depth' in e) this.depthOf[slot] = e.depth!;
    if ('parentUrl' in e) {
      const old = this.parentOf[slot]!;
      this.parentOf[slot] = e.parentUrl === undefined ? -1 : this.parents.acquire(e.parentUrl);
      if (old >= 0) this.parents.release(old);
    }
    if ('anchorText' in e) this.anchors.set(slot, e.anchorText);
    if ('score' in e) this.cols.score[slot] = e.score!;
    if ('components' in e) this.components.set(slot, e.components, this.parentOf[slot]);
    if ('revisit' in e) this.flagsOf[slot] = e.revisit ? REVISIT : 0;
    if ('queuedAt' in e) this.cols.queuedAt[slot] = e.queuedAt!;
    if ('floor' in e) {
      if (e.floor) this.floorOf.set(slot, e.floor);
      else this.floorOf.delete(slot);
    }
    this.reprioritise(slot, old);
  }

  /** The slot's score or queue order changed; `old` is its heap key before. */
  private reprioritise(slot: number, old: number): void {
    const host = this.hostIdOf[slot]!;
    const heap = this.urlHeaps[host]!;
    heap.changed(slot, old);
    this.hostHeap.set(this.hostNames[host]!, slotPriority(this.cols, heap.peek()));
  }

  /** Out of the queue (its heap and the key's queued slot); the slot's fields stay. */
  private unqueue(slot: number): void {
    const host = this.hostIdOf[slot]!;
    const heap = this.urlHeaps[host]!;
    this.queuedSlot[this.keyIdOf[slot]!] = -1;
    this.queuedCount--;
    heap.remove(slot);
    const top = heap.peek();
    const name = this.hostNames[host]!;
    if (top >= 0) this.hostHeap.set(name, slotPriority(this.cols, top));
    else {
      this.hostHeap.remove(name);
      this.urlHeaps[host] = undefined;
    }
  }

  private hostId(host: string): number {
    let id = this.hostIds.get(host);
    if (id === undefined) {
      id = this.hostNames.length;
      this.hostNames.push(host);
      this.hostIds.set(host, id);
    }
    return id;
  }

  private growSlots(min: number): void {
    this.keyIdOf = grown(this.keyIdOf, min);
    this.hostIdOf = grown(this.hostIdOf, min);
    this.depthOf = grown(this.depthOf, min);
    this.parentOf = grown(this.parentOf, min);
    this.flagsOf = grown(this.flagsOf, min);
    this.cols.score = grown(this.cols.score, min);
    this.cols.queuedAt = grown(this.cols.queuedAt, min);
    this.cols.pos = grown(this.cols.pos, min);
  }
}
