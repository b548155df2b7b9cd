/**
 * Long because: the judge's verdict, its journal replay and its label input share one state object.
 *
 * Routes one analysed page into the topic model: builds its position-weighted fields
 * (METHODS §0), asks for rel(p) (§1–§2), grows the seed set, and measures each link context
 * against the topic (§3.1 cos(T, A_u), §3.2 f_anchor).
 *
 * The verdict is the learned page classifier's calibrated probability
 * (src/topic/page-classifier.ts) over the cosine, simD and the topic's term model
 * (src/topic/term-model.ts), learned from the seeds, the user's negative pages and the crawl's
 * confident verdicts; `judge: 'cosine'` keeps the rule rel ≥ θ, with θ calibrated per topic from
 * the seed pages (src/topic/seed-threshold.ts) deciding how many pages are relevant and the
 * examples' term log-odds rank which (src/topic/rank-verdict.ts).
 */
import type { CrawlConfig } from '../config/schema.js';
import type { LinkInfo, PageAnalysis } from '../extract/types.js';
import { urlTokens } from '../text/tokenize.js';
import type { PageFields } from '../text/vector.js';
import { type Relevance } from '../topic/model.js';
import { MultiTopicModel } from '../topic/multi-topic.js';
import { HarvestSample, type HarvestEstimate, type Rejudged } from '../topic/harvest-sample.js';
import { PageClassifier, type PageEvidence } from '../topic/page-classifier.js';
import { RankVerdict, type RankScorer } from '../topic/rank-verdict.js';
import { labelledThreshold } from '../topic/label-threshold.js';
import { seedCalibratedThreshold, seedThresholdSpread } from '../topic/seed-threshold.js';
import { loadThesaurus } from '../topic/semantic.js';
import { keywordExpansion } from '../topic/expansion.js';
import { TopicTermModel } from '../topic/term-model.js';
import { applyIdf, cosine, type SparseVector } from '../text/vector.js';
import { contentLength, neverRelevant } from './never-relevant.js';
import { isSiteHomePage } from './entry-page.js';
import type { JudgeCall, JudgedPage, JudgeMode, JudgeState, Verdict } from './judge-types.js';

/**
 * Terms of the examples' query that `combined`'s link contexts are matched against (a link context
 * is a few dozen words; 30 measured best on Wikispeedia with bench:replay).
 */
export const LINK_QUERY_TERMS = 30;

export type { JudgeCall, JudgedPage, JudgeMode, JudgeState, Verdict } from './judge-types.js';

export class PageJudge {
  private readonly keywordTerms: Set<string>;
  /** Each topic's term distribution learned from its keywords, seeds and grown seed set. */
  private readonly terms: Map<string, TopicTermModel>;
  /** Each topic's learned page classifier. */
  readonly classifiers: Map<string, PageClassifier>;
  /** A uniform sample of the pages judged, judged again at the end for the harvest estimate. */
  private readonly sample: HarvestSample;
  /** Each topic's verdict by the examples' log-odds rank (src/topic/rank-verdict.ts). */
  private readonly rankVerdicts: Map<string, RankVerdict>;
  /**
   * The given seed pages with content (not list, error, out-of-window or site home pages), per topic: the
   * user's examples of the topic, judged again at the end for the harvest estimate's recall term.
   */
  private readonly examples: { tf: SparseVector; url?: string; topicId: string; joined?: true }[] = [];
  /** The user's labelled pages (src/crawl/labels.ts), per topic: they move θ (`verdictThreshold`). */
  private readonly labels: { tf: SparseVector; url: string; topicId: string; relevant: boolean }[] = [];
  /** Called with each input before the judge learns from it (the `--resume` journal). */
  onInput?: (input: JudgedPage) => void;

