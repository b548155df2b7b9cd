/**
 * `combined`: every METHODS §3 component as one score. Their product is the starting point;
 * with `learnWeights`, a logistic model over the components (src/score/learned.ts) re-weights
 * them online from the crawl's own verdicts.
 */
import { OnlineLogistic, type OnlineLogisticState } from '../learned.js';
import { LinkRanker, type LinkFeatures, type LinkRankerState } from '../link-ranker.js';
import { linkWords, LinkWordModel, type LinkWordState } from '../link-words.js';
import { checkStateVersion } from '../state-data.js';
import { TopicalLabel, type TopicalLabelState } from '../topical-label.js';
import { WordCredibility } from '../word-credibility.js';
import { HubTable, type HubTableState } from '../hubs.js';
import { childLinkSmoothing, parentAnchorPriority } from '../priority.js';
import type { InlinkSummary, LearnerFeatures, Strategy, StrategyDefinition, StrategyEnv, StrategyTraits } from '../strategy.js';
import type { Contribution, FetchedPage, Pending } from '../types.js';
import type { ScoreOptions } from '../options.js';
import { hostOf } from '../links.js';
import { tokenize } from '../../text/tokenize.js';

/** Inputs of combined's learned weights (src/score/learned.ts), each in about [0, 1]. */
export const COMBINED_FEATURES = [
  'product', // log of the fixed product of §3.1–§3.6 terms, /4
  'maxContextSim', // best cos(T, A_u) over in-links (§3.1)
  'parentRel', // rel of the best in-linker (§3.1)
  'relevantInlinks', // log(1 + relevant in-linkers) / log(1 + relevant pages fetched) (§3.2 accumulation)
  'inlinks', // log(1 + in-linkers) / log(1 + pages fetched)
  'wPath', // path relation of the best in-link (§3.2)
  'fAnchor', // topic keyword share in the link context (§3.2)
  'siteRelevance', // relevant/fetched of the URL's host (§3.6)
  'tunnel', // 1 when the best in-linker is irrelevant (§3.2 tunnelling)
  'ipagerank', // IPR(u) - (1-d), clipped to [0,1] (§3.5)
  'timePr', // Pr(t|T) of the URL's date (§3.4)
  'depth', // link depth / 10, capped
  'linkRanker', // the link ranker's log-odds evidence plus its optimism about the target's kind (src/score/link-ranker.ts), /4
  'linkWords', // the link-word evidence (src/score/link-words.ts) × linkWordsWeight, /4
  'hub', // the best of the URL's parents' children's evidence (src/score/hubs.ts) × hubEvidence, /4
] as const;

/** The name of one feature of the `combined` strategy's learned weights. */
export type CombinedFeature = (typeof COMBINED_FEATURES)[number];

/** The learner's input vector, in COMBINED_FEATURES order (looked up by name, never by position). */
export function featureVector(f: Record<CombinedFeature, number>): number[] {
  return COMBINED_FEATURES.map((k) => f[k]);
}

/**
 * An in-link count as a share of the pages that could have linked, on a log scale, in [0, 1].
 * The raw log(1 + n) reached 4–5 for navigation links (every page links the home page, the
 * channels, the forum): once the learner had seen such hubs judged irrelevant, its weights
 * (-0.45 and -0.48 after 110 pages on the test web's finance topic) times 4.7 outvoted every
 * other input, and the forum, linked from 106 pages, scored 0.005 against its fixed product's
 * 0.33: it was never fetched, nor its relevant threads.
 */
function logShare(n: number, of: number): number {
  return of > 0 ? Math.min(1, Math.log1p(n) / Math.log1p(of)) : 0;
}

/** The word evidence of one in-link: its word ids sit in its feature chunk after its features. */
function linkWordEvidence(words: LinkWordModel, f: LinkFeatures): number {
  const from = f.start + f.n;
  return words.evidence(f.chunk.idx, from, from + (f.words ?? 0));
}

