/**
 * The score of one queued URL from its in-links (METHODS §3): the strategy's term for each
 * in-link after tunnelling and relevance feedback (§3.2), its aggregate, the time factor (§3.4),
 * its final factors, then the dead-link and boilerplate demotions and the strategies' score band.
 * The scorer (./scorer.ts) keeps the state this reads and calls it for each URL it re-scores.
 */
import { timeAwarePriority } from './priority.js';
import { hostOf } from './links.js';
import type { DeadLinkTracker } from './dead-links.js';
import type { BoilerplateLinks } from './boilerplate.js';
import { strategyBandScore, type ScoreBands } from './bands.js';
import type { ScoreOptions } from './options.js';
import type { Evaluation, InlinkSummary, Strategy, StrategyEnv, StrategyTraits } from './strategy.js';
import type { Contribution, Pending, ScoreUpdate } from './types.js';

/** Scores queued URLs with one strategy's formula over a scorer's live state. */
export class UrlEvaluator {
  private readonly options: ScoreOptions;
  private readonly traits: StrategyTraits;

  /**
   * @param deadLinks the dead-link tracker, or undefined when the strategy ignores dead links
   * @param boilerplate the site-wide links table (not read by a discovery-order strategy)
   */
  constructor(
    private readonly formula: Strategy,
    private readonly env: StrategyEnv,
    private readonly bands: ScoreBands,
    private readonly deadLinks: DeadLinkTracker | undefined,
    private readonly boilerplate: BoilerplateLinks,
  ) {
    this.options = env.o;
    this.traits = formula.traits;
  }

  /** A queued URL's update, explained, within the strategies' score band. */
  update(p: Pending): ScoreUpdate {
    const components: Record<string, number> = {};
    const r = this.evaluate(p, components);
    // Score bands (./bands.ts): whatever a strategy returns, it cannot outrank thread pages, revisits or seeds.
    const banded = strategyBandScore(this.bands, r.score);
    if (banded < r.score) components.rawStrategyScore = r.score;
    const up: ScoreUpdate = { url: p.url, depth: p.depth, parentUrl: r.best?.parent, score: banded, breakdown: { score: banded, components } };
    if (r.reason) {
      up.drop = true;
      up.reason = r.reason;
    }
    return up;
  }

  /**
   * Score of one queued URL from its in-links. With `explain`, the named components of the best
   * in-link and of the aggregate are filled in; periodic re-scoring runs without it (no
   * allocation per URL) and explains only the URLs whose score moved.
   */
  evaluate(p: Pending, ex: Record<string, number> | undefined): Evaluation {
    const { formula, traits, env } = this;
    if (ex) ex.inlinks = p.contributions.length;
    const early = formula.before?.(p, env, ex);
    if (early) return early;
    const summary = this.summarizeInlinks(p);
    if (!summary) return { score: 0, reason: traits.rwb ? 'rwb-rejected' : 'tunnel-spent' };
    const { best, bestPrio } = summary;
    if (ex) this.explainTerm(best, bestPrio, ex);
    let s = formula.aggregate ? formula.aggregate(summary, p, env, ex) : summary.bestTerm;

    let timePr = 0;
    if (traits.time) {
      const { deps } = env;
      const when = p.urlTime ?? best.parentTime;
      // Only a date written in the URL itself is trusted enough to discard the URL (§3.4).
      if (p.urlTime && deps.inTimeWindow && !deps.inTimeWindow(p.urlTime)) return { score: 0, best, reason: 'outside-time-window' };
      if (when && deps.timePr) {
        timePr = deps.timePr(when);
        // §3.4 gates e^{Pr} on prio(u) (the §3.1 value), then scales the strategy's score by it.
        const f = bestPrio > 0 ? timeAwarePriority(bestPrio, timePr, this.options.timeMinPriority) / bestPrio : 1;
        if (ex) {
          ex.timePr = timePr;
          ex.timeFactor = f;
        }
        s *= f;
      }
    }
    let features: Evaluation['features'];
    if (formula.finish) {
      const fin = formula.finish(s, summary, p, env, ex, timePr);
      s = fin.score;
      features = fin.features;
    }
    return { score: this.demoted(p, s, ex), best, features };
  }

