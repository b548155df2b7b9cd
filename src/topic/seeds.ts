/**
 * The seed set D of METHODS §1 and `simD(p) = (1/m) Σ_j cos(p, d_j)`, exact under the moving IDF.
 *
 * The IDF changes with every page counted, so TF × IDF seed vectors go stale at once. Rebuilding
 * them (or their mean) per page cost more than the page's own tokenizing; rebuilding every 1% of
 * N left simD computed against old weights. Instead the seeds keep raw TF in an inverted index and
 * each seed's norm in a form that follows the IDF exactly:
 *
 *   idf(t) = A − L_t,  A = ln(N+1) + 1,  L_t = ln(df_t + 1)                          (METHODS §0)
 *   |d_j|² = Σ_t tf_j(t)² (A − L_t)² = A²·S0_j − 2A·S1_j + S2_j
 *   S0_j = Σ tf², S1_j = Σ tf²·L_t, S2_j = Σ tf²·L_t²
 *
 * A moves with N (free: one log); S1, S2 move only for the terms of a newly counted document,
 * updated from the postings in O(its terms). The dot products come from the same postings, so a
 * page costs one posting lookup per page term however many seeds there are. The mean of the unit
 * seed vectors (the cluster centre's seed half, seed 002) comes from the same postings.
 */
import { type SparseVector, TermStatistics } from '../text/vector.js';

interface Posting {
  seed: number;
  /** tf_j(t)² is what the norm sums need; tf for the dot product. */
  tf: number;
}

/** A term's postings, with its df mirrored here so the hot loops need no lookup or log. */
interface TermEntry {
  df: number;
  /** L_t = ln(df + 1) */
  l: number;
  list: Posting[];
}

export interface SeedEntry {
  url?: string;
  tf: SparseVector;
}

/** A seed set as plain data: its pages (raw TF) and the IDF-following norm sums as they stand. */
export interface SeedSetState {
  entries: { url?: string; tf: [string, number][] }[];
  s1: number[];
  s2: number[];
  version: number;
}

export class SeedSet {
  private readonly entries: SeedEntry[] = [];
  private readonly postings = new Map<string, TermEntry>();
  private s0: number[] = [];
  private s1: number[] = [];
  private s2: number[] = [];
  /** Scratch for the per-seed dot products of one page. */
  private acc = new Float64Array(0);

  constructor(readonly stats: TermStatistics) {
    stats.onDocument((terms) => this.documentCounted(terms));
  }

  get size(): number {
    return this.entries.length;
  }

  /** Changes whenever a page joins or leaves (caches of the set's shape key on it). */
  version = 0;

  has(url: string | undefined): boolean {
    return url !== undefined && this.entries.some((e) => e.url === url);
  }

  /**
   * The sums S1, S2 are kept as they stand: they were updated term by term as the IDF moved, and
   * summing them afresh would round differently (a resumed crawl's simD must be the same number).
   */
  state(): SeedSetState {
    return { entries: this.entries.map((e) => ({ url: e.url, tf: [...e.tf] })), s1: [...this.s1], s2: [...this.s2], version: this.version };
  }

  /** Back to a saved state; `stats` must already hold the statistics saved with it. */
  restore(s: SeedSetState): void {
    this.entries.length = 0;
    this.postings.clear();
    this.s0 = [];
    this.s1 = [];
    this.s2 = [];
    for (const e of s.entries) this.add({ url: e.url, tf: new Map(e.tf) });
    this.s1 = [...s.s1];
    this.s2 = [...s.s2];
    this.version = s.version;
  }

  /** Add a seed page by its position-weighted TF (not IDF-weighted: the IDF is applied live). */
  add(entry: SeedEntry): void {
    this.version++;
    const j = this.entries.length;
    this.entries.push(entry);
    let s0 = 0, s1 = 0, s2 = 0;
    for (const [t, tf] of entry.tf) {
      if (tf === 0) continue;
      let e = this.postings.get(t);
      if (!e) {
        const df = this.stats.documentFrequency(t);
        e = { df, l: Math.log(df + 1), list: [] };
        this.postings.set(t, e);
      }
      e.list.push({ seed: j, tf });
      const q = tf * tf;
      s0 += q;
      s1 += q * e.l;
      s2 += q * e.l * e.l;
    }
    this.s0.push(s0);
    this.s1.push(s1);
    this.s2.push(s2);
    this.acc = new Float64Array(this.entries.length);
  }

