/**
 * The frontier's compact structures: the exact key table, the parent-URL pool, the
 * components store, the slot heap, and the queue built on them round-tripping its snapshot.
 */
import { describe, expect, it } from 'vitest';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import { KeyTable } from '../src/frontier/key-table.js';
import { StringPool } from '../src/frontier/string-pool.js';
import { ComponentStore, fromFloat32 } from '../src/frontier/component-store.js';
import { SlotMaxHeap, slotPriority, type SlotColumns } from '../src/frontier/heap.js';
import { BestFirstQueue } from '../src/frontier/queue.js';
import type { QueuedUrl } from '../src/frontier/types.js';

describe('KeyTable', () => {
  it('interns keys as dense ids and gives each back exactly', () => {
    const t = new KeyTable();
    const keys = ['https://a.test/x', 'https://a.test/y', 'http://a.test/x', 'https://a.test', 'not a url', '', 'https://中文.test/新闻?q=地震', 'https://a.test/\ud800lone', 'x://h/' + 'p'.repeat(5000)];
    const ids = keys.map((k) => t.add(k));
    expect(ids).toEqual(keys.map((_, i) => i));
    expect(t.size).toBe(keys.length);
    for (const [i, k] of keys.entries()) {
      expect(t.key(i)).toBe(k);
      expect(t.find(k)).toBe(i);
      expect(t.add(k)).toBe(i); // adding again: same id, nothing new
    }
    expect(t.size).toBe(keys.length);
    expect(t.has('https://a.test/z')).toBe(false);
    expect(t.has('https://a.test/x ')).toBe(false);
    expect(t.has('https://a.test/X')).toBe(false);
    expect(t.find('https://b.test/x')).toBe(-1);
    expect(() => t.key(keys.length)).toThrow(RangeError);
  });

  it('is an exact set: agrees with Set<string> over 50,000 near-identical keys across chunks', () => {
    const t = new KeyTable();
    const ref = new Set<string>();
    const rng = xoroshiro128plus(3);
    for (let i = 0; i < 50_000; i++) {
      // Many keys share origins and long prefixes and differ in one character.
      const k = `https://h${i % 37}.test/2024/05/section/${'long-slug-'.repeat(8)}${Math.floor(uniformFloat64(rng) * 40_000)}${i % 3 === 0 ? '漢' : ''}`;
      expect(t.has(k)).toBe(ref.has(k));
      t.add(k);
      ref.add(k);
    }
    expect(t.size).toBe(ref.size);
    let id = 0;
    for (const k of ref) expect(t.key(id++)).toBe(k); // ids in first-seen order
    expect(t.has('https://h1.test/2024/05/section/')).toBe(false);
  });
});

describe('StringPool', () => {
  it('shares one id per string and forgets it with the last reference', () => {
    const p = new StringPool();
    const a1 = p.acquire('https://a.test/parent');
    const a2 = p.acquire('https://a.test/' + 'parent'); // an equal string, another object
    const b = p.acquire('https://b.test/');
    expect(a2).toBe(a1);
    expect(b).not.toBe(a1);
    expect(p.size).toBe(2);
    expect(p.refCount(a1)).toBe(2);
    p.release(a1);
    expect(p.get(a1)).toBe('https://a.test/parent');
    p.release(a1);
    expect(p.refCount(a1)).toBe(0);
    expect(p.size).toBe(1);
    expect(() => p.get(a1)).toThrow(RangeError);
    expect(() => p.release(a1)).toThrow(/released more often/);
    // The freed id is reused for the next new string.
    expect(p.acquire('https://c.test/')).toBe(a1);
  });
});

