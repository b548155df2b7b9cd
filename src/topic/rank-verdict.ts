/**
 * The verdict by the examples' language (issue #15): which pages are relevant decided by the
 * topic's term log-odds (./term-model.ts `logOdds`), how many by the calibrated keyword rule.
 *
 * The seed-calibrated rule `rel ≥ θ` (./seed-threshold.ts) gets the share of relevant pages
 * about right on most topics but ranks pages by the keyword cosine, so a topic whose seed pages
 * barely use its keywords (Wikispeedia's food: the seeds are dishes, the keywords "food
 * agriculture crop") calls country articles relevant that mention crops. The log-odds of a page's
 * words under the examples (seed pages, keywords, pages that joined the seed set) against every
 * page seen rank pages by how much they talk like the examples. So the rule's verdicts so far
 * give the share π̂ of relevant pages, and a page is relevant when its log-odds rank among the
 * pages judged before it (their log-odds when they were judged) is within the top π̂: a quantile
 * transfer, needing no labels and no scale for the log-odds. The first `warmUp` pages of a topic
 * (too few to rank against) keep the rule's verdict.
 */

import { RunningRank } from './running-rank.js';

/** Pages of a topic judged by the rule alone before the log-odds rank takes over. */
export const RANK_VERDICT_WARM_UP = 20;

/**
 * Pages whose log-odds are kept to rank against: a uniform sample (reservoir) of those judged, so
 * a long crawl costs bounded memory and an insert into a bounded sorted array (a rank within the
 * sample's resolution, 1/5,000, is as good as the exact one for a share).
 */
export const RANK_VERDICT_SAMPLE = 5000;

export interface RankVerdictState {
  sorted: number[];
  judged: number;
  ruleRelevant: number;
  /** The sample's replacement draws; absent in snapshots from before the sample was bounded. */
  rng?: number;
  /** Pages called relevant; absent in older snapshots (taken as the rule's count). */
  called?: number;
}

export class RankVerdict {
  /** The log-odds of a uniform sample of the pages judged so far. */
  private ranks: RunningRank;
  private judged = 0;
  private ruleRelevant = 0;
  /** Pages this verdict called relevant (warm-up included). */
  private called = 0;

  constructor(
    private readonly warmUp = RANK_VERDICT_WARM_UP,
    private readonly capacity = RANK_VERDICT_SAMPLE,
  ) {
    this.ranks = new RunningRank(capacity);
  }

  /**
   * The verdict on one page: `rule` is the calibrated rule's (rel ≥ θ), `logOdds` the page's
   * term log-odds now. Learns from the page whatever the answer.
   */
  judge(rule: boolean, logOdds: number): boolean {
    this.judged++;
    if (rule) this.ruleRelevant++;
    // The share of the sampled earlier pages below this one (none to rank against for the first).
    const rank = this.ranks.rankThenAdd(logOdds);
    const relevant = this.judged <= this.warmUp ? rule : this.judged > 1 && rank >= this.bar();
    if (relevant) this.called++;
    return relevant;
  }

  /**
   * The rank a page needs: the top π̂, moved by the share by which the pages called relevant so
   * far run ahead of (or behind) the rule's count. Each page is ranked against earlier pages'
   * log-odds as they were then, and a topical page's log-odds grow as examples join, so the top
   * π̂ alone calls more pages relevant than the rule does (Wikispeedia: the judged harvest 10.7
   * points over the truth, the rule's 2.3). A proportional correction, not a cap: it pulls the
   * count back towards the rule's (there 7.3 over the truth) and, in the worst case of every new
   * page outranking all earlier ones, keeps it under twice the rule's.
   */
  private bar(): number {
    return 1 - this.ruleRelevant / this.judged + (this.called - this.ruleRelevant) / this.judged;
  }

  /** The share of pages the rule has called relevant (π̂). */
  get ruleShare(): number {
    return this.judged ? this.ruleRelevant / this.judged : 0;
  }

  state(): RankVerdictState {
    const r = this.ranks.state();
    return { sorted: r.sorted, judged: this.judged, ruleRelevant: this.ruleRelevant, rng: r.rng, called: this.called };
  }

  restore(s: RankVerdictState): void {
    this.ranks = new RunningRank(this.capacity);
    this.ranks.restore({ sorted: s.sorted, seen: s.judged, rng: s.rng ?? 1 });
    this.judged = s.judged;
    this.ruleRelevant = s.ruleRelevant;
    this.called = s.called ?? s.ruleRelevant;
  }
}
