/**
 * The verdict by the examples' language: which pages are relevant decided by the
 * topic's term log-odds (./term-model.ts `logOdds`), how many by the calibrated keyword rule.
 *
 * The seed-calibrated rule `rel ≥ θ` (./seed-threshold.ts) gets the share of relevant pages
 * about right on most topics but ranks pages by the keyword cosine, so a topic whose seed pages
 * barely use its keywords (Wikispeedia's food: the seeds are dishes, the keywords "food
 * agriculture crop") calls country articles relevant that mention crops. The log-odds of a page's
 * words under the examples (seed pages, keywords, pages that joined the seed set) against every
 * page seen rank pages by how much they talk like the examples. So the rule's verdicts so far
 * give the share π̂ of relevant pages, and a page is relevant when its log-odds rank within the
 * top π̂ of a reference: a quantile transfer, needing no labels and no scale for the log-odds.
 *
 * The reference is a uniform sample of the topic's pages judged so far, kept by their terms and
 * scored again by the model as it is now whenever it has moved (an example joined, or the
 * background grew by a tenth): a page is ranked against earlier pages as the same model scores
 * them. Ranked against earlier pages' log-odds as they were when judged, a topical page's
 * log-odds rising as examples join, the top π̂ would call far more pages relevant than the rule
 * (the judged harvest running well over the truth). Until the reference holds
 * `warmUp` pages the rule's verdict stands.
 */
import type { SparseVector } from '../text/vector.js';
import { labelledThreshold } from './label-threshold.js';
import { SeededRandom, type RandomState } from './sampling.js';
import { lowerBound } from './sorted.js';

/** Pages of a topic judged by the rule alone before the log-odds rank takes over. */
export const RANK_VERDICT_WARM_UP = 20;

/**
 * Pages kept to rank against: a uniform sample (reservoir) of those judged. Re-scoring it costs
 * one log-odds per kept page each time the model moves (as many times as examples join, ≤ 50,
 * and once per tenth of growth), so it is kept small; a rank within 1/500 is as good as the
 * exact one for a share.
 */
export const RANK_VERDICT_SAMPLE = 500;

/** The reference is scored again once the pages judged have grown by this share since it last was. */
export const RESCORE_GROWTH = 0.1;

/** What ranks pages: the topic's log-odds now, and a number that changes whenever the model has moved. */
export interface RankScorer {
  score(tf: SparseVector): number;
  /** Changes when earlier pages' scores may have moved (an example joined the topic). */
  version: number;
  /** The user's example pages of the topic, each scored as a page that is not an example would be (left out). */
  examples?(): number[];
  /** The user's labelled pages of the topic (src/crawl/labels.ts), each scored as an unlabelled page would be, with its label. */
  labels?(): { score: number; relevant: boolean }[];
}

export interface RankVerdictState {
  judged: number;
  ruleRelevant: number;
  /** Pages called relevant; absent in older snapshots (taken as the rule's count). */
  called?: number;
  /**
   * The reference pages' terms, their scores when last scored, the model version and page count
   * they were scored at, and the sample's draws. Absent in snapshots from before the reference
   * was re-scored (which kept only `sorted` scores): the reference then starts again.
   */
  reference?: [string, number][][];
  scores?: number[];
  scoredVersion?: number;
  scoredAt?: number;
  random?: RandomState;
  /** Older snapshots' sorted log-odds (not used). */
  sorted?: number[];
}

export class RankVerdict {
  private judged = 0;
  private ruleRelevant = 0;
  /** Pages this verdict called relevant (warm-up included). */
  private called = 0;
  /** The reference pages' terms and their scores (parallel), and the scores sorted. */
  private reference: SparseVector[] = [];
  private scores: number[] = [];
  private sorted: number[] = [];
  private scoredVersion = -1;
  private scoredAt = 0;
  private random: SeededRandom;
  /**
   * Where the last page judged stood, once ranked: the share of the reference above it and the
   * share called relevant (relevant when `above` ≤ `share`). Which page to ask the user about
   * reads it (src/crawl/labels.ts): its distance from the line is the rank verdict's uncertainty.
   */
  lastPlace: { above: number; share: number } | undefined;

