/**
 * A link ranker that learns, from this crawl's own outcomes, which links lead to relevant pages
 * (after Chakrabarti's apprentice, Diligenti's context graphs and ACHE's online link
 * classifier). Pure computation over plain data: no ground truth, only the judge's verdicts.
 * Long because: one model in its parts that share the hashed feature space and the slab (features,
 * the two logistic models with their Laplace precision, the kind's optimism, plain-data state).
 *
 * Features of one link (hashed, each group scaled to unit length so a long context does not
 * outvote the anchor): its anchor words, its URL's words (on encyclopaedic and news sites the
 * target's name or channel), the words around it, the parent's verdict, how many links the
 * crawl has followed since the last relevant page on this path, and the target's site.
 *
 * Two online logistic models share those features:
 *  - `target`: P(the linked page is judged relevant), trained when the page is fetched;
 *  - `beyond`: P(a page linked from the target is judged relevant), trained as the target's own
 *    children are fetched (Diligenti's second layer: links that lead through an off-topic page
 *    to relevant ones, e.g. a portal channel or a list page).
 * The value of a link is the expected relevant pages within two steps, `p₁ + decay·p₂` (the
 * §3.2 decay weighs the second step, as it weighs a tunnel through an irrelevant parent).
 * `evidence()` turns it into log-odds against the crawl's running base rates, so a ranker that
 * has learned nothing adds nothing to `combined`'s score.
 *
 * A link's target also has a kind: its host and its URL's shape (`urlShape`: a forum board
 * `/a-0-0.a`, a thread `/a.a?a=a&a=0`, a dated article `/a/0/0/0/a0.a`), one feature of its own.
 * Words say little about a kind no page of which has been fetched yet (the test web's forum board
 * shares the forum index's URL word and host, and its context runs into the footer), so
 * `optimism()` adds what the models do not know about the target's kind yet: each model's logit
 * is raised by κ posterior standard deviations of the kind's weight, from a diagonal Laplace
 * approximation of the logistic posterior (prior N(0, 2.5²), precision 1/2.5² + Σ p(1−p)x² over
 * the examples the feature was in: Chapelle & Li 2011, "An empirical evaluation of Thompson
 * sampling", Alg. 3), i.e. an upper confidence bound on the kind alone (METHODS §3.5's
 * exploration, made learned). An unseen kind gets the prior's full doubt (+2.5 in logit at
 * κ = 1); each page of the kind judged adds p(1−p) to its precision (one page at p = 0.3: sd
 * 1.6; ten such pages: 0.7), whatever its words.

 * Written by hand: two sparse logistic regressions over a hashed feature space (AdaGrad steps),
 * a few dozen active features per link; an ML library would bring dense tensors for nothing.
 */
import { tokenize, urlTokens } from '../text/tokenize.js';
import { hash32 } from '../util/rng.js';

/** Where a run of links' hashed features lives (see FeatureSlab). */
export interface FeatureChunk {
  readonly idx: Uint32Array;
  readonly val: Float32Array;
}

/**
 * Hashed feature indices with values (sparse vector): entries start … start+n-1 of a chunk; then,
 * with `words`, that many hashed anchor and URL words of the link for the word evidence
 * (./link-words.ts) in `idx` at start+n … (in the same chunk: a typed array of its own per link
 * cost ~300 bytes per queued URL, bench:frontier-scale --with-scorer).
 */
export interface LinkFeatures {
  chunk: FeatureChunk;
  start: number;
  n: number;
  words?: number;
}

/** One link as the link ranker sees it: URL, anchor text, context, the parent's verdict. */
export interface LinkDescription {
  url: string;
  anchorText?: string;
  /** Text around the link on the parent page. */
  context?: string;
  /** Target host. */
  host: string;
  /** The parent page's verdict. */
  parentRelevant: boolean;
  /** Links followed since the last relevant page on this path (0: the parent is relevant). */
  sinceRelevant: number;
}

