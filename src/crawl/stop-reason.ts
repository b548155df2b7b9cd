/**
 * Why a crawl ended, in one line for the summary: a crawl that stops before its
 * budget says so, with what it set aside on the way (URLs filtered, cut, too deep, disallowed),
 * so "frontier empty" after 481 of 1,000 pages can be traced to its cause.
 */

/** Distinct URLs not followed, by reason. */
export class SetAsideTally {
  private readonly byReason = new Map<string, Set<string>>();

  note(reason: string, url: string): void {
    let set = this.byReason.get(reason);
    if (!set) this.byReason.set(reason, (set = new Set()));
    set.add(url);
  }

  /** Reasons with their URL counts, most first. */
  counts(): [string, number][] {
    return [...this.byReason].map(([r, s]) => [r, s.size] as [string, number]).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  }
}

export interface StopFacts {
  fetched: number;
  /** Page budget; 0 = none. */
  budget: number;
  setAside: [string, number][];
}

/** The summary's "stopped" line for a crawl that ran until its frontier or budget ended it. */
export function describeStop(f: StopFacts): string {
  if (f.budget > 0 && f.fetched >= f.budget) return `page budget reached (${f.fetched} pages)`;
  const of = f.budget > 0 ? ` of ${f.budget}` : '';
  const shown = f.setAside.slice(0, 6).map(([r, n]) => `${n} ${r}`);
  if (f.setAside.length > 6) shown.push(`${f.setAside.slice(6).reduce((a, [, n]) => a + n, 0)} other`);
  return `frontier empty after ${f.fetched}${of} pages: no URL left to fetch` + (shown.length ? ` (not followed: ${shown.join(', ')})` : ' (every URL found was fetched)');
}