/** combined's learned state (src/score/state-data.ts). */
interface CombinedState {
  v: 1;
  learner?: OnlineLogisticState;
  ranker?: LinkRankerState;
  words?: LinkWordState;
  credibility?: ReturnType<WordCredibility['state']>;
  hubs?: HubTableState;
  labels: TopicalLabelState;
}

/** Pages ranked before a page's rank in the judge's evidence counts in its label (src/score/topical-label.ts). */
const RANK_WARMUP = 30;

/**
 * combined's learned weights (src/score/learned.ts). Feature `product` is the log of the fixed
 * product /4: prior weight 4 undoes the scaling, so the first ranking is exactly the product's.
 */
function weightLearner(o: ScoreOptions): OnlineLogistic {
  const prior = COMBINED_FEATURES.map((f) => (f === 'product' || f === 'linkRanker' || f === 'linkWords' || f === 'hub' ? 4 : 0));
  const { learningRate, learnL2: l2, learnWeightBound: maxDeviation, learnMinEvidence: minEvidence } = o;
  return new OnlineLogistic({ size: prior.length, prior, learningRate, l2, maxDeviation, minEvidence });
}

/** Where a score's named components are written (`--explain`), or undefined when not explained. */
type Explain = Record<string, number> | undefined;

/** combined's formula and learners, made per scorer; a learner off in the options is absent, and so are the hooks only it needs. */
class CombinedStrategy implements Strategy {
  readonly traits: StrategyTraits = {
    tunnel: true,
    feedback: 'irrelevant-parents',
    ipagerank: true,
    periodicRescore: true,
    time: true,
    pathEnds: true,
    stoplist: true,
    dropsRedundant: true,
  };
  /** The learned weights over COMBINED_FEATURES (`learnWeights`). */
  readonly learner?: OnlineLogistic;
  readonly readsPageWords: boolean;
  readonly rescoreEvery?: number;
  readonly learn?: Strategy['learn'];
  readonly fetched?: Strategy['fetched'];
  readonly observe?: Strategy['observe'];
  readonly rescoreAfter?: Strategy['rescoreAfter'];
  readonly linkFeatures?: Strategy['linkFeatures'];
  /** The learned link ranker: its evidence enters the score in log-odds (prior weight 4 undoes the /4). */
  private readonly ranker?: LinkRanker;
  private readonly words?: LinkWordModel;
  /** How far the word evidence has predicted this crawl's outcomes, per host (src/score/word-credibility.ts). */
  private readonly credibility?: WordCredibility;
  /** What each fetched page's links have led to (src/score/hubs.ts): a feature of the learned weights. */
  private readonly hubs?: HubTable;
  /** The label every learner here trains on (src/score/topical-label.ts). */
  private readonly labels: TopicalLabel;
  /** Parents whose children's labels the last page changed: their queued children are re-scored. */
  private hubsChanged: string[] = [];

  constructor(private readonly options: ScoreOptions) {
    const o = options;
    const learner = o.learnWeights ? weightLearner(o) : undefined;
    const ranker = o.linkRanker ? new LinkRanker({ decay: o.decay }) : undefined;
    const words = ranker && o.linkWords ? new LinkWordModel() : undefined;
    this.learner = learner;
    this.ranker = ranker;
    this.words = words;
    this.credibility =
      words && o.linkWordsCredibility ? new WordCredibility({ prior: o.linkWordsCredibilityPrior, scale: o.linkWordsCredibilityScale }) : undefined;
    const hubs = (this.hubs = learner && o.hubEvidence > 0 ? new HubTable() : undefined);
    this.labels = new TopicalLabel({ mode: o.learnLabel, power: o.linkWordsLabelPower, warmup: RANK_WARMUP });
    this.readsPageWords = !!words;
    this.rescoreEvery = learner || ranker ? o.learnRescoreEvery : undefined;
    this.learn = learner ? (f, _relevant, page) => learner.update(featureVector(f as Record<CombinedFeature, number>), this.topicalLabel(page)) : undefined;
    this.fetched = ranker || hubs ? (was, page, env) => this.takeFetched(was, page, env) : undefined;
    this.observe = words || hubs ? (page) => this.observePage(page) : undefined;
    this.rescoreAfter = hubs ? (page, env) => this.childrenOfChangedHubs(page, env) : undefined;
    this.linkFeatures = ranker
      ? (link, p, page, sinceRelevant) => {
          const wordIds = words ? [...new Set(words.ids(linkWords(link, p.host)))] : undefined;
          const at = { url: link.url, anchorText: link.anchorText, context: link.context, host: p.host, parentRelevant: page.relevant, sinceRelevant };
          return ranker.features(at, wordIds);
        }
      : undefined;
  }

