/**
 * `combined`: every METHODS §3 component as one score. Their product is the starting point;
 * with `learnWeights`, a logistic model over the components (src/score/learned.ts) re-weights
 * them online from the crawl's own verdicts.
 */
import { OnlineLogistic, type OnlineLogisticState } from '../learned.js';
import { LinkRanker, type LinkFeatures, type LinkRankerState } from '../link-ranker.js';
import { linkWords, LinkWordModel, type LinkWordState } from '../link-words.js';
import { checkStateVersion } from '../state-data.js';
import { TopicalLabel, type TopicalLabelState } from '../topical-label.js';
import { WordCredibility } from '../word-credibility.js';
import { HubTable, type HubTableState } from '../hubs.js';
import { childLinkSmoothing, parentAnchorPriority } from '../priority.js';
import type { LearnerFeatures, StrategyDefinition } from '../strategy.js';
import type { FetchedPage, Pending } from '../types.js';
import { hostOf } from '../links.js';
import { tokenize } from '../../text/tokenize.js';

/** Inputs of combined's learned weights (src/score/learned.ts), each in about [0, 1]. */
export const COMBINED_FEATURES = [
  'product', // log of the fixed product of §3.1–§3.6 terms, /4
  'maxContextSim', // best cos(T, A_u) over in-links (§3.1)
  'parentRel', // rel of the best in-linker (§3.1)
  'relevantInlinks', // log(1 + relevant in-linkers) / log(1 + relevant pages fetched) (§3.2 accumulation)
  'inlinks', // log(1 + in-linkers) / log(1 + pages fetched)
  'wPath', // path relation of the best in-link (§3.2)
  'fAnchor', // topic keyword share in the link context (§3.2)
  'siteRelevance', // relevant/fetched of the URL's host (§3.6)
  'tunnel', // 1 when the best in-linker is irrelevant (§3.2 tunnelling)
  'ipagerank', // IPR(u) - (1-d), clipped to [0,1] (§3.5)
  'timePr', // Pr(t|T) of the URL's date (§3.4)
  'depth', // link depth / 10, capped
  'linkRanker', // the link ranker's log-odds evidence plus its optimism about the target's kind (src/score/link-ranker.ts), /4
  'linkWords', // the link-word evidence (src/score/link-words.ts) × linkWordsWeight, /4
  'hub', // the best of the URL's parents' children's evidence (src/score/hubs.ts) × hubEvidence, /4
] as const;

/** The name of one feature of the `combined` strategy's learned weights. */
export type CombinedFeature = (typeof COMBINED_FEATURES)[number];

/** The learner's input vector, in COMBINED_FEATURES order (looked up by name, never by position). */
export function featureVector(f: Record<CombinedFeature, number>): number[] {
  return COMBINED_FEATURES.map((k) => f[k]);
}

/**
 * An in-link count as a share of the pages that could have linked, on a log scale, in [0, 1].
 * The raw log(1 + n) reached 4–5 for navigation links (every page links the home page, the
 * channels, the forum): once the learner had seen such hubs judged irrelevant, its weights
 * (-0.45 and -0.48 after 110 pages on the test web's finance topic) times 4.7 outvoted every
 * other input, and the forum, linked from 106 pages, scored 0.005 against its fixed product's
 * 0.33: it was never fetched, nor its relevant threads.
 */
function logShare(n: number, of: number): number {
  return of > 0 ? Math.min(1, Math.log1p(n) / Math.log1p(of)) : 0;
}

/** The word evidence of one in-link: its word ids sit in its feature chunk after its features. */
function linkWordEvidence(words: LinkWordModel, f: LinkFeatures): number {
  const from = f.start + f.n;
  return words.evidence(f.chunk.idx, from, from + (f.words ?? 0));
}

/** combined's learned state (src/score/state-data.ts). */
interface CombinedState {
  v: 1;
  learner?: OnlineLogisticState;
  ranker?: LinkRankerState;
  words?: LinkWordState;
  credibility?: ReturnType<WordCredibility['state']>;
  hubs?: HubTableState;
  labels: TopicalLabelState;
}