  private constructor(
    readonly model: MultiTopicModel,
    readonly mode: JudgeMode = 'learned',
    randomSeed = 1,
    /** Link contexts are matched against the examples' language too (`combined`'s, see `linkRelevance`). */
    private readonly linkExamples = false,
  ) {
    this.keywordTerms = new Set(model.topics.flatMap((t) => [...t.keywordTf.keys()]));
    this.terms = new Map(model.topics.map((t) => [t.id, new TopicTermModel(t.keywordTf)]));
    this.classifiers = new Map(model.topics.map((t, i) => [t.id, new PageClassifier({ threshold: t.threshold, randomSeed: randomSeed + i })]));
    this.sample = new HarvestSample(undefined, randomSeed);
    this.rankVerdicts = new Map(model.topics.map((t) => [t.id, new RankVerdict()]));
  }

  /** A judge over a model built elsewhere (tests, benches). */
  static over(model: MultiTopicModel, mode: JudgeMode = 'learned', linkExamples = false): PageJudge { return new PageJudge(model, mode, 1, linkExamples); }

  static async create(config: CrawlConfig, notice?: (line: string) => void): Promise<PageJudge> {
    const thesaurus = loadThesaurus({ cilinPath: config.cilinPath });
    const expansion = keywordExpansion(config);
    const model = new MultiTopicModel(config.topics, { thesaurus, pageThreshold: config.pageThreshold, expansion });
    for (const t of model.topics)
      for (const w of t.stopwordKeywords)
        notice?.(`topic "${t.id}": keyword "${w}" is a stopword; it is kept as a topic term (and in pages) all the same`);
    if (expansion)
      for (const t of model.topics) {
        const near = expansion.expand(t.semanticKeywords).map((w) => w.term);
        notice?.(`topic "${t.id}": ${expansion.name} add ${near.length ? near.join(', ') : 'nothing (no keyword is in the English vectors)'} (METHODS §2b)`);
      }
    notice?.(
      thesaurus
        ? `semantic tree loaded (${config.cilinPath}): relevance = λ·cos + (1-λ)·sem (METHODS §2)`
        : 'no thesaurus configured (--cilin): relevance uses the keyword cosine alone',
    );
    return new PageJudge(model, config.judge, config.randomSeed, config.strategy === 'combined');
  }

  static fields(analysis: PageAnalysis, anchorText?: string): PageFields { return { title: analysis.title, headings: analysis.headings, body: analysis.text, url: analysis.url, anchorText }; }

  judge(analysis: PageAnalysis, call: JudgeCall): Verdict {
    // Not a page of content: no relevance, no seed, not counted in the IDF (src/judge/never-relevant.ts).
    const never = neverRelevant({
      status: call.status,
      title: analysis.title,
      headings: analysis.headings,
      text: analysis.text,
      html: call.html,
      linkTexts: analysis.links.map((l) => l.anchorText),
    });
    if (never) {
      this.onInput?.({ kind: 'never', key: call.key });
      return { ...this.learnNever(), neverRelevant: never };
    }
    const fields = PageJudge.fields(analysis, call.anchorText);
    const input: Extract<JudgedPage, { kind: 'page' }> = {
      kind: 'page',
      key: call.key,
      url: fields.url,
      tf: this.model.termFrequencies(fields),
      isSeed: call.isSeed,
      publishTime: analysis.publishTime?.iso,
      // Headlines are not an article: the page is about whatever its links are about (a portal
      // home page whose only text is a copyright line is not an article about the topic).
      ...(contentLength(analysis.text) === 0 ? { listPage: true as const } : {}),
    };
    this.onInput?.(input);
    return this.judgeTerms(input);
  }

  private learnNever(): Verdict {
    const topic0 = this.model.topics[0].id;
    this.sample.addNegative();
    this.classifiers.get(topic0)!.noteCertainNegative();
    return { rel: 0, cosine: 0, simD: 0, topicId: topic0, relevant: false, probability: 0 };
  }

