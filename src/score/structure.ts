/** Link-structure terms of the topic-weight formula: METHODS §3.2 (seed 000, claims 2–3). */
import { refill } from './state-data.js';

/** How a link's path relates to its parent's: under it, a sibling, redundant, or other. */
export type PathRelation = 'under' | 'sibling' | 'redundant' | 'other';

/** What the page says about a link besides its URL: its tag, anchor text, whether it is redundant. */
export interface LinkHints {
  tag?: string;
  anchorText?: string;
  /** Set by the extract stage when it already knows the link is an image, ad, share button… */
  isRedundant?: boolean;
}

// Share/login/print/ad links carry no topic (§3.2 "redundant"). Matched on whole path segments
// or query keys so `/shareholders/` or `/advertising-law/` articles are not caught.
const REDUNDANT_SEGMENT = /^(share|sharer|login|logon|logout|signin|sign-in|signup|sign-up|register|print|ad|ads|adv|advert|banner|popup|subscribe|passport|oauth)$/i;
const REDUNDANT_QUERY = /(?:^|[?&])(share|print|login|logout|ad|adid)=/i;
const REDUNDANT_ANCHOR = /^(分享|分享到.*|登录|注册|打印|广告|退出|share|login|log in|sign in|sign up|register|print|advertisement)$/i;

function splitDirs(pathname: string): string[] {
  const parts = pathname.split('/');
  parts.pop(); // file name (empty when the path ends in '/')
  return parts.filter((p) => p.length > 0);
}

/**
 * §3.2 path relation of a child URL to its parent page:
 * under — same host and the child's path starts with the parent's directory;
 * sibling — same host, same directory depth, directories differ in exactly one folder
 *   (a follow-up report: /news/2024/0905/a vs /news/2024/0906/b);
 * redundant — images, ads, share/login/print links, javascript:/mailto:;
 * other — everything else (another host or an unrelated path).
 */
export function pathRelation(parentUrl: string, childUrl: string, hints: LinkHints = {}): PathRelation {
  if (hints.isRedundant || hints.tag === 'img') return 'redundant';
  if (/^(javascript|mailto|tel|data):/i.test(childUrl.trim())) return 'redundant';
  if (hints.anchorText && REDUNDANT_ANCHOR.test(hints.anchorText.trim())) return 'redundant';
  let p: URL;
  let c: URL;
  try {
    p = new URL(parentUrl);
    c = new URL(childUrl);
  } catch {
    return 'other';
  }
  const childDirs = c.pathname.split('/').filter((s) => s.length > 0);
  if (childDirs.some((s) => REDUNDANT_SEGMENT.test(s)) || REDUNDANT_QUERY.test(c.search)) return 'redundant';
  if (p.host !== c.host) return 'other';
  const parentDir = p.pathname.slice(0, p.pathname.lastIndexOf('/') + 1);
  if (c.pathname.startsWith(parentDir) && c.pathname + c.search !== p.pathname + p.search) return 'under';
  const pd = splitDirs(p.pathname);
  const cd = splitDirs(c.pathname);
  if (pd.length > 0 && pd.length === cd.length) {
    let diff = 0;
    for (let i = 0; i < pd.length; i++) if (pd[i] !== cd[i]) diff++;
    if (diff === 1) return 'sibling';
  }
  return 'other';
}

/** §3.2 w_path: under 1, sibling τ, redundant τ², other τ/2. */
export function pathWeight(relation: PathRelation, tau = 0.5): number {
  switch (relation) {
    case 'under':
      return 1;
    case 'sibling':
      return tau;
    case 'redundant':
      return tau * tau;
    case 'other':
      return tau / 2;
  }
}

/** §3.2 link coefficient ω(u) = w_path + f_anchor(u), f_anchor clamped to [0, 1]. */
export function linkCoefficient(wPath: number, fAnchor: number): number {
  return wPath + Math.min(1, Math.max(0, fAnchor));
}

/** One in-linking fetched parent j of u, as the scale-free sum needs it. */
export interface ScaleFreeTerm {
  /** rel(j) (or the tunnel's "as if relevant" value). */
  rel: number;
  /** ω_j(u). */
  omega: number;
  /** Π(j), from `LinkGraph.bias`. */
  bias: number;
  /** A_j: valid (not filtered) links on page j. */
  validLinks: number;
}

/** §3.2 scale-free correction: W(u) = Σ_j rel(j)·ω_j(u)·Π(j)/A_j. */
export function scaleFreeCorrection(terms: readonly ScaleFreeTerm[]): number {
  let w = 0;
  for (const t of terms) if (t.validLinks > 0) w += (t.rel * t.omega * t.bias) / t.validLinks;
  return w;
}

/** §3.2 Π(j) = (k_j + 1)^α / mean_l (k_l + 1)^α. */
export function scaleFreeBias(degree: number, meanBiasTerm: number, alpha = 0.5): number {
  if (meanBiasTerm <= 0) return 1;
  return Math.pow(degree + 1, alpha) / meanBiasTerm;
}