/** Options of a LinkRanker: feature space size, learning rate and decay. */
export interface LinkRankerOptions {
  /** log2 of the hashed feature space. */
  bits?: number;
  /** AdaGrad base step. */
  learningRate?: number;
  /** L2 pull towards 0, per update. */
  l2?: number;
  /** Weight of the second step in a link's value (METHODS §3.2 decay). */
  decay?: number;
}

/**
 * The site a hashed feature names: the host without its port. A port is not another site, and a
 * feature's bucket must not move with it: a hashed host feature that shares its bucket with some
 * word's moves that word's weight, so on servers whose ports change from run to run (the replay's
 * test webs listen on ephemeral ports) the same crawl would rank differently from run to run, and
 * the replay would not be deterministic.
 */
export function siteOf(host: string): string {
  return host.replace(/:\d+$/, '');
}

/** FNV-1a of a string: the hashed feature (and word) index (the one FNV-1a of src/util). */
export const fnv1a: (s: string) => number = hash32;

/**
 * The shape of a URL's path and query: every run of letters (any script) written `a`, every run
 * of digits `0`, the rest kept (`/forum-2-1.html` → `/a-0-0.a`, `/forum.php` → `/a.a`). With the
 * host, the kind of page a link leads to (after the URL patterns forum crawlers learn for index,
 * thread and page-flipping links: iRobot, FoCUS). Words joined into one name by `_`, `-`, `+` or a
 * space are one run (`/wiki/Grey_Heron` and `/wiki/Heron` → `/a/a`, `/wiki/Category:Herons` →
 * `/a/a:a`; a news slug `/how-the-quake-struck` → `/a`): how many words a title has is not a
 * kind of page, and counting them split a site's every page family (a wiki's articles, its
 * category pages) into a dozen kinds, each of which the ranker's optimism about unseen kinds
 * (`LinkRanker.optimism`) lifted again, so off-topic family pages kept being fetched long after
 * pages of the family had been judged irrelevant.
 */
export function urlShape(url: string): string {
  let s = url;
  try {
    const u = new URL(url);
    s = u.pathname + u.search;
  } catch {
    /* not absolute: shape it as is */
  }
  try {
    s = decodeURIComponent(s);
  } catch {
    /* malformed escapes: keep raw */
  }
  return s
    .replace(/[\p{L}\p{M}]+/gu, 'a')
    .replace(/\p{N}+/gu, '0')
    .replace(/a(?:[_\-+ ]a)+/g, 'a');
}

/**
 * Prior precision of every weight in the Laplace approximation behind `LinkRanker.optimism`: a
 * weakly informative N(0, 2.5²) (Gelman et al. 2008's scale for logistic coefficients of inputs
 * of unit size; the kind feature's value is 1).
 */
const PRIOR_PRECISION = 1 / 2.5 ** 2;

/** Logistic function, stable for large |z|. */
function sigmoid(z: number): number {
  return z >= 0 ? 1 / (1 + Math.exp(-z)) : Math.exp(z) / (1 + Math.exp(z));
}

const logit = (p: number) => Math.log(p / (1 - p));
const clip = (p: number) => Math.min(1 - 1e-4, Math.max(1e-4, p));

/** The mean of several links' hashed features, as index → value. */
export function meanFeatures(links: readonly LinkFeatures[]): Map<number, number> {
  const mean = new Map<number, number>();
  const share = 1 / links.length;
  for (const f of links) {
    const { idx, val } = f.chunk;
    for (let i = f.start, end = f.start + f.n; i < end; i++) mean.set(idx[i], (mean.get(idx[i]) ?? 0) + val[i] * share);
  }
  return mean;
}

/** One sparse online logistic regression with AdaGrad steps. */
class SparseLogistic {
  private readonly w: Float32Array;
  private readonly g2: Float32Array;
  /** Σ p(1−p)·x² per feature over the examples it was in: the diagonal of the log-likelihood's Hessian (Laplace). */
  private readonly fisher: Float32Array;
  bias = 0;
  private biasG2 = 0;
  updates = 0;
  /** Running count of positive labels, for the base rate. */
  positives = 0;

