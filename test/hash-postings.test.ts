import { describe, expect, it } from 'vitest';
import { HashPostings } from '../src/text/hash-postings.js';

describe('hash postings (the near-duplicate index\'s hash → pages table)', () => {
  it('answers as a Map of lists through adds, removes, growth and wrap-around', () => {
    const t = new HashPostings(16);
    const ref = new Map<number, number[]>();
    let x = 12345;
    const rand = (n: number) => ((x = (Math.imul(x, 1103515245) + 12345) >>> 0) >>> 8) % n;
    // Keys that share home slots (multiples of 64), some in the top slots (wrap-around) and shared by pages.
    const key = () => (rand(4) === 0 ? 0xfffffff0 + rand(16) : rand(3000) * 64) >>> 0;
    for (let step = 0; step < 20_000; step++) {
      let h = key();
      let page = rand(3);
      if (rand(2) === 0 && ref.size) {
        // Remove a pair that is there (most keys are held by one page: their slots are emptied).
        h = [...ref.keys()][rand(ref.size)];
        page = ref.get(h)![rand(ref.get(h)!.length)];
        t.remove(h, page);
        const rest = (ref.get(h) ?? []).filter((p) => p !== page);
        if (rest.length) ref.set(h, rest);
        else ref.delete(h);
      } else if (!(ref.get(h) ?? []).includes(page)) {
        t.add(h, page);
        ref.set(h, [...(ref.get(h) ?? []), page]);
      }
      if (step % 97 === 0 || step > 19_900) {
        for (const [k, pages] of ref) {
          expect(t.count(k)).toBe(pages.length);
          const got: number[] = [];
          t.forEach(k, (p) => got.push(p));
          expect(got.sort((a, b) => a - b)).toEqual([...pages].sort((a, b) => a - b));
        }
      }
    }
    expect(t.count(7)).toBe(ref.get(7)?.length ?? 0);
  });
});