  /** Everything the judge learns from a page, from what `judge()` read of it (also `--resume`'s replay). */
  private judgeTerms(input: Extract<JudgedPage, { kind: 'page' }>): Verdict {
    const { tf, url } = input;
    // The string as the page stated it: the time window compares its calendar date (topic/time.ts).
    const verdict: Verdict = this.model.relevanceOfTerms(tf, url, { publishTime: input.publishTime });
    for (const t of this.terms.values()) t.observe(tf);
    const classifier = this.classifiers.get(verdict.topicId)!;
    if (verdict.outOfWindow) {
      this.sample.addNegative();
      classifier.noteCertainNegative();
      return { ...verdict, probability: 0 };
    }
    if (input.listPage) {
      this.sample.addNegative();
      classifier.noteCertainNegative();
      return { ...verdict, relevant: false, listPage: true, listTopical: verdict.relevant, probability: 0 };
    }
    const terms = this.terms.get(verdict.topicId)!;
    const topic = this.model.topic(verdict.topicId);
    // Measured before the page can become an example, so a seed is judged as any page would be.
    const ev = this.evidenceOf(verdict, tf, terms);
    verdict.evidence = ev.evidence;
    verdict.negativeEvidence = ev.negativeEvidence;
    verdict.probability = classifier.judge(ev);
    // The seed set grows by METHODS §1's rel ≥ θ_page in either mode: the learned verdict learns
    // from D, so D must not follow that verdict (it collapsed with it: a keyword-only topic's
    // classifier drifted to "nothing is relevant" and D never formed).
    const byRule = { ...verdict };
    // Nor on likeness to D alone without examples: each such page would pull the next one in (topic drift).
    const simDAlone = this.onSimDAlone(verdict);
    if (simDAlone) byRule.relevant = false;
    if (this.mode === 'learned') verdict.relevant = verdict.probability >= 0.5;
    else {
      verdict.threshold = this.verdictThreshold(verdict.topicId);
      // rel 0 shares no word with the keywords or D: never relevant, even at a θ calibrated to 0.
      const rule = verdict.rel > 0 && verdict.rel >= verdict.threshold && !simDAlone;
      // With seed pages to learn from, which pages are relevant is the examples' log-odds rank's call, how many the rule's.
      const rank = this.rankVerdicts.get(verdict.topicId)!;
      const byRank = rank.judge(rule, tf, this.rankScorer(verdict.topicId));
      verdict.relevant = this.calibrated(verdict.topicId) ? verdict.rel > 0 && byRank : rule;
      if (this.calibrated(verdict.topicId) && verdict.rel > 0 && rank.lastPlace) verdict.rankPlace = rank.lastPlace;
    }
    this.sample.add(tf, url, verdict.relevant);
    // A home page given as a seed is where to start, not an example (./entry-page.ts).
    if (input.isSeed && !isSiteHomePage(url)) {
      const example: (typeof this.examples)[number] = { tf, url, topicId: verdict.topicId };
      this.examples.push(example);
      // A given seed page with content (list pages returned above) is the user's example of the
      // topic: its words join the term model whether or not it uses the keywords (Wikispeedia's
      // food seeds Durian, Onion and Chicken never say "food agriculture crop", and without them
      // the topic's language was the keywords and the pages with the best keyword cosine). It
      // joins D (METHODS §1, simD and the θ_page rule's growth) and the learned classifier's
      // positives only when its keyword cosine reaches θ_page, as before.
      example.joined = true;
      terms.addExample(tf);
      if (verdict.cosine >= topic.threshold) {
        topic.addSeedTerms(tf, url, false);
        classifier.addExample(ev, true);
      }
    } else if (topic.maybeGrowSeedSetTerms(url, () => tf, byRule)) {
      terms.addExample(tf);
      classifier.addExample(ev, true);
    }
    return verdict;
  }

