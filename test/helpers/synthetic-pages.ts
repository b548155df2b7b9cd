/** Test helpers for the scorer's snapshot: a crawl-shaped page stream, and a digest of a scorer's state by value. */
import { createHash, type Hash } from 'node:crypto';
import type { FetchedPage } from '../../src/score/types.js';

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
