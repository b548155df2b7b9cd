/**
 * Long because: three small classes (revisit queue, sibling walk, tracker) that only this plugin uses.
 *
 * Reply threads during a crawl (METHODS §4): every analysed page goes through extractThread; a
 * thread's visits go to a ThreadStore (storage/runs/<id>/threads.json), all its pages are
 * followed, hot threads are revisited (a revisit queue ordered by hotness H, sharing the page
 * budget), and replies that arrived since the first visit are written as records
 * (storage/runs/<id>/replies.jsonl, one post per line).
 *
 * Comment-API pages (JSON) are not queued in the frontier: they are not documents (Chromium
 * would render them as a text page, cost a page of budget and give the engine nothing to
 * analyse), the widget itself loads only page 1 (more need a click), and a plain GET of a small
 * JSON body is cheap. They go through the crawl's own polite fetching (ctx.fetch,
 * src/crawl/polite-fetch.ts): the fetch gate, robots.txt, the frontier's per-host delay, the
 * crawl's limits, and the sub-request log. Replies are appended through the store's JSON Lines
 * writer (src/store/jsonl.ts), synchronously, like the crawl log.
 *
 * The plugin is three small classes: RevisitQueue (revisits waiting and fetched), SiblingWalk (a
 * board's next threads) and ThreadsTracker (the hooks, the store, replies.jsonl); the pure
 * decisions (revisit allowance and plan, page merging, new replies) are functions above them.
 */
import { join } from 'node:path';
import type { CrawlConfig } from '../config/schema.js';
import { UserError } from '../config/errors.js';
import { BUILTIN_MATCHERS, extractThread, loadMatchers, MatcherFileError, type Post, type ReplyMatcher, type ThreadExtract, type XhrCapture } from '../extract/replies/index.js';
import { uniqueKeyOf } from '../frontier/frontier.js';
import { crawlUserData } from '../frontier/user-data.js';
import { RUN_FILES } from '../store/run-dir.js';
import { JsonLinesWriter } from '../store/jsonl.js';
import { DEFAULT_SCORE_BANDS, revisitBandScore, scoreBands, threadPageBandScore, type ScoreBands } from '../score/bands.js';
import { latestHotness, type RunCounts } from '../store/counts.js';
import { isHot, type HotnessOptions, type RevisitOptions } from '../score/hotness.js';
import { isConfident, ThreadStore } from '../store/threads.js';
import type { CrawlLogEntry } from '../store/crawl-log.js';
import type { CrawlContext, CrawlPlugin, PageEvent } from '../crawl/types.js';
import type { RenderedPage } from '../fetch/crawler.js';
import { listingTemplate, siblingThreads } from './sibling-threads.js';

const HOUR_MS = 3_600_000;
/**
 * Most a page's comment-API requests may wait for their host's delay, all together: they run
 * inside the page's handler, which Crawlee ends after navigationTimeoutSecs + 30 s; on a slow
 * host (a long Crawl-delay) the later comment pages are left out, with the reason logged.
 */
const API_WAIT_BUDGET_MS = 20_000;
/** Off-topic siblings in a row that end a board's walk (./sibling-threads.ts): one misjudged thread does not. */
const SIBLING_MISSES = 2;


export interface ThreadsPluginOptions {
  /**
   * The reply clock. Default: the page's fetch time. Tests on the test web pass its simulated
   * clock (web.clock.now), since that is the time the server's pages show.
   */
  now?: () => Date;
  /** `--watch`: offer due revisits on a timer too, not only after each page. */
  watch?: boolean;
  /** Watch timer period in ms (default 1000). */
  tickMs?: number;
  /** Reply templates tried before the built-in ones (default: config.threads.matchers loaded). */
  matchers?: ReplyMatcher[];
  /**
   * GET a comment-API page (default: the crawl's polite fetch, ctx.fetch; the JSON body parsed).
   * Tests without a crawl pass their own.
   */
  fetchJson?: (url: string, parent: { url: string; fetchedAt: Date }, maxWaitMs: number) => Promise<unknown>;
}

/** One reply that arrived after the thread's first visit (a line of replies.jsonl). */
export interface ReplyRecord {
  threadId: string;
  /** Page the reply was found on. */
  url: string;
  author: string;
  time?: string;
  text: string;
  floor?: number;
  /** Reply clock when it was found. */
  foundAt: string;
  /** Found on a revisit (or a page first seen through one). */
  revisit: boolean;
}

