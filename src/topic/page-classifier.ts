/**
 * The learned page judge: a calibrated probability that a page is about the topic,
 * learned during the crawl from examples instead of a raw cosine against a fixed θ.
 *
 * What is measured of a page: the keyword cosine (METHODS §1) relative to θ_page, simD to the
 * seed set, and the term model's evidence for the topic and for the user's negative pages
 * (./term-model.ts). Their scales differ from topic to topic and web to web (two Chinese
 * keywords against a news article, three English words against an encyclopaedia), so the
 * model does not use them as numbers: the cosine is binned relative to θ, the others by their
 * rank among the pages judged so far (quantile bins).
 *
 * Model: a two-class mixture, naive Bayes over the binned features, fitted by EM over every
 * page the crawl has judged (a bounded uniform sample) with the given examples held fixed —
 * semi-supervised EM (Nigam, McCallum, Thrun & Mitchell 2000), over a handful of features
 * instead of words. The classes are anchored by
 *  - the keyword rule: EM starts from rel ≥ θ_page, and a weak Dirichlet prior puts the
 *    relevant class's cosine mass above θ (a keyword-only topic works from the first page);
 *  - positives: the seed pages that are about the topic and the pages that join the seed set
 *    (METHODS §1 growth);
 *  - negatives: the user's (`negativeSeeds`, `--negative`), and pages the crawl sees with no
 *    keyword term and no topic evidence at all (drawn automatically: certain negatives, kept
 *    out of the mixture, which is fitted over the pages that use the topic's words at all).
 * Every page then teaches the model with its own posterior (its verdict, as sure as it is); the
 * guards against drift are that every refit starts again from the keyword rule and the
 * examples, never from the last fit, that the rule's prior stays in every fit, and that a given
 * example weighs EXAMPLE_WEIGHT pages. Measured with bench:replay: better calibrated than the
 * thresholded cosine on the test web's pages, worse on Wikispeedia's, where it also lowered the
 * harvest as the crawl's verdict; so `judge: 'cosine'` stays the default.
 *
 * The mixture's class weight π is the crawl's own harvest estimate (the mean posterior over the
 * pages judged); `estimate()` gives its 90% interval by bootstrap over the pages (resampled,
 * refitted, each page's verdict drawn from its posterior).
 *
 * Written by hand: counts over a few bins and a few EM passes; a library model would add a
 * dependency for less than two hundred lines of arithmetic.
 */
import type { HarvestEstimate } from './harvest-sample.js';
import { Reservoir, SeededRandom as Rng, type ReservoirState } from './sampling.js';

export type { HarvestEstimate } from './harvest-sample.js';

/** What the judge measures of one page, before any learning. */
export interface PageEvidence {
  /** Keyword cosine cos(T, p). */
  cosine: number;
  /** Mean cosine to the seed set. */
  simD: number;
  /** Term-model evidence for the topic. */
  evidence: number;
  /** Term-model evidence for the user's negative pages (0 without any). */
  negativeEvidence: number;
}

export interface PageClassifierOptions {
  /** θ_page: the cosine's scale, where the keyword rule says relevant. */
  threshold: number;
  /** Pages kept for the fit and the estimate (uniform sample); default 3000. */
  maxPages?: number;
  /** Refit after this many new pages; default 10. */
  refitEvery?: number;
  /** Seed of the sampling and bootstrap RNG. */
  randomSeed?: number;
}

/** Cosine bins in units of θ: exactly 0 (no keyword term), then (0, ¼θ], … , above 4θ. */
const COSINE_EDGES = [0, 0.25, 0.5, 1, 2, 4];
/** Quantile bins for the rank-scaled features (plus one bin for exactly 0). */
const QUANTILE_BINS = 5;
/** Dirichlet pseudo-count per bin, and the keyword rule's extra mass on the cosine bins. */
const SMOOTHING = 0.5;
const RULE_MASS = 5;
/** A given example counts as this many pages (a seed is worth more than one crawled page). */
const EXAMPLE_WEIGHT = 10;
const EM_ITERATIONS = 25;

interface Labelled {
  e: PageEvidence;
  y: 0 | 1;
}

/** Bin edges of one rank-scaled feature: 0 alone, then quantiles of the positive values. */
function quantileEdges(values: number[]): number[] {
  const pos = values.filter((v) => v > 0).sort((a, b) => a - b);
  if (pos.length === 0) return [];
  const edges: number[] = [];
  for (let k = 1; k < QUANTILE_BINS; k++) {
    const v = pos[Math.min(pos.length - 1, Math.floor((k * pos.length) / QUANTILE_BINS))];
    if (!edges.length || v > edges[edges.length - 1]) edges.push(v);
  }
  return edges;
}