/** Pages ranked before a page's rank in the judge's evidence counts in its label (src/score/topical-label.ts). */
const RANK_WARMUP = 30;

export const combined: StrategyDefinition = {
  name: 'combined',
  description: 'all of the above as one score, re-weighted online by a logistic model of the crawl\'s own verdicts',
  // Long because: the strategy's learners are shared by its evaluate and learn steps.
  create(o) {
    // Feature `product` is the log of the fixed product /4: prior weight 4 undoes the scaling,
    // so the first ranking is exactly the product's.
    const learner = o.learnWeights
      ? new OnlineLogistic({ size: COMBINED_FEATURES.length, prior: COMBINED_FEATURES.map((f) => (f === 'product' || f === 'linkRanker' || f === 'linkWords' || f === 'hub' ? 4 : 0)), learningRate: o.learningRate, l2: o.learnL2, maxDeviation: o.learnWeightBound, minEvidence: o.learnMinEvidence })
      : undefined;
    // The learned link ranker: its evidence enters the score in log-odds (prior weight 4 undoes the /4).
    const ranker = o.linkRanker ? new LinkRanker({ decay: o.decay }) : undefined;
    const words = ranker && o.linkWords ? new LinkWordModel() : undefined;
    // How far the word evidence has predicted this crawl's outcomes, per host (src/score/word-credibility.ts).
    const credibility = words && o.linkWordsCredibility ? new WordCredibility({ prior: o.linkWordsCredibilityPrior, scale: o.linkWordsCredibilityScale }) : undefined;
    // What each fetched page's links have led to (src/score/hubs.ts): a feature of the learned weights.
    const hubs = learner && o.hubEvidence > 0 ? new HubTable() : undefined;
    /** Parents whose children's labels the last page changed: their queued children are re-scored. */
    let hubsChanged: string[] = [];
    const recordHub = (page: FetchedPage, parents: Iterable<string>) => {
      if (!hubs) return;
      hubsChanged.push(...hubs.record(page.url, topicalLabel(page), parents, page.links.map((l) => l.url)));
    };
    /** The evidence of what a queued URL's parents' links have led to (0 when none has judged children). */
    const hubEvidenceOf = (p: Pending): number => {
      if (!hubs) return 0;
      const all = hubs.evidence(p.contributions.map((c) => c.parent));
      if (all <= 0) return all;
      // A parent judged relevant already lends its children its relevance (§3.1); what only its
      // children's harvest shows is a page off the topic whose links lead to it (a list).
      return Math.max(0, Math.min(all, hubs.evidence(p.contributions.filter((c) => !c.parentRelevant).map((c) => c.parent))));
    };
    /** The best word evidence among a queued URL's in-links (0 before pages of both kinds). */
    const wordEvidenceOf = (p: Pending): number => {
      if (!words || words.relevantPages === 0) return 0;
      let e = -Infinity;
      for (const c of p.contributions) if (c.link?.words) e = Math.max(e, linkWordEvidence(words, c.link));
      return Number.isFinite(e) ? e : 0;
    };
    // The label every learner here trains on (src/score/topical-label.ts).
    const labels = new TopicalLabel({ mode: o.learnLabel, power: o.linkWordsLabelPower, warmup: RANK_WARMUP });
    const topicalLabel = (page: FetchedPage): number => labels.of(page);
    return {
      traits: { tunnel: true, feedback: 'irrelevant-parents', ipagerank: true, periodicRescore: true, time: true, pathEnds: true, stoplist: true, dropsRedundant: true },
      term(c, rel, tf, fb, env) {
        const prio = parentAnchorPriority(rel, childLinkSmoothing(c.sim, c.c, o.delta), o.theta, o.gamma);
        return { term: prio * c.omega * env.clampedBias(c.parent) * c.stoplistWeight * tf * fb, prio };
      },
      aggregate(s, _p, _env, ex) {
        // In-links from other *relevant* parents add up to inlinkShare × best, no more: an
        // unbounded sum made generic hub pages (linked from everywhere) outrank on-topic links.
        const others = s.sumRelevantTerms - (s.best.parentRelevant ? s.bestTerm : 0);
        const acc = s.bestTerm > 0 ? o.inlinkShare * Math.tanh(others / s.bestTerm) : 0;
        if (ex) ex.inlinkBonus = 1 + acc;
        return s.bestTerm * (1 + acc);
      },
      finish(score, s, p, env, ex, timePr) {
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
          else {
            // What the ranker does not know yet about the target's kind (host and URL shape): an
            // upper confidence bound on it, added to the evidence (src/score/link-ranker.ts, optimism).
            const optimism = o.linkExplore > 0 ? ranker.optimism(bestLink, ranker.kindFeature(p.url, p.host), o.linkExplore) : 0;
            if (ex) {
              const pr = ranker.predict(bestLink);
              ex.linkTarget = pr.target;
              ex.linkBeyond = pr.beyond;
              ex.linkRanker = evidence;
              if (o.linkExplore > 0) ex.linkExplore = optimism;
            }
            evidence += optimism;
          }
        }
        let wordEvidence = 0;
        if (words && words.relevantPages > 0) {
          wordEvidence = wordEvidenceOf(p);
          if (ex) ex.linkWords = wordEvidence;
          if (credibility) {
            const c = credibility.of(p.host);
            if (ex) ex.linkWordsCredibility = c;
            wordEvidence *= c;
          }
        }
        const hub = hubEvidenceOf(p);
        if (ex && hubs) ex.hub = hub;
        const v = env.unfetchedIpr(p);
        const iprFactor = 1 + o.iprBonus * Math.min(1, Math.max(0, v - (1 - o.damping)));
        const siteFactor = 1 + o.siteBonus * env.sites.relevance(p.host);
        if (ex) {
          ex.ipagerank = v;
          ex.iprFactor = iprFactor;
          ex.siteBonus = siteFactor;
        }
        let out = score * (iprFactor * siteFactor); // as `s *= iprFactor * siteFactor`: same rounding as before the split
        if (!learner) return { score: out };
        const features: Record<CombinedFeature, number> = {
          product: Math.min(3, Math.max(-12, Math.log(Math.max(out, 1e-12)))) / 4,
          maxContextSim: s.maxSim,
          parentRel: s.best.parentRel,
          relevantInlinks: logShare(s.relevantParents, env.sites.relevantPages),
          inlinks: logShare(p.contributions.length, env.sites.pages),
          wPath: s.best.wPath,
          fAnchor: s.maxAnchor,
          siteRelevance: env.sites.relevance(p.host),
          tunnel: s.best.parentRelevant ? 0 : 1,
          ipagerank: Math.min(1, Math.max(0, v - (1 - o.damping))),
          timePr,
          depth: Math.min(p.depth, 10) / 10,
          linkRanker: evidence / 4,
          linkWords: (wordEvidence * o.linkWordsWeight) / 4,
          hub: (hub * o.hubEvidence) / 4,
        };
        const learned = learner.predict(featureVector(features));
        if (ex) {
          ex.fixedProduct = out;
          ex.learnedWeight = learned;
        }
        out = learned;
        return { score: out, features };
      },
      explainTerm(c, prio, _rel, env, ex) {
        ex.parentPriority = prio;
        ex.smoothedSim = childLinkSmoothing(c.sim, c.c, o.delta);
        if (c.c !== undefined) ex.pageLinkTerm = c.c;
        ex.wPath = c.wPath;
        ex.omega = c.omega;
        ex.scaleFree = env.clampedBias(c.parent);
        ex.stoplist = c.stoplistWeight;
      },
      learn: learner ? (f: LearnerFeatures, _relevant: boolean, page: FetchedPage) => learner.update(featureVector(f as Record<CombinedFeature, number>), topicalLabel(page)) : undefined,
      // The link ranker learns from this page's label: the target outcome of its in-links (one
      // example, their mean features: a hub's many in-links are not many lessons), and the
      // parent's own in-link's "beyond" outcome (a page linked from its target was judged). Not
      // from a dead link (the scorer does not call this for one): its anchor may have named the
      // topic well; the page is gone.
      fetched: ranker || hubs
        ? (was, page, env) => {
            recordHub(page, was.contributions.map((c) => c.parent));
            if (!ranker) return undefined;
            // What the words said of this page before its fetch, against how topical it turned out.
            if (credibility) credibility.record(was.host, wordEvidenceOf(was), topicalLabel(page));
            const links = was.contributions.filter((c) => c.link);
            const label = topicalLabel(page);
            ranker.learnTargetOfInlinks(links.map((c) => c.link!), label);
            // A near-duplicate offers none of its links (they are its earlier page's): nothing new lies
            // beyond it. Without this example the "beyond" model kept the promise of the thread pages
            // whose post text the test web's "only this author" links share, and the crawl kept following them.
            if (page.nearDuplicate) ranker.learnNothingBeyond(links.map((c) => c.link!));
            const inlink = (links.find((c) => c.parent === page.parentUrl) ?? links[0])?.link;
            const parentIn = page.parentUrl ? env.fetched.get(page.parentUrl)?.inlink : undefined;
            if (parentIn) ranker.learnBeyond(parentIn, label);
            return inlink;
          }
        : undefined,
      // The word model learns from the same label (src/score/topical-label.ts): with the judge's
      // term evidence in it, a link named by words topical pages use counts before the verdict
      // finds those pages (the verdict alone gained the word model 0.8 point on Wikispeedia, the
      // rank 4.1, and their mean most, with the other learners on it too).
      observe: words || hubs
        ? (page) => {
            // A seed (no queued URL before its fetch): its links to pages judged already count.
            recordHub(page, []);
            if (!words) return;
            const label = topicalLabel(page);
            const fromLinks = page.links.flatMap((l) => [...linkWords(l, hostOf(l.url)), ...(l.context ? tokenize(l.context) : [])]);
            words.observe(words.ids([...fromLinks, ...(page.words ?? [])]), label);
          }
        : undefined,
      // A page's children judged: its queued children's hub evidence moved.
      rescoreAfter: hubs ? (page, env) => {
        const out: string[] = [];
        for (const parent of hubsChanged) if (parent !== page.url) out.push(...(env.fetched.get(parent)?.children ?? []));
        hubsChanged = [];
        return out;
      } : undefined,
      readsPageWords: !!words,
      linkFeatures: ranker
        ? (link, p, page, sinceRelevant) => {
            const wordIds = words ? [...new Set(words.ids(linkWords(link, p.host)))] : undefined;
            return ranker.features({ url: link.url, anchorText: link.anchorText, context: link.context, host: p.host, parentRelevant: page.relevant, sinceRelevant }, wordIds);
          }
        : undefined,
      learner,
      rescoreEvery: learner || ranker ? o.learnRescoreEvery : undefined,
      // What the learners learned (src/score/state-data.ts); a part this scorer has not got is absent.
      state: (): CombinedState => ({ v: 1, learner: learner?.state(), ranker: ranker?.state(), words: words?.state(), credibility: credibility?.state(), hubs: hubs?.state(), labels: labels.state() }),
      checkState(raw) {
        const s = raw as CombinedState;
        checkStateVersion('combined', s, 1);
        for (const [name, mine, theirs] of [['learned weights', learner, s.learner], ['link ranker', ranker, s.ranker], ['link-word model', words, s.words], ['word credibility', credibility, s.credibility]] as const) {
          if (!mine !== !theirs) throw new Error(`scorer snapshot: ${name} ${mine ? 'missing' : 'present'} (snapshot from other score options)`);
          if (theirs) checkStateVersion(name, theirs, 1);
        }
        checkStateVersion('topical label', s.labels, 1);
      },
      restore(raw) {
        const s = raw as CombinedState;
        // A snapshot from before the `hub` input (the last feature): its weight starts at its prior.
        if (s.learner) learner?.restore(s.learner.weights.length === COMBINED_FEATURES.length - 1 ? { ...s.learner, weights: [...s.learner.weights, 4] } : s.learner);
        if (s.ranker) ranker?.restore(s.ranker);
        if (s.words) words?.restore(s.words);
        if (s.credibility) credibility?.restore(s.credibility);
        if (s.hubs) hubs?.restore(s.hubs);
        labels.restore(s.labels);
      },
    };
  },
};