  /**
   * Take a seed page out again (a provisional member displaced by a better one, model.ts). The
   * postings are rebuilt from the remaining pages: only done while the set is a handful of pages.
   */
  remove(url: string): boolean {
    const keep = this.entries.filter((e) => e.url !== url);
    if (keep.length === this.entries.length) return false;
    this.entries.length = 0;
    this.postings.clear();
    this.s0 = [];
    this.s1 = [];
    this.s2 = [];
    for (const e of keep) this.add(e);
    this.acc = new Float64Array(this.entries.length);
    return true;
  }

  /** |d_j| under the current IDF. */
  seedNorm(j: number): number {
    const a = Math.log(this.stats.documentCount + 1) + 1;
    return Math.sqrt(Math.max(0, a * a * this.s0[j] - 2 * a * this.s1[j] + this.s2[j]));
  }

  /**
   * `v · M`, M = (1/m) Σ_j d_j/|d_j| the mean of the unit seed vectors under the current IDF, for
   * any vector `v` already IDF-weighted (a page, the keyword vector). simD(p) = p·M / |p|.
   */
  dotMean(v: SparseVector): number {
    const m = this.entries.length;
    if (m === 0) return 0;
    const acc = this.accumulate(v);
    let s = 0;
    for (let j = 0; j < m; j++) {
      const dn = this.seedNorm(j);
      if (dn > 0) s += acc[j] / dn;
    }
    return s / m;
  }

  /**
   * |M| under the current IDF: |M|² = (1/m²) Σ_t idf(t)² (Σ_j tf_j(t)/|d_j|)², one pass over the
   * postings (no pairwise seed products, no vector rebuilt).
   */
  meanNorm(): number {
    const m = this.entries.length;
    if (m === 0) return 0;
    const inv = new Float64Array(m);
    for (let j = 0; j < m; j++) {
      const dn = this.seedNorm(j);
      inv[j] = dn > 0 ? 1 / dn : 0;
    }
    const a = Math.log(this.stats.documentCount + 1) + 1;
    let s = 0;
    for (const e of this.postings.values()) {
      let w = 0;
      for (const p of e.list) w += p.tf * inv[p.seed];
      const idf = a - e.l;
      s += idf * idf * w * w;
    }
    return Math.sqrt(s) / m;
  }

  /** Per-seed dot products `v · d_j` (d_j with the current IDF), in the scratch array. */
  private accumulate(v: SparseVector): Float64Array {
    const acc = this.acc;
    acc.fill(0);
    const a = Math.log(this.stats.documentCount + 1) + 1;
    for (const [t, x] of v) {
      const e = this.postings.get(t);
      if (!e) continue;
      const w = x * (a - e.l); // x · idf(t)
      const list = e.list;
      for (let k = 0; k < list.length; k++) acc[list[k].seed] += w * list[k].tf;
    }
    return acc;
  }

  /**
   * `simD(p)` with the seed page `url` left out (a page judged again once it has joined D must
   * not count its own cosine of 1); the plain simD when `url` is not a member.
   */
  simDWithout(v: SparseVector, url: string | undefined): number {
    const out = url === undefined ? -1 : this.entries.findIndex((e) => e.url === url);
    if (out < 0) return this.simD(v);
    const m = this.entries.length - 1;
    if (m === 0) return 0;
    let pn = 0;
    for (const x of v.values()) pn += x * x;
    if (pn === 0) return 0;
    const acc = this.accumulate(v);
    let s = 0;
    for (let j = 0; j <= m; j++) {
      const dn = j === out ? 0 : this.seedNorm(j);
      if (dn > 0) s += acc[j] / dn;
    }
    return s / m / Math.sqrt(pn);
  }

  /** `simD(p)` for a page vector built with the current statistics; 0 for an empty set. */
  simD(v: SparseVector): number {
    if (this.entries.length === 0) return 0;
    let pn = 0;
    for (const x of v.values()) pn += x * x;
    return pn === 0 ? 0 : this.dotMean(v) / Math.sqrt(pn);
  }

  /** A document was counted: df of each of its terms went up by one, so L_t did. */
  private documentCounted(terms: Iterable<string>): void {
    for (const t of terms) {
      const e = this.postings.get(t);
      if (!e) continue;
      const before = e.l;
      const after = Math.log(++e.df + 1);
      e.l = after;
      const d1 = after - before;
      const d2 = after * after - before * before;
      for (const { seed, tf } of e.list) {
        const q = tf * tf;
        this.s1[seed] += q * d1;
        this.s2[seed] += q * d2;
      }
    }
  }
}