/** A revisit as fetched, in fetch order (the e2e test checks hot-before-cold with it). */
export interface RevisitFetch {
  threadId: string;
  url: string;
  /** Hotness when it was queued. */
  h: number;
  /** Which tick queued it (revisits of one tick compete by H alone). */
  batch: number;
  /** Reply clock when fetched. */
  at: string;
}

export interface ThreadsStats {
  threads: number;
  hot: number;
  /** Revisits queued / fetched. */
  revisitsOffered: number;
  revisitsFetched: number;
  newReplies: number;
  apiPagesFetched: number;
  /** Sibling threads offered (./sibling-threads.ts). */
  siblingsOffered: number;
}

// ---- decisions, pure --------------------------------------------------------------------

export interface RevisitBudgetInput {
  /** config.threads.revisitShare */
  share: number;
  /** Page budget; 0 = none. */
  maxPages: number;
  /** Revisits already queued in this run. */
  offered: number;
  /** Pages handed out so far (discovery + revisits). */
  handedOut: number;
  /** Discovery URLs waiting in the frontier. */
  discoveryQueued: number;
  watch: boolean;
}

/**
 * How many more revisits may be queued now. A budgeted crawl gives revisits at most
 * share · maxPages pages. Without a page budget (--watch) revisits take at most `share` of the
 * pages handed out while discovery has URLs waiting, and everything once it has none
 * (revisiting is then the only work left).
 */
export function revisitAllowance(b: RevisitBudgetInput): number {
  if (!b.watch && b.maxPages > 0) return Math.max(0, Math.floor(b.share * b.maxPages) - b.offered);
  if (b.discoveryQueued === 0) return Number.POSITIVE_INFINITY;
  return Math.max(0, Math.floor(b.share * (b.handedOut + 1)) - b.offered);
}

export interface DueThread {
  id: string;
  url: string;
  /** Hotness now. */
  h: number;
}

/**
 * Due threads to queue now: hottest first, none already waiting for its revisit, at most
 * `allowance`. Queued in the revisit band (revisit + H, src/score/bands.ts): above discovery and
 * thread pages, so a due revisit is fetched next, and among revisits the hotter thread first.
 */
export function planRevisits(due: readonly DueThread[], pending: ReadonlySet<string>, allowance: number, bands: ScoreBands = DEFAULT_SCORE_BANDS): { id: string; url: string; h: number; score: number }[] {
  return [...due]
    .filter((d) => !pending.has(d.id))
    .sort((a, b) => b.h - a.h || a.id.localeCompare(b.id))
    .slice(0, Math.max(0, allowance))
    .map((d) => ({ ...d, score: revisitBandScore(bands, d.h) }));
}

/** Split a thread's other pages into HTML pages (frontier) and comment-API pages (JSON, by path of a captured XHR). */
export function splitPageUrls(pageUrls: readonly string[], xhrUrls: readonly string[]): { html: string[]; api: string[] } {
  const apiPaths = new Set(xhrUrls.map(pathKey));
  const html: string[] = [];
  const api: string[] = [];
  for (const u of pageUrls) (apiPaths.has(pathKey(u)) ? api : html).push(u);
  return { html, api };
}

function pathKey(u: string): string {
  try {
    const x = new URL(u);
    return x.origin + x.pathname;
  } catch {
    return u;
  }
}

/**
 * Append a thread's newly seen pages to its ordered page list. Pagers list pages in order and
 * new pages appear at the end, so the list's last entry is the thread's latest page: the one a
 * revisit fetches (new replies land there).
 */
export function mergePages(known: readonly string[], pageUrl: string, htmlPages: readonly string[]): string[] {
  const out = known.slice();
  const has = new Set(out);
  for (const u of [pageUrl, ...htmlPages]) {
    if (!has.has(u)) {
      has.add(u);
      out.push(u);
    }
  }
  return out;
}

/**
 * A post new to the store is a new reply when the thread was already known and the post is
 * younger than the first visit (older posts are history on pages not yet read); without a
 * time, when it was found on a revisit.
 */
export function isNewReply(post: Post, firstSeen: string | undefined, onRevisit: boolean): boolean {
  if (firstSeen === undefined) return false;
  if (post.time) return Date.parse(post.time) > Date.parse(firstSeen);
  return onRevisit;
}