  /** What the topic's rank verdict ranks by: its term log-odds now, and its seed pages' (each left out of the examples it joined). */
  private rankScorer(topicId: string): RankScorer {
    const terms = this.terms.get(topicId)!;
    return {
      score: (tf) => terms.logOdds(tf),
      version: terms.exampleMass,
      examples: () => this.examples.filter((e) => e.topicId === topicId).map((e) => terms.logOdds(e.tf, e.joined ? e.tf : undefined)),
      // A page labelled relevant joined the examples: scored left out, as the examples are.
      labels: () => this.labels.filter((l) => l.topicId === topicId).map((l) => ({ score: terms.logOdds(l.tf, l.relevant ? l.tf : undefined), relevant: l.relevant })),
    };
  }

  /**
   * The page would pass the plain rule (no example seed pages) on its likeness to D alone, sharing
   * no word with the topic. Without examples D is the crawl's own finds, grown by that rule, so
   * such a page is relevant because the pages before it were: never relevant, never in D.
   */
  private onSimDAlone(r: Relevance): boolean {
    return this.mode === 'cosine' && !this.calibrated(r.topicId) && !sharesTopicWords(r);
  }

  /** The topic's θ is calibrated from its given seed pages (not given by the user, not θ_page). */
  private calibrated(topicId: string): boolean {
    return !this.model.thresholdGiven.has(topicId) && this.examples.some((e) => e.topicId === topicId);
  }

  /**
   * The θ of the cosine verdict: the topic's own `threshold` when its config sets one, else
   * calibrated from its seed pages as they score now (src/topic/seed-threshold.ts), else θ_page.
   * Computed afresh (no cache): the same state gives the same θ, so `--resume` needs nothing more.
   */
  verdictThreshold(topicId: string): number {
    const topic = this.model.topic(topicId);
    if (this.model.thresholdGiven.has(topicId)) return topic.threshold;
    const theta = seedCalibratedThreshold(this.exampleRels(topicId), topic.threshold);
    const labelled = this.labels.filter((l) => l.topicId === topicId);
    if (labelled.length === 0) return theta;
    return labelledThreshold(theta, labelled.map((l) => ({ rel: this.model.rejudgeAs(topicId, l.tf, l.url).rel, relevant: l.relevant })));
  }

  /** The topic's given seed pages with content, each judged again as it stands now. */
  private exampleRels(topicId: string): number[] {
    return this.examples.filter((e) => e.topicId === topicId).map((e) => this.model.rejudgeAs(topicId, e.tf, e.url).rel);
  }

  /** θ's relative 90% half-width (src/topic/seed-threshold.ts), 0 where θ is not calibrated from seed pages. */
  private thresholdSpread(topicId: string): number {
    if (this.mode === 'learned' || this.model.thresholdGiven.has(topicId)) return 0;
    return seedThresholdSpread(this.exampleRels(topicId));
  }

  private evidenceOf(verdict: Relevance, tf: SparseVector, terms: TopicTermModel): PageEvidence {
    return { cosine: verdict.cosine, simD: verdict.simD, evidence: terms.evidence(tf), negativeEvidence: terms.negativeEvidence(tf) };
  }

  /**
   * A page the user says is off-topic (`negativeSeeds`, `--negative`): a negative example of
   * its topic (the topic named, else the one it is nearest), never crawled further.
   */
  addNegativeExample(analysis: PageAnalysis, topicId?: string): void {
    const fields = PageJudge.fields(analysis);
    const input: JudgedPage = { kind: 'negative', url: fields.url, tf: this.model.termFrequencies(fields), topicId };
    this.onInput?.(input);
    this.learnNegative(input);
  }

  private learnNegative({ tf, url, topicId }: { tf: SparseVector; url?: string; topicId?: string }): void {
    const verdict = this.model.relevanceOfTerms(tf, url);
    for (const t of this.terms.values()) t.observe(tf);
    const id = topicId ?? verdict.topicId;
    const terms = this.terms.get(id)!;
    terms.addNegativeExample(tf);
    this.classifiers.get(id)!.addExample(this.evidenceOf(verdict, tf, terms), false);
  }

