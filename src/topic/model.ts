/**
 * Long because: the topic model's formulas (METHODS §1–§2) read best side by side.
 *
 * The topic model (METHODS §1–§2): keyword vector, seed set D with `simD`, semantic-tree
 * similarity, and several topics at once (seed 002). Pure computation over plain data; the
 * only state is the IDF statistics and the seed set, both fed by the engine.
 */
import { dirname } from 'node:path';
import { keywordEntries, type TopicConfig } from '../config/schema.js';
import { stopwordsIn, termAnalyzer, tokenize, type Analyzer } from '../text/tokenize.js';
import {
  applyIdf,
  cosine,
  DEFAULT_POSITION_WEIGHTS,
  dot,
  norm,
  textVector,
  TermStatistics,
  topTerms,
  weightedTermFrequencies,
  type PageFields,
  type PositionWeights,
  type SparseVector,
} from '../text/vector.js';
import { TopicError } from './errors.js';
import { SeedSet, type SeedSetState } from './seeds.js';
import { DEFAULT_ALPHA, semanticSimilarity, type Thesaurus, type WeightedTerm } from './semantic.js';
import { TimeIntent } from './time.js';
import type { KeywordExpansion } from './expansion.js';

export interface TopicModelOptions {
  /** Shared IDF statistics (one per crawl); a new one when absent. */
  stats?: TermStatistics;
  /** Semantic tree (METHODS §2); absent = cosine only. */
  thesaurus?: Thesaurus;
  /** θ_page when the topic sets none (METHODS §1 default 0.2). */
  pageThreshold?: number;
  /** eq. 9: `Sim = λ·cos + (1-λ)·sem`; default 0.5. */
  lambda?: number;
  /**
   * Share of `simD` in rel once the seed set is non-empty: `rel = (1-μ)·Sim + μ·simD`; default
   * 0.2. Calibrated with θ_page: simD of on-topic pages runs 0.2–0.5 while the keyword cosine
   * runs 0.05–0.2, so an even mix lets simD swamp the keywords (see docs/strategies.md, calibration).
   */
  seedMix?: number;
  /** θ_seed: a relevant page with simD above it joins the seed set; default 0.3. */
  seedThreshold?: number;
  /** Cap on the seed set size (the nucleus grows only this far); default 50. */
  maxSeeds?: number;
  /**
   * A topic without seed pages (keywords only) starts its seed set from the crawl's own pages:
   * the pages with the highest keyword cosine seen so far, this many, stand in for a search
   * engine's top k results for the keywords (METHODS §1; seed 002 takes 4 ≤ k ≤ 7); default 5.
   */
  bootstrapSeeds?: number;
  /** K page terms compared with each keyword in sem(T,p); default 50. */
  topK?: number;
  /**
   * Keyword expansion (METHODS §1, optional): each keyword's thesaurus synonyms (same Cilin `=`
   * group) join the topic vector with this share of the keyword's weight; default 0 = off.
   */
  expandSynonyms?: number;
  /**
   * Keyword expansion by meaning (METHODS §2b, ./expansion.ts): words near the keywords join the
   * topic vector, weighted below them; absent = the literal keywords only.
   */
  expansion?: KeywordExpansion;
  /** α of eq. 5; default 1.6. */
  alpha?: number;
  positionWeights?: PositionWeights;
  /** Folder a relative time-distribution path is read from (the topic file's folder). */
  baseDir?: string;
  /** Where the topic came from, for error messages. */
  source?: string;
  /** Text → terms, shared by all topics of a crawl; default: stemmed, this topic's keywords kept. */
  analyzer?: Analyzer;
}

/** A topic's keywords that are stopwords: kept as terms (never silently dropped), and worth a warning. */
export function stopwordKeywords(topic: TopicConfig): string[] {
  return [...new Set(keywordEntries(topic).flatMap((k) => stopwordsIn(k.term)))];
}

