/**
 * Live progress: on a terminal, one status line rewritten in place; otherwise (CI, pipes, log
 * files) a plain line every `intervalMs`, so logs stay readable. The counts come from the one
 * tally (src/store/counts.ts) the summary and the report read too.
 */
import type { RunCounts } from '../store/counts.js';

export interface ProgressStats extends RunCounts {
  frontierSize: number;
  budget: number;
  elapsedMs: number;
  /** The crawl's wall-clock limit (0 or absent: none), for the time-remaining estimate. */
  timeLimitSecs?: number;
  /** Pages a resumed run had fetched before it (in `fetched`, not in this run's rate). */
  fetchedBefore?: number;
}

/**
 * Seconds until the crawl ends at its current rate: the page budget left over pages/s, or the
 * time limit if that comes first. Undefined while there is nothing to estimate from.
 */
export function etaSeconds(s: Pick<ProgressStats, 'fetched' | 'budget' | 'elapsedMs' | 'timeLimitSecs' | 'fetchedBefore'>): number | undefined {
  const secs = s.elapsedMs / 1000;
  const byLimit = s.timeLimitSecs && s.timeLimitSecs > 0 ? Math.max(0, s.timeLimitSecs - secs) : undefined;
  const own = s.fetched - (s.fetchedBefore ?? 0);
  const byBudget = s.budget > 0 && own > 0 && secs > 0 ? Math.max(0, s.budget - s.fetched) / (own / secs) : undefined;
  if (byBudget === undefined) return byLimit;
  return byLimit === undefined ? byBudget : Math.min(byBudget, byLimit);
}

/**
 * The status line's fields, each with its rank (0 = most important). The line keeps its
 * reading order; when it is too wide the least important fields go first (fitProgress).
 */
export function progressFields(s: ProgressStats): { text: string; rank: number }[] {
  const secs = s.elapsedMs / 1000;
  const rate = s.fetched ? (s.relevant / s.fetched) * 100 : 0;
  const pps = secs > 0 ? (s.fetched - (s.fetchedBefore ?? 0)) / secs : 0;
  const eta = etaSeconds(s);
  const fields: { text: string; rank: number }[] = [
    { text: `${s.fetched}${s.budget > 0 ? `/${s.budget}` : ''} pages`, rank: 0 },
    // The crawler's own verdicts: labelled judged, never taken for the truth.
    { text: `${s.relevant} relevant (judged harvest ${rate.toFixed(1)}%)`, rank: 1 },
    { text: `frontier ${s.frontierSize}`, rank: 6 },
    { text: `${pps.toFixed(1)} pages/s${s.fetchedBefore ? ' this run' : ''}`, rank: 7 },
  ];
  if (s.threadsFound !== undefined || s.hotThreads !== undefined) {
    fields.push({ text: `${s.threadsFound ?? 0} threads, ${s.hotThreads ?? 0} hot`, rank: 5 });
  }
  if (s.failed) fields.push({ text: `${s.failed} failed`, rank: 4 });
  fields.push({ text: formatDuration(secs), rank: 3 });
  if (eta !== undefined) fields.push({ text: `ETA ${formatDuration(eta)}`, rank: 2 });
  return fields;
}

/** The whole line, fields joined in reading order. */
export function formatProgress(s: ProgressStats): string {
  return progressFields(s)
    .map((f) => f.text)
    .join(' · ');
}

/**
 * The line fitted to `width` columns (CJK characters count double): drop the least important
 * fields until it fits, and if even the first field is too wide, cut it at a word boundary.
 */
export function fitProgress(s: ProgressStats, width: number): string {
  let fields = progressFields(s);
  const line = () => fields.map((f) => f.text).join(' · ');
  while (fields.length > 1 && displayWidth(line()) > width) {
    const worst = Math.max(...fields.map((f) => f.rank));
    fields = fields.filter((f) => f.rank !== worst);
  }
  const text = line();
  if (displayWidth(text) <= width) return text;
  const words = text.split(' ');
  let out = '';
  for (const w of words) {
    const next = out ? `${out} ${w}` : w;
    if (displayWidth(next) > width) break;
    out = next;
  }
  return out;
}

/** Terminal columns of a string: East Asian wide characters take two. */
export function displayWidth(text: string): number {
  let w = 0;
  for (const ch of text) w += /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]/u.test(ch) ? 2 : 1;
  return w;
}

export function formatDuration(secs: number): string {
  if (!Number.isFinite(secs)) return '–';
  if (secs < 60) return `${secs.toFixed(0)}s`;
  if (secs >= 3600) return `${Math.floor(secs / 3600)}h${String(Math.floor((secs % 3600) / 60)).padStart(2, '0')}m`;
  const m = Math.floor(secs / 60);
  return `${m}m${String(Math.floor(secs % 60)).padStart(2, '0')}s`;
}

export interface ProgressReporterOptions {
  stream?: NodeJS.WriteStream;
  /** Force plain lines even on a TTY (or status lines off a TTY, for tests). */
  tty?: boolean;
  intervalMs?: number;
  /** Silence everything (library use). */
  quiet?: boolean;
}

export class ProgressReporter {
  private readonly stream: NodeJS.WriteStream;
  private readonly tty: boolean;
  private readonly intervalMs: number;
  private lastPrint = 0;
  private lineOpen = false;
  private readonly quiet: boolean;

  constructor(opts: ProgressReporterOptions = {}) {
    this.stream = opts.stream ?? process.stderr;
    this.tty = opts.tty ?? (Boolean(this.stream.isTTY) && !process.env.CI);
    this.intervalMs = opts.intervalMs ?? (this.tty ? 200 : 10_000);
    this.quiet = opts.quiet ?? false;
  }

  update(stats: ProgressStats, force = false): void {
    if (this.quiet) return;
    const now = Date.now();
    if (!force && now - this.lastPrint < this.intervalMs) return;
    this.lastPrint = now;
    if (this.tty) {
      const width = this.stream.columns ?? 120;
      // One column spare: writing into the last column wraps on some terminals.
      this.stream.write(`\r\x1b[2K${fitProgress(stats, width - 1)}`);
      this.lineOpen = true;
    } else {
      this.stream.write(`[crawl] ${formatProgress(stats)}\n`);
    }
  }

  /** A message that must not be overwritten by the status line. */
  log(message: string): void {
    if (this.quiet) return;
    this.end();
    this.stream.write(message + '\n');
  }

  end(): void {
    if (this.lineOpen) this.stream.write('\n');
    this.lineOpen = false;
  }
}
