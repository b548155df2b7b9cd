/**
 * The URL scorer (METHODS §3): the engine feeds each fetched page in as plain data and gets back
 * score updates for URLs (new children, and queued URLs whose score changed: new in-links,
 * relevance feedback, IPageRank cycles, site cutoff). It keeps the state the formula reads: the
 * link graph (./structure.ts), the queued and fetched URLs with their tunnel buffers and feedback
 * runs (./links.ts), the site table, dead links, boilerplate links and IPageRank values. A queued
 * URL's score from that state is ./evaluator.ts's; what differs between strategies lives in
 * ./strategies/ (one file each).
 *
 * A fetched page is taken in by named steps in a fixed order (the strategy's learners, the site
 * table, relevance feedback, out-links, children, re-scoring): that order decides the order of
 * the updates and of the random draws, so a crawl replays the same from the same seed.
 */
import { xoroshiro128plus, xoroshiro128plusFromState } from 'pure-rand/generator/xoroshiro128plus';
import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import { parseScoreOptions, type ScoreOptions } from './options.js';
import { dateFromUrl, pageLinkTerm } from './priority.js';
import { LinkGraph, linkCoefficient, pathRelation, pathWeight, relevanceFeedback, tunnelBuffer } from './structure.js';
import { iPageRank, rwbAdmit, type IprNode } from './ipagerank.js';
import { SiteTable, urlFilter, type UrlFilterOptions } from './filters.js';
import { bestBuffer, hostOf, LinkBook } from './links.js';
import { DeadLinkTracker } from './dead-links.js';
import { BoilerplateLinks } from './boilerplate.js';
import { scoreBands } from './bands.js';
import { UrlEvaluator } from './evaluator.js';
import { getStrategy, strategyNames } from './strategies/registry.js';
import { restoreScorerParts, scorerState, type ScorerParts } from './snapshot.js';
import type { OnlineLogistic } from './learned.js';
import type { LinkFeatures } from './link-ranker.js';
import type { Strategy, StrategyDefinition, StrategyEnv, StrategyTraits } from './strategy.js';
import type { FetchedInfo, FetchedPage, OutLink, Pending, ScoreBreakdown, Scorer, ScorerDeps, ScorerState, ScoreUpdate } from './types.js';

/** A dead link: non-2xx or an error page served with 200. Dead pages say nothing about topics. */
function isDead(page: FetchedPage): boolean {
  return (
    (page.status !== undefined && page.status !== 0 && (page.status < 200 || page.status > 299)) ||
    page.neverRelevant === 'http-status' ||
    page.neverRelevant === 'error-page'
  );
}

/** The update that drops a URL from the queue, for `reason`. */
function dropUpdate(url: string, depth: number, parentUrl: string, reason: string | undefined): ScoreUpdate {
  return { url, depth, parentUrl, score: 0, breakdown: { score: 0, components: {} }, drop: true, reason };
}

/** One fetched page on its way through `onPageFetched`: what its steps read, and what they add. */
interface Intake {
  readonly page: FetchedPage;
  readonly dead: boolean;
  /** The shallower of the fetch's depth and the queued URL's. */
  readonly depth: number;
  readonly host: string;
  /** Irrelevant pages in a row on the shortest such run to this page (0 when it is relevant). */
  readonly sinceRelevant: number;
  /** The updates returned, in order. */
  readonly updates: ScoreUpdate[];
  /** Queued URLs to re-score once the page is taken in, in the order they were touched. */
  readonly touched: Set<string>;
}

/** An out-link the URL filter kept, with its anchor stoplist weight. */
interface KeptLink {
  link: OutLink;
  weight: number;
}

/** The scorer of one strategy; `createScorer` makes it. */
class UrlScorer implements Scorer {
  /** The strategy's registered name. */
  readonly strategy: string;
  readonly options: ScoreOptions;
  readonly graph: LinkGraph;
  readonly sites: SiteTable;
  readonly learner?: OnlineLogistic;
  readonly readsPageWords: boolean;
  /** The strategy's formula and its learners, made for this scorer. */
  private readonly formula: Strategy;
  private readonly traits: StrategyTraits;
  /** Queued and fetched URLs (./links.ts); `pending` and `fetched` are its maps. */
  private readonly book: LinkBook;
  private readonly pending: Map<string, Pending>;
  private readonly fetched: Map<string, FetchedInfo>;
  /** Hosts and directories that keep answering 404 lose priority (./dead-links.ts). */
  private readonly deadLinks: DeadLinkTracker;
  private readonly usesDeadLinks: boolean;
  /** Links on most pages of their own site (sidebar, footer), scaled down (./boilerplate.ts). */
  private readonly boilerplate: BoilerplateLinks;
  private readonly filterOptions: UrlFilterOptions;
  /** What the strategy reads while scoring. */
  private readonly env: StrategyEnv;
  /** Scores queued URLs from their in-links (./evaluator.ts). */
  private readonly evaluator: UrlEvaluator;
  /** The random draws of the RW/RWB admission (§3.5); saved with the state. */
  private rng: ReturnType<typeof xoroshiro128plus>;
  private readonly random = (): number => uniformFloat64(this.rng);
  /** IPageRank of the fetched relevant pages, as of the last cycle (§3.5). */
  private ipr = new Map<string, number>();