  constructor(
    private readonly warmUp = RANK_VERDICT_WARM_UP,
    private readonly capacity = RANK_VERDICT_SAMPLE,
    randomSeed = 1,
  ) {
    this.random = new SeededRandom(randomSeed + 211);
  }

  /**
   * The verdict on one page: `rule` is the calibrated rule's (rel ≥ θ), `tf` the page's terms,
   * scored with `scorer`. Learns from the page whatever the answer.
   */
  judge(rule: boolean, tf: SparseVector, scorer: RankScorer): boolean {
    this.judged++;
    if (rule) this.ruleRelevant++;
    this.refresh(scorer);
    const x = scorer.score(tf);
    // The share of the reference below this page, the reference scored by the model as it is now.
    const rank = this.sorted.length ? lowerBound(this.sorted, x) / this.sorted.length : 0;
    const ranked = this.sorted.length >= this.warmUp;
    const bar = ranked ? labelledBar(this.bar(scorer), this.sorted, scorer.labels?.() ?? []) : undefined;
    this.lastPlace = bar === undefined ? undefined : { above: 1 - rank, share: 1 - bar };
    const relevant = bar === undefined ? rule : rank >= bar;
    this.keep(tf, x);
    if (relevant) this.called++;
    return relevant;
  }

  /** Scores the reference again when the model has moved since it last was. */
  private refresh(scorer: RankScorer): void {
    if (scorer.version === this.scoredVersion && this.judged <= this.scoredAt * (1 + RESCORE_GROWTH)) return;
    this.scores = this.reference.map((tf) => scorer.score(tf));
    this.sorted = [...this.scores].sort((a, b) => a - b);
    this.scoredVersion = scorer.version;
    this.scoredAt = this.judged;
  }

  /** The page joins the reference (Vitter's algorithm R: every page judged equally likely to be kept). */
  private keep(tf: SparseVector, x: number): void {
    let at = this.reference.length;
    if (at >= this.capacity) {
      at = Math.floor(this.random.next() * this.judged);
      if (at >= this.capacity) return;
      this.sorted.splice(lowerBound(this.sorted, this.scores[at]), 1);
    }
    this.reference[at] = tf;
    this.scores[at] = x;
    this.sorted.splice(lowerBound(this.sorted, x), 0, x);
  }

  /**
   * The rank a page needs: the top π̂, moved by the share by which the pages called relevant so
   * far run ahead of (or behind) π̂'s count. π̂ is the rule's share of the pages judged so far,
   * bounded by the base rate the user's example pages allow (`prevalenceBound`, as the second
   * judgement bounds it): the rule counts the pages that score like the seed pages on the
   * keywords' scale, and where the keywords describe the seed pages poorly (a broad topic named by
   * common words) θ falls among the typical pages and the rule calls most of the crawl's
   * neighbourhood relevant, while few pages talk as much like the examples as the examples do.
   * The reference does not drift (it is scored again), but the order does: a crawl that fetches pages like the ones
   * it called relevant (combined learns from the verdict) brings pages that outrank the earlier
   * ones, and the top π̂ alone then calls more than the rule (the judged harvest over-counts the
   * true one more without this correction).
   */
  private bar(scorer: RankScorer): number {
    const share = this.prevalence(this.sorted, scorer.examples?.() ?? []);
    return 1 - share + (this.called - share * this.judged) / this.judged;
  }

  /** π̂: the rule's share of the pages judged so far, bounded by the base rate the examples allow against `sorted`. */
  private prevalence(sorted: readonly number[], examples: readonly number[]): number {
    return Math.min(this.ruleRelevant / this.judged, prevalenceBound(sorted, examples));
  }

  /**
   * The verdict as it would be given now on any page (the harvest estimate's second judgement):
   * the reference scored by the model as it is, the bar the top π̂, π̂ the rule's share bounded by
   * what the user's example pages allow (`prevalenceBound`: the rule alone over-counts where a
   * vague topic's keywords are common words). Leaves the verdict's own state as it was (a crawl
   * that reports its estimate judges as one that does not). Undefined while the reference is too
   * small to rank against.
   */
  rejudge(scorer: RankScorer): ((tf: SparseVector) => boolean) | undefined {
    const r = this.rejudgeScores(scorer);
    return r && ((tf) => r.relevant(scorer.score(tf)));
  }

