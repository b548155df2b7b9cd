/**
 * Near-duplicate pages by their main text (issue #15): a forum's "only this author" view of a
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

interface Remembered {
  key: string;
  sample: Uint32Array;
  limit: number;
  whole: string;
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
  private readonly maxPages: number;
  private readonly minShingles: number;
  private readonly boilerplatePages: number;
  private readonly pages = new Map<number, Remembered>();
  /** hash → the pages whose sample holds it. */
  private readonly byHash = new Map<number, number[]>();
  /** Whole-text hash (of all shingle hashes) → page, for identical short texts. */
  private readonly byText = new Map<string, number>();
  private next = 0;

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
   * The earlier page (its key) whose text contains this one's, or undefined; a page that is no
   * near-duplicate is remembered under `key` for the pages after it.
   */
  check(key: string, text: string): string | undefined {
    const all = shingleHashes(text);
    if (all.length === 0) return undefined;
    const whole = `${all.length}:${hash32(Array.from(all).join(','))}`;
    if (all.length >= this.minShingles) {
      const same = this.byText.get(whole);
      if (same !== undefined) return this.pages.get(same)!.key;
      const found = this.containedIn(all);
      if (found !== undefined) return found;
    }
    this.remember(key, all, whole);
    return undefined;
  }

  private containedIn(all: Uint32Array): string | undefined {
    // Candidates: pages sharing one of this page's smallest hashes (if A ⊂ B, A's smallest hash
    // ≤ limit(B) is in B's sample). Most shared first.
    const hits = new Map<number, number>();
    for (let i = 0; i < Math.min(all.length, this.sampleSize); i++) {
      const ids = this.byHash.get(all[i]);
      if (!ids || ids.length > this.boilerplatePages) continue;
      for (const id of ids) hits.set(id, (hits.get(id) ?? 0) + 1);
    }
    const ranked = [...hits].sort((a, b) => b[1] - a[1]).slice(0, 16);
    for (const [id] of ranked) {
      const b = this.pages.get(id)!;
      let compared = 0;
      let shared = 0;
      for (const h of all) {
        if (h > b.limit) break;
        if ((this.byHash.get(h)?.length ?? 0) > this.boilerplatePages) continue;
        compared++;
        if (binaryHas(b.sample, h)) shared++;
      }
      if (compared >= this.minShared && shared >= this.containment * compared) return b.key;
    }
    return undefined;
  }

  private remember(key: string, all: Uint32Array, whole: string): void {
    const id = this.next++;
    const sample = all.length > this.sampleSize ? all.slice(0, this.sampleSize) : all;
    const limit = all.length > this.sampleSize ? sample[sample.length - 1] : 0xffffffff;
    this.pages.set(id, { key, sample, limit, whole });
    this.byText.set(whole, id);
    for (const h of sample) {
      const ids = this.byHash.get(h);
      if (ids) ids.push(id);
      else this.byHash.set(h, [id]);
    }
    if (this.pages.size > this.maxPages) this.forget(this.pages.keys().next().value as number);
  }

  private forget(id: number): void {
    const p = this.pages.get(id)!;
    this.pages.delete(id);
    if (this.byText.get(p.whole) === id) this.byText.delete(p.whole);
    for (const h of p.sample) {
      const ids = this.byHash.get(h)!;
      const rest = ids.filter((x) => x !== id);
      if (rest.length) this.byHash.set(h, rest);
      else this.byHash.delete(h);
    }
  }
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
