/**
 * Helpers of the scorer's snapshot seam (`state()` / `restore()` on each stateful part, and
 * `Scorer.state()` over them): a late worker of a Redis crawl restores another worker's scorer
 * instead of replaying every page (src/cluster/redis-scorer-state.ts).
 *
 * A part's `state()` is plain data (numbers, strings, arrays, typed arrays, Maps, Sets, Dates; no
 * class instances, no functions) with a version `v`, and it is LIVE: it shares the part's own
 * Maps and objects, so it must be serialised (v8.serialize, which keeps shared references: a
 * queued URL's dead-link keys and its in-links' link-ranker features point into other parts)
 * before the scorer takes in another page. `restore()` takes such data back, once deserialised.
 * A new stateful part of the scorer needs both (and its version bumped when its shape changes):
 * test/scorer-snapshot-state.test.ts fails on any state a snapshot misses.
 */

/** Replace a Map's (or Set's) contents in place, keeping its order: parts hand their Maps out by reference. */
export function refill<K, V>(target: Map<K, V>, from: Map<K, V>): void {
  target.clear();
  for (const [k, v] of from) target.set(k, v);
}

/** A part state's version, checked before anything is restored: one wrong part refuses the whole snapshot. */
export function checkStateVersion(part: string, s: { v?: unknown } | undefined, v: number): void {
  if (!s || s.v !== v) throw new Error(`scorer snapshot: ${part} state version ${String(s?.v)} is not this code's ${v}`);
}
