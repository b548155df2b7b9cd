/** Content-based link priorities: METHODS §3.1, §3.3, §3.4. Pure functions over numbers. */

/** §3.1 (seed 003, eq. 1-1): prio(u) = θ·rel(parent(u)) + γ·cos(T, A_u). */
export function parentAnchorPriority(parentRel: number, contextSim: number, theta = 0.4, gamma = 0.6): number {
  return theta * parentRel + gamma * contextSim;
}

/** A fetched page's child-link term C(p) and its share of relevant out-links. */
export interface PageLinkTerm {
  /** C(p), or undefined when most outlinks are irrelevant (no child term, δ = 1). */
  c: number | undefined;
  /** m: outlinks with Sim ≥ θ_link. */
  relevant: number;
  n: number;
}

/**
 * §3.3 (seed 001, eq. 10) page-level link term C(p) over the Sim(T, A_v) of p's n outlinks:
 * m/n ≥ high → mean Sim of the m relevant ones; m/n < low → none; otherwise mean over all n.
 */
export function pageLinkTerm(sims: readonly number[], linkThreshold = 0.2, high = 0.5, low = 0.2): PageLinkTerm {
  const n = sims.length;
  if (n === 0) return { c: undefined, relevant: 0, n };
  let m = 0;
  let sumRel = 0;
  let sumAll = 0;
  for (const s of sims) {
    sumAll += s;
    if (s >= linkThreshold) {
      m++;
      sumRel += s;
    }
  }
  const ratio = m / n;
  if (ratio >= high) return { c: sumRel / m, relevant: m, n };
  if (ratio < low) return { c: undefined, relevant: m, n };
  return { c: sumAll / n, relevant: m, n };
}

/** §3.3: score of outlink u of p = δ·Sim(T, A_u) + (1-δ)·C(p); plain Sim when C(p) is not used. */
export function childLinkSmoothing(sim: number, c: number | undefined, delta = 0.8): number {
  return c === undefined ? sim : delta * sim + (1 - delta) * c;
}

/** §3.4: prioT(u) = prio(u)·e^{Pr(t|T)} when prio(u) ≥ min (0.4), else prio(u). */
export function timeAwarePriority(prio: number, pr: number, minPriority = 0.4): number {
  return prio >= minPriority ? prio * Math.exp(pr) : prio;
}

const URL_DATE_PATTERNS: RegExp[] = [
  // 2008-09-05, 2008/09/05, 2008_09_05, 2008/9/5
  /(?<!\d)((?:19|20)\d{2})[-/_](\d{1,2})[-/_](\d{1,2})(?!\d)/,
  // /2008/0905/ and 2008-0905
  /(?<!\d)((?:19|20)\d{2})[-/_](\d{2})(\d{2})(?!\d)/,
  // /20080905/ or 20080905 inside a file name (t20080905_123.html)
  /(?<!\d)((?:19|20)\d{2})(\d{2})(\d{2})(?!\d)/,
];

/**
 * §3.4: publish date written in a URL (`/20080905/`, `2008-09-05`, `2008/09/05`, `/2008/0905/`),
 * as UTC midnight; undefined when none (or when the digits are not a real calendar date).
 */
export function dateFromUrl(url: string): Date | undefined {
  let path = url;
  try {
    const u = new URL(url);
    path = u.pathname + u.search; // never read dates out of the host name
  } catch {
    /* not absolute: scan as given */
  }
  for (const re of URL_DATE_PATTERNS) {
    const m = re.exec(path);
    if (!m) continue;
    const y = Number(m[1]);
    const mo = Number(m[2]);
    const d = Number(m[3]);
    if (mo < 1 || mo > 12 || d < 1 || d > 31) continue;
    const date = new Date(Date.UTC(y, mo - 1, d));
    if (date.getUTCMonth() !== mo - 1) continue; // 2008-02-31
    return date;
  }
  return undefined;
}
