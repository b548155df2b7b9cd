/**
 * Sparse term vectors (METHODS §0): position-weighted TF × incremental IDF, and the cosine.
 * Written by hand: the npm TF-IDF packages tokenize English only and recompute IDF in batch,
 * while a crawler must update document frequencies one page at a time.
 */
import { tokenize, urlTokens, type Analyzer } from './tokenize.js';

export type SparseVector = Map<string, number>;

/** Euclidean norm. */
export function norm(v: SparseVector): number {
  let s = 0;
  for (const x of v.values()) s += x * x;
  return Math.sqrt(s);
}

/** Dot product, iterating the smaller map. */
export function dot(a: SparseVector, b: SparseVector): number {
  if (a.size > b.size) [a, b] = [b, a];
  let s = 0;
  for (const [k, x] of a) {
    const y = b.get(k);
    if (y !== undefined) s += x * y;
  }
  return s;
}

/** cos(a,b); 0 when either vector is empty or zero. */
export function cosine(a: SparseVector, b: SparseVector): number {
  const na = norm(a);
  const nb = norm(b);
  if (na === 0 || nb === 0) return 0;
  return dot(a, b) / (na * nb);
}

/** a / |a| (a new map). */
export function unit(v: SparseVector): SparseVector {
  const n = norm(v);
  const out: SparseVector = new Map();
  if (n === 0) return out;
  for (const [k, x] of v) out.set(k, x / n);
  return out;
}

/** ln(k + 1) for whole k, from a table that grows as needed up to 2^20 entries (8 MB), then computed. */
let LN_TABLE = new Float64Array(0);
function lnPlusOne(k: number): number {
  if (k >= LN_TABLE.length) {
    if (k >= 1 << 20) return Math.log(k + 1);
    const grown = new Float64Array(Math.min(1 << 20, Math.max(1024, 2 * (k + 1))));
    grown.set(LN_TABLE);
    for (let i = LN_TABLE.length; i < grown.length; i++) grown[i] = Math.log(i + 1);
    LN_TABLE = grown;
  }
  return LN_TABLE[k];
}

/**
 * Document frequencies over the documents seen so far (seed pages first, then each fetched
 * page). IDF = ln((N + 1) / (df + 1)) + 1 (METHODS §0): smoothed, so it stays ≥ 1 and a
 * term seen in every document still counts.
 */
export class TermStatistics {
  private df = new Map<string, number>();
  private n = 0;
  /** Bumped on every change, so callers can cache vectors built with the current IDF. */
  version = 0;

  private listeners: ((terms: Iterable<string>) => void)[] = [];

  /** Count one document; each distinct term once (a Set or a TF map's keys are taken as distinct). */
  addDocument(terms: Iterable<string> | ReadonlyMap<string, unknown>): void {
    const distinct: ReadonlySet<string> | ReadonlyMap<string, unknown> =
      terms instanceof Map || terms instanceof Set ? terms : new Set(terms as Iterable<string>);
    for (const t of distinct.keys()) this.df.set(t, (this.df.get(t) ?? 0) + 1);
    this.n++;
    this.version++;
    for (const l of this.listeners) l(distinct.keys());
  }

  /** Call `listener` after each counted document with its distinct terms (whose df just rose by one). */
  onDocument(listener: (terms: Iterable<string>) => void): void {
    this.listeners.push(listener);
  }

  get documentCount(): number {
    return this.n;
  }

  documentFrequency(term: string): number {
    return this.df.get(term) ?? 0;
  }

  idf(term: string): number {
    // ln(N+1) − ln(df+1) + 1, the logs read from a table: this runs for every term of every page.
    return lnPlusOne(this.n) - lnPlusOne(this.df.get(term) ?? 0) + 1;
  }

  /** Plain-data snapshot (for run state / resume). */
  toJSON(): { documentCount: number; df: [string, number][] } {
    return { documentCount: this.n, df: [...this.df] };
  }