  /**
   * The user's label of a page the crawl fetched (src/crawl/labels.ts): positive and negative
   * examples at once. A page labelled relevant is an example of its topic (the topic named, else
   * the one it is nearest) as a page that joins the seed set is: its words join the term model,
   * the seed set D and the classifier's positives. One labelled not relevant is a negative example
   * as a user's negative page is. Either way it moves the topic's θ (`verdictThreshold`).
   */
  addLabel(analysis: PageAnalysis, relevant: boolean, topicId?: string): void {
    const fields = PageJudge.fields(analysis);
    const input: Extract<JudgedPage, { kind: 'label' }> = { kind: 'label', url: analysis.url, tf: this.model.termFrequencies(fields), relevant, topicId };
    this.onInput?.(input);
    this.learnLabel(input);
  }

  private learnLabel({ tf, url, relevant, topicId }: Extract<JudgedPage, { kind: 'label' }>): void {
    // The page was judged when fetched (its words are in the IDF and the background already): judged again, not observed.
    const verdict = topicId ? this.model.rejudgeAs(topicId, tf, url) : this.model.rejudge(tf, url);
    const id = topicId ?? verdict.topicId;
    const terms = this.terms.get(id)!;
    const ev = this.evidenceOf(verdict, tf, terms);
    this.labels.push({ tf, url, topicId: id, relevant });
    if (relevant) {
      terms.addExample(tf);
      this.model.topic(id).addSeedTerms(tf, url, false);
    } else terms.addNegativeExample(tf);
    this.classifiers.get(id)!.addExample(ev, relevant);
  }

  /** The labels the judge has learned, oldest first (`--explain`, the report). */
  get labelled(): readonly { url: string; topicId: string; relevant: boolean }[] {
    return this.labels;
  }

  /** `--resume`: learn from a page as `judge()` did before the stop (src/judge/judge-journal.ts). */
  replay(input: JudgedPage): void {
    if (input.kind === 'never') this.learnNever();
    else if (input.kind === 'negative') this.learnNegative(input);
    else if (input.kind === 'label') this.learnLabel(input);
    else this.judgeTerms(input);
  }

  /** Everything the judge has learned, as plain data (the snapshot `--resume` restores). */
  state(): JudgeState {
    return {
      mode: this.mode,
      model: this.model.state(),
      terms: this.model.topics.map((t) => this.terms.get(t.id)!.state()),
      classifiers: this.model.topics.map((t) => this.classifiers.get(t.id)!.state()),
      sample: this.sample.state(),
      examples: this.examples.map((e) => ({ ...e, tf: [...e.tf] })),
      rankVerdicts: this.model.topics.map((t) => this.rankVerdicts.get(t.id)!.state()),
      ...(this.labels.length ? { labels: this.labels.map((l) => ({ ...l, tf: [...l.tf] })) } : {}),
    };
  }

  restore(s: JudgeState): void {
    this.model.restore(s.model);
    this.model.topics.forEach((t, i) => {
      this.terms.get(t.id)!.restore(s.terms[i]);
      this.classifiers.get(t.id)!.restore(s.classifiers[i]);
    });
    this.sample.restore(s.sample);
    if (s.rankVerdicts) this.model.topics.forEach((t, i) => this.rankVerdicts.get(t.id)!.restore(s.rankVerdicts![i]));
    this.examples.length = 0;
    for (const e of s.examples) this.examples.push({ ...e, tf: new Map(e.tf) });
    this.labels.length = 0;
    for (const l of s.labels ?? []) this.labels.push({ ...l, tf: new Map(l.tf) });
  }

