/**
 * Several topics in one crawl (seed 002, METHODS §1): one shared IDF, one centre per topic.
 */
import { termAnalyzer, type Analyzer } from '../text/tokenize.js';
import { applyIdf, cosine, DEFAULT_POSITION_WEIGHTS, textVector, TermStatistics, weightedTermFrequencies, type PageFields, type PositionWeights, type SparseVector } from '../text/vector.js';
import type { TopicConfig } from '../config/schema.js';
import { TopicError } from './errors.js';
import { Observer, stopwordKeywords, TopicModel, type Relevance, type RelevanceCall, type RelevanceModel, type TopicModelOptions, type TopicModelState } from './model.js';

/**
 * Several topics in one crawl (seed 002): one shared IDF, one centre per topic. A page is
 * classified into the topic whose centre is nearest (cosine) and judged by that topic's
 * rel and threshold. With one topic it behaves exactly as that TopicModel.
 */
export class MultiTopicModel implements RelevanceModel {
  readonly stats: TermStatistics;
  readonly topics: TopicModel[];
  /** Text → terms for every topic (one vocabulary: every topic's stopword keywords kept). */
  readonly analyze: Analyzer;
  private observer: Observer;
  private weights: PositionWeights;
  /** Ids of the topics whose config sets their own `threshold` (kept as given, never calibrated). */
  readonly thresholdGiven = new Set<string>();

  constructor(topics: TopicConfig[], options: TopicModelOptions = {}) {
    if (topics.length === 0) throw new TopicError('give at least one topic', options.source);
    this.stats = options.stats ?? new TermStatistics();
    this.weights = options.positionWeights ?? DEFAULT_POSITION_WEIGHTS;
    this.analyze = options.analyzer ?? termAnalyzer({ keep: new Set(topics.flatMap(stopwordKeywords)) });
    this.observer = new Observer(this.stats, this.weights, this.analyze);
    const ids = new Set<string>();
    this.topics = topics.map((t, i) => {
      let id = t.name ?? `topic${i + 1}`;
      if (ids.has(id)) id = `${id}#${i + 1}`;
      ids.add(id);
      if (t.threshold !== undefined) this.thresholdGiven.add(id);
      return new TopicModel(t, { ...options, stats: this.stats, analyzer: this.analyze }, id, this.observer);
    });
  }

  get hasThesaurus(): boolean {
    return this.topics[0].hasThesaurus;
  }

  topic(id: string): TopicModel {
    const t = this.topics.find((x) => x.id === id);
    if (!t) throw new TopicError(`no topic "${id}" (topics: ${this.topics.map((x) => x.id).join(', ')})`);
    return t;
  }

  observe(fields: PageFields): void {
    this.observer.observe(fields);
  }

  /** Cosine of a page vector to each topic centre, in topic order. */
  classify(v: SparseVector): { topicId: string; centreCosine: number; scores: number[] } {
    const scores = this.topics.map((t) => t.centreCosine(v));
    let best = 0;
    for (let i = 1; i < scores.length; i++) if (scores[i] > scores[best]) best = i;
    return { topicId: this.topics[best].id, centreCosine: scores[best], scores };
  }

  /** A page's position-weighted TF, as every topic reads it. */
  termFrequencies(fields: PageFields): SparseVector {
    return weightedTermFrequencies(fields, this.weights, this.analyze);
  }

  relevance(fields: PageFields, call: RelevanceCall = {}): Relevance {
    const tf = this.termFrequencies(fields);
    call.onTermFrequencies?.(tf);
    return this.relevanceOfTerms(tf, fields.url, call);
  }

  /** The same for a page known by its TF and URL (the judge has them; `--resume` replays them). */
  relevanceOfTerms(tf: SparseVector, url: string | undefined, call: Omit<RelevanceCall, 'onTermFrequencies'> = {}): Relevance {
    if (call.observe ?? true) this.observer.observeTerms(tf, url);
    const v = applyIdf(tf, this.stats);
    // One topic: nothing to classify (and no centre to compute).
    const { topicId, centreCosine } = this.topics.length === 1 ? { topicId: this.topics[0].id, centreCosine: undefined } : this.classify(v);
    const t = this.topic(topicId);
    if (t.time && t.time.timeRelevance(call.publishTime) === 0) {
      return { rel: 0, cosine: 0, simD: 0, topicId, relevant: false, outOfWindow: true, centreCosine };
    }
    return { ...t.relevanceOfVector(v), centreCosine };
  }

  /**
   * A page judged again from its term frequencies with the model as it is now (the end of a
   * crawl: full IDF, full seed set, the page itself left out of D), not counted again.
   */
  rejudge(tf: SparseVector, url?: string): Relevance {
    const v = applyIdf(tf, this.stats);
    const { topicId, centreCosine } = this.topics.length === 1 ? { topicId: this.topics[0].id, centreCosine: undefined } : this.classify(v);
    return { ...this.topic(topicId).relevanceOfVector(v, url), centreCosine };
  }

  /** The same, judged against a named topic (a seed page against its own topic). */
  rejudgeAs(topicId: string, tf: SparseVector, url?: string): Relevance {
    return this.topic(topicId).relevanceOfVector(applyIdf(tf, this.stats), url);
  }

  /** Best cos(T_k, A_u) over the topics. */
  linkRelevance(contextText: string): number {
    return this.keywordRelevance(this.linkVector(contextText));
  }

  /** A link context as a vector (tokenised, IDF-weighted), to measure against more than the keywords. */
  linkVector(contextText: string): SparseVector {
    return textVector(contextText, this.stats, this.analyze);
  }

  /** The best topic's keyword cosine of a vector (a link context's: `linkRelevance`). */
  keywordRelevance(a: SparseVector): number {
    let best = 0;
    for (const t of this.topics) best = Math.max(best, cosine(t.keywordVector(), a));
    return best;
  }

  /** Seed pages of a topic (its given URLs); without an id, the page goes to its best topic. */
  addSeedDocument(fields: PageFields, topicId?: string): void {
    if (topicId) return this.topic(topicId).addSeedDocument(fields);
    const tf = weightedTermFrequencies(fields, this.weights, this.analyze);
    this.observer.observe(fields, tf);
    const best = this.topics.length === 1 ? this.topics[0] : this.topic(this.classify(applyIdf(tf, this.stats)).topicId);
    best.addSeed(fields, false);
  }

  maybeGrowSeedSet(fields: PageFields, verdict: Relevance): boolean {
    return this.topic(verdict.topicId).maybeGrowSeedSet(fields, verdict);
  }

  /** Everything learned (IDF statistics, pages counted, each topic's seed set) as plain data. */
  state(): MultiTopicState {
    return { stats: this.stats.toJSON(), seen: this.observer.seenUrls, topics: this.topics.map((t) => t.state()) };
  }

  /** Back to a saved state (`--resume`): statistics first, the seed sets follow them. */
  restore(s: MultiTopicState): void {
    if (s.topics.length !== this.topics.length) throw new TopicError(`the saved judge state has ${s.topics.length} topics, the crawl ${this.topics.length}`);
    this.stats.restore(s.stats);
    this.observer.restoreSeen(s.seen);
    this.topics.forEach((t, i) => t.restore(s.topics[i]));
  }
}

export interface MultiTopicState {
  stats: ReturnType<TermStatistics['toJSON']>;
  seen: string[];
  topics: TopicModelState[];
}