  constructor(size: number, private readonly eta: number, private readonly l2: number) {
    this.w = new Float32Array(size);
    this.g2 = new Float32Array(size);
    this.fisher = new Float32Array(size);
  }

  /** Weight of feature j. */
  weight(j: number): number {
    return this.w[j];
  }

  /** Posterior standard deviation of feature j's weight (diagonal Laplace approximation, N(0, 1/PRIOR_PRECISION) prior). */
  sd(j: number): number {
    return 1 / Math.sqrt(PRIOR_PRECISION + this.fisher[j]);
  }

  logit(f: LinkFeatures): number {
    let z = this.bias;
    const { idx, val } = f.chunk;
    for (let i = f.start, end = f.start + f.n; i < end; i++) z += this.w[idx[i]] * val[i];
    return z;
  }

  predict(f: LinkFeatures): number {
    return sigmoid(this.logit(f));
  }

  /** Base rate of positives seen so far, smoothed towards 1/2 by one pseudo-example each way. */
  baseRate(): number {
    return (this.positives + 1) / (this.updates + 2);
  }

  update(f: LinkFeatures, y: boolean | number, weight = 1): void {
    const p = this.predict(f);
    const g = (Number(y) - p) * weight;
    const h = p * (1 - p) * weight;
    const { idx, val } = f.chunk;
    for (let i = f.start, end = f.start + f.n; i < end; i++) {
      this.fisher[idx[i]] += h * val[i] * val[i];
      this.step(idx[i], g * val[i]);
    }
    this.stepBias(g, y);
  }

  /**
   * One example whose features are the mean of several links' (sparse: index → value). AdaGrad's
   * first step on a feature is η whatever the gradient's size, so n updates of weight 1/n move a
   * feature none of them had seen by about 2η√n, not η: one page is one example.
   */
  updateMean(mean: Map<number, number>, y: boolean | number, weight = 1): void {
    let z = this.bias;
    for (const [j, v] of mean) z += this.w[j] * v;
    const p = sigmoid(z);
    const g = (Number(y) - p) * weight;
    const h = p * (1 - p) * weight;
    for (const [j, v] of mean) {
      this.fisher[j] += h * v * v;
      this.step(j, g * v);
    }
    this.stepBias(g, y);
  }

  private step(j: number, gv: number): void {
    const grad = gv - this.l2 * this.w[j];
    this.g2[j] += grad * grad;
    this.w[j] += (this.eta * grad) / Math.sqrt(this.g2[j] + 1e-8);
  }

  private stepBias(g: number, y: boolean | number): void {
    this.biasG2 += g * g;
    this.bias += (this.eta * g) / Math.sqrt(this.biasG2 + 1e-8);
    this.updates++;
    this.positives += Number(y);
  }

  state(): SparseLogisticState {
    return { w: this.w, g2: this.g2, fisher: this.fisher, bias: this.bias, biasG2: this.biasG2, updates: this.updates, positives: this.positives };
  }

  restore(s: SparseLogisticState): void {
    if (s.w.length !== this.w.length) throw new Error(`scorer snapshot: link ranker of ${s.w.length} features, this one has ${this.w.length}`);
    this.w.set(s.w);
    this.g2.set(s.g2);
    // A snapshot from before the Laplace precision: AdaGrad's squared gradients, Σ (y−p)²x², estimate the same sum.
    this.fisher.set(s.fisher ?? s.g2);
    ({ bias: this.bias, biasG2: this.biasG2, updates: this.updates, positives: this.positives } = s);
  }
}

interface SparseLogisticState {
  w: Float32Array;
  g2: Float32Array;
  fisher?: Float32Array;
  bias: number;
  biasG2: number;
  updates: number;
  positives: number;
}

/**
 * The features of many links packed in shared typed arrays (8,192 entries a chunk), each link an
 * offset and a length into one: two typed arrays per link, with their ArrayBuffers and backing
 * stores, cost ~750 bytes per queued URL. A chunk is freed once no link in it is
 * referenced any more (its URLs fetched or never queued).
 */