  constructor(def: StrategyDefinition, options: Partial<ScoreOptions>, deps: ScorerDeps) {
    this.strategy = def.name;
    const o = (this.options = parseScoreOptions(options));
    const bands = scoreBands(o);
    this.formula = def.create(o, deps);
    const traits = (this.traits = this.formula.traits);
    this.rng = xoroshiro128plus(deps.randomSeed ?? 1);
    this.graph = new LinkGraph(o.scaleFreeAlpha);
    this.sites = new SiteTable();
    this.book = new LinkBook(traits.siteCutoff === true);
    this.pending = this.book.pending;
    this.fetched = this.book.fetched;
    this.deadLinks = new DeadLinkTracker();
    this.usesDeadLinks = !traits.ignoresDeadLinks;
    this.boilerplate = new BoilerplateLinks();
    this.filterOptions = {
      skipExtensions: o.skipExtensions,
      skipPathEnds: traits.pathEnds ? o.skipPathEnds : [],
      anchorStoplist: o.anchorStoplist,
      stoplistWeight: traits.stoplist ? o.stoplistWeight : 1,
      allowDomains: o.allowDomains,
      denyDomains: o.denyDomains,
      skipQueryKeys: o.skipQueryKeys,
      maxRepeats: o.maxRepeats,
    };
    this.env = this.strategyEnv(deps);
    this.evaluator = new UrlEvaluator(this.formula, this.env, bands, this.usesDeadLinks ? this.deadLinks : undefined, this.boilerplate);
    this.learner = this.formula.learner;
    this.readsPageWords = !!this.formula.readsPageWords;
  }

  seedScore(): ScoreBreakdown {
    return { score: this.options.seedScore, components: { seed: 1 } };
  }

  ipageRanks(): ReadonlyMap<string, number> {
    return this.ipr;
  }

  state(): ScorerState {
    return scorerState(this.parts(), this.rng.getState(), this.ipr);
  }

  restore(s: ScorerState): void {
    restoreScorerParts(this.parts(), s);
    this.rng = xoroshiro128plusFromState(s.rng);
    this.ipr = s.ipr;
  }

  onPageFetched(page: FetchedPage): ScoreUpdate[] {
    if (this.fetched.has(page.url)) return [];
    const was = this.pending.get(page.url);
    const buffer = was ? bestBuffer(was.contributions) : undefined;
    const dead = isDead(page);
    const touched = new Set<string>();
    const inlink = this.teachStrategy(page, was, dead, touched);
    const sinceRelevant = this.irrelevantRun(page, was);
    const depth = Math.min(page.depth, was?.depth ?? page.depth);
    this.removePending(page.url);
    const intake: Intake = { page, dead, depth, host: page.host ?? hostOf(page.url), sinceRelevant, updates: [], touched };
    this.recordSite(intake);
    this.feedBackToParent(intake);
    const kept = this.recordOutlinks(intake);
    const info = this.recordFetched(intake, buffer, inlink);
    this.queueChildren(intake, info, kept, tunnelBuffer(page.relevant, buffer, depth, this.options.tunnelAlpha));
    this.rescore(intake);
    return intake.updates;
  }

  private parts(): ScorerParts {
    return { graph: this.graph, sites: this.sites, book: this.book, deadLinks: this.deadLinks, strategy: this.formula };
  }

  /** What a strategy may read while scoring: this scorer's live state. */
  private strategyEnv(deps: ScorerDeps): StrategyEnv {
    const { options: o, graph, fetched } = this;
    return {
      o,
      deps,
      graph,
      sites: this.sites,
      fetched,
      unfetchedIpr: (p: Pending): number => {
        // §3.5 iPageRankOfUnfetched, inlined: it runs for every queued URL on each cycle.
        const ipr = this.ipr;
        let sum = 0;
        for (const c of p.contributions) {
          const f = fetched.get(c.parent);
          if (!f || !f.relevant || f.rSum <= 0) continue;
          sum += ((ipr.get(c.parent) ?? f.rel) * c.sim) / f.rSum;
        }
        return 1 - o.damping + o.damping * sum;
      },
      clampedBias: (parent: string): number => Math.min(o.scaleFreeClamp, Math.max(1 / o.scaleFreeClamp, graph.bias(parent))),
    };
  }

