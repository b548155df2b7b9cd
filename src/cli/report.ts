/**
 * `npm start -- --report [RUN_ID]`: regenerate the HTML report of a run (default: the latest)
 * from its files, without crawling.
 */
import { Command } from 'commander';
import { UserError } from '../config/errors.js';
import { commandName } from '../util/command-name.js';
import { checkStorageWritable } from '../store/storage-lock.js';
import { parseExportFormats } from '../report/export.js';
import { parseCommandLine, reportUserErrors } from './run.js';
import type { CrawlConfig } from '../config/schema.js';
import type { CrawlPlugin } from '../crawl/engine.js';
import type { ExportFormat } from '../report/export.js';
import { displayPath } from '../report/paths.js';
import { listRuns, writeReport, writeRunExports } from '../report/write.js';
import { reportPlugin } from '../plugins/report.js';
import { mergeWorkerRuns, sharedCrawlOf, workerRuns } from '../report/merge-workers.js';

/**
 * The run a report is of: RUN_ID, else the latest. A crawl shared by several workers
 * (`--crawl-id NAME`, or the latest run being one worker's part) is merged first.
 */
function reportRun(storageDir: string, runId?: string): string {
  const id = runId ?? listRuns(storageDir)[0];
  if (!id) throw new UserError(`no crawl runs in ${storageDir}/runs yet: run a crawl first (${commandName().replace(/ --$/, '')})`);
  const crawlId = workerRuns(storageDir, id).length ? id : runId === undefined ? sharedCrawlOf(id) : undefined;
  return crawlId ? mergeWorkerRuns(storageDir, crawlId).runId : id;
}

export function regenerateReport(storageDir: string, runId?: string): string[] {
  return writeReport(storageDir, reportRun(storageDir, runId));
}

/** `--report [RUN_ID] [--export FORMATS]`: the report, and the exports when asked, of a finished run. */
export function runReportCommand(storageDir: string, runId?: string, exportFormats: ExportFormat[] = []): number {
  const [latest, own] = regenerateReport(storageDir, runId);
  const shown = (p: string) => displayPath(p, storageDir);
  console.log(`Report written: ${shown(latest)} (copy: ${shown(own)})`);
  if (exportFormats.length) {
    const id = reportRun(storageDir, runId);
    for (const f of writeRunExports(storageDir, id, exportFormats)) console.log(`Export written: ${shown(f)}`);
  }
  return 0;
}

/**
 * The plugins every CLI crawl gets from this module: the report (always, first in the list; the
 * caller runs it last) and traces (--trace).
 * Also refuses --headed without a display, in one line, before any browser starts.
 */
export async function observePlugins(config: CrawlConfig, exportFormats: ExportFormat[] = []): Promise<CrawlPlugin[]> {
  if (config.headed && config.fetcher !== 'http' && !process.env.DISPLAY && process.platform === 'linux') {
    throw new UserError(`--headed needs a display and $DISPLAY is not set: run it under a virtual one, e.g. xvfb-run -a ${commandName()} --headed …`);
  }
  const plugins: CrawlPlugin[] = [reportPlugin(exportFormats)];
  if (config.trace) {
    const { tracePlugin } = await import('../plugins/trace.js');
    plugins.push(tracePlugin(config.trace));
  }
  return plugins;
}

/** `focused-crawler report [RUN_ID] [--storage DIR] [--export FORMATS]`: the same as `--report`. */
export async function main(argv: string[]): Promise<number> {
  const program = new Command()
    .name(commandName('report'))
    .description("Write a run's HTML report again from its files (the latest run, or RUN_ID), without crawling.")
    .argument('[runId]', 'the run (default: the latest)')
    .option('--storage <dir>', 'storage folder (default storage)', 'storage')
    .option('--export <formats>', 'also write the relevant pages as jsonl, csv or jsonl,csv to storage/exports/RUN_ID.FORMAT');
  const ended = parseCommandLine(program, argv);
  if (ended !== undefined) return ended;
  const o = program.opts<{ storage: string; export?: string }>();
  return reportUserErrors(async () => {
    const formats = o.export !== undefined ? parseExportFormats(o.export) : [];
    checkStorageWritable(o.storage);
    return runReportCommand(o.storage, program.args[0], formats);
  });
}