/** Plain-data verdict on one page. */
export interface Relevance {
  /** The combined relevance used everywhere downstream (METHODS §1). */
  rel: number;
  /** cos(T, p) with the keyword vector. */
  cosine: number;
  /** Mean cosine to the seed set; 0 while the set is empty. */
  simD: number;
  /** sem(T, p) (eq. 8); undefined without a thesaurus. */
  sem?: number;
  topicId: string;
  /** rel ≥ θ_page and inside the time window. */
  relevant: boolean;
  /** The page's publish time lies outside [t_s, t_e]: discarded without computing the cosine. */
  outOfWindow?: boolean;
  /** Multi-topic: cosine to the best topic's centre (the classification score). */
  centreCosine?: number;
}

export interface RelevanceCall {
  /** Count the page in the IDF statistics first (once per URL); default true. */
  observe?: boolean;
  /** A publishTime string as extracted (its calendar date is compared) or an instant. */
  publishTime?: Date | string;
  /** Receives the page's position-weighted TF (so a caller can learn from it without tokenizing twice). */
  onTermFrequencies?: (tf: SparseVector) => void;
}

/** Whatever the engine needs from one topic or several. */
export interface RelevanceModel {
  readonly stats: TermStatistics;
  readonly hasThesaurus: boolean;
  observe(fields: PageFields): void;
  relevance(fields: PageFields, call?: RelevanceCall): Relevance;
  linkRelevance(contextText: string): number;
  addSeedDocument(fields: PageFields, topicId?: string): void;
  maybeGrowSeedSet(fields: PageFields, verdict: Relevance): boolean;
}

/** Count a page once (by URL when it has one); shared by the topics of a crawl (./multi-topic.ts). */
export class Observer {
  private seen = new Set<string>();
  constructor(
    readonly stats: TermStatistics,
    private weights: PositionWeights,
    private analyze: Analyzer,
  ) {}
  observe(fields: PageFields, tf = weightedTermFrequencies(fields, this.weights, this.analyze)): void {
    this.observeTerms(tf, fields.url);
  }

  observeTerms(tf: SparseVector, url?: string): void {
    if (url) {
      if (this.seen.has(url)) return;
      this.seen.add(url);
    }
    this.stats.addDocument(tf);
  }

  /** Pages counted (by URL), for the judge's snapshot. */
  get seenUrls(): string[] {
    return [...this.seen];
  }

  restoreSeen(urls: string[]): void {
    this.seen = new Set(urls);
  }
}

/**
 * One topic's learned state as plain data (the judge's snapshot, `--resume`): its seed set,
 * which members are provisional, and the cached keyword vector and centre shape with the N they
 * were built at (a resumed crawl rebuilds them when an uninterrupted one would, not sooner).
 */
export interface TopicModelState {
  seeds: SeedSetState;
  provisional: [string, number][];
  givenSeeds: number;
  keywordCache?: { builtAtN: number; v: [string, number][] };
  shape?: { builtAtN: number; seeds: number; meanNorm: number; cosKM: number };
}

export class TopicModel implements RelevanceModel {
  readonly id: string;
  readonly stats: TermStatistics;
  readonly thesaurus?: Thesaurus;
  readonly threshold: number;
  readonly time?: TimeIntent;
  /** Keyword terms (search-mode tokens) with summed weights: the topic vector's TF. */
  readonly keywordTf: SparseVector;
  /** Whole keyword words (jieba default mode) with weights, for sem(T,p). */
  readonly semanticKeywords: WeightedTerm[];
  /** Keywords that are stopwords (kept as terms all the same). */
  readonly stopwordKeywords: string[];
  /** Text → terms, on keywords, pages and link contexts alike. */
  readonly analyze: Analyzer;
  private seeds: SeedSet;
  /** Seed-set members picked by the keyword cosine alone (keyword-only topics): url → cosine. */
  private readonly provisional = new Map<string, number>();
  /** A given seed page joined D: the topic is not keyword-only. */
  private givenSeeds = 0;
  private readonly o: Required<Omit<TopicModelOptions, 'stats' | 'thesaurus' | 'pageThreshold' | 'baseDir' | 'source' | 'analyzer' | 'expansion'>>;
  private observer: Observer;
  private keywordCache?: { builtAtN: number; v: SparseVector };
  private shape?: { builtAtN: number; seeds: number; meanNorm: number; cosKM: number };