  /** A queued URL leaves the queue (fetched, or dropped) and the dead-link tracker. */
  private removePending(url: string): void {
    const p = this.pending.get(url);
    if (!p) return;
    this.book.removePending(url);
    if (p.deadKeys) this.deadLinks.untrack(url, p.deadKeys);
  }

  private recomputeIpr(): void {
    const nodes = new Map<string, IprNode>();
    for (const [url, f] of this.fetched) {
      if (!f.relevant) continue;
      nodes.set(url, { init: f.rel, out: this.graph.pages.get(url)?.out ?? new Map() });
    }
    this.ipr = iPageRank(nodes, this.options.damping, this.options.iprIterations);
  }

  /**
   * The strategy's learners take the page in (not a dead link's); returns the features of the
   * in-link it was reached by, kept with the page. URLs whose score the page changed are touched.
   */
  private teachStrategy(page: FetchedPage, was: Pending | undefined, dead: boolean, touched: Set<string>): LinkFeatures | undefined {
    const { formula, env } = this;
    if (formula.learn && was && !dead) {
      // Train on what the URL looked like just before its fetch, labelled by the page's own verdict.
      const { features } = this.evaluator.evaluate(was, undefined);
      if (features) formula.learn(features, page.relevant, page);
    }
    const inlink = was && !dead ? formula.fetched?.(was, page, env) : undefined;
    if (!dead) formula.observe?.(page);
    if (!dead && formula.rescoreAfter) for (const u of formula.rescoreAfter(page, env)) if (u !== page.url) touched.add(u);
    return inlink;
  }

  /** Irrelevant pages in a row up to this one, along its shortest such run (0: relevant; 1: an irrelevant seed). */
  private irrelevantRun(page: FetchedPage, was: Pending | undefined): number {
    if (page.relevant) return 0;
    if (!was) return 1;
    let run = Infinity;
    for (const c of was.contributions) run = Math.min(run, 1 + (this.fetched.get(c.parent)?.sinceRelevant ?? 0));
    return Number.isFinite(run) ? run : 1;
  }

  /** Site table (§3.6) and dead links; a site that crosses the cutoff has its queued URLs re-scored (classic). */
  private recordSite({ page, dead, host, touched }: Intake): void {
    const { sites, options: o } = this;
    // Dead links are not the site's irrelevant pages: link rot must not cut a site (§3.6).
    const wasCut = sites.isCut(host, o.siteCutoff);
    if (!dead) sites.record(host, page.relevant);
    if (this.traits.siteCutoff && !wasCut && sites.isCut(host, o.siteCutoff)) {
      for (const u of this.book.pendingOnHost(host)) touched.add(u);
    }
    if (this.usesDeadLinks) for (const u of this.deadLinks.record(page.url, dead)) touched.add(u);
  }

  /** Relevance feedback (§3.2): this page is a fetched child of its parent. */
  private feedBackToParent({ page, touched }: Intake): void {
    const parent = page.parentUrl ? this.fetched.get(page.parentUrl) : undefined;
    if (!parent) return;
    const next = relevanceFeedback(parent.feedback, page.relevant, this.options.feedbackRun);
    parent.feedback = { run: next.run, demoted: next.demoted };
    const feedback = this.traits.feedback;
    const applies = feedback === 'all' || (feedback === 'irrelevant-parents' && !parent.relevant);
    if (next.triggered && applies) for (const child of parent.children) if (this.pending.has(child)) touched.add(child);
  }

  /** The page's out-links through the URL filter (a new URL filtered out is dropped), into the link graph; returns those kept. */
  private recordOutlinks({ page, dead, depth, host, updates }: Intake): KeptLink[] {
    const url = page.url;
    const kept: KeptLink[] = [];
    const graphLinks: { url: string; r: number; valid: boolean }[] = [];
    for (const link of page.links) {
      const f = urlFilter(link.url, link, this.filterOptions);
      graphLinks.push({ url: link.url, r: Math.max(0, link.contextSim), valid: f.keep });
      if (!f.keep) {
        if (!this.fetched.has(link.url) && !this.pending.has(link.url)) updates.push(dropUpdate(link.url, depth + 1, url, f.reason));
        continue;
      }
      if (link.url === url) continue;
      kept.push({ link, weight: f.weight });
    }
    this.graph.addPage(url, page.rel, page.relevant, graphLinks);
    if (!dead) {
      const onHost = page.links.filter((l) => hostOf(l.url) === host).map((l) => l.url);
      this.boilerplate.record(host, onHost);
    }
    return kept;
  }

