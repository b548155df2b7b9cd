/**
 * The in-memory frontier back end: a best-first queue with de-duplication (FrontierBackend, the
 * contract in ./types.ts). State changes only through `apply(op)`, for live calls and journal
 * replay alike.
 *
 * Layout: one indexed max-heap of URLs per host, and a heap of hosts keyed by each host's best
 * URL score. Politeness then only skips *hosts*, never pops and re-pushes URLs, and every
 * operation stays O(log n) even when scores change after enqueueing (METHODS §3: new in-links,
 * feedback and IPageRank re-score URLs).
 */
import { IndexedMaxHeap } from './heap.js';
import type { FrontierBackend, FrontierOp, FrontierState, QueuedUrl } from './types.js';
import { hostOf } from './url-key.js';

export class BestFirstQueue implements FrontierBackend {
  private readonly entries = new Map<string, QueuedUrl>();
  private readonly urlHeaps = new Map<string, IndexedMaxHeap>();
  private readonly hostHeap = new IndexedMaxHeap();
  /** Every unique key ever queued: de-duplication outlives the entry. */
  private readonly seen = new Set<string>();
  /** Entries handed out and not finished, by key (snapshots put them back in the queue). */
  private readonly inFlightEntries = new Map<string, QueuedUrl>();
  /** Why a key was dropped (robots, filters, hard focus), for `--explain`. */
  private readonly dropReasons = new Map<string, string>();
  private _handedOut = 0;
  private _sequence = 0;
  private _revisitCount = 0;

  apply(op: FrontierOp): void {
    switch (op.o) {
      case 'q': {
        const e = op.e;
        const old = this.entries.get(e.uniqueKey);
        if (old) Object.assign(old, e);
        else {
          this.entries.set(e.uniqueKey, { ...e });
          if (e.revisit) this._revisitCount++;
        }
        this.seen.add(e.uniqueKey);
        this._sequence = Math.max(this._sequence, e.queuedAt + 1);
        this.setScore(this.entries.get(e.uniqueKey)!);
        break;
      }
      case 's': {
        const e = this.entries.get(op.k);
        if (!e) break;
        e.score = op.s;
        if (op.c) e.components = op.c;
        this.setScore(e);
        break;
      }
      case 'x': {
        const e = this.entries.get(op.k);
        if (e) this.removeEntry(e);
        this.seen.add(op.k);
        this.dropReasons.set(op.k, op.r ?? 'dropped');
        break;
      }
      case 'n':
        this.seen.add(op.k);
        break;
      case 'h': {
        const e = this.entries.get(op.k);
        if (e) {
          this.removeEntry(e);
          this.inFlightEntries.set(op.k, e);
        }
        this._handedOut = op.n;
        break;
      }
      case 'f':
        this.inFlightEntries.delete(op.k);
        break;
    }
  }

  pickBest(eligible: (host: string) => boolean): { entry: QueuedUrl; skippedHosts: number } | undefined {
    const skipped: { key: string; score: number }[] = [];
    let found: { entry: QueuedUrl; skippedHosts: number } | undefined;
    while (this.hostHeap.size > 0) {
      const top = this.hostHeap.pop()!;
      skipped.push(top);
      if (!eligible(top.key)) continue;
      const best = this.urlHeaps.get(top.key)!.peek()!;
      found = { entry: this.entries.get(best.key)!, skippedHosts: skipped.length - 1 };
      break;
    }
    for (const s of skipped) this.hostHeap.set(s.key, s.score);
    return found;
  }

  get(uniqueKey: string): QueuedUrl | undefined {
    return this.entries.get(uniqueKey);
  }

  inFlight(uniqueKey: string): QueuedUrl | undefined {
    return this.inFlightEntries.get(uniqueKey);
  }

  hasSeen(uniqueKey: string): boolean {
    return this.seen.has(uniqueKey);
  }

  dropReason(uniqueKey: string): string | undefined {
    return this.dropReasons.get(uniqueKey);
  }

  queued(): IterableIterator<QueuedUrl> {
    return this.entries.values();
  }

  hosts(): IterableIterator<string> {
    return this.urlHeaps.keys();
  }

  get size(): number {
    return this.entries.size;
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
    for (const k of this.seen) if (!this.entries.has(k) && !this.inFlightEntries.has(k)) seen.push(k);
    return {
      sequence: this._sequence,
      revisitCount: this._revisitCount,
      handedOut: this._handedOut,
      entries: [...this.entries.values()],
      inFlight: [...this.inFlightEntries.values()],
      seen,
      dropped: [...this.dropReasons],
    };
  }

  load(s: FrontierState): void {
    this._sequence = s.sequence;
    this._handedOut = s.handedOut;
    for (const e of s.entries) this.apply({ o: 'q', e });
    // Counted by the snapshot, not by the revisit entries it still holds.
    this._revisitCount = s.revisitCount;
    for (const e of s.inFlight) {
      this.seen.add(e.uniqueKey);
      this.inFlightEntries.set(e.uniqueKey, e);
    }
    for (const k of s.seen) this.seen.add(k);
    for (const [k, r] of s.dropped) {
      this.seen.add(k);
      this.dropReasons.set(k, r);
    }
  }

  /**
   * Put an in-flight entry back in the queue (a crash stopped its fetch). Not an op: it undoes a
   * hand-out that never completed, and the Frontier snapshots right after restoring.
   */
  requeueInFlight(uniqueKey: string): boolean {
    const e = this.inFlightEntries.get(uniqueKey);
    if (!e) return false;
    this.inFlightEntries.delete(uniqueKey);
    this.apply({ o: 'q', e });
    this._handedOut--;
    return true;
  }

  inFlightEntriesList(): QueuedUrl[] {
    return [...this.inFlightEntries.values()];
  }

  private setScore(entry: QueuedUrl): void {
    const host = hostOf(entry.url);
    let heap = this.urlHeaps.get(host);
    if (!heap) {
      heap = new IndexedMaxHeap();
      this.urlHeaps.set(host, heap);
    }
    // Ties go to the older URL: a tiny age bonus keeps equal scores FIFO.
    heap.set(entry.uniqueKey, tieBreak(entry.score, entry.queuedAt));
    this.hostHeap.set(host, heap.peek()!.score);
  }

  private removeEntry(entry: QueuedUrl): void {
    const host = hostOf(entry.url);
    const heap = this.urlHeaps.get(host);
    this.entries.delete(entry.uniqueKey);
    if (!heap) return;
    heap.remove(entry.uniqueKey);
    const top = heap.peek();
    if (top) this.hostHeap.set(host, top.score);
    else {
      this.hostHeap.remove(host);
      this.urlHeaps.delete(host);
    }
  }
}

/**
 * Equal scores are served oldest first. Folding the queue order into the key keeps one heap;
 * at 1e-12 per URL even a million URLs shift a score by only 1e-6.
 */
function tieBreak(score: number, sequence: number): number {
  return score - sequence * 1e-12;
}