  constructor(topic: TopicConfig, options: TopicModelOptions = {}, id?: string, observer?: Observer) {
    this.id = id ?? topic.name ?? 'topic';
    this.stats = options.stats ?? new TermStatistics();
    this.seeds = new SeedSet(this.stats);
    this.thesaurus = options.thesaurus;
    this.threshold = topic.threshold ?? options.pageThreshold ?? 0.2;
    this.o = {
      lambda: options.lambda ?? 0.5,
      seedMix: options.seedMix ?? 0.2,
      expandSynonyms: options.expandSynonyms ?? 0,
      seedThreshold: options.seedThreshold ?? 0.3,
      maxSeeds: options.maxSeeds ?? 50,
      bootstrapSeeds: options.bootstrapSeeds ?? 5,
      topK: options.topK ?? 50,
      alpha: options.alpha ?? DEFAULT_ALPHA,
      positionWeights: options.positionWeights ?? DEFAULT_POSITION_WEIGHTS,
    };
    this.stopwordKeywords = stopwordKeywords(topic);
    const keep = new Set(this.stopwordKeywords);
    this.analyze = options.analyzer ?? termAnalyzer({ keep });
    this.observer = observer ?? new Observer(this.stats, this.o.positionWeights, this.analyze);
    this.keywordTf = new Map();
    const sem = new Map<string, number>();
    for (const { term, weight } of keywordEntries(topic)) {
      for (const t of this.analyze(term)) this.keywordTf.set(t, (this.keywordTf.get(t) ?? 0) + weight);
      // Whole words, unstemmed: the thesaurus looks them up (METHODS §2).
      for (const t of tokenize(term, { searchMode: false, keep })) sem.set(t, (sem.get(t) ?? 0) + weight);
    }
    if (this.keywordTf.size === 0) {
      const list = keywordEntries(topic).map((k) => k.term).join(', ');
      throw new TopicError(
        `topic "${this.id}": every keyword is empty or a number (${list}); give words that name the topic`,
        options.source,
      );
    }
    this.semanticKeywords = [...sem].map(([term, weight]) => ({ term, weight }));
    if (this.o.expandSynonyms > 0 && this.thesaurus?.synonyms) {
      for (const { term, weight } of this.semanticKeywords)
        for (const syn of this.thesaurus.synonyms(term))
          for (const t of this.analyze(syn))
            if (!this.keywordTf.has(t)) this.keywordTf.set(t, weight * this.o.expandSynonyms);
    }
    const literal = new Set(this.keywordTf.keys());
    for (const { term, weight } of options.expansion?.expand(this.semanticKeywords) ?? [])
      for (const t of this.analyze(term)) if (!literal.has(t)) this.keywordTf.set(t, Math.max(this.keywordTf.get(t) ?? 0, weight));
    if (topic.time) this.time = TimeIntent.fromConfig(topic.time, { baseDir: options.baseDir ?? (options.source ? dirname(options.source) : undefined) });
  }

  get hasThesaurus(): boolean {
    return this.thesaurus !== undefined;
  }

  state(): TopicModelState {
    const k = this.keywordCache;
    return {
      seeds: this.seeds.state(),
      provisional: [...this.provisional],
      givenSeeds: this.givenSeeds,
      keywordCache: k && { builtAtN: k.builtAtN, v: [...k.v] },
      shape: this.shape && { ...this.shape },
    };
  }

