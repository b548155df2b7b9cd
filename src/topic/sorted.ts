/** Positions in an ascending array of numbers (the rank verdict's reference, a seed page's standing). */

/** How many entries of `sorted` are below `x`. */
export function lowerBound(sorted: readonly number[], x: number): number {
  let lo = 0,
    hi = sorted.length;
  while (lo < hi) {
    const m = (lo + hi) >> 1;
    if (sorted[m] < x) lo = m + 1;
    else hi = m;
  }
  return lo;
}

/** How many entries of `sorted` are at most `x`. */
export function upperBound(sorted: readonly number[], x: number): number {
  let lo = 0,
    hi = sorted.length;
  while (lo < hi) {
    const m = (lo + hi) >> 1;
    if (sorted[m] <= x) lo = m + 1;
    else hi = m;
  }
  return lo;
}
