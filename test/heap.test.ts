import { describe, expect, it } from 'vitest';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import { IndexedMaxHeap } from '../src/frontier/heap.js';

describe('IndexedMaxHeap', () => {
  it('pops in descending score order and re-prioritises in place', () => {
    const h = new IndexedMaxHeap();
    h.push('a', 1);
    h.push('b', 5);
    h.push('c', 3);
    expect(h.peek()).toEqual({ key: 'b', score: 5 });
    expect(h.update('a', 9)).toBe(true);
    expect(h.update('b', 0)).toBe(true);
    expect(h.update('zzz', 1)).toBe(false);
    expect(h.get('b')).toBe(0);
    expect(h.remove('c')).toBe(true);
    expect(h.remove('c')).toBe(false);
    expect(h.has('c')).toBe(false);
    expect(h.size).toBe(2);
    expect(h.pop()).toEqual({ key: 'a', score: 9 });
    expect(h.pop()).toEqual({ key: 'b', score: 0 });
    expect(h.pop()).toBeUndefined();
    expect(() => {
      h.push('x', 1);
      h.push('x', 2);
    }).toThrow(/already present/);
    expect(h.set('x', 4)).toBe(false);
    expect(h.set('y', 2)).toBe(true);
    expect(h.pop()!.key).toBe('x');
  });

  it('agrees with a naive reference under 20,000 random operations', () => {
    const rng = xoroshiro128plus(42);
    const rand = () => uniformFloat64(rng);
    const h = new IndexedMaxHeap();
    const ref = new Map<string, number>();
    const refMax = () => {
      let best: number | undefined;
      for (const v of ref.values()) if (best === undefined || v > best) best = v;
      return best;
    };
    for (let step = 0; step < 20_000; step++) {
      const op = rand();
      const key = `k${Math.floor(rand() * 300)}`;
      const score = Math.floor(rand() * 1000) / 10; // ties happen on purpose
      if (op < 0.35) {
        h.set(key, score);
        ref.set(key, score);
      } else if (op < 0.6) {
        expect(h.update(key, score)).toBe(ref.has(key));
        if (ref.has(key)) ref.set(key, score);
      } else if (op < 0.75) {
        expect(h.remove(key)).toBe(ref.delete(key));
      } else if (op < 0.95) {
        const top = h.pop();
        const m = refMax();
        if (m === undefined) expect(top).toBeUndefined();
        else {
          expect(top!.score).toBe(m);
          expect(ref.get(top!.key)).toBe(m);
          ref.delete(top!.key);
        }
      } else {
        expect(h.get(key)).toBe(ref.get(key));
        expect(h.peek()?.score).toBe(refMax());
      }
      expect(h.size).toBe(ref.size);
      if (step % 97 === 0) expect(h.checkInvariants()).toBe(true);
    }
    expect(h.checkInvariants()).toBe(true);
    const drained: number[] = [];
    for (let e = h.pop(); e; e = h.pop()) drained.push(e.score);
    expect(drained).toEqual([...drained].sort((a, b) => b - a));
    expect(drained.length).toBe(ref.size);
  });
});