  /** The page as a fetched parent: what its children's in-links read. */
  private recordFetched({ page, depth, sinceRelevant }: Intake, buffer: number | undefined, inlink: LinkFeatures | undefined): FetchedInfo {
    let rSum = 0;
    for (const r of this.graph.pages.get(page.url)!.out.values()) rSum += r;
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
    this.fetched.set(page.url, info);
    return info;
  }

  /** Each kept link not fetched yet is queued with this page's in-link (a redundant one is not added) and touched. */
  private queueChildren({ page, depth, sinceRelevant, updates, touched }: Intake, info: FetchedInfo, kept: KeptLink[], childBuffer: number | undefined): void {
    const { options: o, traits, book, formula } = this;
    const url = page.url;
    const sims = kept.map((k) => k.link.contextSim);
    const pageTerm = pageLinkTerm(sims, o.linkThreshold, o.smoothingHigh, o.smoothingLow);
    const seenHere = new Set<string>();
    for (const { link, weight } of kept) {
      if (this.fetched.has(link.url) || seenHere.has(link.url)) continue;
      seenHere.add(link.url);
      info.children.push(link.url);
      let p = this.pending.get(link.url);
      if (!p) {
        p = book.pend(link.url, depth + 1, link.urlTime ?? dateFromUrl(link.url)).p;
        if (this.usesDeadLinks) p.deadKeys = this.deadLinks.track(link.url);
      } else {
        p.depth = Math.min(p.depth, depth + 1);
        if (traits.firstDiscoveryOnly) continue; // FIFO: the first discovery fixes the order
      }
      const relation = pathRelation(url, link.url, link);
      const wPath = pathWeight(relation, o.tau);
      const rwb = traits.rwb ? rwbAdmit(link.contextSim, o.rwbThreshold, o.rwbBand, o.rwbProbability, this.random) : 'admit';
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
        link: formula.linkFeatures?.(link, p, page, sinceRelevant),
      });
      if (relation === 'redundant' && o.dropRedundant && traits.dropsRedundant) {
        p.contributions.pop();
        if (p.contributions.length === 0) {
          this.removePending(link.url);
          updates.push(dropUpdate(link.url, p.depth, url, 'redundant'));
        }
        continue;
      }
      touched.add(link.url);
    }
  }

  /** The touched queued URLs re-scored; on a cycle (IPageRank's, or the strategy's own period), the rest of the queue too. */
  private rescore(intake: Intake): void {
    const { options: o, traits, graph, formula } = this;
    const iprCycle = traits.periodicRescore === true && graph.fetchedCount % o.iprEvery === 0;
    if (iprCycle && traits.ipagerank) this.recomputeIpr();
    const cycle = iprCycle || (formula.rescoreEvery !== undefined && graph.fetchedCount % formula.rescoreEvery === 0);
    for (const u of intake.touched) {
      const p = this.pending.get(u);
      if (!p) continue;
      const up = this.evaluator.update(p);
      p.last = up.drop ? NaN : up.score;
      intake.updates.push(up);
    }
    if (cycle) this.rescoreQueue(intake);
  }

  /**
   * IPageRank cycle (§3.5): every iprEvery fetched pages, every queued URL not touched is
   * re-scored, which also refreshes Π(j) and site bonuses that drifted since the URL was scored.
   * Only changes beyond the tolerance are reported, so the frontier is not flooded with no-ops.
   */
  private rescoreQueue({ touched, updates }: Intake): void {
    const tolerance = this.options.rescoreTolerance;
    for (const p of this.pending.values()) {
      if (touched.has(p.url)) continue;
      const r = this.evaluator.evaluate(p, undefined);
      const now = r.reason ? NaN : r.score;
      const old = p.last;
      const same = old !== undefined && (Number.isNaN(old) ? Number.isNaN(now) : !Number.isNaN(now) && Math.abs(now - old) <= tolerance * Math.abs(old));
      if (same) continue;
      p.last = now;
      updates.push(this.evaluator.update(p));
    }
  }
}

/** A URL scorer for one strategy (a registered strategy's name): it scores seeds and links and learns from each fetched page. */
export function createScorer(strategyName: string, options: Partial<ScoreOptions> = {}, deps: ScorerDeps = {}): Scorer {
  const def = getStrategy(strategyName);
  if (!def) throw new Error(`unknown strategy "${strategyName}" (${strategyNames().join(', ')})`);
  return new UrlScorer(def, options, deps);
}
