/**
 * The crawl's self-reported harvest, estimated from a held-back sample.
 *
 * The judged harvest (the crawler's own verdicts at fetch time) is all a user has on a real
 * site, and it is biased in a known way: early pages are judged before the IDF and the seed set
 * have formed. The estimate does not trust those verdicts, nor a model's mean probability (a
 * mixture model's estimate was far off on the test web, its interval rarely holding the
 * truth): a uniform random sample of the pages judged (reservoir) keeps
 * each page's term frequencies, and at the end every sampled page is judged again by the
 * end-of-crawl model, the stronger judge (the full IDF and seed set, the page itself left out of
 * the seed set). The estimate is that sample's relevant share, with a 90% Wilson score interval
 * (Wilson 1927: holds its level at small samples and shares near 0 or 1, where the normal
 * interval does not). The same sample's share by the fetch-time verdicts gets its own Wilson
 * interval, and the reported interval spans both: where the two judgements of the same pages
 * disagree, that disagreement is part of the uncertainty. An error both judges share (pages of
 * the topic that never use its words) is what the user's seed pages, judged again the same way,
 * reveal: the upper end allows for the share the judge misses of them (`missedBound`). Where θ
 * is calibrated from the seed pages it is itself uncertain (`seedThresholdSpread`,
 * ./seed-threshold.ts): a page whose rel lies within θ's own 90% interval could fall either side
 * of a θ set from other seeds of the same topic. So the lower end also spans the share judged
 * relevant at θ's upper end: the precision term (seed pages say nothing of false positives; where
 * many pages sit just above θ the judge over-counts, and θ's uncertainty is the crawl's only
 * evidence of how far). The upper end stays the recall term's: spanning the share at θ's lower
 * end too widens the interval much more than it adds coverage (docs/strategies.md).
 * A topic whose seed pages do not stand out from the pages fetched (./learnability.ts) cannot be
 * learned from them: its count is no evidence, so the lower end leaves its pages out and the point
 * is the interval's midpoint. It is the crawler's estimate, never the truth.
 */
import type { SparseVector } from '../text/vector.js';
import { seedStanding } from './learnability.js';
import { Reservoir, SeededRandom, type ReservoirState } from './sampling.js';

export interface HarvestEstimate {
  /** Estimated share of relevant pages among those fetched. */
  mean: number;
  /** 90% interval. */
  low: number;
  high: number;
  /** Pages it is over (the crawl's fetched pages). */
  pages: number;
  /** Pages in the held-back sample (absent: a model-based estimate). */
  sampled?: number;
  /** The same sample's share by the fetch-time verdicts. */
  judgedShare?: number;
  /**
   * The topic's own examples (given seed pages with content), judged again the same way: how many
   * the end-of-crawl judge recognises (its recall widens the upper end, `missedBound`).
   */
  examples?: ExampleRecall;
  /**
   * Topics the judge cannot learn from their seed pages (./learnability.ts): the seed pages score
   * no higher than a typical fetched page, so the count of relevant pages is not evidence; the
   * lower end leaves their pages out.
   */
  unlearnable?: { topicId: string; seedStanding: number }[];
}

/** The judge's recall on the user's examples of the topic, judged again as the sample is. */
export interface ExampleRecall {
  recognised: number;
  given: number;
  /**
   * θ's relative 90% half-width when θ is calibrated from these seed pages (the largest over the
   * topics; ./seed-threshold.ts `seedThresholdSpread`). Absent: θ is given or θ_page.
   */
  thresholdSpread?: number;
}

/**
 * A sampled page judged again: relevant or not, or its rel/θ (`margin`, relevant at ≥ 1) with θ's
 * relative 90% half-width (`spread`): relevant for sure at margin ≥ 1 + spread.
 */
export type Rejudged = boolean | { margin: number; spread: number; relevant?: boolean; topicId?: string; rel?: number };

/**
 * One sampled page: its term frequencies (absent for a page that can never be relevant) and its
 * fetch-time verdict; `kept`: a page fetched before a `--resume`, known only by that verdict,
 * which then stands for both judgements.
 */
interface SampledPage {
  tf?: SparseVector;
  url?: string;
  judged: boolean;
  kept?: boolean;
}

/** A sampled page as plain data (the judge's snapshot, src/judge/judge-journal.ts). */
export type SampledPageState = Omit<SampledPage, 'tf'> & { tf?: [string, number][] };

/** z for a two-sided 90% interval. */
const Z90 = 1.6448536269514722;

/** Wilson score interval for x successes in n trials. */
export function wilsonInterval(x: number, n: number, z = Z90): { low: number; high: number } {
  if (n === 0) return { low: 0, high: 1 };
  const p = x / n;
  const z2 = z * z;
  const d = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / d;
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / d;
  return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}

export class HarvestSample {
  private readonly pages: Reservoir<SampledPage>;


  /** `size`: pages held back (a uniform sample of all judged); default 500. */
  constructor(size = 500, randomSeed = 1) {
    this.pages = new Reservoir(size, new SeededRandom(randomSeed + 101));
  }

  /** Plain data for the judge's snapshot (`--resume`). */
  state(): ReservoirState<SampledPageState> {
    const r = this.pages.state();
    return { ...r, items: r.items.map((p) => ({ ...p, tf: p.tf && [...p.tf] })) };
  }

  restore(s: ReservoirState<SampledPageState>): void {
    this.pages.restore({ ...s, items: s.items.map((p) => ({ ...p, tf: p.tf && new Map(p.tf) })) });
  }

  /** The held-back pages as they stand (to study the estimate: bench:replay --json). */
  get sampled(): readonly { tf?: SparseVector; url?: string; judged: boolean; kept?: boolean }[] {
    return this.pages.items;
  }

