/**
 * Reading a run's files into a ReportInput and writing the report to
 * storage/report/index.html and storage/runs/<id>/report/index.html; the plugin that does it
 * at the end of every crawl.
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { UserError } from '../config/errors.js';
import type { CrawlContext, CrawlPlugin, CrawlResult } from '../crawl/engine.js';
import { CrawlLog } from '../store/crawl-log.js';
import type { RunStateData } from '../store/run-state.js';
import type { ThreadRecord } from '../store/threads.js';
import { renderReport, type DatasetItem, type ReportInput } from './html.js';

function readJson<T>(path: string): T | undefined {
  if (!existsSync(path)) return undefined;
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as T;
  } catch {
    return undefined; // a torn file: report without it
  }
}

/** Run ids under storage/runs, newest first (by the state file's modification time). */
export function listRuns(storageDir: string): string[] {
  const dir = join(resolve(storageDir), 'runs');
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(dir, d.name, 'crawl-log.jsonl')))
    .map((d) => ({ id: d.name, t: statSync(join(dir, d.name, 'crawl-log.jsonl')).mtimeMs }))
    .sort((a, b) => b.t - a.t || b.id.localeCompare(a.id))
    .map((r) => r.id);
}

export function loadReportInput(storageDir: string, runId: string, generatedAt = new Date()): ReportInput {
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
  return {
    runId,
    state: readJson<RunStateData>(join(runDir, 'state.json')),
    log: CrawlLog.read(join(runDir, 'crawl-log.jsonl')),
    dataset,
    threads: threadsFile ? Object.values(threadsFile.threads ?? {}) : undefined,
    generatedAt,
  };
}

/** Write the report of a run; returns [storage/report/index.html, storage/runs/<id>/report/index.html]. */
export function writeReport(storageDir: string, runId: string): string[] {
  const root = resolve(storageDir);
  const html = renderReport(loadReportInput(root, runId));
  const own = join(root, 'runs', runId, 'report', 'index.html');
  mkdirSync(join(root, 'runs', runId, 'report'), { recursive: true });
  writeFileSync(own, html);
  const latest = join(root, 'report', 'index.html');
  mkdirSync(join(root, 'report'), { recursive: true });
  copyFileSync(own, latest);
  return [latest, own];
}

/** Writes the report after every crawl. */
export class ReportPlugin implements CrawlPlugin {
  readonly name = 'report';
  private written: string[] = [];

  async afterRun(result: CrawlResult, ctx: CrawlContext): Promise<void> {
    try {
      this.written = writeReport(ctx.storageDir, result.runId);
    } catch (e) {
      ctx.progress.log(`report not written: ${(e as Error).message}`);
    }
  }

  summary(): string[] {
    if (!this.written.length) return [];
    return [`  report            ${relative(process.cwd(), this.written[0]) || this.written[0]} (open it in a browser; no server needed)`];
  }
}

export function reportPlugin(): ReportPlugin {
  return new ReportPlugin();
}
