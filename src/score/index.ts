/**
 * The URL scorer (METHODS §3) and its parts: the scorer (./scorer.ts), strategies as modules
 * (./strategies/, one file each, and ./strategies/registry.ts), the formula's terms
 * (./priority.ts, ./structure.ts, ./ipagerank.ts, ./filters.ts), link bookkeeping
 * (./links.ts), combined's learned weights (./learned.ts) and link ranker (./link-ranker.ts).
 */
export { ScoreOptionsSchema, parseScoreOptions, type ScoreOptions } from './options.js';
export { childLinkSmoothing, dateFromUrl, pageLinkTerm, type PageLinkTerm, parentAnchorPriority, timeAwarePriority } from './priority.js';
export { type FeedbackState, type GraphPage, linkCoefficient, LinkGraph, type LinkGraphState, type LinkHints, pathRelation, type PathRelation, pathWeight, relevanceFeedback, scaleFreeBias, scaleFreeCorrection, type ScaleFreeTerm, tunnelBuffer, tunnelStep } from './structure.js';
export { iPageRank, iPageRankOfUnfetched, type IprInLink, type IprNode, rwbAdmit, type RwbDecision } from './ipagerank.js';
export { pathologicalRepetition, siteCutoff, type SiteStats, SiteTable, type SiteTableState, urlFilter, type UrlFilterOptions, type UrlFilterResult } from './filters.js';
export { OnlineLogistic, type OnlineLogisticOptions, type OnlineLogisticState, sigmoid } from './learned.js';
export { type FeatureChunk, fnv1a, type LinkDescription, type LinkFeatures, LinkRanker, type LinkRankerOptions, type LinkRankerState, meanFeatures, siteOf, urlShape } from './link-ranker.js';
export { type DeadLinkKeys, type DeadLinkOptions, type DeadLinkState, DeadLinkTracker, type KeyStats } from './dead-links.js';
export type { Contribution, FetchedInfo, FetchedPage, LinkBookState, OutLink, Pending, ScoreBreakdown, Scorer, ScorerDeps, ScorerState, ScoreUpdate } from './types.js';
export type { Evaluation, InlinkSummary, LearnerFeatures, Strategy, StrategyDefinition, StrategyEnv, StrategyTraits } from './strategy.js';
export { createScorer } from './scorer.js';
export { BUILTIN_STRATEGIES, getStrategy, registerStrategy, strategyNames, type BuiltinStrategyName, type StrategyName } from './strategies/registry.js';
export { bfsScore } from './strategies/bfs.js';
export { SITE_CUT_FACTOR } from './strategies/classic.js';
export { COMBINED_FEATURES, featureVector, type CombinedFeature } from './strategies/combined.js';
