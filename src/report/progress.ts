/**
 * Live progress: on a terminal, one status line rewritten in place; otherwise (CI, pipes, log
 * files) a plain line every `intervalMs`, so logs stay readable.
 */
export interface ProgressStats {
  fetched: number;
  relevant: number;
  failed: number;
  frontierSize: number;
  budget: number;
  elapsedMs: number;
  hotThreads?: number;
  /** Ground-truth relevant pages so far, on a labelled web. */
  truthRelevant?: number;
}

export function formatProgress(s: ProgressStats): string {
  const secs = s.elapsedMs / 1000;
  const rate = s.fetched ? (s.relevant / s.fetched) * 100 : 0;
  const pps = secs > 0 ? s.fetched / secs : 0;
  const left = s.budget > 0 ? `, ${Math.max(0, s.budget - s.fetched)} left` : '';
  const parts = [
    `${s.fetched}${s.budget > 0 ? `/${s.budget}` : ''} pages${left}`,
    `${s.relevant} relevant (harvest ${rate.toFixed(1)}%)`,
    `frontier ${s.frontierSize}`,
    `${pps.toFixed(1)} pages/s`,
  ];
  if (s.hotThreads !== undefined) parts.push(`${s.hotThreads} hot threads`);
  if (s.failed) parts.push(`${s.failed} failed`);
  parts.push(formatDuration(secs));
  return parts.join(' · ');
}

export function formatDuration(secs: number): string {
  if (secs < 60) return `${secs.toFixed(0)}s`;
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
    const line = formatProgress(stats);
    if (this.tty) {
      const width = this.stream.columns ?? 120;
      this.stream.write(`\r\x1b[2K${line.slice(0, width - 1)}`);
      this.lineOpen = true;
    } else {
      this.stream.write(`[crawl] ${line}\n`);
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