  term(c: Contribution, rel: number, tf: number, fb: number, env: StrategyEnv): { term: number; prio: number } {
    const o = this.options;
    const prio = parentAnchorPriority(rel, childLinkSmoothing(c.sim, c.c, o.delta), o.theta, o.gamma);
    return { term: prio * c.omega * env.clampedBias(c.parent) * c.stoplistWeight * tf * fb, prio };
  }

  aggregate(s: InlinkSummary, _p: Pending, _env: StrategyEnv, ex: Explain): number {
    // In-links from other *relevant* parents add up to inlinkShare × best, no more: an
    // unbounded sum made generic hub pages (linked from everywhere) outrank on-topic links.
    const others = s.sumRelevantTerms - (s.best.parentRelevant ? s.bestTerm : 0);
    const acc = s.bestTerm > 0 ? this.options.inlinkShare * Math.tanh(others / s.bestTerm) : 0;
    if (ex) ex.inlinkBonus = 1 + acc;
    return s.bestTerm * (1 + acc);
  }

  finish(score: number, s: InlinkSummary, p: Pending, env: StrategyEnv, ex: Explain, timePr: number): { score: number; features?: LearnerFeatures } {
    const { options: o, learner } = this;
    const evidence = this.rankerEvidence(p, ex);
    const wordEvidence = this.credibleWordEvidence(p, ex);
    const hub = this.hubEvidenceOf(p);
    if (ex && this.hubs) ex.hub = hub;
    const v = env.unfetchedIpr(p);
    const iprFactor = 1 + o.iprBonus * Math.min(1, Math.max(0, v - (1 - o.damping)));
    const siteFactor = 1 + o.siteBonus * env.sites.relevance(p.host);
    if (ex) {
      ex.ipagerank = v;
      ex.iprFactor = iprFactor;
      ex.siteBonus = siteFactor;
    }
    const fixed = score * (iprFactor * siteFactor); // the factors' product first, then the score: another order rounds differently
    if (!learner) return { score: fixed };
    const features: Record<CombinedFeature, number> = {
      product: Math.min(3, Math.max(-12, Math.log(Math.max(fixed, 1e-12)))) / 4,
      maxContextSim: s.maxSim,
      parentRel: s.best.parentRel,
      relevantInlinks: logShare(s.relevantParents, env.sites.relevantPages),
      inlinks: logShare(p.contributions.length, env.sites.pages),
      wPath: s.best.wPath,
      fAnchor: s.maxAnchor,
      siteRelevance: env.sites.relevance(p.host),
      tunnel: s.best.parentRelevant ? 0 : 1,
      ipagerank: Math.min(1, Math.max(0, v - (1 - o.damping))),
      timePr,
      depth: Math.min(p.depth, 10) / 10,
      linkRanker: evidence / 4,
      linkWords: (wordEvidence * o.linkWordsWeight) / 4,
      hub: (hub * o.hubEvidence) / 4,
    };
    const learned = learner.predict(featureVector(features));
    if (ex) {
      ex.fixedProduct = fixed;
      ex.learnedWeight = learned;
    }
    return { score: learned, features };
  }

  explainTerm(c: Contribution, prio: number, _rel: number, env: StrategyEnv, ex: Record<string, number>): void {
    ex.parentPriority = prio;
    ex.smoothedSim = childLinkSmoothing(c.sim, c.c, this.options.delta);
    if (c.c !== undefined) ex.pageLinkTerm = c.c;
    ex.wPath = c.wPath;
    ex.omega = c.omega;
    ex.scaleFree = env.clampedBias(c.parent);
    ex.stoplist = c.stoplistWeight;
  }

