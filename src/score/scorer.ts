/**
 * Long because: one closure over the scorer's state until it becomes a class; each hook is short.
 *
 * The URL scorer (METHODS §3): the engine feeds each fetched page in as plain data and gets back
 * score updates for URLs (new children, and queued URLs whose score changed: new in-links,
 * relevance feedback, IPageRank cycles, site cutoff). The formula state lives here and in
 * ./links.ts (the known link graph, tunnel buffers, feedback runs, the site table, IPageRank
 * values); what differs between strategies lives in ./strategies/ (one file each).
 */
import { xoroshiro128plus, xoroshiro128plusFromState } from 'pure-rand/generator/xoroshiro128plus';
import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import { parseScoreOptions, type ScoreOptions } from './options.js';
import { dateFromUrl, pageLinkTerm, timeAwarePriority } from './priority.js';
import { LinkGraph, linkCoefficient, pathRelation, pathWeight, relevanceFeedback, tunnelBuffer } from './structure.js';
import { iPageRank, rwbAdmit, type IprNode } from './ipagerank.js';
import { SiteTable, urlFilter } from './filters.js';
import { bestBuffer, hostOf, LinkBook } from './links.js';
import { DeadLinkTracker } from './dead-links.js';
import { BoilerplateLinks } from './boilerplate.js';
import { scoreBands, strategyBandScore } from './bands.js';
import { getStrategy, strategyNames } from './strategies/registry.js';
import { restoreScorerParts, scorerState } from './snapshot.js';
import type { Evaluation, InlinkSummary, StrategyEnv } from './strategy.js';
import type { Contribution, FetchedInfo, FetchedPage, OutLink, Pending, Scorer, ScorerDeps, ScoreUpdate } from './types.js';

/** A dead link: non-2xx or an error page served with 200. Dead pages say nothing about topics. */
function isDead(page: FetchedPage): boolean {
  return (page.status !== undefined && page.status !== 0 && (page.status < 200 || page.status > 299)) || page.neverRelevant === 'http-status' || page.neverRelevant === 'error-page';
}

