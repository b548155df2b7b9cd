/**
 * `--resume`: continue a crawl that stopped (Ctrl-C, crash, kill -9) where it stopped.
 *
 * What survives on disk, per run folder (storage/runs/<id>/):
 *   crawl-log.jsonl       every fetched URL (the record of what was fetched: never fetched again)
 *   frontier-*.json(l)    frontier snapshot + journal (src/frontier/journal.ts)
 *   scorer-pages.jsonl    the scorer's input per fetched page; replayed through a fresh scorer,
 *                         it rebuilds the link graph, tunnel buffers, feedback runs, site table
 *                         and the RWB generator exactly (scoring is a pure function of it).
 *   judge-*.json(l)       the page judge's snapshot + its inputs since (src/judge/judge-journal.ts):
 *                         IDF, seed sets, term models, classifiers, harvest sample, as they were.
 *   near-duplicates.jsonl the near-duplicate index's page sketches (src/crawl/near-duplicate-journal.ts):
 *                         a page's copy fetched after the stop is still a near-duplicate.
 *   adaptive-evidence.jsonl / adaptive-data.jsonl  the adaptive fetcher's comparisons and its data
 *                         path's recipes (src/fetch/adaptive/adaptive-policy.ts openAdaptivePolicy,
 *                         src/fetch/adaptive/adaptive-data.ts openDataPaths): replayed for pages in the log.
 */
import { join } from 'node:path';
import { FrontierJournal, type FrontierSnapshot, type JournalOp } from '../frontier/journal.js';
import { uniqueKeyOf } from '../frontier/frontier.js';
import type { FetchedPage } from '../score/index.js';
import { CrawlLog, type CrawlLogEntry } from '../store/crawl-log.js';
import { JsonLinesWriter, readJsonLines } from '../store/jsonl.js';
import { CountTally, type RunCounts } from '../store/counts.js';
import { resolveRun, RUN_FILES } from '../store/run-dir.js';

export const SCORER_PAGES = RUN_FILES.scorerPages;

/** The run `--resume` continues: `runId`, or the latest run (src/store/run-dir.ts defines it). */
export function findRunToResume(storageDir: string, runId?: string): string {
  return resolveRun(storageDir, runId, '--resume');
}

/** Append-only log of the scorer's inputs (synchronous, like the crawl log). */
export class ScorerInputLog extends JsonLinesWriter<FetchedPage> {
  /** Read back with dates revived; torn lines skipped. */
  static read(path: string): FetchedPage[] {
    return readJsonLines<FetchedPage>(path, reviveScorerInput);
  }
}

/** A scorer input back from JSON: its dates revived (also for other workers' pages from Redis). */
export function reviveScorerInput(p: FetchedPage): FetchedPage {
  if (p.publishTime) p.publishTime = new Date(p.publishTime);
  for (const l of p.links) if (l.urlTime) l.urlTime = new Date(l.urlTime);
  return p;
}

export interface ResumeState {
  runId: string;
  frontier: { snapshot?: FrontierSnapshot; ops: JournalOp[]; gen: number };
  log: CrawlLogEntry[];
  /** Unique keys of URLs in the crawl log. */
  fetchedKeys: Set<string>;
  /** Scorer inputs of fetched pages, in fetch order, each page once. */
  scorerPages: FetchedPage[];
  counters: RunCounts;
  truthCurve: number[];
}

export function loadResumeState(runDir: string, runId: string): ResumeState {
  const log = CrawlLog.read(join(runDir, RUN_FILES.crawlLog));
  const fetchedKeys = new Set(log.map((e) => uniqueKeyOf(e.url)));
  const tally = new CountTally();
  const truthCurve: number[] = [];
  for (const e of log) {
    tally.add(e);
    if (e.truth !== undefined) truthCurve.push(tally.truthRelevant / tally.fetched);
  }
  const counters = tally.counts();
  const seen = new Set<string>();
  const scorerPages = ScorerInputLog.read(join(runDir, SCORER_PAGES)).filter((p) => {
    // A page scored but not logged before the crash is fetched again; use one input per page.
    const k = uniqueKeyOf(p.url);
    if (!fetchedKeys.has(k) || seen.has(k)) return false;
    seen.add(k);
    return true;
  });
  return { runId, frontier: FrontierJournal.read(runDir), log, fetchedKeys, scorerPages, counters, truthCurve };
}