/**
 * Frontier score for a relevant thread's other pages: the thread is one document split up, so its
 * pages are as good as the page found, in the thread-page band (src/score/bands.ts): a seed's
 * 1000 must not outrank revisits through its thread pages.
 */
export function threadPageScore(pageScore: number | undefined, relevant: boolean, bands: ScoreBands = DEFAULT_SCORE_BANDS): number | undefined {
  return threadPageBandScore(bands, pageScore, relevant);
}

export function hotnessOptions(config: CrawlConfig): { hotness: HotnessOptions; revisit: RevisitOptions } {
  const t = config.threads;
  return {
    hotness: { alpha: t.alpha, beta: t.betaDays },
    revisit: {
      baseIntervalMs: t.baseIntervalHours * HOUR_MS,
      minIntervalMs: t.minIntervalHours * HOUR_MS,
      maxIntervalMs: t.maxIntervalHours * HOUR_MS,
      hotThreshold: t.hotThreshold,
      floor: t.floor,
    },
  };
}

/** Load --matchers / config.threads.matchers; a bad file is a user mistake (one line). */
export function loadUserMatchers(path: string | undefined): ReplyMatcher[] {
  if (!path) return [];
  try {
    return loadMatchers(path);
  } catch (e) {
    if (e instanceof MatcherFileError) throw new UserError(e.message);
    throw e;
  }
}

// ---- the plugin ---------------------------------------------------------------------------

export type ThreadsPlugin = CrawlPlugin & {
  stats(): ThreadsStats;
  revisits(): RevisitFetch[];
  /** Open during the run (tests read it after). */
  readonly store: ThreadStore | undefined;
  readonly repliesPath: string | undefined;
  /** Offer due revisits now (the watch timer and every page call it). */
  tick(): void;
};

export function threadsPlugin(opts: ThreadsPluginOptions = {}): ThreadsPlugin {
  return new ThreadsTracker(opts);
}

interface QueuedRevisit {
  id: string;
  h: number;
  batch: number;
}

/**
 * Revisits queued and fetched: a thread has at most one revisit waiting; each tick that queues
 * some is a batch (revisits of one batch compete by hotness alone).
 */
class RevisitQueue {
  private readonly waitingThreads = new Set<string>();
  private readonly waitingByUrl = new Map<string, QueuedRevisit>();
  private readonly fetchedInOrder: RevisitFetch[] = [];
  private batches = 0;

  get waiting(): ReadonlySet<string> {
    return this.waitingThreads;
  }

  get size(): number {
    return this.waitingThreads.size;
  }

  /** Queue the planned revisits in the frontier as one batch; returns how many. */
  queue(frontier: CrawlContext['frontier'], plan: readonly { id: string; url: string; h: number; score: number }[]): number {
    if (!plan.length) return 0;
    this.batches++;
    for (const r of plan) {
      frontier.offerRevisit({ url: r.url, depth: 0, score: r.score, components: { hotness: r.h } });
      this.waitingThreads.add(r.id);
      this.waitingByUrl.set(r.url, { id: r.id, h: r.h, batch: this.batches });
    }
    return plan.length;
  }

  /** The revisit of `url` was fetched: its thread may be queued again. Undefined when `url` was no queued revisit. */
  fetched(url: string, at: Date): QueuedRevisit | undefined {
    const q = this.waitingByUrl.get(url);
    if (!q) return undefined;
    this.release(url);
    this.fetchedInOrder.push({ threadId: q.id, url, h: q.h, batch: q.batch, at: at.toISOString() });
    return q;
  }

  /** A revisit that failed frees its thread for the next tick. */
  release(url: string): void {
    const q = this.waitingByUrl.get(url);
    if (!q) return;
    this.waitingThreads.delete(q.id);
    this.waitingByUrl.delete(url);
  }

  history(): RevisitFetch[] {
    return this.fetchedInOrder.slice();
  }
}

type Links = NonNullable<CrawlContext['links']>;

/**
 * Walks along a board's threads (./sibling-threads.ts): a relevant thread found on a listing keeps
 * the listing's next unfetched threads offered; off-topic ones in a row end the walk.
 */