/** Bin of x: 0 for x ≤ 0 (or ≤ edges[0] when the first edge is 0), else 1 + edges below x. */
function binOf(x: number, edges: number[]): number {
  if (x <= 0) return 0;
  let b = 1;
  for (const e of edges) if (x > e && e > 0) b++;
  return b;
}

/** The fitted mixture: class weight and per-feature bin probabilities per class. */
interface Fit {
  pi: number;
  /** [feature][bin] for the relevant and the other class. */
  rel: number[][];
  off: number[][];
  edges: number[][];
}

/** A classifier as plain data (the judge's snapshot, `--resume`): everything it learned, and when it refits. */
export interface PageClassifierState {
  given: Labelled[];
  pages: ReservoirState<PageEvidence>;
  certainNegatives: number;
  fit?: Fit;
  sinceFit: number;
  dirty: boolean;
}

export class PageClassifier {
  private readonly o: Required<PageClassifierOptions>;
  private readonly rng: Rng;
  private readonly given: Labelled[] = [];
  /** The pages judged (a uniform sample), for the fit and the estimate. */
  private readonly pages: Reservoir<PageEvidence>;
  /** Pages that can never be relevant (error pages): certain negatives, counted, not sampled. */
  private certainNegatives = 0;
  private current?: Fit;
  private sinceFit = 0;
  private dirty = true;

  constructor(options: PageClassifierOptions) {
    this.o = { maxPages: 3000, refitEvery: 10, randomSeed: 1, ...options };
    this.rng = new Rng(this.o.randomSeed);
    this.pages = new Reservoir(this.o.maxPages, this.rng);
  }

  state(): PageClassifierState {
    return { given: [...this.given], pages: this.pages.state(), certainNegatives: this.certainNegatives, fit: this.current, sinceFit: this.sinceFit, dirty: this.dirty };
  }

  restore(s: PageClassifierState): void {
    this.given.length = 0;
    this.given.push(...s.given);
    this.pages.restore(s.pages);
    this.certainNegatives = s.certainNegatives;
    this.current = s.fit;
    this.sinceFit = s.sinceFit;
    this.dirty = s.dirty;
  }

  /** The keyword rule the model starts from (and says alone before it has seen pages). */
  private rule(e: PageEvidence): number {
    return e.cosine >= this.o.threshold ? 1 : 0;
  }

  /** A given example: a seed page (positive) or a user's negative page. */
  addExample(e: PageEvidence, relevant: boolean): void {
    this.given.push({ e, y: relevant ? 1 : 0 });
    this.dirty = true;
  }

  /** A page that can never be relevant (error page, login wall): counted in the estimate as a certain negative. */
  noteCertainNegative(): void {
    this.certainNegatives++;
  }

  /** The fetched pages' estimated share of relevant pages (the mixture's class weight). */
  get populationPrior(): number {
    return this.fit().pi;
  }

  /**
   * Judge one crawled page: its calibrated probability; the page then joins the sample. A page
   * with no keyword term and no topic evidence at all is the automatically drawn negative: it
   * counts as not relevant and stays out of the mixture (which separates, among the pages that
   * do use the topic's words, those about it from those that mention it in passing).
   */
  judge(e: PageEvidence): number {
    if (PageClassifier.silent(e)) {
      this.certainNegatives++;
      return 0;
    }
    const p = this.posterior(e, this.fit());
    this.pages.add(e);
    if (++this.sinceFit >= this.o.refitEvery) this.dirty = true;
    return p;
  }

  /** No keyword term, no topic evidence: nothing on the page is about the topic. */
  static silent(e: PageEvidence): boolean {
    return e.cosine === 0 && e.evidence === 0;
  }

  /** Calibrated probability of a page without learning from it. */
  probability(e: PageEvidence): number {
    return PageClassifier.silent(e) ? 0 : this.posterior(e, this.fit());
  }

  private bins(e: PageEvidence, edges: number[][]): number[] {
    const c = e.cosine / this.o.threshold;
    let cb = 0;
    if (c > 0) {
      cb = 1;
      for (const x of COSINE_EDGES) if (c > x && x > 0) cb++;
    }
    return [cb, binOf(e.evidence, edges[0]), binOf(e.simD, edges[1]), binOf(e.negativeEvidence, edges[2])];
  }

  private posterior(e: PageEvidence, f: Fit): number {
    const b = this.bins(e, f.edges);
    let lr = Math.log(f.pi / (1 - f.pi));
    for (let k = 0; k < b.length; k++) lr += Math.log(f.rel[k][b[k]] / f.off[k][b[k]]);
    return 1 / (1 + Math.exp(-lr));
  }

  private fit(): Fit {
    if (this.current && !this.dirty) return this.current;
    this.dirty = false;
    this.sinceFit = 0;
    this.current = this.fitOn(this.pages.items);
    return this.current;
  }

