/**
 * The scorer's snapshot seam (src/score/snapshot.ts, each part's state()/restore()): a scorer
 * restored from another's state, serialised and deserialised as a Redis snapshot is
 * (v8.serialize), scores every later page exactly as the original does; a state of another
 * version is refused before anything changes.
 */
import { deserialize, serialize } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { createScorer } from '../src/score/index.js';
import type { Scorer, ScorerState } from '../src/score/types.js';
import { stateDigest, syntheticPages } from './helpers/synthetic-pages.js';

const make = (): Scorer => createScorer('combined', { iprEvery: 25 }, { randomSeed: 3, timePr: (d) => (d.getUTCMonth() === 4 ? 0.8 : 0.2), inTimeWindow: () => true });
const copyOf = (s: Scorer): ScorerState => deserialize(serialize(s.state())) as ScorerState;

describe('scorer state()/restore()', () => {
  it('a scorer restored from a snapshot scores every later page as the original, to the last digit', () => {
    const pages = syntheticPages(260);
    const original = make();
    for (const p of pages.slice(0, 150)) original.onPageFetched(p);
    const snap = copyOf(original);
    expect(snap.pages).toBe(original.graph.fetchedCount);
    const restored = make();
    restored.restore(snap);
    const fresh = make(); // the same pages, without the snapshot: it must score differently (the test can fail)
    let compared = 0;
    let differFromFresh = 0;
    for (const p of pages.slice(150)) {
      const a = original.onPageFetched(p);
      const b = restored.onPageFetched(p);
      expect(b).toEqual(a);
      compared += a.length;
      const c = fresh.onPageFetched(p);
      if (JSON.stringify(c.map((u) => u.score)) !== JSON.stringify(a.map((u) => u.score))) differFromFresh++;
    }
    expect(compared).toBeGreaterThan(500);
    expect(differFromFresh).toBeGreaterThan(50);
    // Same state at the end, value for value, learners and random draws included.
    expect(stateDigest(restored.state())).toBe(stateDigest(original.state()));
    expect(stateDigest(fresh.state())).not.toBe(stateDigest(original.state()));
    expect(restored.learner?.weights).toEqual(original.learner?.weights);
  });

  it('restoring into a scorer that already took pages in replaces its state', () => {
    const pages = syntheticPages(120, 11);
    const a = make();
    for (const p of pages.slice(0, 80)) a.onPageFetched(p);
    const b = make();
    for (const p of pages.slice(50, 70)) b.onPageFetched(p);
    b.restore(copyOf(a));
    for (const p of pages.slice(80)) expect(b.onPageFetched(p)).toEqual(a.onPageFetched(p));
  });

  it('a state of another version or strategy is refused and changes nothing', () => {
    const pages = syntheticPages(60, 5);
    const a = make();
    for (const p of pages) a.onPageFetched(p);
    const b = make();
    for (const p of pages.slice(0, 10)) b.onPageFetched(p);
    const before = stateDigest(b.state());
    const old = copyOf(a);
    (old.book as { v: number }).v = 2;
    expect(() => b.restore(old)).toThrow(/link book state version 2 is not this code's 1/);
    const otherStrategy = createScorer('best-first');
    expect(() => otherStrategy.restore(copyOf(a))).toThrow(/another strategy/);
    const noRanker = createScorer('combined', { linkRanker: false }, { randomSeed: 3 });
    expect(() => noRanker.restore(copyOf(a))).toThrow(/link ranker present/);
    expect(stateDigest(b.state())).toBe(before);
  });
});