class SiblingWalk {
  /** Thread ids offered as a relevant thread's siblings (counted once each). */
  private readonly offeredIds = new Set<string>();
  /** Listing URL → off-topic siblings in a row. */
  private readonly missesInRow = new Map<string, number>();
  /**
   * The most pages in flight seen (all workers): the crawl's fetch slots, which a walk's window
   * fills (one thread per round trip filled half of one worker's two slots, an eighth of four
   * workers' eight).
   */
  private fetchSlots = 1;
  offered = 0;

  constructor(private readonly matchers: () => readonly ReplyMatcher[]) {}

  sawPagesInFlight(n: number): void {
    this.fetchSlots = Math.max(this.fetchSlots, n);
  }

  /**
   * A listing of a forum template's threads (a board), reached from a page judged relevant: its
   * first unfetched thread is offered in the thread-page band as a probe, the first step of the
   * board's walk, which two off-topic threads in a row end.
   */
  probeListing(c: CrawlContext, url: string, meta: ReturnType<typeof crawlUserData>, bands: ScoreBands): void {
    const links = c.links;
    if (c.config.threads.siblingThreads <= 0 || !links || !meta.parentUrl || links.relevant(meta.parentUrl) !== true) return;
    const out = links.outLinks(url);
    if (!out) return;
    const listed = [...out];
    const m = listingTemplate(url, listed, [...this.matchers(), ...BUILTIN_MATCHERS]);
    const score = threadPageScore(meta.score, true, bands);
    if (!m || score === undefined) return;
    // As the walk's first step: a misjudged probe is one miss, and the next thread is tried.
    this.offer(c, links, { pageUrl: url, parentUrl: url, parentLinks: listed, matcher: m, max: 1 }, score, meta.depth + 1, { siblingThread: 1, threadProbe: 1 });
  }

  /**
   * A thread's first visit from a listing: keep the listing's next threads offered, as many as
   * `siblingThreads` × the crawl's pages in flight. One off-topic (or misjudged) sibling does not
   * end the walk; two in a row do.
   */
  afterThread(c: CrawlContext, ex: ThreadExtract, pageUrl: string, meta: ReturnType<typeof crawlUserData>, relevant: boolean, bands: ScoreBands): void {
    const k = c.config.threads.siblingThreads;
    const listing = meta.parentUrl;
    if (k <= 0 || !listing) return;
    const misses = relevant ? 0 : (this.missesInRow.get(listing) ?? 0) + 1;
    if (relevant || meta.components?.siblingThread) this.missesInRow.set(listing, misses);
    const walk = relevant || (!!meta.components?.siblingThread && misses < SIBLING_MISSES);
    if (!walk || !c.links) return;
    const m = [...this.matchers(), ...BUILTIN_MATCHERS].find((x) => x.name === ex.matcher);
    const parentLinks = m && c.links.outLinks(listing);
    const score = threadPageScore(meta.score, true, bands);
    if (!m || !parentLinks || score === undefined) return;
    this.offer(c, c.links, { pageUrl, parentUrl: listing, parentLinks, matcher: m, max: k * this.fetchSlots }, score, meta.depth, { siblingThread: 1 });
  }

  /**
   * A listing's next unfetched threads offered in the thread-page band as a floor
   * (src/frontier/score-floor.ts: the scorer's re-scores may raise it, not lower it). Ones offered
   * before are offered again (the frontier keeps the higher floor: no change), so the walk's
   * window is the listing's next `max` threads not yet fetched, whoever offered them (with several
   * workers, another worker's walk). `offered` counts each thread id once, not when it was queued
   * higher already.
   */
  private offer(c: CrawlContext, links: Links, q: Omit<Parameters<typeof siblingThreads>[0], 'fetched'>, score: number, depth: number, components: Record<string, number>): void {
    for (const s of siblingThreads({ ...q, fetched: (u) => links.fetched(u) || (c.frontier.hasSeen(u) && !c.frontier.get(uniqueKeyOf(u))) })) {
      const queued = c.frontier.get(uniqueKeyOf(s.url));
      c.frontier.offer({ url: s.url, depth, parentUrl: q.parentUrl, score, components, floor: { score, components } });
      if (!this.offeredIds.has(s.id) && (!queued || queued.score < score)) this.offered++;
      this.offeredIds.add(s.id);
    }
  }
}

/** What one crawl run's threads plugin holds once the run has started (config read, files open). */
interface RunState {
  ctx: CrawlContext;
  store: ThreadStore;
  replies: JsonLinesWriter<ReplyRecord>;
  repliesPath: string;
  bands: ScoreBands;
  hotThreshold: number;
  minConfidence: number;
}