  /** Semi-supervised EM over `pages` with the given examples held at their labels. */
  private fitOn(pages: PageEvidence[]): Fit {
    const all = [...pages, ...this.given.map((g) => g.e)];
    const edges = [
      quantileEdges(all.map((e) => e.evidence)),
      quantileEdges(all.map((e) => e.simD)),
      quantileEdges(all.map((e) => e.negativeEvidence)),
    ];
    const sizes = [COSINE_EDGES.length + 1, edges[0].length + 2, edges[1].length + 2, edges[2].length + 2];
    const binned = pages.map((e) => this.bins(e, edges));
    const givenBins = this.given.map((g) => ({ b: this.bins(g.e, edges), y: g.y }));
    // EM starts from the keyword rule. (A second start, "mentions the topic at all", chosen by
    // likelihood, raised the test web's harvest but made the fit flip between runs on
    // Wikispeedia: see /work/notes/issue-15-s2.md.)
    return this.em(pages.map((e) => this.rule(e)), binned, givenBins, sizes, edges);
  }

  private em(start: number[], binned: number[][], givenBins: { b: number[]; y: 0 | 1 }[], sizes: number[], edges: number[][]): Fit {
    let r = start;
    let f: Fit = { pi: 0.5, rel: [], off: [], edges };
    const lik = (b: number[], m: number[][]) => b.reduce((a, x, k) => a * m[k][x], 1);
    for (let it = 0; it < EM_ITERATIONS; it++) {
      // M-step: weighted bin counts with the smoothing and the keyword rule's prior on the cosine.
      const rel = sizes.map((n) => new Array<number>(n).fill(SMOOTHING));
      const off = sizes.map((n) => new Array<number>(n).fill(SMOOTHING));
      for (let b = 0; b < sizes[0]; b++) {
        const above = b >= 4; // bins above θ (cos/θ > 1)
        (above ? rel : off)[0][b] += RULE_MASS / (above ? sizes[0] - 4 : 4);
      }
      const add = (bins: number[], p: number, w: number) => {
        for (let k = 0; k < bins.length; k++) {
          rel[k][bins[k]] += w * p;
          off[k][bins[k]] += w * (1 - p);
        }
      };
      for (let i = 0; i < binned.length; i++) add(binned[i], r[i], 1);
      for (const g of givenBins) add(g.b, g.y, EXAMPLE_WEIGHT);
      const norm = (m: number[][]) =>
        m.map((row) => {
          const s = row.reduce((a, x) => a + x, 0);
          return row.map((x) => x / s);
        });
      // π over the crawl's pages only (examples are not a sample of what it fetches).
      const pagesRel = r.reduce((a, x) => a + x, 0);
      f = { pi: Math.min(0.999, Math.max(0.001, (pagesRel + 0.5) / (r.length + 1))), rel: norm(rel), off: norm(off), edges };
      // E-step.
      const next = binned.map((b, i) => {
        const a = f.pi * lik(b, f.rel);
        const c = (1 - f.pi) * lik(b, f.off);
        return a / (a + c);
      });
      let moved = 0;
      for (let i = 0; i < next.length; i++) moved = Math.max(moved, Math.abs(next[i] - r[i]));
      r = next;
      if (moved < 1e-4) break;
    }
    return f;
  }

  /**
   * The crawl's harvest as the classifier sees it: the mean calibrated probability over the
   * pages judged (error pages as certain negatives), with a 90% interval from a bootstrap that
   * resamples the pages, refits, and draws each page's verdict from its probability.
   */
  estimate(reps = 100): HarvestEstimate {
    const n = this.pages.seen + this.certainNegatives;
    if (n === 0) return { mean: 0, low: 0, high: 1, pages: 0 };
    const share = this.pages.seen / n;
    const items = this.pages.items;
    const f = this.fit();
    const meanP = (fit: Fit, xs: PageEvidence[]) => xs.reduce((a, e) => a + this.posterior(e, fit), 0) / Math.max(1, xs.length);
    const mean = meanP(f, items) * share;
    const rng = new Rng(this.o.randomSeed + 7);
    const draws: number[] = [];
    for (let b = 0; b < reps; b++) {
      const boot = items.map(() => items[Math.floor(rng.next() * items.length)]);
      const fb = this.fitOn(boot);
      let hits = 0;
      for (const e of boot) if (rng.next() < this.posterior(e, fb)) hits++;
      draws.push((hits / Math.max(1, boot.length)) * share);
    }
    draws.sort((a, b) => a - b);
    const q = (x: number) => draws[Math.min(draws.length - 1, Math.max(0, Math.round(x * (draws.length - 1))))];
    return { mean, low: Math.min(mean, q(0.05)), high: Math.max(mean, q(0.95)), pages: n };
  }
}
