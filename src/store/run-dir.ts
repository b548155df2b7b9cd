/**
 * The run folder, owned here: where a run's files live and what they are called, and the one
 * definition of "the latest run" that `--resume`, `--explain` and `--report` all use.
 *
 *   <storage>/runs/<id>/crawl-log.jsonl      every fetched URL (src/store/crawl-log.ts)
 *                       state.json           config, status, counters (src/store/run-state.ts)
 *                       scorer-pages.jsonl   the scorer's inputs, replayed by --resume
 *                       frontier-*.json(l)   frontier snapshot + journal (src/frontier/journal.ts names them)
 *                       threads.json         reply-thread store; replies.jsonl: new replies
 *                       refused.jsonl        what the fetch gate refused
 *                       subrequests.jsonl    comment-API requests (not pages), with outcome and reason
 *                       adaptive-evidence.jsonl  the adaptive fetcher's comparisons, replayed by --resume
 *                       adaptive-data.jsonl  the data path's recipes per URL pattern, replayed by --resume
 *                       labels.jsonl         the user's labels of pages (src/crawl/labels.ts)
 *                       report/index.html    the run's report
 *   <storage>/datasets/run-<id>/             relevant pages (a Crawlee dataset)
 *   <storage>/report/index.html              the latest report
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { UserError } from '../config/errors.js';

export const RUN_FILES = {
  crawlLog: 'crawl-log.jsonl',
  state: 'state.json',
  scorerPages: 'scorer-pages.jsonl',
  threads: 'threads.json',
  replies: 'replies.jsonl',
  frontierSnapshot: 'frontier-snapshot.json',
  /** What the fetch gate refused (links never queued, requests turned away). */
  refused: 'refused.jsonl',
  /** Requests that are not pages (comment-API pages), fetched, failed or refused (src/crawl/polite-fetch.ts). */
  subRequests: 'subrequests.jsonl',
  /** The demo's test-web origins, so `--resume` serves it again where the run left it (src/cli/demo.ts). */
  testweb: 'testweb.json',
  /** The adaptive fetcher's HTTP-vs-browser comparisons (src/fetch/adaptive/adaptive.ts). */
  adaptiveEvidence: 'adaptive-evidence.jsonl',
  /** The data path's per-pattern recipes and their runs (src/fetch/adaptive/adaptive-data.ts). */
  adaptiveData: 'adaptive-data.jsonl',
  /** The crawl's own harvest estimate at its end (src/topic/harvest-sample.ts), for the report. */
  harvestEstimate: 'harvest-estimate.json',
  reportDir: 'report',
} as const;

export function runsDir(storageDir: string): string {
  return join(resolve(storageDir), 'runs');
}

/** The Crawlee dataset name of a run's relevant pages. */
export function datasetName(runId: string): string {
  return `run-${runId}`;
}

/** Paths of one run's files. */
export class RunDir {
  readonly dir: string;
  constructor(
    readonly storageDir: string,
    readonly runId: string,
  ) {
    this.dir = join(runsDir(storageDir), runId);
  }
  file(name: keyof typeof RUN_FILES): string {
    return join(this.dir, RUN_FILES[name]);
  }
  get datasetDir(): string {
    return join(resolve(this.storageDir), 'datasets', datasetName(this.runId));
  }
  get reportFile(): string {
    return join(this.dir, RUN_FILES.reportDir, 'index.html');
  }
  /** The run fetched at least one page (its crawl log has a line). */
  get hasFetched(): boolean {
    const p = this.file('crawlLog');
    return existsSync(p) && statSync(p).size > 0;
  }
  /** The run queued URLs (its frontier journal or snapshot exists): something for --explain even before a fetch. */
  get hasFrontier(): boolean {
    return existsSync(this.file('frontierSnapshot')) || readdirSync(this.dir).some((f) => /^frontier-\d+\.jsonl$/.test(f));
  }
    /** When the run started: state.json's startedAt, else the time of its first fetch. */
  startedAt(): string {
    try {
      const s = JSON.parse(readFileSync(this.file('state'), 'utf8')) as { startedAt?: string };
      if (s.startedAt) return s.startedAt;
    } catch {
      // no state file (or torn): fall back to the crawl log
    }
    try {
      const first = readFileSync(this.file('crawlLog'), 'utf8').split('\n', 1)[0];
      return String((JSON.parse(first) as { time?: string }).time ?? '');
    } catch {
      return '';
    }
  }
}

/**
 * Runs that fetched at least one page, latest first (by start time, then id). A run that
 * stopped before its first fetch is not listed: it has nothing to resume, explain or report.
 */
export function listRuns(storageDir: string, opts: { unfetched?: boolean } = {}): string[] {
  const dir = runsDir(storageDir);
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => new RunDir(storageDir, d.name))
    .filter((r) => r.hasFetched || (opts.unfetched === true && r.hasFrontier))
    .map((r) => ({ id: r.runId, t: r.startedAt() }))
    .sort((a, b) => b.t.localeCompare(a.t) || b.id.localeCompare(a.id))
    .map((r) => r.id);
}

/** The latest run (see listRuns), or undefined. */
export function latestRun(storageDir: string): string | undefined {
  return listRuns(storageDir)[0];
}

/**
 * The run a command reads: `runId` when given (it must exist), else the latest. `what` names
 * the command in the one-line error (e.g. "--resume"; empty: no prefix).
 */
export function resolveRun(storageDir: string, runId: string | undefined, what: string): string {
  const dir = runsDir(storageDir);
  if (runId) {
    const r = new RunDir(storageDir, runId);
    if (!existsSync(r.file('crawlLog')) && !existsSync(r.file('frontierSnapshot'))) {
      const known = listRuns(storageDir).slice(0, 5);
      throw new UserError(`${what ? `${what}: ` : ''}no run "${runId}" in ${dir}${known.length ? ` (recent runs: ${known.join(', ')})` : ' (no runs yet)'}`);
    }
    return runId;
  }
  // --explain also reads a run that fetched nothing (every seed refused or unreachable): its frontier says why.
  const latest = listRuns(storageDir, { unfetched: what === '--explain' })[0];
  if (!latest) throw new UserError(`${what ? `${what}: ` : ''}no earlier run in ${dir} to ${what === '--resume' ? 'resume' : 'read'}`);
  return latest;
}