  /** Back to a saved state; the shared statistics must already be restored. */
  restore(s: TopicModelState): void {
    this.seeds.restore(s.seeds);
    this.provisional.clear();
    for (const [u, c] of s.provisional) this.provisional.set(u, c);
    this.givenSeeds = s.givenSeeds;
    this.keywordCache = s.keywordCache && { builtAtN: s.keywordCache.builtAtN, v: new Map(s.keywordCache.v) };
    this.shape = s.shape && { ...s.shape };
  }

  get seedCount(): number {
    return this.seeds.size;
  }

  private stale(builtAtN: number): boolean {
    const n = this.stats.documentCount;
    return n !== builtAtN && (builtAtN < 100 || n - builtAtN >= builtAtN / 100);
  }

  /**
   * The topic vector T (keyword TF × IDF), cached: it is used for every link context. The IDF
   * moves a little with every page observed, so it is rebuilt only once N has grown by 1% (at
   * least one document). The seed set needs no cache: it follows the IDF exactly (seeds.ts).
   */
  keywordVector(): SparseVector {
    const c = this.keywordCache;
    if (c && !this.stale(c.builtAtN)) return c.v;
    this.keywordCache = { builtAtN: this.stats.documentCount, v: applyIdf(this.keywordTf, this.stats) };
    return this.keywordCache.v;
  }

  /**
   * Cosine of a page vector to the cluster centre (seed 002): the unit keyword vector plus the
   * unit mean of the seed vectors, equally weighted. With M that mean, c = K/|K| + M/|M|:
   *   cos(c, v) = (cos(K, v) + v·M / (|v|·|M|)) / |c|,   |c|² = 2 + 2·K·M / (|K|·|M|)
   * and v·M, K·M, |M| all come from the seed set's postings (v·M under the current IDF, the
   * page-independent |M| and K·M as `centreShape` keeps them), so no centre vector is ever built
   * (it cost a rebuild of every seed vector per page early in a crawl).
   */
  centreCosine(v: SparseVector): number {
    const k = this.keywordVector();
    const kn = norm(k);
    const vn = norm(v);
    if (vn === 0) return 0;
    const cosK = kn === 0 ? 0 : dot(k, v) / (kn * vn);
    const { meanNorm: mn, cosKM } = this.centreShape(k, kn);
    if (mn === 0) return cosK;
    const cosM = this.seeds.dotMean(v) / (vn * mn);
    if (kn === 0) return cosM;
    return (cosK + cosM) / Math.sqrt(2 + 2 * cosKM);
  }

  /**
   * |M| and cos(K, M): page-independent, but a pass over all the topic's postings (1 ms at the
   * 50-seed cap), so kept until a seed joins or N has grown by 1% like the keyword vector.
   */
  private centreShape(k: SparseVector, kn: number): { meanNorm: number; cosKM: number } {
    const c = this.shape;
    if (c && c.seeds === this.seeds.version && !this.stale(c.builtAtN)) return c;
    const meanNorm = this.seeds.meanNorm();
    const cosKM = meanNorm === 0 || kn === 0 ? 0 : this.seeds.dotMean(k) / (kn * meanNorm);
    this.shape = { builtAtN: this.stats.documentCount, seeds: this.seeds.version, meanNorm, cosKM };
    return this.shape;
  }

  observe(fields: PageFields): void {
    this.observer.observe(fields);
  }

  /** A seed page (given URL or search result): counted in IDF and added to D (up to the cap). */
  addSeedDocument(fields: PageFields): void {
    this.addSeed(fields, true);
  }

  /** @internal MultiTopicModel has already counted the page. */
  addSeed(fields: PageFields, observe: boolean): void {
    this.addSeedTerms(weightedTermFrequencies(fields, this.o.positionWeights, this.analyze), fields.url, observe);
  }

  /** A seed page by its position-weighted TF (the judge has it already; `--resume` replays it). */
  addSeedTerms(tf: SparseVector, url: string | undefined, observe = true): void {
    if (observe) this.observer.observeTerms(tf, url);
    if (this.seeds.size >= this.o.maxSeeds) return;
    if (this.seeds.has(url)) return;
    this.seeds.add({ url, tf });
    this.givenSeeds++;
  }