class FeatureSlab {
  private static readonly SIZE = 8192;
  private chunk = FeatureSlab.chunkOf(FeatureSlab.SIZE);
  private used = 0;

  private static chunkOf(n: number): FeatureChunk {
    return { idx: new Uint32Array(n), val: new Float32Array(n) };
  }

  alloc(n: number): { chunk: FeatureChunk; start: number } {
    if (n > FeatureSlab.SIZE) return { chunk: FeatureSlab.chunkOf(n), start: 0 };
    if (this.used + n > FeatureSlab.SIZE) (this.chunk = FeatureSlab.chunkOf(FeatureSlab.SIZE)), (this.used = 0);
    const start = this.used;
    this.used += n;
    return { chunk: this.chunk, start };
  }

  /** The chunk being filled is shared with the links' features (one v8.serialize keeps it one object). */
  state(): { chunk: FeatureChunk; used: number } {
    return { chunk: this.chunk, used: this.used };
  }

  restore(s: { chunk: FeatureChunk; used: number }): void {
    this.chunk = s.chunk;
    this.used = s.used;
  }
}

/** Learns from the crawl's verdicts which links lead to relevant pages (hashed features of URL, anchor and context). */
export class LinkRanker {
  private readonly slab = new FeatureSlab();
  private readonly mask: number;
  private readonly target: SparseLogistic;
  private readonly beyond: SparseLogistic;
  readonly decay: number;

  constructor(o: LinkRankerOptions = {}) {
    const bits = o.bits ?? 18;
    this.mask = (1 << bits) - 1;
    const eta = o.learningRate ?? 0.1;
    const l2 = o.l2 ?? 1e-4;
    this.target = new SparseLogistic(1 << bits, eta, l2);
    this.beyond = new SparseLogistic(1 << bits, eta, l2);
    this.decay = o.decay ?? 0.5;
  }

  /** Pages the target model has learned from. */
  get trainedOn(): number {
    return this.target.updates;
  }

  /** The link's hashed features (computed once, when the link is found), and its word ids to keep beside them. */
  features(link: LinkDescription, wordIds?: ArrayLike<number>): LinkFeatures {
    const groups: [string, string[]][] = [
      ['a', link.anchorText ? tokenize(link.anchorText) : []],
      ['u', urlTokens(link.url).filter((t) => t !== link.host)],
      ['c', link.context ? tokenize(link.context) : []],
      ['h', [siteOf(link.host)]],
      ['p', [link.parentRelevant ? 'relevant' : 'irrelevant']],
      ['d', [String(Math.min(link.sinceRelevant, 3))]],
      ['s', [`${siteOf(link.host)}${urlShape(link.url)}`]],
    ];
    const acc = new Map<number, number>();
    for (const [g, terms] of groups) {
      const distinct = [...new Set(terms)];
      if (!distinct.length) continue;
      const v = 1 / Math.sqrt(distinct.length);
      for (const t of distinct) {
        const j = fnv1a(`${g}:${t}`) & this.mask;
        acc.set(j, (acc.get(j) ?? 0) + v);
      }
    }
    const n = acc.size;
    const words = wordIds?.length ?? 0;
    const { chunk, start } = this.slab.alloc(n + words);
    let i = start;
    for (const [j, v] of acc) (chunk.idx[i] = j), (chunk.val[i++] = v);
    if (!wordIds) return { chunk, start, n };
    for (let k = 0; k < words; k++) (chunk.idx[i] = wordIds[k]), (chunk.val[i++] = 0);
    return { chunk, start, n, words };
  }

  /** P(target judged relevant), P(a page the target links to judged relevant). */
  predict(f: LinkFeatures): { target: number; beyond: number } {
    return { target: this.target.predict(f), beyond: this.beyond.predict(f) };
  }

