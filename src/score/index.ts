/**
 * The URL scorer (METHODS §3): the engine feeds each fetched page in as plain data and gets back
 * score updates for URLs (new children, and queued URLs whose score changed: new in-links,
 * relevance feedback, IPageRank cycles, site cutoff). All formula state lives here: the known
 * link graph, tunnel buffers, feedback runs, the site table and IPageRank values.
 */
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import type { StrategyName } from '../config/schema.js';
import { parseScoreOptions, type ScoreOptions } from './options.js';
import { childLinkSmoothing, dateFromUrl, pageLinkTerm, parentAnchorPriority, timeAwarePriority } from './priority.js';
import {
  LinkGraph,
  linkCoefficient,
  pathRelation,
  pathWeight,
  relevanceFeedback,
  scaleFreeCorrection,
  tunnelBuffer,
  type FeedbackState,
  type PathRelation,
} from './structure.js';
import { iPageRank, rwbAdmit, type IprNode, type RwbDecision } from './ipagerank.js';
import { SiteTable, urlFilter } from './filters.js';
import { OnlineLogistic } from './learned.js';
import { LinkRanker, type LinkFeatures } from './link-ranker.js';
import { DeadLinkTracker } from './dead-links.js';

export { ScoreOptionsSchema, parseScoreOptions, type ScoreOptions } from './options.js';
export * from './priority.js';
export * from './structure.js';
export * from './ipagerank.js';
export * from './filters.js';
export * from './learned.js';
export * from './link-ranker.js';
export * from './dead-links.js';

export interface OutLink {
  url: string;
  /** cos(T, A_u), or Sim(T, A_u) with the semantic tree (§2, §3.1). */
  contextSim: number;
  /** f_anchor: topic keyword frequency in the link context, in [0, 1] (§3.2). */
  anchorKeywordFreq: number;
  /** a, area, frame, iframe, img (src/extract/types.ts LinkTag). */
  tag?: string;
  anchorText?: string;
  /** Text around the link on the page (the link ranker's context words). */
  context?: string;
  isRedundant?: boolean;
  /** Publish date read from the URL; parsed here from the URL string when absent (§3.4). */
  urlTime?: Date;
}

export interface FetchedPage {
  url: string;
  /** The page the URL was queued from (absent for seeds): drives relevance feedback. */
  parentUrl?: string;
  /** Link depth from the seeds (0 for a seed). */
  depth: number;
  rel: number;
  relevant: boolean;
  publishTime?: Date;
  links: OutLink[];
  /** Defaults to the URL's host. */
  host?: string;
  /** HTTP status (non-2xx: a dead link); absent = 200. */
  status?: number;
  /** Why the page can never be relevant (src/crawl/never-relevant.ts), if it cannot. */
  neverRelevant?: string;
}

/** A dead link: non-2xx or an error page served with 200. Dead pages say nothing about topics. */
function isDead(page: FetchedPage): boolean {
  return (page.status !== undefined && page.status !== 0 && (page.status < 200 || page.status > 299)) || page.neverRelevant === 'http-status' || page.neverRelevant === 'error-page';
}

export interface ScoreBreakdown {
  score: number;
  /** Named factors, e.g. parentPriority, wPath, omega, scaleFree, tunnelBuffer, feedbackDecay… */
  components: Record<string, number>;
}

export interface ScoreUpdate {
  url: string;
  depth: number;
  /** The in-linker whose term is the largest (for the crawl log and `--explain`). */
  parentUrl?: string;
  score: number;
  breakdown: ScoreBreakdown;
  /** Do not fetch (filtered, RWB-rejected, spent tunnel under hard focus, site cut, outside the time window). */
  drop?: boolean;
  reason?: string;
}

export interface ScorerDeps {
  /** Pr(t|T) of the topic's time distribution (§3.4); absent = no time preference. */
  timePr?: (d: Date) => number;
  /** The topic's [t_s, t_e] window check (§3.4); absent = every date is inside. */
  inTimeWindow?: (d: Date) => boolean;
  /** Seed of the RWB exploration generator (§3.5). */
  randomSeed?: number;
}

