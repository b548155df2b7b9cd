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

/** Mean and sample standard deviation. */
export function meanSd(xs: readonly number[]): { mean: number; sd: number } {
  if (xs.length === 0) return { mean: NaN, sd: NaN };
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  const sd = xs.length > 1 ? Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / (xs.length - 1)) : 0;
  return { mean, sd };
}