  /** What the learners learned (src/score/state-data.ts); a part this scorer has not got is absent. */
  state(): CombinedState {
    const { learner, ranker, words, credibility, hubs, labels } = this;
    return {
      v: 1,
      learner: learner?.state(),
      ranker: ranker?.state(),
      words: words?.state(),
      credibility: credibility?.state(),
      hubs: hubs?.state(),
      labels: labels.state(),
    };
  }

  checkState(raw: { v: number }): void {
    const s = raw as CombinedState;
    checkStateVersion('combined', s, 1);
    for (const [name, mine, theirs] of [
      ['learned weights', this.learner, s.learner],
      ['link ranker', this.ranker, s.ranker],
      ['link-word model', this.words, s.words],
      ['word credibility', this.credibility, s.credibility],
    ] as const) {
      if (!mine !== !theirs) throw new Error(`scorer snapshot: ${name} ${mine ? 'missing' : 'present'} (snapshot from other score options)`);
      if (theirs) checkStateVersion(name, theirs, 1);
    }
    checkStateVersion('topical label', s.labels, 1);
  }

  restore(raw: { v: number }): void {
    const s = raw as CombinedState;
    // A snapshot from before the `hub` input (the last feature): its weight starts at its prior.
    if (s.learner)
      this.learner?.restore(s.learner.weights.length === COMBINED_FEATURES.length - 1 ? { ...s.learner, weights: [...s.learner.weights, 4] } : s.learner);
    if (s.ranker) this.ranker?.restore(s.ranker);
    if (s.words) this.words?.restore(s.words);
    if (s.credibility) this.credibility?.restore(s.credibility);
    if (s.hubs) this.hubs?.restore(s.hubs);
    this.labels.restore(s.labels);
  }

  private topicalLabel(page: FetchedPage): number {
    return this.labels.of(page);
  }

  /**
   * The link ranker's evidence for the queued URL's best in-link (0 before it has learned, or
   * without a ranked in-link), plus its optimism about the target's kind.
   */
  private rankerEvidence(p: Pending, ex: Explain): number {
    const { ranker, options: o } = this;
    if (!ranker || ranker.trainedOn <= 0) return 0;
    let evidence = -Infinity;
    let bestLink: LinkFeatures | undefined;
    for (const c of p.contributions) {
      if (!c.link) continue;
      const e = ranker.evidence(c.link);
      if (e > evidence) ((evidence = e), (bestLink = c.link));
    }
    if (!bestLink) return 0;
    // What the ranker does not know yet about the target's kind (host and URL shape): an
    // upper confidence bound on it, added to the evidence (src/score/link-ranker.ts, optimism).
    const optimism = o.linkExplore > 0 ? ranker.optimism(bestLink, ranker.kindFeature(p.url, p.host), o.linkExplore) : 0;
    if (ex) {
      const pr = ranker.predict(bestLink);
      ex.linkTarget = pr.target;
      ex.linkBeyond = pr.beyond;
      ex.linkRanker = evidence;
      if (o.linkExplore > 0) ex.linkExplore = optimism;
    }
    return evidence + optimism;
  }

  /** The link-word evidence, times the host's word credibility (0 before pages of both kinds). */
  private credibleWordEvidence(p: Pending, ex: Explain): number {
    const { words, credibility } = this;
    if (!words || words.relevantPages <= 0) return 0;
    let wordEvidence = this.wordEvidenceOf(p);
    if (ex) ex.linkWords = wordEvidence;
    if (credibility) {
      const c = credibility.of(p.host);
      if (ex) ex.linkWordsCredibility = c;
      wordEvidence *= c;
    }
    return wordEvidence;
  }

  /** The best word evidence among a queued URL's in-links (0 before pages of both kinds). */
  private wordEvidenceOf(p: Pending): number {
    const words = this.words;
    if (!words || words.relevantPages === 0) return 0;
    let e = -Infinity;
    for (const c of p.contributions) if (c.link?.words) e = Math.max(e, linkWordEvidence(words, c.link));
    return Number.isFinite(e) ? e : 0;
  }

