/**
 * Harvest-rate metrics of the benchmark, as pure functions over plain data (tested in
 * test/bench-metrics.test.ts). Harvest rate after n pages = relevant pages among the first n
 * fetched / n, relevance by ground truth (METHODS, evaluation; seed 000 reports it this way).
 */

/** The harvest-rate curve: value after each fetched page, from the truth label of each page in fetch order. */
export function harvestCurve(truthInOrder: readonly boolean[]): number[] {
  const out: number[] = [];
  let hits = 0;
  for (let i = 0; i < truthInOrder.length; i++) {
    if (truthInOrder[i]) hits++;
    out.push(hits / (i + 1));
  }
  return out;
}

/**
 * The harvest-rate curve counting each page once: a relevant fetch counts only if no earlier fetch
 * of the crawl showed the same page (`page`: which page a URL shows, from the web's ground truth,
 * e.g. a forum thread page's "only this author" view is that thread page; undefined = the URL
 * itself). Every fetch still counts in the denominator: a duplicate fetch is a wasted one.
 */
export function distinctHarvestCurve(fetches: readonly { url: string; truth: boolean; page?: string }[]): number[] {
  const seen = new Set<string>();
  return harvestCurve(fetches.map((f) => {
    const page = f.page ?? f.url;
    const first = !seen.has(page);
    seen.add(page);
    return f.truth && first;
  }));
}

/**
 * Harvest rate at a budget: the curve's value after `budget` pages. A crawl that stopped earlier
 * (frontier exhausted) is read at its last page; an empty crawl has no rate.
 */
export function rateAt(curve: readonly number[], budget: number): number | undefined {
  if (curve.length === 0 || budget < 1) return undefined;
  return curve[Math.min(budget, curve.length) - 1];
}

/** Best possible harvest rate at a budget: every fetched page relevant until the relevant pages run out. */
export function bestPossible(budget: number, relevantAvailable: number): number {
  if (budget < 1) return 0;
  return Math.min(budget, relevantAvailable) / budget;
}

/** Ratio to the BFS rate; undefined when BFS found nothing (the ratio would be infinite). */
export function ratioTo(rate: number | undefined, baseline: number | undefined): number | undefined {
  if (rate === undefined || baseline === undefined || baseline === 0) return undefined;
  return rate / baseline;
}

export interface BudgetRow {
  strategy: string;
  /** Pages actually fetched in the run. */
  fetched: number;
  rates: (number | undefined)[];
  ratioToBfs: (number | undefined)[];
}

export interface BudgetTable {
  budgets: number[];
  best: number[];
  rows: BudgetRow[];
}

/**
 * The budget table of one topic: each strategy's rate at each budget, the best possible rate
 * and the ratio to the `bfs` row (which must be among the curves for ratios to exist).
 */
export function budgetTable(curves: Record<string, readonly number[]>, budgets: readonly number[], relevantAvailable: number): BudgetTable {
  const bfs = curves.bfs;
  const rows = Object.entries(curves).map(([strategy, curve]) => {
    const rates = budgets.map((b) => rateAt(curve, b));
    return {
      strategy,
      fetched: curve.length,
      rates,
      ratioToBfs: budgets.map((b, i) => ratioTo(rates[i], bfs ? rateAt(bfs, b) : undefined)),
    };
  });
  return { budgets: [...budgets], best: budgets.map((b) => bestPossible(b, relevantAvailable)), rows };
}

/** Budgets to report for a run of `maxPages`: the fixed ones below it, then the run's own limit. */
export function reportBudgets(maxPages: number, fixed: readonly number[] = [100, 500, 1000]): number[] {
  return [...new Set([...fixed.filter((b) => b < maxPages), maxPages])];
}

/** Mean and spread (min–max) of a figure over repeats: "47.5% (47.5–47.5%, 3 runs)". */
export function spreadText(xs: readonly number[]): string {
  if (!xs.length) return '–';
  const m = xs.reduce((a, b) => a + b, 0) / xs.length;
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  return `${pct(m)} (${(Math.min(...xs) * 100).toFixed(1)}–${pct(Math.max(...xs))}, ${xs.length} run${xs.length === 1 ? '' : 's'})`;
}

/** Mean and sample standard deviation. */
export function meanSd(xs: readonly number[]): { mean: number; sd: number } {
  if (xs.length === 0) return { mean: NaN, sd: NaN };
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  const sd = xs.length > 1 ? Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / (xs.length - 1)) : 0;
  return { mean, sd };
}

/** One topic's crawls, for the summary over topics: each strategy's curve and what was there to find. */
export interface TopicRuns {
  topic: string;
  relevantAvailable: number;
  curves: Record<string, readonly number[]>;
}

export interface TopicSummary {
  budget: number;
  topics: number;
  /** Mean harvest at the budget per strategy, and of the best possible. */
  mean: Record<string, number>;
  best: number;
  /**
   * Topics on which each strategy is first or tied for first (same number of relevant pages
   * at the budget as the best strategy run; ties are exact, no tolerance).
   */
  firstOrTied: Record<string, number>;
}

/** Mean over topics at a budget, the best possible, and how often each strategy is first or tied. */
export function summarizeTopics(runs: readonly TopicRuns[], budget: number): TopicSummary {
  const mean: Record<string, number> = {};
  const firstOrTied: Record<string, number> = {};
  let best = 0;
  for (const r of runs) {
    best += bestPossible(budget, r.relevantAvailable) / runs.length;
    // Compare counts of relevant pages, not rates, so rounding never splits a tie.
    const hits = Object.entries(r.curves).map(([s, c]) => {
      const rate = rateAt(c, budget) ?? 0;
      mean[s] = (mean[s] ?? 0) + rate / runs.length;
      return [s, Math.round(rate * Math.min(budget, c.length))] as const;
    });
    const top = Math.max(...hits.map(([, h]) => h));
    for (const [s, h] of hits) firstOrTied[s] = (firstOrTied[s] ?? 0) + (h === top ? 1 : 0);
  }
  return { budget, topics: runs.length, mean, best, firstOrTied };
}