/** The reply-thread plugin: extraction per page, the thread store, revisits and sibling walks. */
class ThreadsTracker implements ThreadsPlugin {
  readonly name = 'threads';
  private ctx: CrawlContext | undefined;
  private run: RunState | undefined;
  private matchers: ReplyMatcher[] = [];
  private watchTimer: NodeJS.Timeout | undefined;
  private readonly revisitQueue = new RevisitQueue();
  private readonly siblings = new SiblingWalk(() => this.matchers);
  /** Thread id → its page URLs in pager order (the last is the one a revisit fetches). */
  private readonly threadPages = new Map<string, string[]>();
  /** Page URLs first offered by a revisit: fetching them is part of that revisit. */
  private readonly offeredByRevisit = new Set<string>();
  /** Hot threads the extractor is sure of (threads.minConfidence). */
  private readonly hotThreads = new Set<string>();
  private readonly counters = { revisitsOffered: 0, revisitsFetched: 0, newReplies: 0, apiPagesFetched: 0 };
  /** Threads extracted for the crawl-log line (annotate), reused by onPage: one extraction a page. */
  private readonly annotated = new WeakMap<RenderedPage, { ex: ThreadExtract | null; at: Date }>();

  constructor(private readonly opts: ThreadsPluginOptions) {}

  get store(): ThreadStore | undefined {
    return this.run?.store;
  }

  get repliesPath(): string | undefined {
    return this.run?.repliesPath;
  }

  stats(): ThreadsStats {
    return { threads: this.run?.store.size ?? 0, hot: this.hotThreads.size, ...this.counters, siblingsOffered: this.siblings.offered };
  }

  revisits(): RevisitFetch[] {
    return this.revisitQueue.history();
  }

  private clock(fallback: Date): Date {
    return this.opts.now ? this.opts.now() : fallback;
  }

  private live(): RunState | undefined {
    return this.run && this.run.ctx.config.threads.enabled ? this.run : undefined;
  }

  /** GET a comment-API page through the crawl's polite fetching (gate, robots.txt, per-host delay, limits, sub-request log). */
  private async fetchJson(url: string, parent: { url: string; fetchedAt: Date }, maxWaitMs: number): Promise<unknown> {
    if (this.opts.fetchJson) return this.opts.fetchJson(url, parent, maxWaitMs);
    if (!this.ctx?.fetch) throw new Error('no polite fetch in this crawl context');
    const res = await this.ctx.fetch({ url, kind: 'comment-api', parent, maxWaitMs });
    if (!res.ok) throw new Error(res.refused ? `refused: ${res.reason}` : res.reason);
    return JSON.parse(res.body.toString('utf8')) as unknown;
  }

  private revisitAllowanceNow(c: CrawlContext): number {
    return revisitAllowance({
      share: c.config.threads.revisitShare,
      maxPages: this.opts.watch ? 0 : c.config.maxPages,
      offered: this.counters.revisitsOffered,
      handedOut: c.frontier.pagesHandedOut,
      discoveryQueued: Math.max(0, c.frontier.size - this.revisitQueue.size),
      watch: !!this.opts.watch,
    });
  }

  /** Offer due revisits now (the watch timer and every page call it). */
  readonly tick = (): void => {
    const run = this.live();
    if (!run) return;
    const now = this.clock(new Date());
    const allowance = this.revisitAllowanceNow(run.ctx);
    if (allowance <= 0) return;
    const due = run.store.dueRevisits(now).map((r) => ({ id: r.id, url: r.url, h: run.store.hotnessAt(r, now) }));
    this.counters.revisitsOffered += this.revisitQueue.queue(run.ctx.frontier, planRevisits(due, this.revisitQueue.waiting, allowance, run.bands));
  };

  private async fetchApiPages(api: string[], have: XhrCapture[], max: number, parent: { url: string; fetchedAt: Date }): Promise<XhrCapture[]> {
    const got = new Set(have.map((x) => x.url));
    const out: XhrCapture[] = [];
    const waitUntil = Date.now() + API_WAIT_BUDGET_MS;
    for (const url of api) {
      if (out.length >= max) break;
      if (got.has(url)) continue;
      try {
        out.push({ url, json: await this.fetchJson(url, parent, Math.max(0, waitUntil - Date.now())) });
        this.counters.apiPagesFetched++;
      } catch {
        // Not read (refused, robots.txt, HTTP error…): the reason is in the sub-request log.
      }
    }
    return out;
  }

