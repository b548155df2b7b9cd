/**
 * The scorer's snapshot seam (src/score/snapshot.ts, each part's state()/restore()): a scorer
 * restored from another's state, serialised and deserialised as a Redis snapshot is
 * (v8.serialize), scores every later page exactly as the original does; a state of another
 * version is refused before anything changes.
 */
import { createHash, type Hash } from 'node:crypto';
import { deserialize, serialize } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { createScorer } from '../src/score/index.js';
import type { FetchedPage, Scorer, ScorerState } from '../src/score/types.js';

/** A deterministic crawl-shaped page stream: topical and off-topic sections on a few hosts, dead links, dates, page words. */
export function syntheticPages(n: number, seed = 7): FetchedPage[] {
  let x = seed >>> 0 || 1;
  const rand = () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 2 ** 32;
  };
  const words = ['地震', '救援', '余震', '股票', '体育', '新闻', '论坛', '天气', 'quake', 'rescue', 'market', 'sports'];
  const pages: FetchedPage[] = [];
  for (let i = 0; i < n; i++) {
    const host = `h${i % 5}.test`;
    const topical = (i % 5 < 2) !== rand() < 0.2;
    const links = Array.from({ length: 8 + Math.floor(rand() * 12) }, (_, k) => {
      const h = `h${Math.floor(rand() * 6)}.test`;
      const section = rand() < 0.5 ? 'news' : 'forum';
      const w = words[Math.floor(rand() * words.length)];
      return {
        url: `http://${h}/${section}/${Math.floor(rand() * (i + 40))}.html`,
        anchorText: `${w} ${k}`,
        context: `${w} ${words[Math.floor(rand() * words.length)]}`,
        contextSim: topical ? 0.3 + rand() * 0.5 : rand() * 0.3,
        anchorKeywordFreq: rand() < 0.3 ? rand() : 0,
        urlTime: rand() < 0.2 ? new Date(Date.UTC(2008, 4, 1 + Math.floor(rand() * 60))) : undefined,
      };
    });
    pages.push({
      url: i === 0 ? 'http://h0.test/' : `http://${host}/${rand() < 0.5 ? 'news' : 'forum'}/${i}.html`,
      parentUrl: i === 0 ? undefined : pages[Math.floor(rand() * i)].url,
      depth: Math.min(6, 1 + Math.floor(i / 40)),
      rel: topical ? 0.2 + rand() * 0.6 : rand() * 0.1,
      relevant: topical,
      evidence: (topical ? 1 : -1) + rand(),
      publishTime: rand() < 0.5 ? new Date(Date.UTC(2008, 4, 12 + Math.floor(rand() * 30))) : undefined,
      links,
      words: [words[i % words.length], words[(i * 7) % words.length]],
      host,
      status: rand() < 0.05 ? 404 : 200,
    });
  }
  return pages;
}

/**
 * A digest of plain data by value (v8.serialize's bytes differ for equal values: a number kept
 * as an integer or a double), shared objects hashed once then by their first position.
 */
export function stateDigest(x: unknown): string {
  const h = createHash('sha256');
  const seen = new Map<object, number>();
  const walk = (v: unknown, out: Hash): void => {
    if (v === null || typeof v !== 'object') return void out.update(`${typeof v}:${Object.is(v, -0) ? '-0' : String(v)};`);
    const at = seen.get(v);
    if (at !== undefined) return void out.update(`ref:${at};`);
    seen.set(v, seen.size);
    if (ArrayBuffer.isView(v)) return void out.update(`${v.constructor.name}:`).update(new Uint8Array(v.buffer, v.byteOffset, v.byteLength));
    if (v instanceof Date) return void out.update(`date:${v.getTime()};`);
    const entries = v instanceof Map ? [...v] : v instanceof Set ? [...v].map((e) => [e, 1]) : Object.entries(v);
    out.update(`${v.constructor?.name}{`);
    for (const [k, e] of entries) walk(k, out), walk(e, out);
    out.update('}');
  };
  walk(x, h);
  return h.digest('hex');
}

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
