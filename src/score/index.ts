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
import { iPageRank, iPageRankOfUnfetched, rwbAdmit, type IprNode, type RwbDecision } from './ipagerank.js';
import { SiteTable, urlFilter } from './filters.js';

export { ScoreOptionsSchema, parseScoreOptions, type ScoreOptions } from './options.js';
export * from './priority.js';
export * from './structure.js';
export * from './ipagerank.js';
export * from './filters.js';

export interface OutLink {
  url: string;
  /** cos(T, A_u), or Sim(T, A_u) with the semantic tree (§2, §3.1). */
  contextSim: number;
  /** f_anchor: topic keyword frequency in the link context, in [0, 1] (§3.2). */
  anchorKeywordFreq: number;
  /** a, area, frame, iframe, img (src/extract/types.ts LinkTag). */
  tag?: string;
  anchorText?: string;
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
}

interface Pending {
  url: string;
  host: string;
  depth: number;
  /** Discovery order (bfs). */
  seq: number;
  urlTime?: Date;
  contributions: Contribution[];
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
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '';
  }
}

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

  const filterOpts = {
    skipExtensions: o.skipExtensions,
    skipPathEnds: usesPathEnds ? o.skipPathEnds : [],
    anchorStoplist: o.anchorStoplist,
    stoplistWeight: strategy === 'classic' || strategy === 'combined' ? o.stoplistWeight : 1,
    allowDomains: o.allowDomains,
    denyDomains: o.denyDomains,
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
    const links = [];
    for (const c of p.contributions) {
      const v = iprOf(c.parent);
      if (v === undefined) continue;
      links.push({ ipr: v, r: c.sim, rSum: fetched.get(c.parent)!.rSum });
    }
    return iPageRankOfUnfetched(links, o.damping);
  }

  /** Tunnel handling of one in-link: the parent rel to use and a multiplier, or a hard drop. */
  function tunnel(c: Contribution): { rel: number; factor: number; drop: boolean } {
    if (!usesTunnel || c.buffer === undefined) return { rel: c.parentRel, factor: 1, drop: false };
    if (c.buffer > 0) return { rel: Math.max(c.parentRel, o.pageThreshold), factor: 1, drop: false };
    return { rel: c.parentRel, factor: o.hardFocus ? 0 : o.decay, drop: o.hardFocus };
  }

  function feedbackFactor(c: Contribution): number {
    return usesFeedback && fetched.get(c.parent)?.feedback.demoted ? o.decay : 1;
  }

  function timeOf(p: Pending, best: Contribution | undefined): { t?: Date; fromUrl: boolean } {
    if (p.urlTime) return { t: p.urlTime, fromUrl: true };
    return { t: best?.parentTime, fromUrl: false };
  }

  function score(p: Pending): ScoreUpdate {
    const base = { url: p.url, depth: p.depth };
    const comps: Record<string, number> = { inlinks: p.contributions.length };
    const done = (s: number, parent: string | undefined, extra: Partial<ScoreUpdate> = {}): ScoreUpdate => ({
      ...base,
      parentUrl: parent,
      score: s,
      breakdown: { score: s, components: comps },
      ...extra,
    });

    if (strategy === 'bfs') {
      comps.fifoOrder = p.seq;
      return done(bfsScore(p.seq), p.contributions[0]?.parent);
    }

    if (strategy === 'classic' && sites.isCut(p.host, o.siteCutoff)) {
      return done(0, undefined, { drop: true, reason: 'site-cutoff' });
    }

    // Per in-link terms; the aggregate depends on the strategy.
    let bestTerm = -Infinity;
    let best: Contribution | undefined;
    let bestComps: Record<string, number> = {};
    let sumTerms = 0;
    let bestPrio = 0;
    let allDropped = true;
    const sfTerms = [];
    for (const c of p.contributions) {
      const tn = tunnel(c);
      if (tn.drop) continue;
      if (strategy === 'ipagerank' && c.rwb === 'reject') continue;
      allDropped = false;
      const fb = feedbackFactor(c);
      const smoothed = childLinkSmoothing(c.sim, c.c, o.delta);
      const tc: Record<string, number> = { contextSim: c.sim };
      let term: number;
      let prio: number;
      switch (strategy) {
        case 'semantic':
          prio = term = smoothed;
          tc.smoothedSim = smoothed;
          if (c.c !== undefined) tc.pageLinkTerm = c.c;
          break;
        case 'topology': {
          const g = graph.pages.get(c.parent)!;
          const bias = graph.bias(c.parent);
          prio = term = scaleFreeCorrection([{ rel: tn.rel, omega: c.omega, bias, validLinks: g.validLinks }]) * tn.factor * fb;
          Object.assign(tc, { parentRel: tn.rel, wPath: c.wPath, omega: c.omega, scaleFree: bias, validLinks: g.validLinks });
          sfTerms.push(term);
          break;
        }
        case 'classic':
          prio = parentAnchorPriority(tn.rel, c.sim, o.theta, o.gamma);
          term = prio * c.stoplistWeight * tn.factor;
          Object.assign(tc, { parentPriority: prio, stoplist: c.stoplistWeight });
          break;
        case 'combined': {
          prio = parentAnchorPriority(tn.rel, smoothed, o.theta, o.gamma);
          const bias = Math.min(o.scaleFreeClamp, Math.max(1 / o.scaleFreeClamp, graph.bias(c.parent)));
          term = prio * c.omega * bias * c.stoplistWeight * tn.factor * fb;
          Object.assign(tc, { parentPriority: prio, smoothedSim: smoothed, wPath: c.wPath, omega: c.omega, scaleFree: bias, stoplist: c.stoplistWeight });
          break;
        }
        default: // best-first, time, ipagerank (its ordering value is computed below)
          prio = term = parentAnchorPriority(c.parentRel, c.sim, o.theta, o.gamma);
          tc.parentPriority = prio;
      }
      if (usesTunnel && c.buffer !== undefined) {
        tc.tunnelBuffer = c.buffer;
        tc.tunnelFactor = tn.factor;
      }
      if (usesFeedback) tc.feedbackDecay = fb;
      sumTerms += term;
      if (term > bestTerm) {
        bestTerm = term;
        best = c;
        bestComps = tc;
        bestPrio = prio;
      }
    }
    if (allDropped) {
      const reason = strategy === 'ipagerank' ? 'rwb-rejected' : 'tunnel-spent';
      return done(0, undefined, { drop: true, reason });
    }
    Object.assign(comps, bestComps);

    let s: number;
    switch (strategy) {
      case 'topology':
        s = sumTerms; // W(u) accumulates over in-linking parents
        comps.W = s;
        break;
      case 'ipagerank':
        s = unfetchedIpr(p);
        comps.ipagerank = s;
        break;
      case 'combined':
        s = bestTerm + o.inlinkShare * (sumTerms - bestTerm);
        break;
      default:
        s = bestTerm;
    }

    if (usesTime) {
      const { t, fromUrl } = timeOf(p, best);
      if (t && fromUrl && deps.inTimeWindow && !deps.inTimeWindow(t)) {
        return done(0, best?.parent, { drop: true, reason: 'outside-time-window' });
      }
      if (t && deps.timePr) {
        const pr = deps.timePr(t);
        // §3.4 gates e^{Pr} on prio(u) (the §3.1 value), then scales the strategy's score by it.
        const f = bestPrio > 0 ? timeAwarePriority(bestPrio, pr, o.timeMinPriority) / bestPrio : 1;
        comps.timePr = pr;
        comps.timeFactor = f;
        s *= f;
      }
    }
    if (strategy === 'combined') {
      const v = unfetchedIpr(p);
      const iprFactor = 1 + o.iprBonus * Math.min(1, Math.max(0, v - (1 - o.damping)));
      const siteFactor = 1 + o.siteBonus * sites.relevance(p.host);
      comps.ipagerank = v;
      comps.iprFactor = iprFactor;
      comps.siteBonus = siteFactor;
      s *= iprFactor * siteFactor;
    } else if (strategy === 'classic') {
      const siteFactor = 1 + o.siteBonus * sites.relevance(p.host);
      comps.siteBonus = siteFactor;
      s *= siteFactor;
    }
    return done(s, best?.parent);
  }

  function removePending(url: string): void {
    const p = pending.get(url);
    if (!p) return;
    pending.delete(url);
    pendingByHost.get(p.host)?.delete(url);
  }

  function onPageFetched(page: FetchedPage): ScoreUpdate[] {
    const updates: ScoreUpdate[] = [];
    const touched = new Set<string>();
    const url = page.url;
    if (fetched.has(url)) return updates;
    const was = pending.get(url);
    const buffer = was ? bestBuffer(was.contributions) : undefined;
    const depth = Math.min(page.depth, was?.depth ?? page.depth);
    removePending(url);

    // Site table (§3.6); a site that crosses the cutoff loses its queued URLs (classic).
    const host = page.host ?? hostOf(url);
    const wasCut = sites.isCut(host, o.siteCutoff);
    sites.record(host, page.relevant);
    if (strategy === 'classic' && !wasCut && sites.isCut(host, o.siteCutoff)) {
      for (const u of pendingByHost.get(host) ?? []) touched.add(u);
    }

    // Relevance feedback (§3.2): this page is a fetched child of its parent.
    if (page.parentUrl) {
      const parent = fetched.get(page.parentUrl);
      if (parent) {
        const next = relevanceFeedback(parent.feedback, page.relevant, o.feedbackRun);
        parent.feedback = { run: next.run, demoted: next.demoted };
        if (next.triggered && usesFeedback) for (const ch of parent.children) if (pending.has(ch)) touched.add(ch);
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
      } else {
        p.depth = Math.min(p.depth, depth + 1);
        if (strategy === 'bfs') continue; // FIFO: the first discovery fixes the order
      }
      const relation = pathRelation(url, link.url, link);
      const wPath = pathWeight(relation, o.tau);
      const rwb = strategy === 'ipagerank' ? rwbAdmit(link.contextSim, o.linkThreshold, o.rwbBand, o.rwbProbability, random) : 'admit';
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

    // IPageRank cycle (§3.5): every iprEvery fetched pages; then every queued URL is re-scored,
    // which also refreshes Π(j) and site bonuses that drifted since the URL was scored.
    if (graph.fetchedCount % o.iprEvery === 0 && strategy !== 'bfs' && strategy !== 'best-first' && strategy !== 'semantic') {
      if (usesIpr) recomputeIpr();
      for (const u of pending.keys()) touched.add(u);
    }

    for (const u of touched) {
      const p = pending.get(u);
      if (p) updates.push(score(p));
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
  };
}
