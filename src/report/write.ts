/**
 * Reading a run's files into a ReportInput and writing the report to
 * storage/report/index.html and storage/runs/<id>/report/index.html (after every crawl by
 * src/plugins/report.ts, for `--report` and the dashboard on demand).
 */
import { readRunLabels } from '../crawl/labels.js';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { UserError } from '../config/errors.js';
import { CrawlLog } from '../store/crawl-log.js';
import type { RunStateData } from '../store/run-state.js';
import { listRuns, RUN_FILES } from '../store/run-dir.js';
import { countSubRequests, SubRequestLog } from '../store/sub-requests.js';
import type { ThreadRecord } from '../store/threads.js';
import type { HarvestEstimate } from '../topic/harvest-sample.js';
import { topicName } from '../config/schema.js';
import { exportRecords, writeExport, type ExportFormat } from './export.js';
import { harvestCurve, type DatasetItem, type EarlierRun, type ReportInput } from './html.js';
import { renderReport, type LiveRecord } from './page.js';
import { readTimeline } from './timeline.js';
import { readSteering } from '../store/steering-journal.js';

function readJson<T>(path: string): T | undefined {
  if (!existsSync(path)) return undefined;
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as T;
  } catch {
    return undefined; // a torn file: report without it
  }
}

/** Run ids under storage/runs, latest first (one definition: src/store/run-dir.ts). */
export { listRuns } from '../store/run-dir.js';

export function loadReportInput(storageDir: string, runId: string, generatedAt = new Date()): ReportInput & LiveRecord {
  const root = resolve(storageDir);
  const runDir = join(root, 'runs', runId);
  if (!existsSync(join(runDir, 'crawl-log.jsonl'))) {
    const known = listRuns(root).slice(0, 5);
    throw new UserError(`no run "${runId}" in ${join(root, 'runs')}${known.length ? ` (recent runs: ${known.join(', ')})` : ' (no runs yet)'}`);
  }
  const datasetDir = join(root, 'datasets', `run-${runId}`);
  const dataset: DatasetItem[] = existsSync(datasetDir)
    ? readdirSync(datasetDir)
        .filter((f) => f.endsWith('.json'))
        .sort()
        .flatMap((f) => readJson<DatasetItem>(join(datasetDir, f)) ?? [])
    : [];
  const threadsFile = readJson<{ threads?: Record<string, ThreadRecord> }>(join(runDir, 'threads.json'));
  const state = readJson<RunStateData>(join(runDir, 'state.json'));
  return {
    runId,
    state,
    log: CrawlLog.read(join(runDir, 'crawl-log.jsonl')),
    dataset,
    threads: threadsFile ? Object.values(threadsFile.threads ?? {}) : undefined,
    subRequests: existsSync(join(runDir, RUN_FILES.subRequests)) ? countSubRequests(SubRequestLog.read(join(runDir, RUN_FILES.subRequests))) : undefined,
    harvestEstimate: readJson<HarvestEstimate>(join(runDir, RUN_FILES.harvestEstimate)),
    labels: readRunLabels(runDir),
    timeline: readTimeline(runDir),
    steering: readSteering(runDir),
    earlierRuns: state ? earlierRunsOfTopic(root, runId, state) : [],
    generatedAt,
  };
}

/** A run's topics as one comparable key: each topic's keywords, sorted. */
function topicKey(state: RunStateData): string {
  return state.config.topics
    .map((t) => topicName({ keywords: [...t.keywords].map((k) => (typeof k === 'string' ? k : k.term)).sort() }))
    .sort()
    .join(' | ');
}

/**
 * Other runs in the storage folder that crawled the same topic (same keywords), started before
 * this one, newest first, at most `limit`: their judged harvest curves go on this report's chart.
 */
export function earlierRunsOfTopic(storageDir: string, runId: string, state: RunStateData, limit = 6): EarlierRun[] {
  const key = topicKey(state);
  const out: EarlierRun[] = [];
  for (const id of listRuns(storageDir)) {
    if (id === runId || out.length >= limit) continue;
    const dir = join(storageDir, 'runs', id);
    const other = readJson<RunStateData>(join(dir, 'state.json'));
    if (!other?.config?.topics || topicKey(other) !== key || other.startedAt > state.startedAt) continue;
    const log = CrawlLog.read(join(dir, 'crawl-log.jsonl'));
    if (!log.length) continue;
    out.push({ runId: id, strategy: other.config.strategy, curve: harvestCurve(log, (e) => e.decision === 'saved') });
  }
  return out;
}

/** File names of the exports written beside every report, for its download links. */
export const REPORT_EXPORTS: Record<ExportFormat, string> = { jsonl: 'relevant-pages.jsonl', csv: 'relevant-pages.csv' };

/** Write a run's relevant pages in the given formats to `<storage>/exports/<runId>.<format>`; returns the paths. */
export function writeRunExports(storageDir: string, runId: string, formats: ExportFormat[]): string[] {
  const root = resolve(storageDir);
  const records = exportRecords(loadReportInput(root, runId));
  return formats.map((f) => writeExport(join(root, 'exports', `${runId}.${f}`), records, f));
}

/** Write the report of a run; returns [storage/report/index.html, storage/runs/<id>/report/index.html]. */
export function writeReport(storageDir: string, runId: string): string[] {
  const root = resolve(storageDir);
  const input = loadReportInput(root, runId);
  const records = exportRecords(input);
  const html = renderReport({ ...input, exports: Object.values(REPORT_EXPORTS) });
  const ownDir = join(root, 'runs', runId, 'report');
  const latestDir = join(root, 'report');
  for (const dir of [ownDir, latestDir]) {
    mkdirSync(dir, { recursive: true });
    for (const [f, name] of Object.entries(REPORT_EXPORTS)) writeExport(join(dir, name), records, f as ExportFormat);
  }
  const own = join(ownDir, 'index.html');
  writeFileSync(own, html);
  const latest = join(latestDir, 'index.html');
  copyFileSync(own, latest);
  return [latest, own];
}

/** At the end of a crawl: keep its harvest estimate (so `--report` shows it again) and write its report; returns writeReport's paths. */
export function writeCrawlReport(result: { runId: string; harvestEstimate?: HarvestEstimate }, storageDir: string): string[] {
  // The estimate is computed once, at the end of the crawl.
  if (result.harvestEstimate) writeFileSync(join(resolve(storageDir), 'runs', result.runId, RUN_FILES.harvestEstimate), JSON.stringify(result.harvestEstimate));
  return writeReport(storageDir, result.runId);
}
