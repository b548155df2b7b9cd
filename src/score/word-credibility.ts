/**
 * How far the link-word evidence (./link-words.ts) has predicted this crawl's own outcomes, per
 * site: the word evidence counts, on a host, in proportion to its credibility there.
 *
 * Why: the word model learns which words topical pages use, not what happened when a link with
 * those words was followed, so nothing corrected it where anchors say little. On the test web's
 * forum every "only this author" view of a thread is named like the thread (its words are on
 * topical pages), and each such view is a near-duplicate: the crawl fetched them one after
 * another, the evidence unchanged by every failure. And a link into a host no page of which has
 * been fetched is judged by other sites' vocabulary: the forum's entry link, named by words on
 * every page of the portals (navigation), weighed slightly against the topic and, with the
 * evidence's weight, kept the finance forum (most of that topic's relevant pages) out of reach.
 *
 * Per host, over its fetched pages: the correlation between the word evidence a page's best link
 * had when it was fetched and the page's label (the word model's own: its topical rank, 0 for a
 * near-duplicate or an error), clipped to [0, 1]; 0 on a host not fetched yet (and with fewer
 * than two pages). Optionally shrunk towards 0 by the host's fetched pages, n / (n + prior);
 * combined's default prior is 0: the gate is the correlation's sign and size alone (a shrink of 5
 * pseudo-pages held the words back on the seeds' own host for its first pages and measured no
 * better on either benchmark web). A correlation is scale-free (the evidence is a mean log ratio, small numbers) and
 * needs no labelled truth, only the crawl's own outcomes; `scale` says which correlation counts
 * fully (8: 1/8 and above, so it gates more than it scales: on Wikispeedia the evidence's
 * correlation with the judge's labels is 0.1–0.3 where it raises the true harvest most).
 *
 * Written by hand: six running sums per host.
 */
import { refill } from './state-data.js';

interface Sums {
  n: number;
  e: number;
  y: number;
  ee: number;
  yy: number;
  ey: number;
}

export interface WordCredibilityOptions {
  /** Pseudo-pages of zero credibility every host starts with. */
  prior: number;
  /** A correlation of 1/scale or more counts fully. */
  scale: number;
}

export class WordCredibility {
  private readonly hosts = new Map<string, Sums>();

  constructor(private readonly o: WordCredibilityOptions) {}

  /** A page of `host` was judged: `evidence` is what its best link's words said before the fetch, `label` its outcome in [0, 1]. */
  record(host: string, evidence: number, label: number): void {
    let s = this.hosts.get(host);
    if (!s) this.hosts.set(host, (s = { n: 0, e: 0, y: 0, ee: 0, yy: 0, ey: 0 }));
    s.n++;
    s.e += evidence;
    s.y += label;
    s.ee += evidence * evidence;
    s.yy += label * label;
    s.ey += evidence * label;
  }

  /** Pearson correlation of evidence and outcome on the host (0 without spread in either). */
  correlation(host: string): number {
    const s = this.hosts.get(host);
    if (!s || s.n < 2) return 0;
    const me = s.e / s.n;
    const my = s.y / s.n;
    const ve = s.ee / s.n - me * me;
    const vy = s.yy / s.n - my * my;
    if (ve <= 1e-12 || vy <= 1e-12) return 0;
    return (s.ey / s.n - me * my) / Math.sqrt(ve * vy);
  }

  /** In [0, 1]: the share of the word evidence that counts for links into the host. */
  of(host: string): number {
    const n = this.hosts.get(host)?.n ?? 0;
    if (n === 0) return 0;
    return (n / (n + this.o.prior)) * Math.min(1, Math.max(0, this.o.scale * this.correlation(host)));
  }

  /** Its state as plain data, live (src/score/state-data.ts). */
  state(): { v: 1; hosts: Map<string, Sums> } {
    return { v: 1, hosts: this.hosts };
  }

  restore(s: { v: 1; hosts: Map<string, Sums> }): void {
    refill(this.hosts, s.hosts);
  }
}
