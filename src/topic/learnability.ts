/**
 * Can the judge learn this topic from its examples? (the self-reported harvest.)
 *
 * Where θ is calibrated from the user's seed pages (./seed-threshold.ts), the verdict's count of
 * relevant pages is the share of pages with rel ≥ 0.75 × the seed pages' mean rel. That count
 * means something only if the seed pages stand out from the pages the crawl fetches: relevant
 * pages drawn without the judge, they should score above a typical fetched page (even on a topic
 * where most fetched pages are relevant, a relevant page's rank among them is, on average, above
 * the median: uniform over the top π of the ranks, mean 1 − π/2). Where they score no higher than
 * the median fetched page (vague categories, keywords like "general history" that most pages use
 * and the seed pages barely do), θ sits among the typical pages and the count says how many
 * pages use the keywords, not how many are about the topic: on Wikispeedia's fresh categories
 * the judged harvest then ran 30–80 points over the truth, and no evidence the crawl has can say
 * by how much (positive examples bound the relevant share from above, never from below: mixture
 * proportion estimation, Scott 2015). The estimate then says so and its lower end drops.
 *
 * Each seed page's standing is its rank among the fetched pages by the same score (its share of
 * pages scoring below it, ties counted half), each seed judged as any page is (left out of the
 * seed set). The test is the natural one, with no constant to tune: the seed pages' mean standing
 * is at most ½.
 */
import { lowerBound, upperBound } from './sorted.js';

/** A seed page's standing: the share of `pageScores` below `score` (ties half); `pageScores` sorted ascending. */
export function standing(score: number, pageScores: readonly number[]): number {
  if (pageScores.length === 0) return 1;
  const below = lowerBound(pageScores, score);
  const notAbove = upperBound(pageScores, score);
  return (below + (notAbove - below) / 2) / pageScores.length;
}

export interface SeedStanding {
  /** The seed pages' mean standing among the fetched pages (0 … 1; ½ = a typical page). */
  meanStanding: number;
  /** Seed pages measured. */
  seeds: number;
  /** The seed pages stand out from the fetched pages (mean standing above ½). */
  standsOut: boolean;
}

/**
 * How the seed pages stand among the fetched pages by one score (rel, each judged again as it
 * stands now). Undefined without seed pages or fetched pages to compare with.
 */
export function seedStanding(seedScores: readonly number[], pageScores: readonly number[]): SeedStanding | undefined {
  if (seedScores.length === 0 || pageScores.length === 0) return undefined;
  const sorted = [...pageScores].sort((a, b) => a - b);
  let sum = 0;
  for (const s of seedScores) sum += standing(s, sorted);
  const meanStanding = sum / seedScores.length;
  return { meanStanding, seeds: seedScores.length, standsOut: meanStanding > 0.5 };
}