  annotate(entry: CrawlLogEntry, rendered: RenderedPage): void {
    if (!this.live() || rendered.html === undefined) return;
    const at = this.clock(rendered.fetchedAt);
    const ex = extractThread({ html: rendered.html, url: rendered.url, fetchedAt: at, xhr: rendered.xhrJson, matchers: this.matchers });
    this.annotated.set(rendered, { ex, at });
    if (ex) entry.thread = { matcher: ex.matcher, confidence: ex.confidence, evidence: ex.evidence };
  }

  async onPage(event: PageEvent, c: CrawlContext): Promise<void> {
    const run = this.live();
    if (!run) return;
    const { rendered, verdict } = event;
    if (rendered.html === undefined) return;
    const meta = crawlUserData(rendered.request);
    const onRevisit = !!meta.revisit || this.offeredByRevisit.has(rendered.request.url);
    this.siblings.sawPagesInFlight(c.frontier.pagesInFlight);
    const early = this.annotated.get(rendered);
    const at = early?.at ?? this.clock(rendered.fetchedAt);
    if (meta.revisit && this.revisitQueue.fetched(rendered.request.url, at)) this.counters.revisitsFetched++;
    const found = await this.extract(rendered, c, at, early);
    if (!found) {
      if (!onRevisit) this.siblings.probeListing(c, rendered.request.url, meta, run.bands);
      this.tick();
      return;
    }
    const { ex, htmlPages } = found;
    this.followThreadPages(c, rendered.request.url, htmlPages, meta, onRevisit, verdict.relevant, run.bands);
    if (!onRevisit && !this.threadPages.has(ex.threadId)) this.siblings.afterThread(c, ex, rendered.request.url, meta, verdict.relevant, run.bands);
    this.record(run, ex, rendered, htmlPages, at, onRevisit);
    this.tick();
  }

  /** The page's thread, with the comment-API pages it points at read too (they are not queued: see the file comment). */
  private async extract(rendered: RenderedPage, c: CrawlContext, at: Date, early?: { ex: ThreadExtract | null }): Promise<{ ex: ThreadExtract; htmlPages: string[] } | null> {
    const input = { html: rendered.html!, url: rendered.url, fetchedAt: at, xhr: rendered.xhrJson, matchers: this.matchers };
    let ex = early ? early.ex : extractThread(input);
    if (!ex) return null;
    let split = splitPageUrls(ex.pageUrls, rendered.xhrJson.map((x) => x.url));
    if (split.api.length && c.config.threads.maxApiPages > 0) {
      const extra = await this.fetchApiPages(split.api, rendered.xhrJson, c.config.threads.maxApiPages, { url: rendered.url, fetchedAt: rendered.fetchedAt });
      if (extra.length) {
        ex = extractThread({ ...input, xhr: [...rendered.xhrJson, ...extra] }) ?? ex;
        split = splitPageUrls(ex.pageUrls, [...rendered.xhrJson, ...extra].map((x) => x.url));
      }
    }
    return { ex, htmlPages: split.html };
  }

  /**
   * Follow a thread's other HTML pages, offered with the page's own score as a floor
   * (src/frontier/score-floor.ts): the scorer may rank them higher, its re-scores never lower.
   * Pages a revisit uncovers (the thread grew) keep the revisit's priority while the revisit
   * share allows, and count against it; beyond it they are ordinary thread pages.
   */
  private followThreadPages(c: CrawlContext, pageUrl: string, htmlPages: string[], meta: ReturnType<typeof crawlUserData>, onRevisit: boolean, relevant: boolean, bands: ScoreBands): void {
    const depth = meta.depth + 1;
    for (const u of htmlPages) {
      if (c.frontier.hasSeen(u) && !c.frontier.get(uniqueKeyOf(u))) continue;
      const asRevisit = onRevisit && this.revisitAllowanceNow(c) > 0;
      const score = asRevisit ? (meta.score ?? bands.revisit) : threadPageScore(onRevisit ? undefined : meta.score, relevant, bands);
      if (score === undefined) continue;
      const queued = c.frontier.get(uniqueKeyOf(u));
      const r = c.frontier.offer({ url: u, depth, parentUrl: pageUrl, score, floor: { score } });
      if (queued && queued.score >= score) continue;
      if ((r === 'queued' || r === 'rescored') && onRevisit) this.offeredByRevisit.add(u);
      if ((r === 'queued' || r === 'rescored') && asRevisit) this.counters.revisitsOffered++;
    }
  }