  /** The score after the dead-link factor and, for links on most pages of their own site, the boilerplate factor. */
  private demoted(p: Pending, score: number, ex: Record<string, number> | undefined): number {
    let s = score;
    if (this.deadLinks) {
      const f = this.deadLinks.factor(p.url, p.deadKeys);
      if (f < 1) {
        s *= f;
        if (ex) ex.deadLinkFactor = f;
      }
    }
    // Links on most pages of their own site (sidebar, footer) lend no topic evidence: scaled down.
    // (Not for a discovery-order crawl: its order is its definition.)
    const bf = this.traits.firstDiscoveryOnly ? 1 : this.boilerplate.factor(hostOf(p.url), p.url);
    if (bf < 1) {
      s *= bf;
      if (ex) ex.boilerplateFactor = bf;
    }
    return s;
  }

  /** One walk over a queued URL's in-links: the best term and the sums (undefined when no in-link counts). */
  private summarizeInlinks(p: Pending): InlinkSummary | undefined {
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
      const tf = this.tunnelFactor(c);
      if (tf === 0) continue;
      if (this.traits.rwb && c.rwb === 'reject') continue;
      const { term, prio } = this.formula.term(c, this.tunnelRel(c), tf, this.feedbackFactor(c), this.env);
      sumTerms += term;
      if (c.parentRelevant) sumRelevantTerms += term;
      if (term > bestTerm) {
        bestTerm = term;
        best = c;
        bestPrio = prio;
      }
    }
    return best && { best, bestTerm, bestPrio, sumTerms, sumRelevantTerms, maxSim, maxAnchor, relevantParents };
  }

  /** Named components of the best in-link's term. */
  private explainTerm(c: Contribution, prio: number, ex: Record<string, number>): void {
    ex.contextSim = c.sim;
    this.formula.explainTerm(c, prio, this.tunnelRel(c), this.env, ex);
    if (this.traits.tunnel && c.buffer !== undefined) {
      ex.tunnelBuffer = c.buffer;
      ex.tunnelFactor = this.tunnelFactor(c);
    }
    if (this.traits.feedback) ex.feedbackDecay = this.feedbackFactor(c);
  }

  /**
   * Tunnel (§3.2) of one in-link: the parent rel to use ("as if relevant" while buffer > 0).
   * Combined keeps the real rel (no `tunnelLiftsRel`): lifting every irrelevant parent to
   * θ_page erased the parent signal that the §3.1 priority relies on (harvest fell below
   * best-first on Wikispeedia); there the tunnel only decides decay or not.
   */
  private tunnelRel(c: Contribution): number {
    const t = this.traits;
    return t.tunnel && t.tunnelLiftsRel && c.buffer !== undefined && c.buffer > 0 ? Math.max(c.parentRel, this.options.pageThreshold) : c.parentRel;
  }

  /** Multiplier once the buffer is spent: decay, or 0 = dropped under hard focus. */
  private tunnelFactor(c: Contribution): number {
    if (!this.traits.tunnel || c.buffer === undefined || c.buffer > 0) return 1;
    return this.options.hardFocus ? 0 : this.options.decay;
  }

  /**
   * Relevance feedback (§3.2). Combined applies it to irrelevant parents only: on a relevant hub
   * the first few fetched children say little about the rest, and demoting them all costs the
   * harvest of topics whose relevant pages hang off such hubs (Wikispeedia's elements).
   */
  private feedbackFactor(c: Contribution): number {
    const feedback = this.traits.feedback;
    if (!feedback || (feedback === 'irrelevant-parents' && c.parentRelevant)) return 1;
    return this.env.fetched.get(c.parent)?.feedback.demoted ? this.options.decay : 1;
  }
}