  /** Back to a snapshot in place (listeners stay: they rebuild what they mirror themselves). */
  restore(data: { documentCount: number; df: [string, number][] }): void {
    this.n = data.documentCount;
    this.df = new Map(data.df);
    this.version++;
  }

  static fromJSON(data: { documentCount: number; df: [string, number][] }): TermStatistics {
    const s = new TermStatistics();
    s.n = data.documentCount;
    s.df = new Map(data.df);
    s.version = 1;
    return s;
  }
}

/** Where a term occurs on a page, for position-weighted TF (seed 001, eq. 3). */
export interface PageFields {
  title?: string;
  headings?: string[] | string;
  /** Anchor text of links pointing to the page. */
  anchorText?: string[] | string;
  body?: string;
  url?: string;
}

export interface PositionWeights {
  title: number;
  headings: number;
  anchorText: number;
  body: number;
  url: number;
}

/** METHODS §0 defaults: title 3, h1–h3 2, anchor text 2, body 1, URL tokens 1. */
export const DEFAULT_POSITION_WEIGHTS: Readonly<PositionWeights> = Object.freeze({
  title: 3,
  headings: 2,
  anchorText: 2,
  body: 1,
  url: 1,
});

const joinField = (f: string[] | string | undefined): string => (Array.isArray(f) ? f.join('\n') : (f ?? ''));

/**
 * Position-weighted term frequencies `tf(w) = Σ_pos weight[pos] × count_pos(w)` (METHODS §0;
 * title terms merged into the body vector with the title weight, seed 004 step 2).
 */
export function weightedTermFrequencies(fields: PageFields, weights: PositionWeights = DEFAULT_POSITION_WEIGHTS, analyze: Analyzer = tokenize): SparseVector {
  const tf: SparseVector = new Map();
  const add = (terms: string[], w: number) => {
    if (w === 0) return;
    for (const t of terms) tf.set(t, (tf.get(t) ?? 0) + w);
  };
  add(analyze(fields.title ?? ''), weights.title);
  add(analyze(joinField(fields.headings)), weights.headings);
  add(analyze(joinField(fields.anchorText)), weights.anchorText);
  add(analyze(fields.body ?? ''), weights.body);
  if (fields.url) add(urlTokens(fields.url, analyze), weights.url);
  return tf;
}

/** TF map × current IDF (a new map). */
export function applyIdf(tf: SparseVector, stats: TermStatistics): SparseVector {
  const v: SparseVector = new Map();
  for (const [t, f] of tf) v.set(t, f * stats.idf(t));
  return v;
}

/** Page vector: position-weighted TF × IDF. Does not change `stats`. */
export function pageVector(fields: PageFields, stats: TermStatistics, weights?: PositionWeights, analyze?: Analyzer): SparseVector {
  return applyIdf(weightedTermFrequencies(fields, weights, analyze), stats);
}

/** Plain TF × IDF of one text (link contexts, METHODS §3.1). */
export function textVector(text: string, stats: TermStatistics, analyze: Analyzer = tokenize): SparseVector {
  const tf: SparseVector = new Map();
  for (const t of analyze(text)) tf.set(t, (tf.get(t) ?? 0) + 1);
  return applyIdf(tf, stats);
}

/**
 * The `k` heaviest terms (ties broken by term, so results are stable). Sorting every term with
 * that comparator cost 0.5 ms on a 5,000-character page; instead the k-th weight is found with a
 * numeric typed-array sort and only the terms at or above it are ordered (same result).
 */
export function topTerms(v: SparseVector, k: number): string[] {
  if (k <= 0 || v.size === 0) return [];
  let kth = -Infinity;
  if (v.size > k) {
    const weights = new Float64Array(v.size);
    let i = 0;
    for (const x of v.values()) weights[i++] = x;
    weights.sort();
    kth = weights[weights.length - k];
  }
  const entries: [string, number][] = [];
  for (const [t, x] of v) if (x >= kth) entries.push([t, x]);
  return entries
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .slice(0, k)
    .map(([t]) => t);
}