  /** Store the visit; replies younger than the thread's first visit go to replies.jsonl. */
  private record(run: RunState, ex: ThreadExtract, rendered: RenderedPage, htmlPages: string[], at: Date, onRevisit: boolean): void {
    const pageUrl = rendered.request.url;
    const list = mergePages(this.threadPages.get(ex.threadId) ?? [], pageUrl, htmlPages);
    this.threadPages.set(ex.threadId, list);
    const firstSeen = run.store.get(ex.threadId)?.firstSeen;
    const { newPosts, hotness } = run.store.recordVisit(ex, at, list[list.length - 1], { page: pageUrl, revisit: onRevisit });
    for (const p of newPosts) {
      if (!isNewReply(p, firstSeen, onRevisit)) continue;
      // One synchronous line per reply (src/store/jsonl.ts): a crash loses at most the line being written.
      run.replies.append({ threadId: ex.threadId, url: rendered.url, author: p.author, time: p.time, text: p.text, floor: p.floor, foundAt: at.toISOString(), revisit: onRevisit });
      this.counters.newReplies++;
    }
    if (isHot(hotness, run.hotThreshold) && ex.confidence >= run.minConfidence) this.hotThreads.add(ex.threadId);
    else this.hotThreads.delete(ex.threadId);
  }

  beforeRun(c: CrawlContext): void {
    this.ctx = c;
    if (!c.config.threads.enabled) return;
    this.matchers = this.opts.matchers ?? loadUserMatchers(c.config.threads.matchers);
    const repliesPath = join(c.runDir, RUN_FILES.replies);
    const store = new ThreadStore(join(c.runDir, RUN_FILES.threads), hotnessOptions(c.config));
    const t = c.config.threads;
    this.run = { ctx: c, store, replies: new JsonLinesWriter<ReplyRecord>(repliesPath), repliesPath, bands: scoreBands(c.config.score), hotThreshold: t.hotThreshold, minConfidence: t.minConfidence };
    // A resumed run's store already holds threads: hot is judged at each one's latest visit, as in countThreads.
    for (const r of store.records()) if (isHot(latestHotness(r), t.hotThreshold) && isConfident(r, t.minConfidence)) this.hotThreads.add(r.id);
    if (this.opts.watch) this.watchTimer = setInterval(this.tick, this.opts.tickMs ?? 1000);
  }

  onRecord(entry: CrawlLogEntry): void {
    // A revisit that failed frees its thread for the next tick.
    if (entry.decision === 'failed') this.revisitQueue.release(entry.url);
  }

  counts(): Partial<RunCounts> {
    return this.run ? { threadsFound: this.run.store.size, hotThreads: this.hotThreads.size, revisits: this.counters.revisitsFetched, newReplies: this.counters.newReplies } : {};
  }

  afterRun(): void {
    if (this.watchTimer) clearInterval(this.watchTimer);
    this.watchTimer = undefined;
    this.run?.store.close();
    this.run?.replies.close();
  }

  /** The summary's thread lines: counts, then the hottest threads the extractor is sure of. */
  summary(): string[] {
    const run = this.run;
    if (!run) return [];
    const at = this.clock(new Date());
    const s = this.stats();
    const lines = [
      `  reply threads     ${s.threads} found, ${s.hot} hot (H > ${run.hotThreshold}, confidence ≥ ${run.minConfidence}), ${s.revisitsFetched} revisits, ${s.newReplies} new replies${s.newReplies ? ` (${run.repliesPath})` : ''}`,
    ];
    const sure = run.store.hottest(Infinity, at).filter((r) => isConfident(r, run.minConfidence)).slice(0, 5);
    for (const r of sure) {
      const n = r.visits[r.visits.length - 1]?.replyCount ?? 0;
      lines.push(`    H ${run.store.hotnessAt(r, at).toFixed(1).padStart(5)}  ${String(n).padStart(4)} replies  ${r.matcher} ${(r.confidence ?? 1).toFixed(2)}  ${r.url}`);
    }
    return lines;
  }
}
