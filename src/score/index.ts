/**
 * The URL scorer (METHODS §3) and its parts: the scorer (./scorer.ts), strategies as modules
 * (./strategies/, one file each, and ./strategies/registry.ts), the formula's terms
 * (./priority.ts, ./structure.ts, ./ipagerank.ts, ./filters.ts), link bookkeeping
 * (./links.ts), combined's learned weights (./learned.ts) and link ranker (./link-ranker.ts).
 */
export { ScoreOptionsSchema, parseScoreOptions, type ScoreOptions } from './options.js';
export * from './priority.js';
export * from './structure.js';
export * from './ipagerank.js';
export * from './filters.js';
export * from './learned.js';
export * from './link-ranker.js';
export * from './dead-links.js';
export * from './types.js';
export type { Evaluation, InlinkSummary, LearnerFeatures, Strategy, StrategyDefinition, StrategyEnv, StrategyTraits } from './strategy.js';
export { createScorer } from './scorer.js';
export { BUILTIN_STRATEGIES, getStrategy, registerStrategy, strategyNames, type BuiltinStrategyName, type StrategyName } from './strategies/registry.js';
export { bfsScore } from './strategies/bfs.js';
export { SITE_CUT_FACTOR } from './strategies/classic.js';
export { COMBINED_FEATURES, featureVector, type CombinedFeature } from './strategies/combined.js';