  /** `simD(p) = (1/m) Σ_j cos(p, d_j)` (METHODS §1, seed 000); 0 for an empty seed set. */
  simD(v: SparseVector): number {
    return this.seeds.simD(v);
  }

  /**
   * Relevance of a page vector already built with the current statistics; `leaveOut`: a page
   * judged again (the harvest estimate, src/topic/harvest-sample.ts) is left out of D.
   */
  relevanceOfVector(v: SparseVector, leaveOut?: string): Relevance {
    const cos = cosine(this.keywordVector(), v);
    const inD = leaveOut !== undefined && this.seeds.has(leaveOut);
    const simD = inD ? this.seeds.simDWithout(v, leaveOut) : this.simD(v);
    let content = cos;
    let sem: number | undefined;
    if (this.thesaurus) {
      sem = semanticSimilarity(this.semanticKeywords, topTerms(v, this.o.topK), this.thesaurus, this.o.alpha);
      content = this.o.lambda * cos + (1 - this.o.lambda) * sem; // eq. 9
    }
    const rel = this.seeds.size - (inD ? 1 : 0) > 0 ? (1 - this.o.seedMix) * content + this.o.seedMix * simD : content;
    return { rel, cosine: cos, simD, sem, topicId: this.id, relevant: rel >= this.threshold };
  }

  /** Page relevance (METHODS §1): time window first (§3.4), then Sim and simD. */
  relevance(fields: PageFields, call: RelevanceCall = {}): Relevance {
    if (this.time && this.time.timeRelevance(call.publishTime) === 0) {
      return { rel: 0, cosine: 0, simD: 0, topicId: this.id, relevant: false, outOfWindow: true };
    }
    const tf = weightedTermFrequencies(fields, this.o.positionWeights, this.analyze);
    if (call.observe ?? true) this.observer.observe(fields, tf);
    return this.relevanceOfVector(applyIdf(tf, this.stats));
  }

  /**
   * A relevant page whose simD exceeds θ_seed joins the seed set (bounded). A keyword-only topic
   * has no D to measure simD against, so its D starts from the relevant pages with the highest
   * keyword cosine (the `bootstrapSeeds` best so far: a better page displaces the weakest), until
   * that many pages have joined by simD.
   */
  maybeGrowSeedSet(fields: PageFields, verdict: Relevance): boolean {
    return this.maybeGrowSeedSetTerms(fields.url, () => weightedTermFrequencies(fields, this.o.positionWeights, this.analyze), verdict);
  }

  /** The same for a page known by its URL and TF. */
  maybeGrowSeedSetTerms(url: string | undefined, tf: () => SparseVector, verdict: Relevance): boolean {
    const fields = { url };
    if (!verdict.relevant || this.seeds.size >= this.o.maxSeeds || this.seeds.has(fields.url)) return false;
    if (verdict.simD > this.o.seedThreshold) {
      this.seeds.add({ url: fields.url, tf: tf() });
      return true;
    }
    const k = this.o.bootstrapSeeds;
    const confirmed = this.seeds.size - this.provisional.size;
    if (this.givenSeeds > 0 || confirmed >= k || !fields.url || verdict.cosine < this.threshold) return false;
    if (this.provisional.size + confirmed >= k) {
      let weakest: [string, number] | undefined;
      for (const e of this.provisional) if (!weakest || e[1] < weakest[1]) weakest = e;
      if (!weakest || verdict.cosine <= weakest[1]) return false;
      this.seeds.remove(weakest[0]);
      this.provisional.delete(weakest[0]);
    }
    this.seeds.add({ url: fields.url, tf: tf() });
    this.provisional.set(fields.url, verdict.cosine);
    return true;
  }

  /** cos(T, A_u) for a link context (METHODS §3.1). */
  linkRelevance(contextText: string): number {
    return cosine(this.keywordVector(), textVector(contextText, this.stats, this.analyze));
  }
}
