/**
 * What a URL-ordering strategy is (METHODS §3): one small interface. The scorer
 * (src/score/scorer.ts) keeps the link bookkeeping and walks each queued URL's in-links; a
 * strategy says which formula terms it uses (`traits`) and how one in-link's term, the
 * aggregate over in-links and the final factors are computed. A new strategy is one file
 * implementing `StrategyDefinition` plus one line in src/score/strategies/registry.ts (or a
 * `registerStrategy()` call from outside the package).
 */
import type { SiteTable } from './filters.js';
import type { LinkGraph } from './structure.js';
import type { ScoreOptions } from './options.js';
import type { Contribution, FetchedInfo, FetchedPage, OutLink, Pending, ScorerDeps } from './types.js';
import type { LinkFeatures } from './link-ranker.js';
import type { OnlineLogistic } from './learned.js';

/** Which shared formula parts apply. Every trait is off unless set. */
export interface StrategyTraits {
  /** §3.2 tunnelling: irrelevant parents hand down a buffer; once spent, decay (or drop under hard focus). */
  tunnel?: boolean;
  /** With `tunnel`: a parent inside a live tunnel counts as if its rel were θ_page. */
  tunnelLiftsRel?: boolean;
  /** §3.2 relevance feedback: for every parent, or for irrelevant parents only. */
  feedback?: 'all' | 'irrelevant-parents';
  /** §3.5 IPageRank recomputed on each periodic cycle. */
  ipagerank?: boolean;
  /** Every `iprEvery` fetched pages, every queued URL is re-scored. */
  periodicRescore?: boolean;
  /** §3.4 time-aware factor, and URLs dated outside the time window dropped. */
  time?: boolean;
  /** §3.6 path-end filter (`skipPathEnds`). */
  pathEnds?: boolean;
  /** §3.6 anchor stoplist weight. */
  stoplist?: boolean;
  /** §3.5 RW/RWB admission of each in-link; rejected in-links do not count. */
  rwb?: boolean;
  /** `dropRedundant` applies (redundant in-links removed). */
  dropsRedundant?: boolean;
  /** §3.6 site cutoff: when a site crosses it, its queued URLs are re-scored (and `before` drops them). */
  siteCutoff?: boolean;
  /** Not demoted for dead links on the URL's host or directory (bfs keeps FIFO order). */
  ignoresDeadLinks?: boolean;
  /** The first discovery fixes a URL's place: later in-links are not added (FIFO). */
  firstDiscoveryOnly?: boolean;
}

/** What a strategy may read while scoring. */
export interface StrategyEnv {
  readonly o: ScoreOptions;
  readonly deps: ScorerDeps;
  readonly graph: LinkGraph;
  readonly sites: SiteTable;
  readonly fetched: ReadonlyMap<string, FetchedInfo>;
  /** §3.5 IPR of an unfetched URL from its in-linkers' last IPageRank. */
  unfetchedIpr(p: Pending): number;
  /** Π(j) of a parent, clamped to [1/scaleFreeClamp, scaleFreeClamp] (combined). */
  clampedBias(parent: string): number;
}

/** The in-links of one queued URL, walked once: the best term and the sums strategies aggregate. */
export interface InlinkSummary {
  best: Contribution;
  bestTerm: number;
  /** The §3.1 priority behind the best term (the time factor gates on it). */
  bestPrio: number;
  sumTerms: number;
  sumRelevantTerms: number;
  maxSim: number;
  maxAnchor: number;
  relevantParents: number;
}

/** Named inputs of a learned ranker, keyed by feature name. */
export type LearnerFeatures = Record<string, number>;

/** A strategy's score for one link, with the term that decided it and the learner's features. */
export interface Evaluation {
  score: number;
  best?: Contribution;
  /** Set: the URL is dropped for this reason. */
  reason?: string;
  /** The learner's inputs for this URL (trained on when it is fetched). */
  features?: LearnerFeatures;
}

/** One strategy's formula, created per scorer (it may keep state, e.g. learned weights). */
export interface Strategy {
  readonly traits: StrategyTraits;
  /** Before the in-links are walked: a final answer (bfs order, a cut site), or undefined. */
  before?(p: Pending, env: StrategyEnv, ex: Record<string, number> | undefined): Evaluation | undefined;
  /**
   * One in-link's term and the §3.1 priority behind it. `rel` is the parent's rel after
   * tunnelling, `tunnel` and `feedback` the §3.2 multipliers (1 when they do not apply).
   */
  term(c: Contribution, rel: number, tunnel: number, feedback: number, env: StrategyEnv): { term: number; prio: number };
  /** The URL's score from its in-links (default: the best term). */
  aggregate?(s: InlinkSummary, p: Pending, env: StrategyEnv, ex: Record<string, number> | undefined): number;
  /** Factors after the time factor (site bonus, IPR bonus, learned weights). */
  finish?(score: number, s: InlinkSummary, p: Pending, env: StrategyEnv, ex: Record<string, number> | undefined, timePr: number): { score: number; features?: LearnerFeatures };
  /** Named components of the best in-link's term (after `contextSim`, before tunnel/feedback parts). */
  explainTerm(c: Contribution, prio: number, rel: number, env: StrategyEnv, ex: Record<string, number>): void;
  /** A fetched URL's features as they were just before the fetch, labelled by its verdict (the page: for a label of the strategy's own). */
  learn?(features: LearnerFeatures, relevant: boolean, page: FetchedPage): void;
  /**
   * A page was fetched (after `learn`): `was` is what the scorer knew of it as a queued URL.
   * Returns the features of the in-link it was reached by, kept with the page (link ranker).
   */
  fetched?(was: Pending, page: FetchedPage, env: StrategyEnv): LinkFeatures | undefined;
  /**
   * Queued URLs to re-score now that this page was taken in (after `fetched` and `observe`):
   * their score reads something this page changed (combined: its parents' children's labels).
   */
  rescoreAfter?(page: FetchedPage, env: StrategyEnv): Iterable<string>;
  /** Every judged page that is not a dead link, seeds included, after `fetched` (the link-word model counts its links' words). */
  observe?(page: FetchedPage): void;
  /** Features of a new in-link, kept on its contribution (link ranker). */
  linkFeatures?(link: OutLink, p: Pending, page: FetchedPage, sinceRelevant: number): LinkFeatures | undefined;
  /** Learned weights, exposed for reports and tests (combined). */
  readonly learner?: OnlineLogistic;
  /** `observe` reads the page's own words (`FetchedPage.words`): the caller computes them only then. */
  readonly readsPageWords?: boolean;
  /** Re-score the whole queue every this many fetched pages (learned weights moved). */
  readonly rescoreEvery?: number;
  /** What it learned, as plain data with a version (src/score/state-data.ts); a strategy that keeps state has both or its scorer cannot be snapshotted. */
  state?(): { v: number };
  /** Check a `state()`'s versions (throws) before `restore` changes anything. */
  checkState?(s: { v: number }): void;
  restore?(s: { v: number }): void;
}

/** A scoring strategy: its name, traits and how it scores a link; register it with `registerStrategy`. */
export interface StrategyDefinition {
  readonly name: string;
  /** One line for `--help` and the docs. */
  readonly description: string;
  create(o: ScoreOptions, deps: ScorerDeps): Strategy;
}