describe('ComponentStore', () => {
  it('gives back names in order and short decimals exactly; long ones to 7 significant digits', () => {
    const s = new ComponentStore();
    const c = { inlinks: 3, contextSim: 0.6367133825784218, wPath: 0.25, omega: 1.25, siteBonus: 1.1, parentPriority: 0.7, tiny: 1e-7, neg: -2.5, big: 123456 };
    s.set(5, c);
    const back = s.get(5)!;
    expect(Object.keys(back)).toEqual(Object.keys(c));
    for (const k of ['inlinks', 'wPath', 'omega', 'siteBonus', 'parentPriority', 'tiny', 'neg', 'big'] as const) expect(back[k]).toBe(c[k]);
    expect(back.contextSim).not.toBe(c.contextSim);
    expect(back.contextSim.toPrecision(7)).toBe(c.contextSim.toPrecision(7));
    expect(s.get(4)).toBeUndefined();
    expect(s.get(1_000_000)).toBeUndefined();
  });

  it('replaces, clears and reuses blocks; an empty record stays an empty record', () => {
    const s = new ComponentStore();
    s.set(0, { a: 1, b: 2 });
    s.set(1, { a: 3, b: 4 });
    s.set(0, { x: 0.5 });
    expect(s.get(0)).toEqual({ x: 0.5 });
    expect(s.get(1)).toEqual({ a: 3, b: 4 });
    s.set(2, {});
    expect(s.get(2)).toEqual({});
    s.set(1, undefined);
    expect(s.get(1)).toBeUndefined();
    s.set(3, { b: 9, a: 8 }); // another shape of the same length reuses slot 0's old block
    expect(s.get(3)).toEqual({ b: 9, a: 8 });
    expect(Object.keys(s.get(3)!)).toEqual(['b', 'a']);
    expect(s.get(0)).toEqual({ x: 0.5 });
  });

  it('records of one group (a parent page) share its reference values and still read back their own', () => {
    const s = new ComponentStore();
    const page = { pageLinkTerm: 0.641, scaleFree: 0.95, stoplist: 1 };
    const rng = xoroshiro128plus(9);
    const want = new Map<number, Record<string, number>>();
    for (let slot = 0; slot < 200; slot++) {
      // Some share every page-level value, some differ in one, a few have another shape or -0.
      const c: Record<string, number> = slot % 17 === 0 ? { seed: 1 } : { contextSim: Math.round(uniformFloat64(rng) * 1000) / 1000, ...page, ...(slot % 5 === 0 && { scaleFree: 0.5 }), ...(slot % 23 === 0 && { stoplist: -0 }) };
      s.set(slot, c, slot % 2); // two groups
      want.set(slot, c);
    }
    for (const [slot, c] of want) {
      const back = s.get(slot)!;
      expect(back).toEqual(c);
      expect(Object.keys(back)).toEqual(Object.keys(c));
      if (Object.is(c.stoplist, -0)) expect(Object.is(back.stoplist, -0)).toBe(true);
    }
    // Empty group 0 entirely: its reference goes; the group id then takes a new reference.
    for (let slot = 0; slot < 200; slot += 2) s.set(slot, undefined);
    s.set(0, { a: 0.1, b: 0.2 }, 0);
    s.set(2, { a: 0.1, b: 0.3 }, 0);
    expect(s.get(0)).toEqual({ a: 0.1, b: 0.2 });
    expect(s.get(2)).toEqual({ a: 0.1, b: 0.3 });
    for (let slot = 1; slot < 200; slot += 2) expect(s.get(slot)).toEqual(want.get(slot));
  });

  it('repacks when records change length, and every record still reads back', () => {
    const s = new ComponentStore();
    const rng = xoroshiro128plus(21);
    const want = new Map<number, Record<string, number>>();
    const page = (g: number) => ({ pageLinkTerm: g / 100, scaleFree: (1000 + g) / 1000, stoplist: 1, feedbackDecay: 1 });
    const N = 20_000;
    for (let slot = 0; slot < N; slot++) {
      const c = { contextSim: Math.round(uniformFloat64(rng) * 1e4) / 1e4, ...page(slot % 400) };
      s.set(slot, c, slot % 400);
      want.set(slot, c);
    }
    const live = () => [...want.values()].reduce((n, c) => n + Object.keys(c).length, 0);
    // Re-scored from other pages: nothing shared any more, and every round's records are longer.
    for (let round = 0; round < 3; round++)
      for (let slot = 0; slot < N; slot++) {
        const c: Record<string, number> = { contextSim: Math.round(uniformFloat64(rng) * 1e4) / 1e4, ...page((slot + 1 + round) % 400) };
        for (let k = 0; k <= round; k++) c[`extra${k}`] = k; // a longer record each round
        s.set(slot, c, slot % 400);
        want.set(slot, c);
      }
    for (const [slot, c] of want) expect([slot, s.get(slot)]).toEqual([slot, c]);
    // Without repacking the blocks freed by every round would stay: 3 rounds' worth of values.
    expect(s.valuesHeld).toBeLessThan(1.5 * live());
  });

  it('fromFloat32 is the shortest decimal that rounds to the float32', () => {
    for (const x of [0.1, 0.3, 0.7, 1.1, 0.6411396, 3.4e10, 1234.567]) expect(fromFloat32(Math.fround(x))).toBe(x);
    for (const x of [0.6367133825784218, 1 / 3, Math.PI]) expect(Math.fround(fromFloat32(Math.fround(x)))).toBe(Math.fround(x));
    expect(fromFloat32(Infinity)).toBe(Infinity);
    expect(fromFloat32(NaN)).toBeNaN();
  });
});

