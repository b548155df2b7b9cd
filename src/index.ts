/** The package's public API (placeholder until the library entry point lands). */
export { parseConfig, type CrawlConfig, type CrawlConfigInput } from './config/schema.js';
export * from './score/index.js';