/** A URL scorer for one strategy (a registered strategy's name): it scores seeds and links and learns from each fetched page. */
// Long because: the scorer's state is shared by its methods (a closure over it).
export function createScorer(strategyName: string, options: Partial<ScoreOptions> = {}, deps: ScorerDeps = {}): Scorer {
  const def = getStrategy(strategyName);
  if (!def) throw new Error(`unknown strategy "${strategyName}" (${strategyNames().join(', ')})`);
  const o = parseScoreOptions(options);
  const bands = scoreBands(o);
  const strategy = def.create(o, deps);
  const t = strategy.traits;
  let rng = xoroshiro128plus(deps.randomSeed ?? 1);
  const random = () => uniformFloat64(rng);
  const graph = new LinkGraph(o.scaleFreeAlpha);
  const sites = new SiteTable();
  const book = new LinkBook(t.siteCutoff === true);
  const { pending, fetched } = book;
  let ipr = new Map<string, number>();
  // Hosts and directories that keep answering 404 lose priority (src/score/dead-links.ts).
  const deadLinks = new DeadLinkTracker();
  const usesDeadLinks = !t.ignoresDeadLinks;
  const boilerplate = new BoilerplateLinks();
  const removePending = (url: string) => {
    const p = pending.get(url);
    if (!p) return;
    book.removePending(url);
    if (p.deadKeys) deadLinks.untrack(url, p.deadKeys);
  };

  const filterOpts = {
    skipExtensions: o.skipExtensions,
    skipPathEnds: t.pathEnds ? o.skipPathEnds : [],
    anchorStoplist: o.anchorStoplist,
    stoplistWeight: t.stoplist ? o.stoplistWeight : 1,
    allowDomains: o.allowDomains,
    denyDomains: o.denyDomains,
    skipQueryKeys: o.skipQueryKeys,
    maxRepeats: o.maxRepeats,
  };

  function recomputeIpr(): void {
    const nodes = new Map<string, IprNode>();
    for (const [url, f] of fetched) {
      if (!f.relevant) continue;
      nodes.set(url, { init: f.rel, out: graph.pages.get(url)?.out ?? new Map() });
    }
    ipr = iPageRank(nodes, o.damping, o.iprIterations);
  }

  const env: StrategyEnv = {
    o,
    deps,
    graph,
    sites,
    fetched,
    unfetchedIpr(p: Pending): number {
      // §3.5 iPageRankOfUnfetched, inlined: it runs for every queued URL on each cycle.
      let sum = 0;
      for (const c of p.contributions) {
        const f = fetched.get(c.parent);
        if (!f || !f.relevant || f.rSum <= 0) continue;
        sum += ((ipr.get(c.parent) ?? f.rel) * c.sim) / f.rSum;
      }
      return 1 - o.damping + o.damping * sum;
    },
    clampedBias(parent: string): number {
      return Math.min(o.scaleFreeClamp, Math.max(1 / o.scaleFreeClamp, graph.bias(parent)));
    },
  };

  /**
   * Tunnel (§3.2) of one in-link: the parent rel to use ("as if relevant" while buffer > 0).
   * Combined keeps the real rel (no `tunnelLiftsRel`): lifting every irrelevant parent to
   * θ_page erased the parent signal that the §3.1 priority relies on (harvest fell below
   * best-first on Wikispeedia); there the tunnel only decides decay or not.
   */
  function tunnelRel(c: Contribution): number {
    return t.tunnel && t.tunnelLiftsRel && c.buffer !== undefined && c.buffer > 0 ? Math.max(c.parentRel, o.pageThreshold) : c.parentRel;
  }

  /** Multiplier once the buffer is spent: decay, or 0 = dropped under hard focus. */
  function tunnelFactor(c: Contribution): number {
    if (!t.tunnel || c.buffer === undefined || c.buffer > 0) return 1;
    return o.hardFocus ? 0 : o.decay;
  }

  /**
   * Relevance feedback (§3.2). Combined applies it to irrelevant parents only: on a relevant hub
   * the first few fetched children say little about the rest, and demoting them all costs the
   * harvest of topics whose relevant pages hang off such hubs (Wikispeedia's elements).
   */
  function feedbackFactor(c: Contribution): number {
    if (!t.feedback || (t.feedback === 'irrelevant-parents' && c.parentRelevant)) return 1;
    return fetched.get(c.parent)?.feedback.demoted ? o.decay : 1;
  }

  /**
   * Score of one queued URL from its in-links. With `explain`, the named components of the best
   * in-link and of the aggregate are filled in; periodic re-scoring runs without it (no
   * allocation per URL) and explains only the URLs whose score moved.
   */
  function evaluate(p: Pending, ex: Record<string, number> | undefined): Evaluation {
    if (ex) ex.inlinks = p.contributions.length;
    const early = strategy.before?.(p, env, ex);
    if (early) return early;

    let bestTerm = -Infinity;
    let best: Contribution | undefined;
    let bestPrio = 0;
    let sumTerms = 0;
    let sumRelevantTerms = 0;
    let maxSim = 0;
    let maxAnchor = 0;
    let relevantParents = 0;
    for (const c of p.contributions) {
      if (c.sim > maxSim) maxSim = c.sim;
      if (c.fAnchor > maxAnchor) maxAnchor = c.fAnchor;
      if (c.parentRelevant) relevantParents++;
      const tf = tunnelFactor(c);
      if (tf === 0) continue;
      if (t.rwb && c.rwb === 'reject') continue;
      const { term, prio } = strategy.term(c, tunnelRel(c), tf, feedbackFactor(c), env);
      sumTerms += term;
      if (c.parentRelevant) sumRelevantTerms += term;
      if (term > bestTerm) {
        bestTerm = term;
        best = c;
        bestPrio = prio;
      }
    }
    if (!best) return { score: 0, reason: t.rwb ? 'rwb-rejected' : 'tunnel-spent' };
    if (ex) explainTerm(best, bestPrio, ex);
    const summary: InlinkSummary = { best, bestTerm, bestPrio, sumTerms, sumRelevantTerms, maxSim, maxAnchor, relevantParents };
    let s = strategy.aggregate ? strategy.aggregate(summary, p, env, ex) : bestTerm;

    let timePr = 0;
    if (t.time) {
      const when = p.urlTime ?? best.parentTime;
      // Only a date written in the URL itself is trusted enough to discard the URL (§3.4).
      if (p.urlTime && deps.inTimeWindow && !deps.inTimeWindow(p.urlTime)) return { score: 0, best, reason: 'outside-time-window' };
      if (when && deps.timePr) {
        const pr = deps.timePr(when);
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
    let features: Evaluation['features'];
    if (strategy.finish) {
      const fin = strategy.finish(s, summary, p, env, ex, timePr);
      s = fin.score;
      features = fin.features;
    }
    if (usesDeadLinks) {
      const f = deadLinks.factor(p.url, p.deadKeys);
      if (f < 1) {
        s *= f;
        if (ex) ex.deadLinkFactor = f;
      }
    }
    // Links on most pages of their own site (sidebar, footer) lend no topic evidence: scaled down.
    // (Not for a discovery-order crawl: its order is its definition.)
    const bf = t.firstDiscoveryOnly ? 1 : boilerplate.factor(hostOf(p.url), p.url);
    if (bf < 1) {
      s *= bf;
      if (ex) ex.boilerplateFactor = bf;
    }
    return { score: s, best, features };
  }

  /** Named components of the best in-link's term. */
  function explainTerm(c: Contribution, prio: number, ex: Record<string, number>): void {
    ex.contextSim = c.sim;
    strategy.explainTerm(c, prio, tunnelRel(c), env, ex);
    if (t.tunnel && c.buffer !== undefined) {
      ex.tunnelBuffer = c.buffer;
      ex.tunnelFactor = tunnelFactor(c);
    }
    if (t.feedback) ex.feedbackDecay = feedbackFactor(c);
  }

  function score(p: Pending): ScoreUpdate {
    const components: Record<string, number> = {};
    const r = evaluate(p, components);
    // Score bands (src/score/bands.ts): whatever a strategy returns, it cannot outrank thread pages, revisits or seeds.
    const banded = strategyBandScore(bands, r.score);
    if (banded < r.score) components.rawStrategyScore = r.score;
    const up: ScoreUpdate = { url: p.url, depth: p.depth, parentUrl: r.best?.parent, score: banded, breakdown: { score: banded, components } };
    if (r.reason) {
      up.drop = true;
      up.reason = r.reason;
    }
    return up;
  }

  // Long because: one fetched page's updates to every learner and queued link, in order.
  function onPageFetched(page: FetchedPage): ScoreUpdate[] {
    const updates: ScoreUpdate[] = [];
    const touched = new Set<string>();
    const url = page.url;
    if (fetched.has(url)) return updates;
    const was = pending.get(url);
    const buffer = was ? bestBuffer(was.contributions) : undefined;
    const dead = isDead(page);
    if (strategy.learn && was && !dead) {
      // Train on what the URL looked like just before its fetch, labelled by the page's own verdict.
      const { features } = evaluate(was, undefined);
      if (features) strategy.learn(features, page.relevant, page);
    }
    const inlink = was && !dead ? strategy.fetched?.(was, page, env) : undefined;
    if (!dead) strategy.observe?.(page);
    if (!dead && strategy.rescoreAfter) for (const u of strategy.rescoreAfter(page, env)) if (u !== url) touched.add(u);
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
    if (t.siteCutoff && !wasCut && sites.isCut(host, o.siteCutoff)) {
      for (const u of book.pendingOnHost(host)) touched.add(u);
    }
    if (usesDeadLinks) for (const u of deadLinks.record(url, dead)) touched.add(u);

    // Relevance feedback (§3.2): this page is a fetched child of its parent.
    if (page.parentUrl) {
      const parent = fetched.get(page.parentUrl);
      if (parent) {
        const next = relevanceFeedback(parent.feedback, page.relevant, o.feedbackRun);
        parent.feedback = { run: next.run, demoted: next.demoted };
        const applies = t.feedback === 'all' || (t.feedback === 'irrelevant-parents' && !parent.relevant);
        if (next.triggered && applies) for (const ch of parent.children) if (pending.has(ch)) touched.add(ch);
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
    if (!dead) boilerplate.record(host, page.links.filter((l) => hostOf(l.url) === host).map((l) => l.url));
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
        p = book.pend(link.url, depth + 1, link.urlTime ?? dateFromUrl(link.url)).p;
        if (usesDeadLinks) p.deadKeys = deadLinks.track(link.url);
      } else {
        p.depth = Math.min(p.depth, depth + 1);
        if (t.firstDiscoveryOnly) continue; // FIFO: the first discovery fixes the order
      }
      const relation = pathRelation(url, link.url, link);
      const wPath = pathWeight(relation, o.tau);
      const rwb = t.rwb ? rwbAdmit(link.contextSim, o.rwbThreshold, o.rwbBand, o.rwbProbability, random) : 'admit';
      book.addContribution(p, {
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
        link: strategy.linkFeatures?.(link, p, page, sinceRelevant),
      });
      if (relation === 'redundant' && o.dropRedundant && t.dropsRedundant) {
        p.contributions.pop();
        if (p.contributions.length === 0) {
          removePending(link.url);
          updates.push({ url: link.url, depth: p.depth, parentUrl: url, score: 0, breakdown: { score: 0, components: {} }, drop: true, reason: 'redundant' });
        }
        continue;
      }
      touched.add(link.url);
    }

    const iprCycle = t.periodicRescore === true && graph.fetchedCount % o.iprEvery === 0;
    if (iprCycle && t.ipagerank) recomputeIpr();
    const cycle = iprCycle || (strategy.rescoreEvery !== undefined && graph.fetchedCount % strategy.rescoreEvery === 0);

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
    strategy: def.name,
    options: o,
    onPageFetched,
    seedScore: () => ({ score: o.seedScore, components: { seed: 1 } }),
    ipageRanks: () => ipr,
    sites,
    graph,
    learner: strategy.learner,
    readsPageWords: !!strategy.readsPageWords,
    state: () => scorerState({ graph, sites, book, deadLinks, strategy }, rng.getState(), ipr),
    restore(s) {
      restoreScorerParts({ graph, sites, book, deadLinks, strategy }, s);
      rng = xoroshiro128plusFromState(s.rng);
      ipr = s.ipr;
    },
  };
}
