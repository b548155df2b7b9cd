/**
 * θ moved by the user's labels (src/crawl/labels.ts). The seed-calibrated θ (./seed-threshold.ts)
 * is a guess from a few examples of one kind; a label says on which side of the line one page
 * belongs. With labels, θ is the cut that gets the labelled pages right, kept near the guess:
 *
 *   θ = argmin over cuts c of  errors(c) + PULL · |ln(c / θ₀)|
 *
 * errors(c) = labelled positives with rel < c plus labelled negatives with rel ≥ c (each page's
 * rel as it scores now), the cuts tried: θ₀ and each labelled page's rel, just at it and just
 * above it. PULL = ½: one label wrong costs as much as moving θ by a factor e² ≈ 7.4, so a single
 * label moves θ past itself unless that is far from θ₀, and labels that agree with θ₀ leave it.
 * Ties go to the cut nearest θ₀. A labelled page with rel 0 says nothing about θ (never relevant).
 */

export const LABEL_THRESHOLD_PULL = 0.5;

/** Just above a rel: the cut that puts a page scoring exactly `r` below θ. */
const above = (r: number) => r * (1 + 1e-9) + 1e-12;

export function labelledThreshold(theta0: number, labelled: readonly { rel: number; relevant: boolean }[], pull = LABEL_THRESHOLD_PULL): number {
  const pages = labelled.filter((l) => l.rel > 0);
  if (pages.length === 0 || !(theta0 > 0)) return theta0;
  const cuts = [theta0, ...pages.flatMap((l) => [l.rel, above(l.rel)])];
  let best = theta0;
  let bestCost = Infinity;
  let bestMove = Infinity;
  for (const c of cuts) {
    let errors = 0;
    for (const l of pages) if (l.relevant ? l.rel < c : l.rel >= c) errors++;
    const move = Math.abs(Math.log(c / theta0));
    const cost = errors + pull * move;
    if (cost < bestCost - 1e-12 || (Math.abs(cost - bestCost) <= 1e-12 && move < bestMove)) {
      best = c;
      bestCost = cost;
      bestMove = move;
    }
  }
  return best;
}