  /**
   * `--resume`: the pages fetched before the stop, by their crawl-log verdicts (saved or not),
   * join the harvest sample so the estimate covers the whole crawl. (The IDF and the seed set
   * are not rebuilt: the run folder keeps text only for saved pages.)
   */
  restoreVerdicts(saved: Iterable<boolean>): void {
    for (const s of saved) this.sample.addKept(s);
  }

  /**
   * The crawl's own harvest estimate (src/topic/harvest-sample.ts): a uniform sample of the pages
   * judged, each judged again by the model as it is now (in `learned` mode by its classifier),
   * with a 90% interval; `fetched` is the crawl's page count (fetches the judge never saw count
   * as not relevant). An estimate, not the truth.
   */
  harvestEstimate(fetched?: number): HarvestEstimate {
    const thresholds = new Map<string, { theta: number; spread: number; byRank?: (tf: SparseVector) => boolean }>();
    const again = (tf: SparseVector, url: string | undefined): Rejudged => {
      const r = this.model.rejudge(tf, url);
      if (this.mode === 'learned') return this.classifiers.get(r.topicId)!.probability(this.evidenceOf(r, tf, this.terms.get(r.topicId)!)) >= 0.5;
      const id = r.topicId;
      // Judged again as the verdict judges: by the log-odds rank where θ is calibrated from seed pages (`relevant`), the rule's margin for the interval.
      const byRank = () => (this.calibrated(id) ? this.rankVerdicts.get(id)!.rejudge(this.rankScorer(id)) : undefined);
      let t = thresholds.get(id);
      if (!t) thresholds.set(id, (t = { theta: this.verdictThreshold(id), spread: this.thresholdSpread(id), byRank: byRank() }));
      // rel 0 is never relevant (as the verdict), even at a θ calibrated to 0; nor simD alone under the plain rule.
      return { margin: r.rel <= 0 || this.onSimDAlone(r) ? 0 : t.theta > 0 ? r.rel / t.theta : Infinity, spread: t.spread, topicId: id, rel: r.rel, ...(t.byRank ? { relevant: r.rel > 0 && t.byRank(tf) } : {}) };
    };
    // The verdict's own recall on the seed pages: by the log-odds rank where it decides (each seed scored left out), else by the rule.
    const byRule = (id: string) => this.examples.filter((e) => e.topicId === id).filter((e) => ((r) => (typeof r === 'boolean' ? r : r.margin >= 1))(again(e.tf, e.url))).length;
    const byRank = (id: string) => (this.mode === 'cosine' && this.calibrated(id) ? this.rankVerdicts.get(id)!.recognisedExamples(this.rankScorer(id)) : undefined);
    const recognised = this.model.topics.reduce((k, t) => k + (byRank(t.id) ?? byRule(t.id)), 0);
    const spreads = this.model.topics.map((t) => this.thresholdSpread(t.id)).filter((x) => x > 0);
    const examples = { recognised, given: this.examples.length, ...(spreads.length ? { thresholdSpread: Math.max(...spreads) } : {}) };
    return this.sample.estimate(again, fetched, examples, this.seedScores());
  }

  /**
   * Each topic whose θ is calibrated from its seed pages, with those pages' rel as they score now:
   * do they stand out from the pages fetched? (src/topic/learnability.ts). Empty in `learned` mode.
   */
  seedScores(): Map<string, number[]> {
    return new Map(this.mode === 'learned' ? [] : this.model.topics.filter((t) => this.calibrated(t.id)).map((t) => [t.id, this.exampleRels(t.id)]));
  }

  /** The harvest sample's pages as they stand (their terms, URL and fetch-time verdict). */
  get sampledPages(): HarvestSample['sampled'] {
    return this.sample.sampled;
  }

  /** Pages judged so far (every page the harvest sample was offered). */
  get pagesJudged(): number {
    return this.sample.judged;
  }

