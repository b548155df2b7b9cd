/**
 * Keyword expansion by word vectors (METHODS §2b): the topic's keywords are joined by the words
 * nearest their centroid, each weighted below the literal keywords. "weather" brings "rain",
 * "storm", "snow"; "football" brings "soccer", "league", "players": a page about a hurricane
 * then shares terms with a weather topic whose seed pages never said "hurricane".
 *
 * The centroid, not each keyword alone: a keyword's own neighbours drift with its other senses
 * ("food" → "supplies", "medicines"), its neighbours in the topic's company do not.
 */
import { STOPWORDS } from '../text/tokenize.js';
import type { WeightedTerm } from './semantic.js';
import { loadWinkVectors, type WordVectors } from './word-vectors.js';

export interface VectorExpansionOptions {
  /** Neighbour words added to the topic; default 10. */
  neighbours?: number;
  /** A neighbour's weight is this share of the keywords' mean weight, times its cosine; default 0.5. */
  weight?: number;
  /** Only neighbours at least this similar to the centroid; default 0.5. */
  minSimilarity?: number;
  /** Only neighbours among this many most frequent words; default 50000. */
  within?: number;
  /**
   * Never the this many most frequent words: general words ("time", "part", "fact") sit near the
   * centroid of a general query ("general history") and say nothing of its topic; default 1000.
   */
  skipFrequent?: number;
}

/** Turns a topic's keywords into extra weighted words (whole words, before analysis). */
export interface KeywordExpansion {
  readonly name: string;
  expand(keywords: readonly WeightedTerm[]): WeightedTerm[];
}

/** A word a person would search by: letters only, three or more, not a stopword. */
const wordLike = (w: string) => /^[a-z]{3,}$/.test(w) && !STOPWORDS.has(w);

export class VectorExpansion implements KeywordExpansion {
  readonly name = 'word vectors';
  private readonly o: Required<VectorExpansionOptions>;

  constructor(
    private readonly vectors: WordVectors,
    options: VectorExpansionOptions = {},
  ) {
    this.o = { neighbours: 10, weight: 0.5, minSimilarity: 0.5, within: 50_000, skipFrequent: 1000, ...options };
  }

  expand(keywords: readonly WeightedTerm[]): WeightedTerm[] {
    const known = keywords.filter((k) => this.vectors.has(k.term) && k.weight > 0);
    if (known.length === 0 || this.o.neighbours <= 0) return [];
    const centre = this.vectors.centroid(known.map((k) => [k.term, k.weight]));
    if (!centre) return [];
    const given = new Set(keywords.map((k) => k.term));
    // A keyword's plural or inflection says nothing new (the analyzer stems it to the same term).
    const near = this.vectors.nearest(centre, {
      k: this.o.neighbours,
      minSimilarity: this.o.minSimilarity,
      within: this.o.within,
      exclude: (w) => given.has(w) || !wordLike(w) || (this.vectors.rank(w) ?? 0) < this.o.skipFrequent,
    });
    const mean = known.reduce((a, k) => a + k.weight, 0) / known.length;
    return near.map((n) => ({ term: n.word, weight: mean * this.o.weight * n.similarity }));
  }
}

/** The crawl's keyword expansion from its config (`wordVectors`); undefined when off. */
export function keywordExpansion(config: { wordVectors: boolean; wordVectorNeighbours: number; wordVectorWeight: number }): KeywordExpansion | undefined {
  if (!config.wordVectors) return undefined;
  return new VectorExpansion(loadWinkVectors(), { neighbours: config.wordVectorNeighbours, weight: config.wordVectorWeight });
}