export interface Scorer {
  readonly strategy: StrategyName;
  readonly options: ScoreOptions;
  /** A page was fetched: returns new/updated scores for URLs (children and any re-scored URLs). */
  onPageFetched(page: FetchedPage): ScoreUpdate[];
  /** Seeds get a fixed top score. */
  seedScore(url: string): ScoreBreakdown;
  /** Current IPageRank of fetched relevant pages (last recomputation). */
  ipageRanks(): ReadonlyMap<string, number>;
  readonly sites: SiteTable;
  readonly graph: LinkGraph;
  /** Combined's learned weights, when learning. */
  readonly learner?: OnlineLogistic;
}

/** One in-link of an unfetched URL from a fetched parent, with everything its terms need. */
interface Contribution {
  parent: string;
  parentRel: number;
  parentRelevant: boolean;
  parentTime?: Date;
  sim: number;
  /** C(p) of the parent (§3.3), undefined when not used. */
  c: number | undefined;
  fAnchor: number;
  relation: PathRelation;
  wPath: number;
  omega: number;
  stoplistWeight: number;
  /** The tunnel buffer this parent hands over (undefined: parent relevant). */
  buffer: number | undefined;
  rwb: RwbDecision;
  /** The link ranker's features of this link (combined only). */
  link?: LinkFeatures;
}

interface Pending {
  url: string;
  host: string;
  depth: number;
  /** Discovery order (bfs). */
  seq: number;
  urlTime?: Date;
  contributions: Contribution[];
  /** Last score handed out (NaN when dropped), to skip unchanged ones on periodic re-scoring. */
  last?: number;
}

interface FetchedInfo {
  depth: number;
  buffer: number | undefined;
  rel: number;
  relevant: boolean;
  publishTime?: Date;
  children: string[];
  feedback: FeedbackState;
  rSum: number;
  /** Links followed since the last relevant page on the path that reached this page (0: relevant). */
  sinceRelevant: number;
  /** The link ranker's features of the in-link this page was reached by (trains its `beyond` model). */
  inlink?: LinkFeatures;
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '';
  }
}

/** Inputs of combined's learned weights (src/score/learned.ts), each in about [0, 1]. */
export const COMBINED_FEATURES = [
  'product', // log of the fixed product of §3.1–§3.6 terms, /4
  'maxContextSim', // best cos(T, A_u) over in-links (§3.1)
  'parentRel', // rel of the best in-linker (§3.1)
  'relevantInlinks', // log(1 + relevant in-linkers) (§3.2 accumulation)
  'inlinks', // log(1 + in-linkers)
  'wPath', // path relation of the best in-link (§3.2)
  'fAnchor', // topic keyword share in the link context (§3.2)
  'siteRelevance', // relevant/fetched of the URL's host (§3.6)
  'tunnel', // 1 when the best in-linker is irrelevant (§3.2 tunnelling)
  'ipagerank', // IPR(u) - (1-d), clipped to [0,1] (§3.5)
  'timePr', // Pr(t|T) of the URL's date (§3.4)
  'depth', // link depth / 10, capped
  'linkRanker', // the link ranker's log-odds evidence (src/score/link-ranker.ts), /4
] as const;

/** classic: a cut site's URLs are scored this much lower, below any other site's (§3.6, issue #21). */
export const SITE_CUT_FACTOR = 1e-6;

/** bfs: FIFO encoded as a score decreasing in discovery order, so a max-heap pops oldest first. */
export function bfsScore(seq: number): number {
  return 1 / (1 + seq);
}

/** The most generous tunnel buffer over several in-links: undefined (a relevant parent) wins. */
function bestBuffer(cs: readonly Contribution[]): number | undefined {
  let best = -1;
  for (const c of cs) {
    if (c.buffer === undefined) return undefined;
    best = Math.max(best, c.buffer);
  }
  return best < 0 ? undefined : best;
}

