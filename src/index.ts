/**
 * The package's public API (`import … from 'focused-crawler'`), one entry per concern:
 * - crawl: `crawl(config, options)`, relevant pages by `for await` or `onPage` (src/crawl/api.ts);
 *   plugins ride along through `CrawlPlugin`.
 * - config: `parseConfig` (the one zod schema the CLI and config files use), its input/output types.
 * - extract: `analyzePage` (main text, title, publish time, links of one HTML page).
 * - score: `createScorer`, the strategy registry (`registerStrategy` …) and the formula's terms.
 * - frontier: `Frontier` (best-first queue, host politeness, robots, journal) and its back-end contract.
 * - test web: `startTestWeb`, the local seeded web with ground truth, for tests and demos.
 */
import './fetch/loopback-only.js'; // first: before Crawlee's browser pool opens its proxy (src/fetch/loopback-only.ts)
export { crawl, type CrawlApiOptions, type CrawlRun } from './crawl/api.js';
export type { CrawlContext, CrawlPlugin, CrawlResult, CrawlTimings, PageEvent, RelevantPage } from './crawl/types.js';
export type { LabelAnswer, LabelAsker, LabelQuestion, LabelRecord } from './crawl/labels.js';
export type { RunCounts } from './report/counts.js';
export type { CrawlLogEntry } from './store/crawl-log.js';

export { CrawlConfigSchema, ConfigError, parseConfig, topicName, type CrawlConfig, type CrawlConfigInput, type TopicConfig } from './config/schema.js';
export { UserError } from './config/errors.js';

export { analyzePage, type AnalyzeOptions } from './extract/page.js';
export type { AnalyzeInput, LinkInfo, PageAnalysis, PublishTime } from './extract/types.js';

export * from './score/index.js';

export { Frontier, FrontierRequestManager, hostOf, uniqueKeyOf, type FrontierOptions } from './frontier/frontier.js';
export type { FrontierBackend, FrontierLog, FrontierOp, FrontierSnapshot, OfferResult, QueuedUrl, ScoreComponents } from './frontier/types.js';

export { startTestWeb, type TestWeb, type TestWebOptions, type TopicTruth, type TunnelTruth, type PageTruth } from './testweb/index.js';
