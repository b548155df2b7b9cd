/**
 * The package's public API (`import … from 'focused-crawler'`), one entry per concern:
 * - crawl: `crawl(config, options)`, relevant pages by `for await` or `onPage` (src/crawl/api.ts);
 *   plugins ride along through `CrawlPlugin`.
 * - config: `parseConfig` (the one zod schema the CLI and config files use), its input/output types.
 * - extract: `analyzePage` (main text, title, publish time, links of one HTML page).
 * - score: `createScorer` and the strategy registry (`registerStrategy` …) to write a strategy; the
 *   scorer's parts (the formula's terms, learners, link bookkeeping) are the sub-path entry
 *   `focused-crawler/score` (src/score/index.ts), for advanced use.
 * - frontier: `Frontier` (best-first queue, host politeness, robots, journal) and its back-end contract.
 * - test web: `startTestWeb`, the local seeded web with ground truth, for tests and demos.
 */
export { crawl, type CrawlApiOptions, type CrawlRun } from './crawl/api.js';
export type { CrawlContext, CrawlPlugin, CrawlResult, CrawlTimings, PageEvent, RelevantPage } from './crawl/types.js';
export type { LabelAnswer, LabelAsker, LabelQuestion, LabelRecord } from './crawl/labels.js';
export type { RunCounts } from './store/counts.js';
export type { CrawlLogEntry } from './store/crawl-log.js';

export { CrawlConfigSchema, ConfigError, parseConfig, topicName, type CrawlConfig, type CrawlConfigInput, type TopicConfig } from './config/schema.js';
export { UserError } from './config/errors.js';

export { analyzePage, type AnalyzeOptions } from './extract/page.js';
export type { AnalyzeInput, LinkInfo, PageAnalysis, PublishTime } from './extract/types.js';

export { createScorer } from './score/scorer.js';
export { ScoreOptionsSchema, parseScoreOptions, type ScoreOptions } from './score/options.js';
export { BUILTIN_STRATEGIES, getStrategy, registerStrategy, strategyNames, type BuiltinStrategyName, type StrategyName } from './score/strategies/registry.js';
export type { Evaluation, InlinkSummary, LearnerFeatures, Strategy, StrategyDefinition, StrategyEnv, StrategyTraits } from './score/strategy.js';
export type { FetchedInfo, FetchedPage, OutLink, ScoreBreakdown, Scorer, ScorerDeps, ScoreUpdate } from './score/types.js';

export { Frontier, FrontierRequestManager, hostOf, uniqueKeyOf, type FrontierOptions } from './frontier/frontier.js';
export type { FrontierBackend, FrontierLog, FrontierOp, FrontierSnapshot, OfferResult, QueuedUrl, ScoreComponents } from './frontier/types.js';

export { startTestWeb, type TestWeb, type TestWebOptions, type TopicTruth, type TunnelTruth, type PageTruth } from './testweb/index.js';
