/**
 * `npm start -- --report [RUN_ID]`: regenerate the HTML report of a run (default: the latest)
 * from its files, without crawling.
 */
import { relative } from 'node:path';
import { UserError } from '../config/errors.js';
import { listRuns, writeReport } from '../report/write.js';

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
