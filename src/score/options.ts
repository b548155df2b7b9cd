/**
 * Every constant of the topic-weight formula (METHODS §3), with the METHODS defaults.
 * Plugged into the main config later; `parseScoreOptions` validates a partial object.
 */
import { z } from 'zod';

/** The schema (zod) of the scorer's options, the config's `score` field. */
export const ScoreOptionsSchema = z
  .object({
    /** Score given to seed URLs: above anything a child can reach, so seeds go first. */
    seedScore: z.number().positive().default(1000),
    /** Score bands (src/score/bands.ts): a due revisit is queued at this plus the thread's hotness H. */
    revisitScore: z.number().positive().default(100),
    /** Most a relevant thread's other pages are queued at (they get the page's own score, at least 1). */
    threadPageMaxScore: z.number().positive().default(20),
    /** Most a strategy's score counts, so no strategy outranks thread pages, revisits or seeds. */
    strategyMaxScore: z.number().positive().default(10),
    /** θ_page: a parent in a tunnel is scored as if its rel were at least this (§1, §3.2). */
    pageThreshold: z.number().min(0).max(1).default(0.2),

    // §3.1 parent/anchor priority
    theta: z.number().min(0).default(0.4),
    gamma: z.number().min(0).default(0.6),

    // §3.2 link structure
    /** τ: sibling weight; other = τ/2, redundant = τ². */
    tau: z.number().gt(0).lt(1).default(0.5),
    /** Drop redundant links (share/login/print/ads/javascript:) instead of weighting them τ². */
    dropRedundant: z.boolean().default(false),
    /** α in Π(j) = (k_j + 1)^α / mean_l (k_l + 1)^α. */
    scaleFreeAlpha: z.number().min(0).default(0.5),
    /** α_t in step = floor(α_t / d). */
    tunnelAlpha: z.number().int().min(0).default(3),
    /** Multiplier once the tunnel buffer is spent, and for relevance feedback. */
    decay: z.number().min(0).max(1).default(0.5),
    /** Hard focus: drop children whose tunnel buffer is spent instead of decaying them. */
    hardFocus: z.boolean().default(false),
    /** r: consecutive irrelevant children of one parent that demote its remaining children. */
    feedbackRun: z.number().int().min(1).default(3),

    // §3.3 child-link smoothing
    /** θ_link: a link context with Sim ≥ this counts as relevant; also RWB's c (§3.5). */
    linkThreshold: z.number().min(0).max(1).default(0.2),
    /** δ in δ·Sim(T,A_u) + (1-δ)·C(p). */
    delta: z.number().min(0).max(1).default(0.8),
    smoothingHigh: z.number().min(0).max(1).default(0.5),
    smoothingLow: z.number().min(0).max(1).default(0.2),

    // §3.4 publish time
    /** e^{Pr(t|T)} applies only when prio(u) ≥ this. */
    timeMinPriority: z.number().min(0).default(0.4),

    // §3.5 IPageRank, RW/RWB
    damping: z.number().gt(0).lt(1).default(0.85),
    iprIterations: z.number().int().min(1).default(5),
    iprEvery: z.number().int().min(1).default(100),
    /** Periodic re-scoring reports a queued URL only when its score moved by more than this fraction. */
    rescoreTolerance: z.number().min(0).default(0.01),
    /**
     * c of RW/RWB (§3.5 "link threshold"). Lower than θ_link: link contexts are short, and at
     * c = 0.2 RWB rejected nearly every Wikispeedia link (the crawl ended after 14–29 pages).
     */
    rwbThreshold: z.number().min(0).max(1).default(0.1),
    /** b: RWB admits c - b ≤ RW < c with probability p. */
    rwbBand: z.number().min(0).max(1).default(0.1),
    rwbProbability: z.number().min(0).max(1).default(0.3),

    // §3.6 filters and site table
    skipExtensions: z
      .array(z.string())
      .default(['rm', 'rmvb', 'mp3', 'wav', 'mp4', 'avi', 'flv', 'zip', 'rar', '7z', 'gz', 'exe', 'msi', 'apk', 'pdf', 'doc', 'docx', 'xls', 'xlsx', 'ppt', 'pptx', 'jpg', 'jpeg', 'png', 'gif', 'webp', 'svg', 'ico', 'css', 'js', 'swf', 'iso', 'dmg', 'torrent']),
    /** Last path segments (without extension) that are dropped (seed 002: next/previous/about). */
    skipPathEnds: z.array(z.string()).default(['next', 'previous', 'prev', 'about']),
    anchorStoplist: z
      .array(z.string())
      .default(['here', 'this', 'top', 'more', 'click here', 'read more', 'next', 'previous', 'back', '更多', '下一页', '上一页', '返回', '顶部', '点击这里', '这里', '详细', '>>', '»']),
    /** Multiplier for a link whose whole anchor text is a stopword ("weakens, does not drop"). */
    stoplistWeight: z.number().min(0).max(1).default(0.5),
    allowDomains: z.array(z.string()).default([]),
    denyDomains: z.array(z.string()).default([]),
    /**
     * Links into search-results pages (URLs with one of these query keys) are not followed: their
     * URL space is unbounded (every query, every results page) and they are lists, not content.
     * Seeds are never filtered, so a search page can still be a starting point. [] = follow them.
     */
    skipQueryKeys: z.array(z.string().transform((k) => k.toLowerCase())).default(['q', 'wd', 'query', 'keyword', 'keywords', 'searchword', 'search_query']),
    /** A URL with one path segment or query word repeated more than this many times is a trap (0 = off). */
    maxRepeats: z.number().int().min(0).default(2),
    /** Irrelevant pages tolerated per site before its links are no longer followed (0 = none). Classic strategy only. */
    siteCutoff: z.number().int().min(0).default(100),
    /** Weight of the site relevance bonus (1 + w · relevant/fetched of the host). */
    siteBonus: z.number().min(0).default(0.1),

    // combined strategy
    /** Most a URL gains from other relevant in-linking parents: best × (1 + share·tanh(others/best)). */
    inlinkShare: z.number().min(0).max(1).default(0.25),
    /** Weight of the IPageRank bonus (1 + w · min(1, IPR(u) - (1-d))). */
    iprBonus: z.number().min(0).default(0.1),
    /** Π(j) is clamped to [1/c, c] in the combined strategy so one early hub cannot dominate. */
    scaleFreeClamp: z.number().min(1).default(1.25),
    /**
     * Learn the weights of the components online from the crawl's own verdicts (src/score/learned.ts),
     * starting from the fixed product above. false = the fixed product alone.
     */
    learnWeights: z.boolean().default(true),
    /** SGD step of the learned weights. */
    learningRate: z.number().min(0).default(0.1),
    /** Pull of the learned weights back towards the fixed product, per fetched page. */
    learnL2: z.number().min(0).default(0.01),
    /**
     * Most a learned weight (or the bias) may move from its prior; below 4 the fixed product's
     * weight (prior 4) stays positive, so the learner can re-weight its ranking, never invert it.
     */
    learnWeightBound: z.number().min(0).default(3),
    /** Relevant and irrelevant verdicts each before the learned weights are fully trusted (thin evidence: the fixed product's ranking). */
    learnMinEvidence: z.number().int().min(0).default(10),
    /** Every queued URL is re-scored with the current weights every this many fetched pages. */
    learnRescoreEvery: z.number().int().min(1).default(25),
    /**
     * combined: a link ranker learned online from the crawl's own verdicts (anchor, URL and context
     * words, parent verdict, links since the last relevant page, site) adds its evidence to the
     * score (src/score/link-ranker.ts). false = off.
     */
    linkRanker: z.boolean().default(true),
    /**
     * combined, with the link ranker: κ of its optimism about a link's target kind (host and URL
     * shape), in posterior standard deviations of the kind's learned weight (an upper confidence
     * bound: a kind no fetched page has taught is tried early). 0 = off.
     */
    linkExplore: z.number().min(0).default(1),
    /**
     * combined, with the link ranker: links whose anchor or URL words keep turning up around the
     * links of topical pages gain that evidence (src/score/link-words.ts), weighed per host by its
     * credibility there (below). false = off.
     */
    linkWords: z.boolean().default(true),
    /**
     * combined, with learned weights: weight, in its log-odds, of what a queued URL's parents' other
     * links led to (the labels of their children judged so far: src/score/hubs.ts), so a list page
     * whose links keep leading to topical pages ranks its other links up, whatever its own verdict
     * (a promise only, counted only through parents not judged relevant: src/score/strategies/combined.ts).
     * 0 = off.
     */
    hubEvidence: z.number().min(0).default(3),
    /**
     * The word evidence counts, on a host, in proportion to how well it has predicted the labels
     * of that host's fetched pages (src/score/word-credibility.ts). false = everywhere in full.
     */
    linkWordsCredibility: z.boolean().default(true),
    /**
     * Pseudo-pages of zero credibility each host starts with: credibility × n / (n + this). 0: the
     * correlation alone from a host's second page (5 held the seeds' own host back for its first
     * pages, and measured no better on any web with bench:replay).
     */
    linkWordsCredibilityPrior: z.number().min(0).default(0),
    /** A correlation of 1/this or more between the evidence and the outcome counts fully (8: the credibility gates more than it scales). */
    linkWordsCredibilityScale: z.number().gt(0).default(8),
    /** Weight of that word evidence in combined's log-odds (learned weights start here). */
    linkWordsWeight: z.number().min(0).default(12),
    /**
     * What every learner of combined trains on (src/score/topical-label.ts): `mean` of the verdict
     * and the page's rank by the judge's term evidence (to linkWordsLabelPower), the `rank` alone,
     * or the `verdict` alone.
     */
    learnLabel: z.enum(['mean', 'rank', 'verdict']).default('mean'),
    /** The rank in that label is raised to this power (the median page counts 1/2^power). */
    linkWordsLabelPower: z.number().gt(0).default(3),
  })
  .strict();

/** The scorer's options after the schema (every default applied). */
export type ScoreOptions = z.output<typeof ScoreOptionsSchema>;

export class ScoreOptionsError extends Error {}

/** Parse score options (the config's `score` field) through their schema; throws on a bad field. */
export function parseScoreOptions(input: unknown = {}): ScoreOptions {
  const r = ScoreOptionsSchema.safeParse(input ?? {});
  if (r.success) return r.data;
  throw new ScoreOptionsError(r.error.issues.map((i) => `score options: ${i.path.join('.') || '(top level)'}: ${i.message}`).join('\n'));
}
