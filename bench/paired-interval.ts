/**
 * A paired comparison's 95% interval (Student's t over the per-rep differences): a bench that runs
 * two setups side by side with the same random seed per rep says how sure its mean difference is.
 */

/** 97.5% quantile of Student's t with `df` degrees of freedom (table; normal beyond 30). */
export function tQuantile975(df: number): number {
  const table = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131, 2.12, 2.11, 2.101, 2.093, 2.086];
  return df <= table.length ? table[df - 1] : df <= 30 ? 2.04 : 1.96;
}

/** Mean of the differences, its sd and the 95% interval's bounds; undefined with fewer than two. */
export function pairedInterval(diffs: number[]): { mean: number; sd: number; low: number; high: number; n: number } | undefined {
  const n = diffs.length;
  if (n < 2) return undefined;
  const mean = diffs.reduce((s, x) => s + x, 0) / n;
  const sd = Math.sqrt(diffs.reduce((s, x) => s + (x - mean) ** 2, 0) / (n - 1));
  const half = tQuantile975(n - 1) * (sd / Math.sqrt(n));
  return { mean, sd, low: mean - half, high: mean + half, n };
}
