/**
 * What a fetched page's links have led to so far: the promise of its other links.
 *
 * A page that is not on the topic can still list it: Wikispeedia's "Periodic table" and "List of
 * countries" are judged off topic by a perfect judge, yet most of their links lead to relevant
 * pages; a relevant page (an element) links mostly elsewhere (colour, the Soviet Union, glass).
 * The parent's own verdict, which the §3.1 priority, the tunnel and the link ranker's `parent`
 * feature read, says which pages are relevant, not which ones lead to relevant pages, and the
 * ranker's "beyond" model learns that only from links whose words it has seen before. Replayed
 * with the ground truth as the judge (`bench:replay --judge truth`), combined falls sharply on
 * such topics: the judge's false positives on hub pages are what carry the crawl there, and a
 * better judge should not cost harvest.
 *
 * So each fetched page keeps the labels of its children the crawl has judged: those fetched
 * after it (its links' targets) and those fetched before it (links to pages already judged, read
 * when it is fetched: co-citation, Kleinberg's hubs, and the sibling locality of focused crawlers
 * after Chakrabarti et al. 1999). A parent's evidence for its queued children is the log-odds of
 * its children's label share against the crawl's, with a Beta prior of `PRIOR_PAGES` pseudo-pages
 * at the crawl's rate (no children judged: 0; rule-of-succession shrinkage, so one child says
 * little and ten say much). Pure bookkeeping over plain data; the strategy takes, for a queued
 * URL, the best of its parents' evidence (a URL one good list names is promising, whoever else
 * links to it).
 */

/** Pseudo-pages at the crawl's label rate that every parent's children share starts from. */
export const PRIOR_PAGES = 2;

const logit = (p: number) => Math.log(p / (1 - p));
const clip = (p: number) => Math.min(1 - 1e-4, Math.max(1e-4, p));

/** One parent's judged children: how many, and their labels' sum. */
export interface ChildTally {
  n: number;
  sum: number;
}

export interface HubTableState {
  v: 1;
  labels: Map<string, number>;
  children: Map<string, ChildTally>;
  pages: number;
  labelSum: number;
  /** Optional: a snapshot without it knows no list page. */
  lists?: Set<string>;
}

export class HubTable {

  /** The label of every page judged (its children count it when they are fetched later). */
  private labels = new Map<string, number>();
  /** The list pages judged: their links count for them, they count for no one (`record`). */
  private lists = new Set<string>();
  private children = new Map<string, ChildTally>();
  private pages = 0;
  private labelSum = 0;

  /** The crawl's label rate so far, smoothed by one pseudo-page each way. */
  baseRate(): number {
    return (this.labelSum + 1) / (this.pages + 2);
  }

  /**
   * A page was judged with this label: it is a child of `parents` (fetched pages linking to it)
   * and links to `linksTo` (some of which the crawl may have judged already). A list page (`list`:
   * a channel or forum index, a portal home) keeps a tally of its own children but is nobody's
   * child: its label says its headlines are on the topic, not that a link to it leads to a topical
   * page, and a site's index is linked from every page of the site (counted, it makes every
   * thread page that links back to a topical forum index a hub, and the thread's "only this
   * author" views, copies of it, come first). Returns the pages whose children's tally changed
   * (their queued children's evidence moved).
   */
  record(url: string, label: number, parents: Iterable<string>, linksTo: Iterable<string>, list = false): string[] {
    if (this.labels.has(url) || this.lists.has(url)) return [];
    const changed: string[] = [];
    if (list) this.lists.add(url);
    else {
      this.labels.set(url, label);
      this.pages++;
      this.labelSum += label;
      for (const p of new Set(parents)) {
        if (p === url) continue;
        this.add(p, label);
        changed.push(p);
      }
    }
    let own = false;
    for (const u of new Set(linksTo)) {
      if (u === url) continue;
      const l = this.labels.get(u);
      if (l === undefined) continue;
      this.add(url, l);
      own = true;
    }
    if (own) changed.push(url);
    return changed;
  }

  private add(parent: string, label: number): void {
    let t = this.children.get(parent);
    if (!t) this.children.set(parent, (t = { n: 0, sum: 0 }));
    t.n++;
    t.sum += label;
  }

  /** The parent's judged children, if any. */
  childrenOf(parent: string): ChildTally | undefined {
    return this.children.get(parent);
  }

  /**
   * Log-odds that a queued URL linked from these parents is topical, against the crawl's rate:
   * the labels of all its parents' judged children pooled (each parent weighs by how many
   * children it has shown), a Beta posterior with `PRIOR_PAGES` pseudo-pages at the crawl's rate.
   * 0 while none of its parents has shown a judged child. Pooled, not added up per parent: a
   * navigation link on every page of a site has as many parents as the site has pages, and their
   * children are the site's (added up, a site's channel links would outweigh every other input).
   */
  evidence(parents: Iterable<string>): number {
    let n = 0;
    let sum = 0;
    for (const parent of new Set(parents)) {
      const t = this.children.get(parent);
      if (t) (n += t.n), (sum += t.sum);
    }
    if (n === 0) return 0;
    const b = this.baseRate();
    return logit(clip((sum + PRIOR_PAGES * b) / (n + PRIOR_PAGES))) - logit(clip(b));
  }

  /** Its state as plain data, live (src/score/state-data.ts). */
  state(): HubTableState {
    return { v: 1, labels: this.labels, lists: this.lists, children: this.children, pages: this.pages, labelSum: this.labelSum };
  }

  restore(s: HubTableState): void {
    this.labels = new Map(s.labels);
    this.lists = new Set(s.lists);
    this.children = new Map([...s.children].map(([k, t]) => [k, { ...t }]));
    this.pages = s.pages;
    this.labelSum = s.labelSum;
  }
}
