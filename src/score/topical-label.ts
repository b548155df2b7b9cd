/**
 * The one label every learner of `combined` trains on: its learned weights, its link
 * ranker, its link-word model and that model's credibility (src/score/learned.ts, link-ranker.ts,
 * link-words.ts, word-credibility.ts).
 *
 * Why not the verdict alone: on real webs the keyword verdict misses many relevant pages (recall
 * ~0.6 on Wikispeedia), so the learners were taught that links into them lead nowhere. Why not
 * the judge's term evidence alone (the word model's label before): a page the topic's words
 * describe well is not always on the topic (for "mammal animal species" every bird and insect
 * article ranks high, and the word model, taught so, led the crawl from mammals into birds while
 * the verdict said no). So, by default, the mean of the two: the verdict (0/1) and the page's rank
 * among the pages judged so far by the judge's term evidence, to the power `power` (the most
 * topical pages count fully, the median one 1/2^power). A rank among a handful of pages says
 * little: for the first `warmup` pages the label is the verdict. A page without term evidence
 * (no term model) is labelled by its verdict.
 */
import { RunningRank, type RunningRankState } from '../topic/running-rank.js';

export type LabelMode = 'mean' | 'rank' | 'verdict';

export interface TopicalLabelOptions {
  mode: LabelMode;
  /** The rank's power. */
  power: number;
  /** Pages ranked before the rank counts. */
  warmup: number;
}

export class TopicalLabel {
  private readonly ranks = new RunningRank();
  // The label of the page being fetched, computed once (its rank joins the sample once).
  private last: { url: string; label: number } | undefined;

  constructor(private readonly o: TopicalLabelOptions) {}

  /** The page's label in [0, 1]; the same page asked again (by another learner) gets the same label. */
  of(page: { url: string; relevant: boolean; evidence?: number }): number {
    if (this.last?.url !== page.url) this.last = { url: page.url, label: this.compute(page) };
    return this.last.label;
  }

  private compute(page: { relevant: boolean; evidence?: number }): number {
    const verdict = page.relevant ? 1 : 0;
    if (this.o.mode === 'verdict' || page.evidence === undefined) return verdict;
    const warm = this.ranks.count >= this.o.warmup;
    const rank = this.ranks.rankThenAdd(page.evidence);
    if (!warm) return verdict;
    const topical = rank ** this.o.power;
    return this.o.mode === 'rank' ? topical : (verdict + topical) / 2;
  }

  /** Its state as plain data (src/score/state-data.ts). */
  state(): TopicalLabelState {
    return { v: 1, ranks: this.ranks.state(), last: this.last && { ...this.last } };
  }

  restore(s: TopicalLabelState): void {
    this.ranks.restore(s.ranks);
    this.last = s.last && { ...s.last };
  }
}

export interface TopicalLabelState {
  v: 1;
  ranks: RunningRankState;
  last: { url: string; label: number } | undefined;
}