  /**
   * How many of the user's example pages (each scored left out, `RankScorer.examples`) the same
   * second judgement calls relevant: the verdict's own recall on pages drawn without it.
   */
  recognisedExamples(scorer: RankScorer): number | undefined {
    const r = this.rejudgeScores(scorer);
    return r && r.examples.filter((x) => r.relevant(x)).length;
  }

  private rejudgeScores(scorer: RankScorer): { relevant: (score: number) => boolean; examples: number[] } | undefined {
    if (this.reference.length < this.warmUp || this.judged === 0) return undefined;
    const sorted = this.reference.map((tf) => scorer.score(tf)).sort((a, b) => a - b);
    const examples = scorer.examples?.() ?? [];
    const bar = labelledBar(1 - this.prevalence(sorted, examples), sorted, scorer.labels?.() ?? []);
    return { relevant: (x) => lowerBound(sorted, x) / sorted.length >= bar, examples };
  }

  /** The share of pages the rule has called relevant (π̂). */
  get ruleShare(): number {
    return this.judged ? this.ruleRelevant / this.judged : 0;
  }

  state(): RankVerdictState {
    return {
      judged: this.judged,
      ruleRelevant: this.ruleRelevant,
      called: this.called,
      reference: this.reference.map((tf) => [...tf]),
      scores: [...this.scores],
      scoredVersion: this.scoredVersion,
      scoredAt: this.scoredAt,
      random: this.random.state(),
    };
  }

  restore(s: RankVerdictState): void {
    this.judged = s.judged;
    this.ruleRelevant = s.ruleRelevant;
    this.called = s.called ?? s.ruleRelevant;
    this.reference = (s.reference ?? []).map((tf) => new Map(tf));
    this.scores = s.reference ? [...(s.scores ?? [])] : [];
    this.sorted = [...this.scores].sort((a, b) => a - b);
    this.scoredVersion = s.scoredVersion ?? -1;
    this.scoredAt = s.scoredAt ?? 0;
    if (s.random) this.random = SeededRandom.at(s.random);
  }
}

/**
 * The rank bar moved by the user's labels: the labels say where the cut between relevant and not
 * lies on the scale the verdict ranks by, so they move that cut (not only θ, which sets the bar
 * through the rule's share of the pages judged so far, and so moves it only as new pages come).
 * A page at rank ρ (share of the reference below it) is relevant when ρ ≥ bar, that is when the
 * share above it, u = 1 − ρ, is within the share called relevant π = 1 − bar. The cut is
 * `labelledThreshold`'s on 1/u against 1/π₀: the π that gets the labelled pages right, with one
 * label wrong costing as much as moving π by a factor e² (labels that agree with the bar leave it).
 */
export function labelledBar(bar0: number, sorted: readonly number[], labels: readonly { score: number; relevant: boolean }[]): number {
  const n = sorted.length;
  if (labels.length === 0 || n === 0) return bar0;
  // Shares are measured in reference pages: none above a page is half a page above it.
  const floor = 1 / (2 * n);
  const inverse = (share: number) => 1 / Math.max(floor, share);
  const theta0 = inverse(1 - bar0);
  const theta = labelledThreshold(
    theta0,
    labels.map((l) => ({ rel: inverse(1 - lowerBound(sorted, l.score) / n), relevant: l.relevant })),
  );
  return theta === theta0 ? bar0 : 1 - 1 / theta;
}

/**
 * Mixture proportion estimation (Blanchard, Lee & Scott 2010; Scott 2015) with the user's example
 * pages as the positive sample: the pages scoring at least as high as the lowest example are
 * about m/(m+1) of the relevant ones (the lowest of m draws from the relevant pages' scores) plus
 * some irrelevant ones, so the relevant share is at most their share over m/(m+1). 1 without examples.
 */
export function prevalenceBound(sorted: readonly number[], examples: readonly number[]): number {
  const m = examples.length;
  if (m === 0 || sorted.length === 0) return 1;
  const lowest = Math.min(...examples);
  const above = (sorted.length - lowerBound(sorted, lowest)) / sorted.length;
  return Math.min(1, (above * (m + 1)) / m);
}
