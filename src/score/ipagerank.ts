/** IPageRank and RW/RWB link admission: METHODS §3.5 (seed 004, eq. 9.4–9.5). */

export interface IprNode {
  /** Initial value: rel(page). */
  init: number;
  /** Outlinks: target → r(T→X), the link's relevance (context similarity). */
  out: ReadonlyMap<string, number>;
}

/**
 * IPR(A) = (1-d) + d·Σ_{T→A} IPR(T)·r(T→A) / Σ_{T→X} r(T→X), over the given nodes (fetched
 * relevant pages); links to URLs outside the node set still count in T's denominator, since
 * importance flows to every link in proportion to its relevance. Jacobi iteration from IPR = init.
 */
export function iPageRank(nodes: ReadonlyMap<string, IprNode>, damping = 0.85, iterations = 5): Map<string, number> {
  let ipr = new Map<string, number>();
  const outSum = new Map<string, number>();
  for (const [url, n] of nodes) {
    ipr.set(url, n.init);
    let s = 0;
    for (const r of n.out.values()) s += r;
    outSum.set(url, s);
  }
  for (let it = 0; it < iterations; it++) {
    const next = new Map<string, number>();
    for (const url of nodes.keys()) next.set(url, 1 - damping);
    for (const [t, n] of nodes) {
      const sum = outSum.get(t)!;
      if (sum <= 0) continue;
      const share = (damping * ipr.get(t)!) / sum;
      for (const [a, r] of n.out) {
        const cur = next.get(a);
        if (cur !== undefined) next.set(a, cur + share * r);
      }
    }
    ipr = next;
  }
  return ipr;
}

/** One fetched in-linker of a URL, as iPageRank reads it. */
export interface IprInLink {
  /** IPR(T) of the fetched in-linker. */
  ipr: number;
  /** r(T→u). */
  r: number;
  /** Σ_{T→X} r(T→X). */
  rSum: number;
}

/** §3.5: an unfetched URL's value, the same formula applied to its fetched in-linkers. */
export function iPageRankOfUnfetched(inLinks: readonly IprInLink[], damping = 0.85): number {
  let s = 0;
  for (const l of inLinks) if (l.rSum > 0) s += (l.ipr * l.r) / l.rSum;
  return 1 - damping + damping * s;
}

/** The relevance-weighted budget's decision for a URL: admit it, explore it, or reject it. */
export type RwbDecision = 'admit' | 'explore' | 'reject';

/**
 * §3.5 RW/RWB: a link with RW ≥ c is admitted; c - b ≤ RW < c is admitted with probability p
 * (exploration, `random` in [0,1) from a seeded generator; drawn only in that band so runs
 * stay reproducible); below c - b it is rejected.
 */
export function rwbAdmit(rw: number, c: number, b: number, p: number, random: () => number): RwbDecision {
  if (rw >= c) return 'admit';
  if (rw >= c - b) return random() < p ? 'explore' : 'reject';
  return 'reject';
}