export function createScorer(strategy: StrategyName, options: Partial<ScoreOptions> = {}, deps: ScorerDeps = {}): Scorer {
  const o = parseScoreOptions(options);
  const rng = xoroshiro128plus(deps.randomSeed ?? 1);
  const random = () => uniformFloat64(rng);
  const graph = new LinkGraph(o.scaleFreeAlpha);
  const sites = new SiteTable();
  const pending = new Map<string, Pending>();
  const fetched = new Map<string, FetchedInfo>();
  const pendingByHost = new Map<string, Set<string>>();
  let ipr = new Map<string, number>();
  let seq = 0;

  const usesTunnel = strategy === 'topology' || strategy === 'classic' || strategy === 'combined';
  const usesFeedback = strategy === 'topology' || strategy === 'combined';
  const usesIpr = strategy === 'ipagerank' || strategy === 'combined';
  const usesPathEnds = strategy === 'classic' || strategy === 'combined';
  const usesTime = strategy === 'time' || strategy === 'combined';
  // Combined's learned weights; feature 0 is the log of the fixed product (prior weight 4 undoes its /4 scaling).
  const learner =
    strategy === 'combined' && o.learnWeights
      ? new OnlineLogistic({ size: COMBINED_FEATURES.length, prior: COMBINED_FEATURES.map((f) => (f === 'product' || f === 'linkRanker' ? 4 : 0)), learningRate: o.learningRate, l2: o.learnL2, maxDeviation: o.learnWeightBound, minEvidence: o.learnMinEvidence })
      : undefined;
  // Combined's learned link ranker: its evidence enters the score in log-odds (prior weight 4 undoes the /4).
  const ranker = strategy === 'combined' && o.linkRanker ? new LinkRanker({ decay: o.decay }) : undefined;

  // Hosts and directories that keep answering 404 lose priority (src/score/dead-links.ts); not bfs (FIFO).
  const deadLinks = new DeadLinkTracker();
  const usesDeadLinks = strategy !== 'bfs';

  const filterOpts = {
    skipExtensions: o.skipExtensions,
    skipPathEnds: usesPathEnds ? o.skipPathEnds : [],
    anchorStoplist: o.anchorStoplist,
    stoplistWeight: strategy === 'classic' || strategy === 'combined' ? o.stoplistWeight : 1,
    allowDomains: o.allowDomains,
    denyDomains: o.denyDomains,
    skipQueryKeys: o.skipQueryKeys,
    maxRepeats: o.maxRepeats,
  };

  /** IPR of a fetched in-linker: last recomputed value, else its initial value rel (§3.5). */
  function iprOf(url: string): number | undefined {
    const f = fetched.get(url);
    if (!f || !f.relevant) return undefined;
    return ipr.get(url) ?? f.rel;
  }

  function recomputeIpr(): void {
    const nodes = new Map<string, IprNode>();
    for (const [url, f] of fetched) {
      if (!f.relevant) continue;
      nodes.set(url, { init: f.rel, out: graph.pages.get(url)?.out ?? new Map() });
    }
    ipr = iPageRank(nodes, o.damping, o.iprIterations);
  }

  function unfetchedIpr(p: Pending): number {
    // §3.5 iPageRankOfUnfetched, inlined: it runs for every queued URL on each cycle.
    let sum = 0;
    for (const c of p.contributions) {
      const f = fetched.get(c.parent);
      if (!f || !f.relevant || f.rSum <= 0) continue;
      sum += ((ipr.get(c.parent) ?? f.rel) * c.sim) / f.rSum;
    }
    return 1 - o.damping + o.damping * sum;
  }

  /**
   * Tunnel (§3.2) of one in-link: the parent rel to use ("as if relevant" while buffer > 0).
   * Combined keeps the real rel: lifting every irrelevant parent to θ_page erased the parent
   * signal that the §3.1 priority relies on (harvest fell below best-first on Wikispeedia);
   * there the tunnel only decides decay or not.
   */
  function tunnelRel(c: Contribution): number {
    return usesTunnel && strategy !== 'combined' && c.buffer !== undefined && c.buffer > 0 ? Math.max(c.parentRel, o.pageThreshold) : c.parentRel;
  }

  /** Multiplier once the buffer is spent: decay, or 0 = dropped under hard focus. */
  function tunnelFactor(c: Contribution): number {
    if (!usesTunnel || c.buffer === undefined || c.buffer > 0) return 1;
    return o.hardFocus ? 0 : o.decay;
  }

  /**
   * Relevance feedback (§3.2). Combined applies it to irrelevant parents only: on a relevant hub
   * the first few fetched children say little about the rest, and demoting them all cost 13
   * points of harvest on Wikispeedia "elements" (61% vs 75% at 150 pages).
   */
  function feedbackFactor(c: Contribution): number {
    if (!usesFeedback || (strategy === 'combined' && c.parentRelevant)) return 1;
    return fetched.get(c.parent)?.feedback.demoted ? o.decay : 1;
  }

  /**
   * Score of one queued URL from its in-links. With `explain`, the named components of the best
   * in-link and of the aggregate are filled in; periodic re-scoring runs without it (no
   * allocation per URL) and explains only the URLs whose score moved.
   */
  function evaluate(
    p: Pending,
    explain: Record<string, number> | undefined,
  ): { score: number; best?: Contribution; reason?: string; features?: number[] } {
    const ex = explain;
    if (ex) ex.inlinks = p.contributions.length;
    if (strategy === 'bfs') {
      if (ex) ex.fifoOrder = p.seq;
      return { score: bfsScore(p.seq), best: p.contributions[0] };
    }

    let bestTerm = -Infinity;
    let best: Contribution | undefined;
    let bestPrio = 0;
    let sumTerms = 0;
    let sumRelevantTerms = 0;
    let maxSim = 0;
    let maxAnchor = 0;
    let relevantParents = 0;
    let features: number[] | undefined; // combined's learner inputs, for training on the fetch
    for (const c of p.contributions) {
      if (c.sim > maxSim) maxSim = c.sim;
      if (c.fAnchor > maxAnchor) maxAnchor = c.fAnchor;
      if (c.parentRelevant) relevantParents++;
      const tf = tunnelFactor(c);
      if (tf === 0) continue;
      if (strategy === 'ipagerank' && c.rwb === 'reject') continue;
      const rel = tunnelRel(c);
      const fb = feedbackFactor(c);
      let term: number;
      let prio: number;
      switch (strategy) {
        case 'semantic':
          prio = term = childLinkSmoothing(c.sim, c.c, o.delta);
          break;
        case 'topology':
          prio = term =
            scaleFreeCorrection([{ rel, omega: c.omega, bias: graph.bias(c.parent), validLinks: graph.pages.get(c.parent)!.validLinks }]) * tf * fb;
          break;
        case 'classic':
          prio = parentAnchorPriority(rel, c.sim, o.theta, o.gamma);
          term = prio * c.stoplistWeight * tf;
          break;
        case 'combined':
          prio = parentAnchorPriority(rel, childLinkSmoothing(c.sim, c.c, o.delta), o.theta, o.gamma);
          term = prio * c.omega * clampedBias(c.parent) * c.stoplistWeight * tf * fb;
          break;
        default: // best-first, time, ipagerank (its ordering value is computed below)
          prio = term = parentAnchorPriority(c.parentRel, c.sim, o.theta, o.gamma);
      }
      sumTerms += term;
      if (c.parentRelevant) sumRelevantTerms += term;
      if (term > bestTerm) {
        bestTerm = term;
        best = c;
        bestPrio = prio;
      }
    }
    if (!best) return { score: 0, reason: strategy === 'ipagerank' ? 'rwb-rejected' : 'tunnel-spent' };
    if (ex) explainTerm(best, bestPrio, ex);

    let s: number;
    switch (strategy) {
      case 'topology':
        s = sumTerms; // W(u) accumulates over in-linking parents
        if (ex) ex.W = s;
        break;
      case 'ipagerank':
        s = unfetchedIpr(p);
        if (ex) ex.ipagerank = s;
        break;
      case 'combined': {
        // In-links from other *relevant* parents add up to inlinkShare × best, no more: an
        // unbounded sum made generic hub pages (linked from everywhere) outrank on-topic links.
        const others = sumRelevantTerms - (best.parentRelevant ? bestTerm : 0);
        const acc = bestTerm > 0 ? o.inlinkShare * Math.tanh(others / bestTerm) : 0;
        if (ex) ex.inlinkBonus = 1 + acc;
        s = bestTerm * (1 + acc);
        break;
      }
      default:
        s = bestTerm;
    }

    let timePr = 0;
    if (usesTime) {
      const t = p.urlTime ?? best.parentTime;
      // Only a date written in the URL itself is trusted enough to discard the URL (§3.4).
      if (p.urlTime && deps.inTimeWindow && !deps.inTimeWindow(p.urlTime)) return { score: 0, best, reason: 'outside-time-window' };
      if (t && deps.timePr) {
        const pr = deps.timePr(t);
        timePr = pr;
        // §3.4 gates e^{Pr} on prio(u) (the §3.1 value), then scales the strategy's score by it.
        const f = bestPrio > 0 ? timeAwarePriority(bestPrio, pr, o.timeMinPriority) / bestPrio : 1;
        if (ex) {
          ex.timePr = pr;
          ex.timeFactor = f;
        }
        s *= f;
      }
    }
    if (strategy === 'combined') {
      let evidence = 0;
      if (ranker && ranker.trainedOn > 0) {
        evidence = -Infinity;
        let bestLink: LinkFeatures | undefined;
        for (const c of p.contributions) {
          if (!c.link) continue;
          const e = ranker.evidence(c.link);
          if (e > evidence) (evidence = e), (bestLink = c.link);
        }
        if (!bestLink) evidence = 0;
        else if (ex) {
          const pr = ranker.predict(bestLink);
          ex.linkTarget = pr.target;
          ex.linkBeyond = pr.beyond;
          ex.linkRanker = evidence;
        }
      }
      const v = unfetchedIpr(p);
      const iprFactor = 1 + o.iprBonus * Math.min(1, Math.max(0, v - (1 - o.damping)));
      const siteFactor = 1 + o.siteBonus * sites.relevance(p.host);
      if (ex) {
        ex.ipagerank = v;
        ex.iprFactor = iprFactor;
        ex.siteBonus = siteFactor;
      }
      s *= iprFactor * siteFactor;
      if (learner) {
        // Order of COMBINED_FEATURES.
        const x = [
          Math.min(3, Math.max(-12, Math.log(Math.max(s, 1e-12)))) / 4,
          maxSim,
          best.parentRel,
          Math.log1p(relevantParents),
          Math.log1p(p.contributions.length),
          best.wPath,
          maxAnchor,
          sites.relevance(p.host),
          best.parentRelevant ? 0 : 1,
          Math.min(1, Math.max(0, v - (1 - o.damping))),
          timePr,
          Math.min(p.depth, 10) / 10,
          evidence / 4,
        ];
        features = x;
        const learned = learner.predict(x);
        if (ex) {
          ex.fixedProduct = s;
          ex.learnedWeight = learned;
        }
        s = learned;
      } else if (evidence !== 0) {
        s *= Math.exp(evidence); // the ranker's odds ratio on the fixed product
      }
    } else if (strategy === 'classic') {
      const siteFactor = 1 + o.siteBonus * sites.relevance(p.host);
      if (ex) ex.siteBonus = siteFactor;
      s *= siteFactor;
      // Site cutoff (§3.6): a cut site goes to the back of the queue rather than out of it. Dropped,
      // a web of one or two hosts ran dry after its 100th irrelevant page (issue #21).
      if (sites.isCut(p.host, o.siteCutoff)) {
        s *= SITE_CUT_FACTOR;
        if (ex) ex.siteCutoff = SITE_CUT_FACTOR;
      }
    }
    if (usesDeadLinks) {
      const f = deadLinks.factor(p.url);
      if (f < 1) {
        s *= f;
        if (ex) ex.deadLinkFactor = f;
      }
    }
    return { score: s, best, features };
  }

  function clampedBias(parent: string): number {
    return Math.min(o.scaleFreeClamp, Math.max(1 / o.scaleFreeClamp, graph.bias(parent)));
  }

  /** Named components of the best in-link's term. */
  function explainTerm(c: Contribution, prio: number, ex: Record<string, number>): void {
    ex.contextSim = c.sim;
    const rel = tunnelRel(c);
    switch (strategy) {
      case 'semantic':
        ex.smoothedSim = prio;
        if (c.c !== undefined) ex.pageLinkTerm = c.c;
        break;
      case 'topology':
        ex.parentRel = rel;
        ex.wPath = c.wPath;
        ex.omega = c.omega;
        ex.scaleFree = graph.bias(c.parent);
        ex.validLinks = graph.pages.get(c.parent)!.validLinks;
        break;
      case 'classic':
        ex.parentPriority = prio;
        ex.stoplist = c.stoplistWeight;
        break;
      case 'combined':
        ex.parentPriority = prio;
        ex.smoothedSim = childLinkSmoothing(c.sim, c.c, o.delta);
        if (c.c !== undefined) ex.pageLinkTerm = c.c;
        ex.wPath = c.wPath;
        ex.omega = c.omega;
        ex.scaleFree = clampedBias(c.parent);
        ex.stoplist = c.stoplistWeight;
        break;
      default:
        ex.parentPriority = prio;
    }
    if (usesTunnel && c.buffer !== undefined) {
      ex.tunnelBuffer = c.buffer;
      ex.tunnelFactor = tunnelFactor(c);
    }
    if (usesFeedback) ex.feedbackDecay = feedbackFactor(c);
  }

  function score(p: Pending): ScoreUpdate {
    const components: Record<string, number> = {};
    const r = evaluate(p, components);
    const up: ScoreUpdate = { url: p.url, depth: p.depth, parentUrl: r.best?.parent, score: r.score, breakdown: { score: r.score, components } };
    if (r.reason) {
      up.drop = true;
      up.reason = r.reason;
    }
    return up;
  }

  function removePending(url: string): void {
    const p = pending.get(url);
    if (!p) return;
    pending.delete(url);
    pendingByHost.get(p.host)?.delete(url);
    deadLinks.untrack(url);
  }

  function onPageFetched(page: FetchedPage): ScoreUpdate[] {
    const updates: ScoreUpdate[] = [];
    const touched = new Set<string>();
    const url = page.url;
    if (fetched.has(url)) return updates;
    const was = pending.get(url);
    const buffer = was ? bestBuffer(was.contributions) : undefined;
    const dead = isDead(page);
    if (learner && was && !dead) {
      // Train on what the URL looked like just before its fetch, labelled by the page's own verdict.
      const { features } = evaluate(was, undefined);
      if (features) learner.update(features, page.relevant);
    }
    // The link ranker learns from this page's verdict: every in-link's target outcome, and the
    // parent's own in-link's "beyond" outcome (a page linked from its target was judged). Not
    // from a dead link: its anchor may have named the topic well; the page is gone.
    let inlink: LinkFeatures | undefined;
    if (ranker && was && !dead) {
      const links = was.contributions.filter((c) => c.link);
      for (const c of links) ranker.learnTarget(c.link!, page.relevant, 1 / links.length);
      inlink = (links.find((c) => c.parent === page.parentUrl) ?? links[0])?.link;
      const parentIn = page.parentUrl ? fetched.get(page.parentUrl)?.inlink : undefined;
      if (parentIn) ranker.learnBeyond(parentIn, page.relevant);
    }
    let sinceRelevant = 0;
    if (!page.relevant && was) {
      sinceRelevant = Infinity;
      for (const c of was.contributions) sinceRelevant = Math.min(sinceRelevant, 1 + (fetched.get(c.parent)?.sinceRelevant ?? 0));
      if (!Number.isFinite(sinceRelevant)) sinceRelevant = 1;
    } else if (!page.relevant) sinceRelevant = 1;
    const depth = Math.min(page.depth, was?.depth ?? page.depth);
    removePending(url);

    // Site table (§3.6); a site that crosses the cutoff loses its queued URLs (classic).
    const host = page.host ?? hostOf(url);
    // Dead links are not the site's irrelevant pages: link rot must not cut a site (§3.6).
    const wasCut = sites.isCut(host, o.siteCutoff);
    if (!dead) sites.record(host, page.relevant);
    if (strategy === 'classic' && !wasCut && sites.isCut(host, o.siteCutoff)) {
      for (const u of pendingByHost.get(host) ?? []) touched.add(u);
    }
    if (usesDeadLinks) for (const u of deadLinks.record(url, dead)) touched.add(u);

    // Relevance feedback (§3.2): this page is a fetched child of its parent.
    if (page.parentUrl) {
      const parent = fetched.get(page.parentUrl);
      if (parent) {
        const next = relevanceFeedback(parent.feedback, page.relevant, o.feedbackRun);
        parent.feedback = { run: next.run, demoted: next.demoted };
        if (next.triggered && usesFeedback && !(strategy === 'combined' && parent.relevant)) for (const ch of parent.children) if (pending.has(ch)) touched.add(ch);
      }
    }

    // Outlinks: filter, page-level link term, contributions.
    const childBuffer = tunnelBuffer(page.relevant, buffer, depth, o.tunnelAlpha);
    const kept: { link: OutLink; weight: number }[] = [];
    const graphLinks: { url: string; r: number; valid: boolean }[] = [];
    for (const link of page.links) {
      const f = urlFilter(link.url, link, filterOpts);
      graphLinks.push({ url: link.url, r: Math.max(0, link.contextSim), valid: f.keep });
      if (!f.keep) {
        if (!fetched.has(link.url) && !pending.has(link.url)) {
          updates.push({ url: link.url, depth: depth + 1, parentUrl: url, score: 0, breakdown: { score: 0, components: {} }, drop: true, reason: f.reason });
        }
        continue;
      }
      if (link.url === url) continue;
      kept.push({ link, weight: f.weight });
    }
    graph.addPage(url, page.rel, page.relevant, graphLinks);
    const pageTerm = pageLinkTerm(
      kept.map((k) => k.link.contextSim),
      o.linkThreshold,
      o.smoothingHigh,
      o.smoothingLow,
    );
    let rSum = 0;
    for (const r of graph.pages.get(url)!.out.values()) rSum += r;
    const info: FetchedInfo = {
      depth,
      buffer,
      rel: page.rel,
      relevant: page.relevant,
      publishTime: page.publishTime,
      children: [],
      feedback: { run: 0, demoted: false },
      rSum,
      sinceRelevant,
      inlink,
    };
    fetched.set(url, info);

    const seenHere = new Set<string>();
    for (const { link, weight } of kept) {
      if (fetched.has(link.url) || seenHere.has(link.url)) continue;
      seenHere.add(link.url);
      info.children.push(link.url);
      let p = pending.get(link.url);
      if (!p) {
        const h = hostOf(link.url);
        p = { url: link.url, host: h, depth: depth + 1, seq: seq++, urlTime: link.urlTime ?? dateFromUrl(link.url), contributions: [] };
        pending.set(link.url, p);
        let set = pendingByHost.get(h);
        if (!set) pendingByHost.set(h, (set = new Set()));
        set.add(link.url);
        if (usesDeadLinks) deadLinks.track(link.url);
      } else {
        p.depth = Math.min(p.depth, depth + 1);
        if (strategy === 'bfs') continue; // FIFO: the first discovery fixes the order
      }
      const relation = pathRelation(url, link.url, link);
      const wPath = pathWeight(relation, o.tau);
      const rwb = strategy === 'ipagerank' ? rwbAdmit(link.contextSim, o.rwbThreshold, o.rwbBand, o.rwbProbability, random) : 'admit';
      p.contributions.push({
        parent: url,
        parentRel: page.rel,
        parentRelevant: page.relevant,
        parentTime: page.publishTime,
        sim: link.contextSim,
        c: pageTerm.c,
        fAnchor: link.anchorKeywordFreq,
        relation,
        wPath,
        omega: linkCoefficient(wPath, link.anchorKeywordFreq),
        stoplistWeight: weight,
        buffer: childBuffer,
        rwb,
        link: ranker
          ? ranker.features({ url: link.url, anchorText: link.anchorText, context: link.context, host: p.host, parentRelevant: page.relevant, sinceRelevant })
          : undefined,
      });
      if (relation === 'redundant' && o.dropRedundant && strategy !== 'bfs' && strategy !== 'best-first') {
        p.contributions.pop();
        if (p.contributions.length === 0) {
          removePending(link.url);
          updates.push({ url: link.url, depth: p.depth, parentUrl: url, score: 0, breakdown: { score: 0, components: {} }, drop: true, reason: 'redundant' });
        }
        continue;
      }
      touched.add(link.url);
    }

    const iprCycle = graph.fetchedCount % o.iprEvery === 0 && strategy !== 'bfs' && strategy !== 'best-first' && strategy !== 'semantic';
    if (iprCycle && usesIpr) recomputeIpr();
    const cycle = iprCycle || ((learner !== undefined || ranker !== undefined) && graph.fetchedCount % o.learnRescoreEvery === 0);

    for (const u of touched) {
      const p = pending.get(u);
      if (!p) continue;
      const up = score(p);
      p.last = up.drop ? NaN : up.score;
      updates.push(up);
    }

    // IPageRank cycle (§3.5): every iprEvery fetched pages; then every queued URL is re-scored,
    // which also refreshes Π(j) and site bonuses that drifted since the URL was scored. Only
    // changes beyond the tolerance are reported, so the frontier is not flooded with no-ops.
    if (cycle) {
      for (const p of pending.values()) {
        if (touched.has(p.url)) continue;
        const r = evaluate(p, undefined);
        const now = r.reason ? NaN : r.score;
        const old = p.last;
        const same =
          old !== undefined &&
          (Number.isNaN(old) ? Number.isNaN(now) : !Number.isNaN(now) && Math.abs(now - old) <= o.rescoreTolerance * Math.abs(old));
        if (same) continue;
        p.last = now;
        updates.push(score(p));
      }
    }
    return updates;
  }

  return {
    strategy,
    options: o,
    onPageFetched,
    seedScore: () => ({ score: o.seedScore, components: { seed: 1 } }),
    ipageRanks: () => ipr,
    sites,
    graph,
    learner,
  };
}