describe('SlotMaxHeap', () => {
  it('agrees with a naive reference under random push / re-prioritise / remove', () => {
    const rng = xoroshiro128plus(11);
    const rand = () => uniformFloat64(rng);
    const cols: SlotColumns = { score: new Float64Array(200), queuedAt: new Float64Array(200), pos: new Int32Array(200) };
    const h = new SlotMaxHeap(cols);
    const ref = new Map<number, number>();
    const refMax = () => Math.max(...ref.values());
    for (let step = 0; step < 20_000; step++) {
      const slot = Math.floor(rand() * 200);
      const score = Math.floor(rand() * 100) / 10; // ties on purpose
      const op = rand();
      if (!ref.has(slot) && op < 0.5) {
        cols.score[slot] = score;
        h.push(slot);
        ref.set(slot, score);
      } else if (ref.has(slot) && op < 0.75) {
        const old = slotPriority(cols, slot);
        cols.score[slot] = score;
        h.changed(slot, old);
        ref.set(slot, score);
      } else if (ref.has(slot)) {
        h.remove(slot);
        ref.delete(slot);
      } else if (ref.size) {
        const top = h.peek();
        expect(cols.score[top]).toBe(refMax());
        h.remove(top);
        ref.delete(top);
      }
      expect(h.size).toBe(ref.size);
      if (ref.size) expect(cols.score[h.peek()]).toBe(refMax());
      else expect(h.peek()).toBe(-1);
      if (step % 101 === 0) expect(h.checkInvariants()).toBe(true);
    }
    expect([...h.slots()].sort((a, b) => a - b)).toEqual([...ref.keys()].sort((a, b) => a - b));
  });

  it('serves equal scores oldest first, also after re-prioritisation', () => {
    const cols: SlotColumns = { score: new Float64Array(8), queuedAt: new Float64Array(8), pos: new Int32Array(8) };
    const h = new SlotMaxHeap(cols);
    for (const [slot, queuedAt] of [[3, 7], [1, 2], [5, 9], [0, 4]]) {
      cols.score[slot] = 0.5;
      cols.queuedAt[slot] = queuedAt;
      h.push(slot);
    }
    const old = slotPriority(cols, 5);
    cols.score[5] = 0.9;
    h.changed(5, old);
    const order: number[] = [];
    while (h.size) {
      order.push(h.peek());
      h.remove(h.peek());
    }
    expect(order).toEqual([5, 1, 0, 3]);
  });
});

