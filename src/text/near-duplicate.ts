/**
 * Near-duplicate pages by their main text: a forum's "only this author" view of a
 * thread, a print view, another sort order or a mirror shows text an earlier page showed already.
 * Such a page is no new relevant page. Generic: no URL pattern, only the text.
 *
 * A page is its set of shingles (4 consecutive tokens: a CJK character or a Latin word is a
 * token), each hashed to 32 bits. A page keeps only its `sampleSize` smallest hashes (a bottom-k
 * sample) and their upper end `limit`: every shingle of the page with a hash ≤ limit is in the
 * sample. So for a new page A and an earlier page B, the share of A's shingle hashes ≤ limit(B)
 * found in B's sample is A's containment in B measured exactly on that hash range (consistent
 * sampling; Broder 1997, "On the resemblance and containment of documents"). A is a near-duplicate
 * of B when that share is ≥ `containment` over at least `minShared` hashes, or A's text equals B's
 * (either only when A has `minShingles` shingles).
 * Hashes held by many pages' samples are boilerplate (footers, signatures) and are not counted.
 * Hand-written: a few dozen lines, and the bottom-k index with containment is not what the
 * min-hash packages on npm offer (they estimate Jaccard resemblance, which a one-post view of a
 * ten-post thread does not have).
 */

import { HashPostings } from './hash-postings.js';

export interface NearDuplicateOptions {
  /** Hashes kept per page (its memory: 4 bytes each). */
  sampleSize?: number;
  /** Share of the new page's sampled shingles the earlier page must hold. */
  containment?: number;
  /** Fewest comparable hashes for a verdict by containment. */
  minShared?: number;
  /**
   * Fewest distinct shingles a page needs to be called a near-duplicate at all: a line or two of
   * text (a stub, a headline repeated) says too little to call the page a copy. It is still remembered.
   */
  minShingles?: number;
  /** Pages remembered; the oldest are forgotten past it (bounded memory). */
  maxPages?: number;
  /** A hash in more pages' samples than this is boilerplate and not compared. */
  boilerplatePages?: number;
}

/**
 * What the index keeps of one page: enough to tell later pages it holds their text, and to be
 * written down (a crawl's journal for `--resume`, a Redis crawl's shared list) and read back.
 */
export interface PageSketch {
  /** The page's identity (the frontier's key of the URL it was fetched as): fetched again, it is itself, not its own copy. */
  id: string;
  /** The URL its text came from (named in "near-duplicate of URL"). */
  url: string;
  /** Its smallest shingle hashes, ascending. */
  sample: Uint32Array;
  /** Every shingle hash of the page ≤ limit is in the sample. */
  limit: number;
  /** Shingle count and hash of all shingle hashes: identical texts. */
  whole: string;
}

/** One line of text per sketch (JSON, the sample as base64 of its little-endian bytes). */
export function encodeSketch(s: PageSketch): string {
  const bytes = Buffer.alloc(s.sample.length * 4);
  for (let i = 0; i < s.sample.length; i++) bytes.writeUInt32LE(s.sample[i], i * 4);
  return JSON.stringify({ i: s.id, u: s.url, l: s.limit, w: s.whole, s: bytes.toString('base64') });
}

export function decodeSketch(line: string): PageSketch {
  const o = JSON.parse(line) as { i: string; u: string; l: number; w: string; s: string };
  const bytes = Buffer.from(o.s, 'base64');
  const sample = new Uint32Array(bytes.length >>> 2);
  for (let i = 0; i < sample.length; i++) sample[i] = bytes.readUInt32LE(i * 4);
  return { id: o.i, url: o.u, limit: o.l, whole: o.w, sample };
}

const SHINGLE = 4;
const CJK_RANGE = '\\u3040-\\u30ff\\u3400-\\u4dbf\\u4e00-\\u9fff\\uac00-\\ud7af\\uf900-\\ufaff';
const CJK = new RegExp(`[${CJK_RANGE}]`, 'u');
const TOKEN = new RegExp(`[${CJK_RANGE}]|(?:(?![${CJK_RANGE}])[\\p{L}\\p{N}])+`, 'gu');

/** The text's tokens: each CJK character alone, other letters and digits by runs, lower-cased. */
export function shingleTokens(text: string): string[] {
  const out: string[] = [];
  for (const m of text.toLowerCase().matchAll(TOKEN)) out.push(m[0]);
  return out;
}

/** FNV-1a, then a murmur3 finaliser so the low and high bits are both uniform. */
function hash32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** The distinct shingle hashes of a text, ascending (a text shorter than a shingle is one shingle). */
export function shingleHashes(text: string): Uint32Array {
  const t = shingleTokens(text);
  const set = new Set<number>();
  if (t.length > 0 && t.length < SHINGLE) set.add(hash32(t.join(' ')));
  for (let i = 0; i + SHINGLE <= t.length; i++) {
    // CJK characters join without a space, words with one, so "a bc" and "ab c" differ.
    let s = t[i];
    for (let j = i + 1; j < i + SHINGLE; j++) s += (CJK.test(t[j]) && CJK.test(t[j - 1]) ? '' : ' ') + t[j];
    set.add(hash32(s));
  }
  return Uint32Array.from(set).sort();
}

