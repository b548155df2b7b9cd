/**
 * `npm start -- --report [RUN_ID]`: regenerate the HTML report of a run (default: the latest)
 * from its files, without crawling.
 */
import { relative } from 'node:path';
import { UserError } from '../config/errors.js';
import type { CrawlConfig } from '../config/schema.js';
import type { CrawlPlugin } from '../crawl/engine.js';
import { listRuns, reportPlugin, writeReport } from '../report/write.js';

export function regenerateReport(storageDir: string, runId?: string): string[] {
  const id = runId ?? listRuns(storageDir)[0];
  if (!id) throw new UserError(`no crawl runs in ${storageDir}/runs yet: run a crawl first (npm start)`);
  return writeReport(storageDir, id);
}

export function runReportCommand(storageDir: string, runId?: string): number {
  const [latest, own] = regenerateReport(storageDir, runId);
  console.log(`Report written: ${relative(process.cwd(), latest) || latest} (copy: ${relative(process.cwd(), own) || own})`);
  return 0;
}

/**
 * The plugins every CLI crawl gets from this module: the report (always) and traces (--trace).
 * Also refuses --headed without a display, in one line, before any browser starts.
 */
export async function observePlugins(config: CrawlConfig): Promise<CrawlPlugin[]> {
  if (config.headed && config.fetcher === 'browser' && !process.env.DISPLAY && process.platform === 'linux') {
    throw new UserError('--headed needs a display and $DISPLAY is not set: run it under a virtual one, e.g. xvfb-run -a npm start -- --headed …');
  }
  const plugins: CrawlPlugin[] = [reportPlugin()];
  if (config.trace) {
    const { tracePlugin } = await import('../fetch/trace.js');
    plugins.push(tracePlugin(config.trace));
  }
  return plugins;
}