  /** The promise of what a queued URL's parents' links have led to (0 when none has judged children; never below). */
  private hubEvidenceOf(p: Pending): number {
    const hubs = this.hubs;
    if (!hubs) return 0;
    const all = hubs.evidence(p.contributions.map((c) => c.parent));
    // Children off the topic say little of its other links (a portal's first: an advert, a calendar); as a warning it sank a home page's every link.
    if (all <= 0) return 0;
    // A relevant parent lends its children its relevance (§3.1) already; its children's harvest shows a list off the topic.
    return Math.max(0, Math.min(all, hubs.evidence(p.contributions.filter((c) => !c.parentRelevant).map((c) => c.parent))));
  }

  private recordHub(page: FetchedPage, parents: Iterable<string>): void {
    if (!this.hubs) return;
    this.hubsChanged.push(
      ...this.hubs.record(
        page.url,
        this.topicalLabel(page),
        parents,
        page.links.map((l) => l.url),
        page.listPage,
      ),
    );
  }

  /**
   * The link ranker learns from this page's label: the target outcome of its in-links (one
   * example, their mean features: a hub's many in-links are not many lessons), and the
   * parent's own in-link's "beyond" outcome (a page linked from its target was judged). Not
   * from a dead link (the scorer does not call this for one): its anchor may have named the
   * topic well; the page is gone.
   */
  private takeFetched(was: Pending, page: FetchedPage, env: StrategyEnv): LinkFeatures | undefined {
    const { ranker, credibility } = this;
    this.recordHub(
      page,
      was.contributions.map((c) => c.parent),
    );
    if (!ranker) return undefined;
    // What the words said of this page before its fetch, against how topical it turned out.
    if (credibility) credibility.record(was.host, this.wordEvidenceOf(was), this.topicalLabel(page));
    const links = was.contributions.filter((c) => c.link);
    const label = this.topicalLabel(page);
    ranker.learnTargetOfInlinks(
      links.map((c) => c.link!),
      label,
    );
    // A near-duplicate offers none of its links (they are its earlier page's): nothing new lies
    // beyond it. Without this example the "beyond" model kept the promise of the thread pages
    // whose post text the test web's "only this author" links share, and the crawl kept following them.
    if (page.nearDuplicate) ranker.learnNothingBeyond(links.map((c) => c.link!));
    const inlink = (links.find((c) => c.parent === page.parentUrl) ?? links[0])?.link;
    const parentIn = page.parentUrl ? env.fetched.get(page.parentUrl)?.inlink : undefined;
    if (parentIn) ranker.learnBeyond(parentIn, label);
    return inlink;
  }

  /**
   * The word model learns from the same label (src/score/topical-label.ts): with the judge's
   * term evidence in it, a link named by words topical pages use counts before the verdict
   * finds those pages (the verdict alone gained the word model 0.8 point on Wikispeedia, the
   * rank 4.1, and their mean most, with the other learners on it too).
   */
  private observePage(page: FetchedPage): void {
    // A seed (no queued URL before its fetch): its links to pages judged already count.
    this.recordHub(page, []);
    const words = this.words;
    if (!words) return;
    const label = this.topicalLabel(page);
    const fromLinks = page.links.flatMap((l) => [...linkWords(l, hostOf(l.url)), ...(l.context ? tokenize(l.context) : [])]);
    words.observe(words.ids([...fromLinks, ...(page.words ?? [])]), label);
  }

  /** A page's children judged: its queued children's hub evidence moved. */
  private childrenOfChangedHubs(page: FetchedPage, env: StrategyEnv): string[] {
    const out: string[] = [];
    for (const parent of this.hubsChanged) if (parent !== page.url) out.push(...(env.fetched.get(parent)?.children ?? []));
    this.hubsChanged = [];
    return out;
  }
}

export const combined: StrategyDefinition = {
  name: 'combined',
  description: "all of the above as one score, re-weighted online by a logistic model of the crawl's own verdicts",
  create: (o) => new CombinedStrategy(o),
};
