/**
 * One report for a crawl shared by several workers (src/cluster/redis-frontier.ts). Each worker keeps
 * its own run folder, `runs/<crawl-id>.w<N>/` (crawl log, state, thread store) and dataset
 * `datasets/run-<crawl-id>.w<N>/`; `--report <crawl-id>` merges them into `runs/<crawl-id>/`
 * and `datasets/run-<crawl-id>/` (the crawl log in time order, each line naming its worker; the
 * counts recomputed from it by the one tally; threads by id, the latest visit winning), then
 * writes the report of that merged run like any other.
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { countLog, countThreads } from '../store/counts.js';
import { CrawlLog, type CrawlLogEntry } from '../store/crawl-log.js';
import { loggedItems } from '../store/dataset-tail.js';
import { datasetName, RunDir, runsDir } from '../store/run-dir.js';
import type { RunStateData } from '../store/run-state.js';
import type { ThreadRecord } from '../store/threads.js';

const WORKER_RUN = /^(.+)\.w(\d+)$/;

/** Run ids of a shared crawl's workers, by worker number. */
export function workerRuns(storageDir: string, crawlId: string): string[] {
  const dir = runsDir(storageDir);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .map((d) => WORKER_RUN.exec(d))
    .filter((m): m is RegExpExecArray => m !== null && m[1] === crawlId && existsSync(join(dir, m[0], 'crawl-log.jsonl')))
    .sort((a, b) => Number(a[2]) - Number(b[2]))
    .map((m) => m[0]);
}

/** The crawl a worker's run belongs to (`quake.w2` → `quake`), or undefined. */
export function sharedCrawlOf(runId: string): string | undefined {
  return WORKER_RUN.exec(runId)?.[1];
}

function readJson<T>(path: string): T | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

/** Merge the workers' parts of crawl `crawlId` into the run `crawlId`; returns what was merged. */
export function mergeWorkerRuns(storageDir: string, crawlId: string): { runId: string; workers: string[]; pages: number } {
  const root = resolve(storageDir);
  const workers = workerRuns(root, crawlId);
  const merged = new RunDir(root, crawlId);
  mkdirSync(merged.dir, { recursive: true });
  const log: (CrawlLogEntry & { worker: string })[] = [];
  const threads = new Map<string, ThreadRecord>();
  const states: RunStateData[] = [];
  for (const w of workers) {
    const run = new RunDir(root, w);
    for (const e of CrawlLog.read(run.file('crawlLog'))) log.push({ ...e, worker: w });
    const t = readJson<{ threads?: Record<string, ThreadRecord> }>(run.file('threads'));
    for (const [id, rec] of Object.entries(t?.threads ?? {})) {
      const old = threads.get(id);
      const last = (r: ThreadRecord) => r.hotness[r.hotness.length - 1]?.at ?? '';
      if (!old || last(rec) > last(old)) threads.set(id, rec);
    }
    const s = readJson<RunStateData>(run.file('state'));
    if (s) states.push(s);
  }
  log.sort((a, b) => a.time.localeCompare(b.time));
  writeFileSync(merged.file('crawlLog'), log.map((e) => JSON.stringify(e)).join('\n') + (log.length ? '\n' : ''));
  if (threads.size) writeFileSync(merged.file('threads'), JSON.stringify({ threads: Object.fromEntries(threads) }));
  const first = states.slice().sort((a, b) => a.startedAt.localeCompare(b.startedAt))[0];
  if (first) {
    const hot = first.config.threads?.hotThreshold ?? 15;
    const state: RunStateData = {
      ...first,
      runId: crawlId,
      updatedAt: new Date().toISOString(),
      finishedAt: states.map((s) => s.finishedAt ?? '').sort().at(-1) || undefined,
      status: states.every((s) => s.status === 'finished') ? 'finished' : 'interrupted',
      counters: { ...countLog(log), ...(threads.size ? countThreads([...threads.values()], hot, first.config.threads?.minConfidence ?? 0) : {}) },
    };
    writeFileSync(merged.file('state'), JSON.stringify(state, null, 2));
  }
  // The dataset: every worker's records, numbered afresh in worker order. A worker killed between
  // an item and its crawl-log line left an item whose page another worker fetched again once the
  // lease ran out: only items with their line are merged (src/store/dataset-tail.ts).
  const dataset = join(root, 'datasets', datasetName(crawlId));
  rmSync(dataset, { recursive: true, force: true });
  mkdirSync(dataset, { recursive: true });
  let n = 0;
  for (const w of workers) {
    const run = new RunDir(root, w);
    const from = run.datasetDir;
    if (!existsSync(from)) continue;
    const items = loggedItems(from, CrawlLog.read(run.file('crawlLog')))?.kept ?? readdirSync(from).filter((f) => f.endsWith('.json')).sort();
    for (const f of items) copyFileSync(join(from, f), join(dataset, `${String(++n).padStart(9, '0')}.json`));
  }
  return { runId: crawlId, workers, pages: log.length };
}