  /**
   * What the harvest estimate reads, page by page (bench:replay --json, to study the estimate):
   * each held-back page's end-of-crawl rel, θ and learned probability, and the same for the
   * topic's own examples.
   */
  harvestEvidence(): { pages: { url?: string; judged: boolean; rel: number; threshold: number; probability: number }[]; examples: { rel: number; threshold: number }[] } {
    const one = (tf: SparseVector | undefined, url: string | undefined, topicId?: string) => {
      if (!tf) return { rel: 0, threshold: 1, probability: 0 };
      const r = topicId ? this.model.rejudgeAs(topicId, tf, url) : this.model.rejudge(tf, url);
      const probability = this.classifiers.get(r.topicId)!.probability(this.evidenceOf(r, tf, this.terms.get(r.topicId)!));
      return { rel: r.rel, threshold: this.verdictThreshold(r.topicId), probability };
    };
    return {
      pages: this.sample.sampled.map((p) => ({ url: p.url, judged: p.judged, ...one(p.tf, p.url) })),
      examples: this.examples.map((e) => ({ rel: one(e.tf, e.url, e.topicId).rel, threshold: this.verdictThreshold(e.topicId) })),
    };
  }

  /** The link context A_u: anchor text, title/alt, text around the link, URL tokens (§3.1). */
  static contextText(link: LinkInfo): string {
    return [link.anchorText, link.title, link.contextBefore, link.contextAfter, urlTokens(link.url).join(' ')].join(' ');
  }

  /**
   * cos(T, A_u) (METHODS §3.1). For `combined`, T is the keywords and the topic's examples'
   * language (METHODS §1: the keywords "optionally expanded"): the mean of the keyword cosine and
   * the cosine to the examples' query (`examplesQuery`). A topic whose seed pages barely use its
   * keywords (Wikispeedia's food: dishes, for "food agriculture crop") has links to pages like
   * its seeds ("Durian", "Mango") that the keywords alone score 0. The other strategies keep the
   * keyword cosine, as their papers define it.
   */
  linkRelevance(link: LinkInfo): number {
    const text = PageJudge.contextText(link);
    if (!this.linkExamples) return this.model.linkRelevance(text);
    // One vector for both measures (this runs for every link found).
    const a = this.model.linkVector(text);
    const keywords = this.model.keywordRelevance(a);
    let examples = 0;
    for (const t of this.model.topics) examples = Math.max(examples, cosine(this.examplesQuery(t.id), a));
    return (keywords + examples) / 2;
  }

  /** Each topic's examples' query and what it was built at (the examples' mass, the pages counted in the IDF). */
  private readonly queries = new Map<string, { mass: number; documents: number; v: SparseVector }>();

  /** The LINK_QUERY_TERMS heaviest terms of the topic's examples (term-model.ts `heaviestTerms`) by IDF; rebuilt as examples join or the IDF's pages grow by a tenth. */
  private examplesQuery(topicId: string): SparseVector {
    const terms = this.terms.get(topicId)!;
    const documents = this.model.stats.documentCount;
    const q = this.queries.get(topicId);
    if (q && q.mass === terms.exampleMass && documents <= q.documents * 1.1) return q.v;
    const v = applyIdf(terms.heaviestTerms(LINK_QUERY_TERMS), this.model.stats);
    this.queries.set(topicId, { mass: terms.exampleMass, documents, v });
    return v;
  }

  /** f_anchor (§3.2): share of the topic's keyword terms present in the link context, in [0,1]. */
  anchorKeywordFreq(link: LinkInfo): number {
    if (this.keywordTerms.size === 0) return 0;
    const terms = new Set(this.model.analyze(PageJudge.contextText(link)));
    let hits = 0;
    for (const k of this.keywordTerms) if (terms.has(k)) hits++;
    return hits / this.keywordTerms.size;
  }
}

/** The page uses a word of the topic's keywords, or (with a thesaurus) a near one: its rel is not simD's alone. */
function sharesTopicWords(v: Relevance): boolean {
  return v.cosine > 0 || (v.sem ?? 0) > 0;
}
