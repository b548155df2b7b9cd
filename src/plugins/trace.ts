/**
 * Playwright traces of crawled pages (`--trace all|failures|sample:N`): screenshots, DOM
 * snapshots and network of each page, one zip per page under storage/traces/, opened with
 * `npm run trace -- FILE` (src/cli/trace.ts: Playwright's viewer in the crawler's own browser).
 * `failures` keeps the pages the run counts as failed (src/store/counts.ts). Tracing is per browser context, so the plugin asks the
 * engine for one context per page (Crawlee incognito pages).
 */
import { commandName } from '../util/command-name.js';
import { mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Request } from 'crawlee';
import type { Page } from 'playwright';
import { UserError } from '../config/errors.js';
import type { CrawlContext, CrawlPlugin, PageEvent } from '../crawl/types.js';
import type { CrawlLogEntry } from '../store/crawl-log.js';
import { failureReason } from '../store/counts.js';
import { displayPath } from '../report/paths.js';

export type TraceMode = { kind: 'all' } | { kind: 'failures' } | { kind: 'sample'; every: number };

/** `all`, `failures` or `sample:N` (keep 1 page in N). */
export function parseTraceMode(text: string): TraceMode {
  const t = text.trim().toLowerCase();
  if (t === 'all' || t === '') return { kind: 'all' };
  if (t === 'failures') return { kind: 'failures' };
  const m = /^sample:(\d+)$/.exec(t);
  if (m && Number(m[1]) >= 1) return { kind: 'sample', every: Number(m[1]) };
  throw new UserError(`--trace "${text}": expected all, failures or sample:N (N ≥ 1, e.g. sample:10)`);
}

/** File-name-safe slug of a URL: host and path, at most 60 characters. */
export function urlSlug(url: string): string {
  let s = url;
  try {
    const u = new URL(url);
    s = u.host + u.pathname + u.search;
  } catch {
    /* keep as given */
  }
  return (
    s
      .replace(/[^A-Za-z0-9.\-_]+/g, '_')
      .replace(/_+/g, '_')
      .replace(/^_|_$/g, '')
      .slice(0, 60) || 'page'
  );
}

interface Active {
  request: Request;
  seq: number;
  startedAt: Date;
  /** Set once the page's outcome is known: true = keep under `failures`. */
  failed?: boolean;
  stopped?: boolean;
}

export interface TracePluginOptions {
  mode: TraceMode;
  /** Default: <storageDir>/traces. */
  dir?: string;
}

/**
 * A failed page for `failures` mode: exactly what the run's counts call failed (no response, or
 * an HTTP error), so the traces kept match the summary's `failed` count.
 */
export function isTraceFailure(entry: Pick<CrawlLogEntry, 'decision' | 'status' | 'reason'>): boolean {
  return failureReason(entry) !== undefined;
}

export class TracePlugin implements CrawlPlugin {
  readonly name = 'trace';
  readonly isolatePages = true;
  private dir = '';
  private seq = 0;
  private readonly active = new WeakMap<Page, Active>();
  /** Outcome per request URL, learnt from onRecord (failures reach the log before the page closes). */
  private readonly outcome = new Map<string, boolean>();
  readonly kept: string[] = [];
  private discarded = 0;

  constructor(private readonly opts: TracePluginOptions) {}

  private shown = (p: string) => p;
  private fetcher = 'browser';

  beforeRun(ctx: CrawlContext): void {
    this.shown = (p) => displayPath(p, ctx.config.storageDir);
    this.fetcher = ctx.config.fetcher;
    // Traces are of pages rendered in the browser: none with the HTTP fetcher, only the rendered ones with the adaptive one.
    if (this.fetcher === 'http') ctx.progress.log('--trace: the HTTP fetcher renders no page, so no traces are recorded (--fetcher browser or adaptive records them)');
    if (this.fetcher === 'adaptive') ctx.progress.log('--trace: the adaptive fetcher traces only the pages it renders in the browser (--fetcher browser renders, and traces, every page)');
    this.dir = this.opts.dir ?? join(ctx.storageDir, 'traces');
    mkdirSync(this.dir, { recursive: true });
  }

  async preNavigation(page: Page, request: Request): Promise<void> {
    const seq = this.seq++;
    const mode = this.opts.mode;
    // Sampling is decided up front: unsampled pages pay nothing.
    if (mode.kind === 'sample' && seq % mode.every !== 0) return;
    // A retry gets a new page; a previous attempt's trace is closed by pageClosing.
    await page.context().tracing.start({ screenshots: true, snapshots: true, title: request.url });
    this.active.set(page, { request, seq, startedAt: new Date() });
  }

  onRecord(entry: CrawlLogEntry): void {
    this.outcome.set(entry.url, isTraceFailure(entry));
  }

  /** Successful pages end here, well before the page closes: the trace is stopped now. */
  async onPage(event: PageEvent): Promise<void> {
    const page = event.rendered.page;
    if (!page) return;
    const a = this.active.get(page);
    if (!a) return;
    a.failed = isTraceFailure(event.entry);
    await this.finish(page, a);
  }

  /** Everything else (failed attempts, non-HTML responses) is stopped as the page closes. */
  async pageClosing(page: Page): Promise<void> {
    const a = this.active.get(page);
    if (!a || a.stopped) return;
    // No outcome: an attempt that threw and will be retried; it failed, but the request may not.
    a.failed = this.outcome.get(a.request.url) ?? false;
    await this.finish(page, a);
  }

  private async finish(page: Page, a: Active): Promise<void> {
    a.stopped = true;
    const keep = this.opts.mode.kind !== 'failures' || a.failed === true;
    const stamp = a.startedAt.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
    const id = (a.request.id ?? String(a.seq)).slice(0, 12);
    const file = join(this.dir, `${stamp}-${String(a.seq).padStart(4, '0')}-${id}-${urlSlug(a.request.url)}.zip`);
    try {
      if (!keep) {
        await page.context().tracing.stop();
        this.discarded++;
        return;
      }
      // Write under a temporary name, then rename: a half-written zip never carries the final name.
      const tmp = `${file}.part`;
      await page.context().tracing.stop({ path: tmp });
      renameSync(tmp, file);
      this.kept.push(file);
    } catch {
      // The context closed under us (browser crash, page-close timeout): nothing to save.
      rmSync(`${file}.part`, { force: true });
    }
  }

  summary(): string[] {
    if (!this.dir) return [];
    const dir = this.shown(this.dir);
    if (this.fetcher === 'http') return ['  traces            none: the HTTP fetcher renders no page'];
    const of = this.fetcher === 'adaptive' ? ' of pages rendered in the browser' : '';
    if (this.kept.length === 0) return [`  traces            none kept (${this.opts.mode.kind}${of}) in ${dir}/`];
    return [`  traces            ${this.kept.length}${of} in ${dir}/ — open one with: ${traceCommand(this.shown(this.kept[0]))}`];
  }
}

/** The command that opens a trace in Playwright's viewer with the crawler's browser (src/cli/trace.ts). */
export function traceCommand(file: string): string {
  return `${commandName('trace')} ${/[\s'"$]/.test(file) ? JSON.stringify(file) : file}`;
}

export function tracePlugin(mode: TraceMode | string, dir?: string): TracePlugin {
  return new TracePlugin({ mode: typeof mode === 'string' ? parseTraceMode(mode) : mode, dir });
}
