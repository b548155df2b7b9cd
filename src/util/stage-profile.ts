/**
 * Where a crawl's time goes, stage by stage (`npm run bench -- --only adaptive` prints it): off
 * unless a profile is switched on, and then one `performance.now()` pair per stage. Work that
 * holds the event loop (parsing, Readability, jieba, the comparison) is timed exclusively: a
 * stage timed inside another is not counted again in the outer one. Waits (the HTTP fetch, a
 * render, a data-path API call) overlap across the concurrent pages, so they are summed as slot
 * time: what one page waits, not what the crawl waits.
 */
export interface StageFigure {
  ms: number;
  calls: number;
}

export class StageProfile {
  /** Event-loop work, exclusive of the stages timed inside it. */
  readonly work = new Map<string, StageFigure>();
  /** Waits of one page (asynchronous), overlapping across pages. */
  readonly waits = new Map<string, StageFigure>();

  add(kind: 'work' | 'waits', stage: string, ms: number): void {
    const m = this[kind];
    const f = m.get(stage);
    if (f) {
      f.ms += ms;
      f.calls++;
    } else m.set(stage, { ms, calls: 1 });
  }
}

let active: StageProfile | undefined;
/** Time spent in stages nested in the one running now, per open stage. */
const nested: number[] = [];

/** Switch profiling on (a profile) or off (undefined) for the whole process. */
export function profileStages(profile: StageProfile | undefined): void {
  active = profile;
  nested.length = 0;
}

/** Run synchronous `fn` as stage `name` (exclusive of the stages inside it). */
export function timed<T>(name: string, fn: () => T): T {
  const profile = active;
  if (!profile) return fn();
  const t0 = performance.now();
  nested.push(0);
  try {
    return fn();
  } finally {
    const total = performance.now() - t0;
    const inner = nested.pop() ?? 0;
    profile.add('work', name, total - inner);
    if (nested.length) nested[nested.length - 1] += total;
  }
}

/** Await `fn` as a wait named `name` (wall time of this page). */
export async function waited<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const profile = active;
  if (!profile) return fn();
  const t0 = performance.now();
  try {
    return await fn();
  } finally {
    profile.add('waits', name, performance.now() - t0);
  }
}

/** Whether a profile is on (a stage that measures its own parts asks first). */
export function profiling(): boolean {
  return active !== undefined;
}

/** Add `ms` of event-loop work measured by the caller, as a part of the stage running now. */
export function noteWork(name: string, ms: number): void {
  if (!active) return;
  active.add('work', name, ms);
  if (nested.length) nested[nested.length - 1] += ms;
}