/** One page of the link graph: its relevance and verdict. */
export interface GraphPage {
  rel: number;
  relevant: boolean;
  validLinks: number;
  /** child → r(j → child), the link's context similarity (max over duplicate links). */
  out: Map<string, number>;
}

/**
 * The known link graph: fetched pages, their outlinks and each URL's fetched in-linkers.
 * k_j is page j's in-degree in this graph (seed 000: 入度); the mean of (k_l + 1)^α over fetched
 * pages is kept incrementally so Π(j) costs O(1).
 */
export class LinkGraph {
  readonly pages = new Map<string, GraphPage>();
  /** In-linkers of each URL: the one URL while there is one (most queued URLs; a Set costs ~150 bytes), then a Set. */
  private readonly inLinks = new Map<string, string | Set<string>>();
  private biasSum = 0;

  constructor(private readonly alpha = 0.5) {}

  get fetchedCount(): number {
    return this.pages.size;
  }

  degree(url: string): number {
    const i = this.inLinks.get(url);
    return i === undefined ? 0 : typeof i === 'string' ? 1 : i.size;
  }

  inLinkers(url: string): ReadonlySet<string> {
    const i = this.inLinks.get(url);
    return i === undefined ? EMPTY : typeof i === 'string' ? new Set([i]) : i;
  }

  /** Record a fetched page and its outlinks (r = context similarity; valid = not filtered). */
  addPage(url: string, rel: number, relevant: boolean, links: readonly { url: string; r: number; valid: boolean }[]): void {
    if (this.pages.has(url)) return;
    const out = new Map<string, number>();
    let valid = 0;
    for (const l of links) {
      if (l.url === url) continue;
      if (l.valid && !out.has(l.url)) valid++;
      out.set(l.url, Math.max(out.get(l.url) ?? 0, l.r));
    }
    this.pages.set(url, { rel, relevant, validLinks: valid, out });
    this.biasSum += Math.pow(this.degree(url) + 1, this.alpha);
    for (const child of out.keys()) {
      const i = this.inLinks.get(child);
      let before: number;
      let after: number;
      if (i === undefined) {
        this.inLinks.set(child, url);
        (before = 0), (after = 1);
      } else if (typeof i === 'string') {
        before = 1;
        after = i === url ? 1 : 2;
        if (after === 2) this.inLinks.set(child, new Set([i, url]));
      } else {
        before = i.size;
        i.add(url);
        after = i.size;
      }
      if (after !== before && this.pages.has(child)) {
        this.biasSum += Math.pow(before + 2, this.alpha) - Math.pow(before + 1, this.alpha);
      }
    }
  }

  /** Π(j) for a fetched page j (1 when the graph is empty). */
  bias(url: string): number {
    const n = this.pages.size;
    if (n === 0) return 1;
    return scaleFreeBias(this.degree(url), this.biasSum / n, this.alpha);
  }

  /** Its state as plain data, live (see src/score/state-data.ts). */
  state(): LinkGraphState {
    return { v: 1, pages: this.pages, inLinks: this.inLinks, biasSum: this.biasSum };
  }

  restore(s: LinkGraphState): void {
    refill(this.pages, s.pages);
    refill(this.inLinks, s.inLinks);
    this.biasSum = s.biasSum;
  }
}

/** A LinkGraph's saved state (for resume). */
export interface LinkGraphState {
  v: 1;
  pages: Map<string, GraphPage>;
  inLinks: Map<string, string | Set<string>>;
  biasSum: number;
}

const EMPTY: ReadonlySet<string> = new Set();

/** §3.2 tunnel step for an irrelevant page at link depth d: floor(α_t / d) (a seed counts as d = 1). */
export function tunnelStep(depth: number, alphaT = 3): number {
  return Math.floor(alphaT / Math.max(1, depth));
}

/**
 * §3.2 tunnelling: the buffer a fetched page hands to its children. A relevant page resets it
 * (undefined: no tunnel). An irrelevant page starts one with floor(α_t/d), or, when it was itself
 * reached through a tunnel (parentBuffer defined), passes on one hop less. Children with
 * buffer > 0 are scored as if their parent were relevant; at 0 they are decayed or dropped.
 */
export function tunnelBuffer(pageRelevant: boolean, pageBuffer: number | undefined, pageDepth: number, alphaT = 3): number | undefined {
  if (pageRelevant) return undefined;
  if (pageBuffer !== undefined) return Math.max(0, pageBuffer - 1);
  return tunnelStep(pageDepth, alphaT);
}

/** A page's relevance feedback so far: runs of irrelevant children that lower its links' scores. */
export interface FeedbackState {
  /** Consecutive irrelevant fetched children so far. */
  run: number;
  demoted: boolean;
}

/**
 * §3.2 relevance feedback for one parent: after r consecutive irrelevant fetched children, the
 * parent's remaining children are demoted (× decay) — once; `triggered` marks that moment.
 */
export function relevanceFeedback(state: FeedbackState, childRelevant: boolean, r = 3): FeedbackState & { triggered: boolean } {
  const run = childRelevant ? 0 : state.run + 1;
  const triggered = !state.demoted && run >= r;
  return { run, demoted: state.demoted || triggered, triggered };
}
