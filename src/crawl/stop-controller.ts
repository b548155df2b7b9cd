/**
 * Why and when a crawl stops early: its time limit, the memory ceiling (./memory-ceiling.ts),
 * Ctrl-C and the caller's AbortSignal. Each stops the fetcher with its reason; the reason is the
 * summary's "stopped" line (a crawl that ends by itself is described by ./stop-reason.ts instead).
 */
import { memoryCeilingMb, memoryOverrun, type MemoryOverrun } from './memory-ceiling.js';

/** What the controller stops: the fetcher (src/fetch/crawler.ts Fetcher). */
export interface Stoppable {
  stop(reason: string): void;
}

export interface StopOptions {
  timeLimitSecs: number;
  /** config.maxRssMb (0: none; undefined: the default ceiling). */
  maxRssMb?: number;
  /** Stop on Ctrl-C (the CLI); a library crawl leaves SIGINT to its caller. */
  handleSigint: boolean;
  signal?: AbortSignal;
  /** Pages logged so far: the memory ceiling applies once one is (a run stopped before its first page could not be resumed). */
  fetched: () => number;
}

export class StopController {
  /** Why the crawl was stopped early; empty while it was not. */
  reason = '';
  /** The memory ceiling's reading, when it stopped the crawl. */
  memoryStop: MemoryOverrun | undefined;
  private target: Stoppable | undefined;
  private readonly ceilingMb: number;
  private memoryTimer: ReturnType<typeof setInterval> | undefined;
  private timeLimitTimer: ReturnType<typeof setTimeout> | undefined;
  private sigints = 0;
  /**
   * One Ctrl-C reaches the crawl more than once: the terminal signals the whole process group, and
   * the wrappers `npm start` runs through (npm, tsx) pass it on again, tsx a second time whenever
   * the crawl has not answered within 30 ms (a loaded machine). A handler that took only the
   * first left the copy to Node's default, which killed the crawl with no summary and no word of
   * --resume. So the handler stays on while the crawl runs, and every SIGINT after the first is
   * part of the same stop; Ctrl-\ (SIGQUIT) quits at once.
   */
  private readonly onSigint = () => {
    if (this.sigints++ > 0) return;
    process.stderr.write('Ctrl-C: stopping after the pages in flight (Ctrl-\\ quits at once; --resume continues either way)\n');
    this.stop('interrupted (Ctrl-C)');
  };
  private readonly onAbort = () => this.stop('interrupted (stopped by the caller)');

  constructor(private readonly opts: StopOptions) {
    this.ceilingMb = memoryCeilingMb(opts.maxRssMb);
  }

  /** Stops `target` with `reason` (the latest reason is the one reported). */
  stop(reason: string): void {
    this.reason = reason;
    this.target?.stop(reason);
  }

  /** After each logged page and every second: over the ceiling, the crawl stops. */
  checkMemory(): void {
    if (this.memoryStop || this.opts.fetched() === 0) return;
    this.memoryStop = memoryOverrun(this.ceilingMb);
    if (!this.memoryStop) return;
    this.stop(`memory ceiling (${this.memoryStop.of} ${this.memoryStop.rssMb} MB resident, ceiling ${this.memoryStop.ceilingMb} MB)`);
  }

  /** Starts watching for `target`: the timers, SIGINT and the abort signal. */
  arm(target: Stoppable): void {
    this.target = target;
    this.memoryTimer = this.ceilingMb > 0 ? setInterval(() => this.checkMemory(), 1000).unref() : undefined;
    const { timeLimitSecs } = this.opts;
    this.timeLimitTimer = timeLimitSecs > 0 ? setTimeout(() => this.stop(`time limit (${timeLimitSecs} s)`), timeLimitSecs * 1000) : undefined;
    if (this.opts.handleSigint) process.on('SIGINT', this.onSigint);
    this.opts.signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  /** Aborted before the start: Crawlee's run() would forget an earlier stop(), so the crawl is not started. */
  abortedBeforeStart(): boolean {
    if (!this.opts.signal?.aborted) return false;
    this.reason = 'interrupted (stopped by the caller)';
    return true;
  }

  disarm(): void {
    if (this.timeLimitTimer) clearTimeout(this.timeLimitTimer);
    if (this.memoryTimer) clearInterval(this.memoryTimer);
    process.off('SIGINT', this.onSigint);
    this.opts.signal?.removeEventListener('abort', this.onAbort);
  }
}