  /** Expected relevant pages within two steps: p₁ + decay·p₂. */
  value(f: LinkFeatures): number {
    const p = this.predict(f);
    return p.target + this.decay * p.beyond;
  }

  /**
   * Log-odds evidence of this link for "leads to relevant pages", against the base rates seen so
   * far: 0 for a link the ranker knows nothing about (and before any training).
   */
  evidence(f: LinkFeatures): number {
    if (this.target.updates === 0) return 0;
    return this.evidenceOf(this.value(f));
  }

  /** A value p₁ + decay·p₂ in log-odds against the base rates. */
  private evidenceOf(value: number): number {
    const base = this.target.baseRate() + this.decay * this.beyond.baseRate();
    const scale = 1 + this.decay;
    return logit(clip(value / scale)) - logit(clip(base / scale));
  }

  /** The hashed feature of a URL's kind (its host and shape), as `features` adds it for a link to that URL. */
  kindFeature(url: string, host: string): number {
    return fnv1a(`s:${siteOf(host)}${urlShape(url)}`) & this.mask;
  }

  /**
   * What the models do not know yet about the kind of this link's target (feature `kind`, see
   * `kindFeature`), in log-odds: the link's evidence with each model's logit raised by κ
   * posterior standard deviations of the kind's weight (times its value in the link), minus its
   * evidence. Near κ·(something ≤ 1) for a kind no fetched page has taught, shrinking as pages of
   * the kind are judged; 0 before any training, with κ = 0, or when the link lacks the feature.
   */
  optimism(f: LinkFeatures, kind: number, kappa: number): number {
    if (this.target.updates === 0 || kappa <= 0) return 0;
    let x = 0;
    const { idx, val } = f.chunk;
    for (let i = f.start, end = f.start + f.n; i < end; i++) if (idx[i] === kind) x = val[i];
    if (x === 0) return 0;
    const p1 = sigmoid(this.target.logit(f) + kappa * this.target.sd(kind) * x);
    const p2 = sigmoid(this.beyond.logit(f) + kappa * this.beyond.sd(kind) * x);
    return this.evidenceOf(p1 + this.decay * p2) - this.evidence(f);
  }

  /** The page a link pointed to was judged. */
  learnTarget(f: LinkFeatures, relevant: boolean | number, weight = 1): void {
    this.target.update(f, relevant, weight);
  }

  /**
   * The page these links (its in-links) pointed to was judged: one example, the mean of their
   * features (features the in-links share, the target's URL words and host, keep their value;
   * anchors and contexts are averaged). Each in-link as an example of weight 1/n would not be the
   * same: see SparseLogistic.updateMean.
   */
  learnTargetOfInlinks(links: readonly LinkFeatures[], relevant: boolean | number): void {
    if (!links.length) return;
    this.target.updateMean(meanFeatures(links), relevant);
  }

  /**
   * The page these links pointed to offers no links of its own (a near-duplicate's links are its
   * earlier page's): nothing lies beyond it, one "beyond" example of 0 from the mean of its in-links.
   */
  learnNothingBeyond(links: readonly LinkFeatures[]): void {
    if (!links.length) return;
    this.beyond.updateMean(meanFeatures(links), 0);
  }

  /** A page linked from the target of this link was judged. */
  learnBeyond(f: LinkFeatures, relevant: boolean | number, weight = 1): void {
    this.beyond.update(f, relevant, weight);
  }

  /** Its state as plain data, live (src/score/state-data.ts): queued links' features point into `slab.chunk`. */
  state(): LinkRankerState {
    return { v: 1, slab: this.slab.state(), target: this.target.state(), beyond: this.beyond.state() };
  }

  restore(s: LinkRankerState): void {
    this.target.restore(s.target);
    this.beyond.restore(s.beyond);
    this.slab.restore(s.slab);
  }
}

/** A LinkRanker's saved state (for resume). */
export interface LinkRankerState {
  v: 1;
  slab: { chunk: FeatureChunk; used: number };
  target: SparseLogisticState;
  beyond: SparseLogisticState;
}