  /** Pages judged so far. */
  get judged(): number {
    return this.pages.seen;
  }

  /** A page that can never be relevant (error, list, out-of-window page): a certain negative. */
  addNegative(): void {
    this.pages.add({ judged: false });
  }

  /** A judged page: its term frequencies, URL and fetch-time verdict. */
  add(tf: SparseVector, url: string | undefined, judged: boolean): void {
    this.pages.add({ tf, url, judged });
  }

  /**
   * A page fetched before a `--resume`: its terms are gone (the run folder keeps text only for
   * saved pages), so its fetch-time verdict from the crawl log counts as both judgements.
   */
  addKept(judged: boolean): void {
    this.pages.add({ judged, kept: true });
  }

  /**
   * The estimate over `fetched` pages (fetches that never reached the judge count as not
   * relevant), each sampled page judged again by `rejudge` (`Rejudged`: with a margin and θ's
   * spread, the precision term lowers the lower end by θ's own uncertainty).
   */
  estimate(
    rejudge: (tf: SparseVector, url: string | undefined) => Rejudged,
    fetched = this.pages.seen,
    examples?: ExampleRecall,
    seedScores?: ReadonlyMap<string, readonly number[]>,
  ): HarvestEstimate {
    const items = this.pages.items;
    const n = items.length;
    const pages = Math.max(fetched, this.pages.seen);
    if (n === 0 || pages === 0) return { mean: 0, low: 0, high: 1, pages, sampled: 0 };
    let uncertain = false;
    let again = 0;
    let judged = 0;
    let sure = 0;
    let byRule = 0;
    // A kept page's verdict stands for every judgement of it.
    const rejudged: Rejudged[] = items.map((p) => (p.kept ? p.judged : p.tf ? rejudge(p.tf, p.url) : false));
    const unlearnable = unlearnableTopics(rejudged, seedScores);
    let unsure = 0;
    items.forEach((p, i) => {
      const r = rejudged[i];
      const { margin, spread } = typeof r === 'boolean' ? { margin: r ? Infinity : 0, spread: 0 } : r;
      if (spread > 0) uncertain = true;
      if (margin >= 1) byRule++;
      const relevant = typeof r === 'boolean' || r.relevant === undefined ? margin >= 1 : r.relevant;
      if (relevant) again++;
      if (relevant && typeof r !== 'boolean' && r.topicId !== undefined && unlearnable.has(r.topicId)) unsure++;
      if (margin >= 1 + spread) sure++;
      if (p.judged) judged++;
    });
    const scale = this.pages.seen / pages;
    const a = wilsonInterval(again, n);
    const b = wilsonInterval(judged, n);
    // Where the verdict is not the rule (the log-odds rank), the rule's own count bounds it too.
    const c = wilsonInterval(byRule, n);
    const withExamples = examples !== undefined && examples.given > 0;
    let low = Math.min(a.low, b.low, c.low);
    let high = Math.max(a.high, b.high, c.high);
    if (withExamples) high = missedBound(high, examples);
    if (uncertain) low = Math.min(low, wilsonInterval(sure, n).low);
    // A topic the judge cannot learn from its examples: every page it calls relevant may not be,
    // and nothing the crawl has says how many are; the point is then the interval's midpoint (the
    // estimate whose worst error over the interval is least), not the judge's unsupported count.
    if (unsure > 0) low = Math.min(low, wilsonInterval(again - unsure, n).low);
    const point = unsure > 0 ? (low + high) / 2 : again / n;
    return {
      mean: scale * point,
      low: scale * low,
      high: scale * high,
      pages,
      sampled: n,
      judgedShare: (scale * judged) / n,
      ...(withExamples ? { examples } : {}),
      ...(unlearnable.size ? { unlearnable: [...unlearnable].map(([topicId, seedStanding]) => ({ topicId, seedStanding })) } : {}),
    };
  }
}

/**
 * The topics whose seed pages do not stand out from the sampled pages by rel (./learnability.ts),
 * with the seed pages' mean standing: the judge cannot learn them from their examples.
 */
function unlearnableTopics(rejudged: readonly Rejudged[], seedScores?: ReadonlyMap<string, readonly number[]>): Map<string, number> {
  const out = new Map<string, number>();
  if (!seedScores?.size) return out;
  const rels = new Map<string, number[]>();
  for (const r of rejudged) {
    if (typeof r === 'boolean' || r.topicId === undefined || r.rel === undefined) continue;
    const of = rels.get(r.topicId);
    if (of) of.push(r.rel);
    else rels.set(r.topicId, [r.rel]);
  }
  for (const [topicId, seeds] of seedScores) {
    const s = seedStanding(seeds, rels.get(topicId) ?? []);
    if (s && !s.standsOut) out.set(topicId, s.meanStanding);
  }
  return out;
}

/**
 * The judge's own misses: both judgements above share its blind spots (a hub topic's
 * pages that never use the keywords), and sampling cannot see them. The user's seed pages are
 * relevant pages drawn independently of the judge; judged again the same way, the share it
 * recognises estimates its recall r, and the pages judged relevant are then about r of the
 * relevant ones. The upper end is the sample's upper end over r, taken as (k+1)/(m+2) for k of m
 * recognised (Laplace's rule of succession, the mean of r under a uniform prior: 3 of 3 is 0.8,
 * not 1, and 0 of 3 is 0.2, not 0). A bound at r's 90% lower end would be honest but useless:
 * with three seed pages it puts the upper end at 100% on most topics.
 */
export function missedBound(high: number, examples: ExampleRecall): number {
  return Math.min(1, (high * (examples.given + 2)) / (examples.recognised + 1));
}
