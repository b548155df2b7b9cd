/**
 * Embedded crawl state in lowdb: the run's identity, configuration and counters, so a run can
 * be inspected, reported on and resumed. lowdb writes through steno (temp file + rename), so the
 * file on disk is always a complete JSON document.
 */
import { Low } from 'lowdb';
import { JSONFile } from 'lowdb/node';
import type { CrawlConfig } from '../config/schema.js';
import type { RunCounts } from '../store/counts.js';

/** The run's counts (one definition: src/store/counts.ts). */
export type RunCounters = RunCounts;

export interface RunStateData {
  runId: string;
  startedAt: string;
  updatedAt: string;
  finishedAt?: string;
  status: 'running' | 'finished' | 'interrupted';
  config: CrawlConfig;
  counters: RunCounters;
}

export class RunState {
  private constructor(private readonly db: Low<RunStateData>) {}

  static async open(path: string, init: () => RunStateData): Promise<RunState> {
    const db = new Low<RunStateData>(new JSONFile<RunStateData>(path), init());
    await db.read();
    if (!db.data || !db.data.runId) db.data = init();
    await db.write();
    return new RunState(db);
  }

  get data(): RunStateData {
    return this.db.data;
  }

  async update(mut: (d: RunStateData) => void): Promise<void> {
    mut(this.db.data);
    this.db.data.updatedAt = new Date().toISOString();
    await this.db.write();
  }
}