export class NearDuplicateIndex {
  private readonly sampleSize: number;
  private readonly containment: number;
  private readonly minShared: number;
  readonly maxPages: number;
  private readonly minShingles: number;
  private readonly boilerplatePages: number;
  private readonly pages = new Map<number, PageSketch>();
  /** Page identity → its number. */
  private readonly byId = new Map<string, number>();
  /** hash → the pages whose sample holds it. */
  private readonly byHash = new HashPostings();
  /** Whole-text hash (of all shingle hashes) → page, for identical short texts. */
  private readonly byText = new Map<string, number>();
  private next = 0;
  /** Called with each page remembered by `check` (a journal writes it down). */
  onRemember?: (sketch: PageSketch) => void;

  constructor(o: NearDuplicateOptions = {}) {
    this.sampleSize = o.sampleSize ?? 256;
    this.containment = o.containment ?? 0.9;
    this.minShared = o.minShared ?? 5;
    this.maxPages = o.maxPages ?? 20_000;
    this.minShingles = o.minShingles ?? 50;
    this.boilerplatePages = o.boilerplatePages ?? 50;
  }

  get size(): number {
    return this.pages.size;
  }

  /**
   * The earlier page (its URL) whose text contains this one's, or undefined; a page that is no
   * near-duplicate is remembered under `url` for the pages after it. `id` is the page's identity
   * (default its URL): a page fetched again is never a near-duplicate of itself.
   */
  check(url: string, text: string, id = url): string | undefined {
    const all = shingleHashes(text);
    if (all.length === 0) return undefined;
    const found = this.find(all, id);
    if (found !== undefined || this.byId.has(id)) return found;
    const sketch = this.sketch(id, url, all);
    this.add(sketch);
    this.onRemember?.(sketch);
    return undefined;
  }

  /** The remembered page other than `id` whose text contains the text of these shingle hashes (`shingleHashes`). */
  find(all: Uint32Array, id: string): string | undefined {
    if (all.length < this.minShingles) return undefined;
    const whole = wholeOf(all);
    const same = this.byText.get(whole);
    if (same !== undefined && this.pages.get(same)!.id !== id) return this.pages.get(same)!.url;
    return this.containedIn(all, id);
  }

  /** Whether the page `id` is remembered. */
  has(id: string): boolean {
    return this.byId.has(id);
  }

  /** What the index would keep of a page with these shingle hashes. */
  sketch(id: string, url: string, all: Uint32Array): PageSketch {
    const sample = all.length > this.sampleSize ? all.slice(0, this.sampleSize) : all;
    const limit = all.length > this.sampleSize ? sample[sample.length - 1] : 0xffffffff;
    return { id, url, sample, limit, whole: wholeOf(all) };
  }

  /** The remembered pages, oldest first (what a journal compacts to). */
  sketches(): IterableIterator<PageSketch> {
    return this.pages.values();
  }

  private containedIn(all: Uint32Array, self: string): string | undefined {
    // Candidates: pages sharing one of this page's smallest hashes (if A ⊂ B, A's smallest hash
    // ≤ limit(B) is in B's sample). Most shared first.
    const hits = new Map<number, number>();
    for (let i = 0; i < Math.min(all.length, this.sampleSize); i++) {
      if (this.byHash.count(all[i]) > this.boilerplatePages) continue;
      this.byHash.forEach(all[i], (id) => hits.set(id, (hits.get(id) ?? 0) + 1));
    }
    const ranked = [...hits].filter(([id]) => this.pages.get(id)!.id !== self).sort((a, b) => b[1] - a[1]).slice(0, 16);
    for (const [id] of ranked) {
      const b = this.pages.get(id)!;
      let compared = 0;
      let shared = 0;
      for (const h of all) {
        if (h > b.limit) break;
        if (this.byHash.count(h) > this.boilerplatePages) continue;
        compared++;
        if (binaryHas(b.sample, h)) shared++;
      }
      if (compared >= this.minShared && shared >= this.containment * compared) return b.url;
    }
    return undefined;
  }

  /**
   * Remember a page (one `check` let through, or one read back from a journal or another
   * worker); a page already remembered under its id is not added twice. Oldest forgotten past `maxPages`.
   */
  add(sketch: PageSketch): void {
    if (this.byId.has(sketch.id)) return;
    const id = this.next++;
    this.pages.set(id, sketch);
    this.byId.set(sketch.id, id);
    this.byText.set(sketch.whole, id);
    for (const h of sketch.sample) this.byHash.add(h, id);
    if (this.pages.size > this.maxPages) this.forget(this.pages.keys().next().value as number);
  }

  private forget(id: number): void {
    const p = this.pages.get(id)!;
    this.pages.delete(id);
    if (this.byId.get(p.id) === id) this.byId.delete(p.id);
    if (this.byText.get(p.whole) === id) this.byText.delete(p.whole);
    for (const h of p.sample) this.byHash.remove(h, id);
  }
}

function wholeOf(all: Uint32Array): string {
  return `${all.length}:${hash32(Array.from(all).join(','))}`;
}

function binaryHas(a: Uint32Array, x: number): boolean {
  let lo = 0;
  let hi = a.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid] === x) return true;
    if (a[mid] < x) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}
