/**
 * What a crawl passes to its browser paths (settle cap, blocking, analysis bounds) and what it
 * logs of a rendering (how the page settled, which document was analysed, script navigations):
 * kept here so the engine gains one line for each.
 */
import type { AnalysisLimits } from '../extract/page.js';
import type { CrawlLogEntry } from '../store/crawl-log.js';
import type { RenderedPage } from './crawler.js';
export { subRequestTimeoutMs } from './page-load.js';

export function renderOptions(config: { settleCapSecs: number; blockRequests: boolean; blockUrlPatterns: string[] }, analysisLimits: Partial<AnalysisLimits>) {
  return {
    settleCapMs: config.settleCapSecs * 1000,
    blocking: { enabled: config.blockRequests, extraUrlPatterns: config.blockUrlPatterns },
    analysisLimits,
  };
}

/** The crawl-log fields of a rendered page; its notes go into the entry's reason. */
export function renderedFields(page: RenderedPage): Pick<CrawlLogEntry, 'settled' | 'analysedFrom' | 'reason'> {
  if (!page.settled && !page.analysedFrom) return {};
  const notes = [
    page.analysedWhy,
    page.scriptNavigations?.length ? `script navigation to ${page.scriptNavigations.slice(0, 3).join(', ')} stopped (offered as a link)` : undefined,
  ].filter(Boolean);
  return {
    ...(page.settled ? { settled: page.settled.how } : {}),
    ...(page.analysedFrom ? { analysedFrom: page.analysedFrom } : {}),
    ...(notes.length ? { reason: notes.join('; ') } : {}),
  };
}