describe('BestFirstQueue (compact entries)', () => {
  const entry = (k: string, score: number, queuedAt: number, more: Partial<QueuedUrl> = {}): QueuedUrl => ({ url: k, uniqueKey: k, depth: 1, score, queuedAt, ...more });

  it('keeps every field of an entry, shares parents, and forgets them with the entries', () => {
    const q = new BestFirstQueue();
    const parent = 'https://a.test/index.html';
    q.apply({ o: 'q', e: entry('https://a.test/1', 0.5, 0, { parentUrl: parent, anchorText: '地震救援', components: { contextSim: 0.25, inlinks: 2 }, depth: 3 }) });
    q.apply({ o: 'q', e: entry('https://a.test/2', 0.9, 1, { url: 'https://A.test/2#top', parentUrl: parent }) });
    q.apply({ o: 'q', e: entry('https://b.test/r#revisit-1', 0.7, 2, { revisit: true }) });
    expect(q.get('https://a.test/1')).toEqual({ url: 'https://a.test/1', uniqueKey: 'https://a.test/1', depth: 3, parentUrl: parent, anchorText: '地震救援', score: 0.5, components: { contextSim: 0.25, inlinks: 2 }, queuedAt: 0 });
    expect(q.get('https://a.test/2')!.url).toBe('https://A.test/2#top');
    expect(q.get('https://b.test/r#revisit-1')!.revisit).toBe(true);
    expect(q.revisitCount).toBe(1);
    expect([...q.hosts()].sort()).toEqual(['a.test', 'b.test']);
    // Re-queue with the fields the op carries (Object.assign semantics): components replaced, the rest kept.
    q.apply({ o: 'q', e: { ...q.get('https://a.test/1')!, score: 0.95, components: { x: 1 } } });
    expect(q.get('https://a.test/1')).toMatchObject({ score: 0.95, components: { x: 1 }, anchorText: '地震救援', parentUrl: parent, depth: 3 });
    expect(q.pickBest(() => true)!.entry.uniqueKey).toBe('https://a.test/1');
    expect(q.pickBest((h) => h !== 'a.test')).toMatchObject({ entry: { uniqueKey: 'https://b.test/r#revisit-1' }, skippedHosts: 1 });
    q.apply({ o: 'h', k: 'https://a.test/1', n: 1 });
    expect(q.get('https://a.test/1')).toBeUndefined();
    expect(q.inFlight('https://a.test/1')!.anchorText).toBe('地震救援');
    q.apply({ o: 'f', k: 'https://a.test/1' });
    q.apply({ o: 'x', k: 'https://a.test/2', r: 'robots.txt' });
    expect(q.inFlight('https://a.test/1')).toBeUndefined();
    expect(q.hasSeen('https://a.test/1') && q.hasSeen('https://a.test/2')).toBe(true);
    expect(q.dropReason('https://a.test/2')).toBe('robots.txt');
    expect(q.size).toBe(1);
    expect([...q.hosts()]).toEqual(['b.test']);
  });

  it('round-trips its snapshot (queued, in flight, seen, dropped) and hands out in the same order', () => {
    const rng = xoroshiro128plus(5);
    const rand = () => uniformFloat64(rng);
    const a = new BestFirstQueue();
    let seq = 0;
    for (let i = 0; i < 3000; i++) {
      const k = `https://h${Math.floor(rand() * 40)}.test/p/${Math.floor(rand() * 2000)}`;
      const r = rand();
      if (r < 0.6) {
        const old = a.get(k);
        a.apply({ o: 'q', e: old ? { ...old, score: Math.floor(rand() * 50) / 10 } : entry(k, Math.floor(rand() * 50) / 10, seq++, { parentUrl: `https://p${i % 30}.test/`, components: { s: rand() } }) });
      } else if (r < 0.7) a.apply({ o: 's', k, s: rand() });
      else if (r < 0.8) a.apply({ o: 'x', k, r: 'filter' });
      else if (r < 0.85) a.apply({ o: 'n', k });
      else if (r < 0.95) {
        const best = a.pickBest(() => true);
        if (best) a.apply({ o: 'h', k: best.entry.uniqueKey, n: a.handedOut + 1 });
      } else {
        const f = a.snapshot().inFlight[0];
        if (f) a.apply({ o: 'f', k: f.uniqueKey });
      }
    }
    const snap = JSON.parse(JSON.stringify(a.snapshot()));
    const b = new BestFirstQueue();
    b.load(snap);
    expect(JSON.parse(JSON.stringify(b.snapshot()))).toEqual(snap);
    expect(b.size).toBe(a.size);
    const order = (q: BestFirstQueue) => {
      const out: string[] = [];
      for (let e = q.pickBest(() => true); e; e = q.pickBest(() => true)) {
        out.push(e.entry.uniqueKey);
        q.apply({ o: 'h', k: e.entry.uniqueKey, n: q.handedOut + 1 });
      }
      return out;
    };
    const oa = order(a);
    expect(oa.length).toBe(snap.entries.length);
    expect(order(b)).toEqual(oa);
  });
});
