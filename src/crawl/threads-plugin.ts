/**
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
 * Long because: the plugin's state (thread store, revisit queue, revisit share, replies file)
 * is shared by its hooks; the pure parts (hotness, extraction, page merging) live elsewhere.
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
import { latestHotness, type RunCounts } from '../report/counts.js';
import { isHot, type HotnessOptions, type RevisitOptions } from '../score/hotness.js';
import { ThreadStore, type ThreadRecord } from '../store/threads.js';
import type { CrawlContext, CrawlPlugin, PageEvent } from './engine.js';
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

// Long because: the plugin's state is shared by its hooks (a closure over it).
export function threadsPlugin(opts: ThreadsPluginOptions = {}): ThreadsPlugin {
  let ctx: CrawlContext | undefined;
  let store: ThreadStore | undefined;
  let repliesPath: string | undefined;
  let replies: JsonLinesWriter<ReplyRecord> | undefined;
  let bands = DEFAULT_SCORE_BANDS;
  let matchers: ReplyMatcher[] = [];
  let timer: NodeJS.Timeout | undefined;
  let hotThreshold = 15;
  const pages = new Map<string, string[]>(); // thread id → ordered page URLs
  const pending = new Set<string>(); // thread ids with a queued revisit
  const pendingByUrl = new Map<string, { id: string; h: number; batch: number }>(); // revisit URL → queued revisit
  const fetchedRevisits: RevisitFetch[] = [];
  let batches = 0;
  const fromRevisit = new Set<string>(); // page URLs first offered by a revisit
  const siblingsOffered = new Set<string>(); // thread ids offered as a relevant thread's siblings
  const siblingMisses = new Map<string, number>(); // listing URL → off-topic siblings in a row
  // The most pages in flight seen (all workers): the crawl's fetch slots, which a sibling walk's
  // window fills (one thread per round trip filled half of one worker's two slots, an eighth of
  // four workers' eight).
  let slots = 1;
  const hot = new Set<string>();
  const stats: ThreadsStats = { threads: 0, hot: 0, revisitsOffered: 0, revisitsFetched: 0, newReplies: 0, apiPagesFetched: 0, siblingsOffered: 0 };
  const clock = (fallback: Date) => (opts.now ? opts.now() : fallback);
  // The crawl's polite fetching (gate, robots.txt, per-host delay, limits, sub-request log).
  const fetchJson =
    opts.fetchJson ??
    (async (url: string, parent: { url: string; fetchedAt: Date }, maxWaitMs: number) => {
      if (!ctx?.fetch) throw new Error('no polite fetch in this crawl context');
      const res = await ctx.fetch({ url, kind: 'comment-api', parent, maxWaitMs });
      if (!res.ok) throw new Error(res.refused ? `refused: ${res.reason}` : res.reason);
      return JSON.parse(res.body.toString('utf8')) as unknown;
    });

  const enabled = () => !!ctx && !!store && ctx.config.threads.enabled;

  const allowanceNow = (c: CrawlContext) =>
    revisitAllowance({
      share: c.config.threads.revisitShare,
      maxPages: opts.watch ? 0 : c.config.maxPages,
      offered: stats.revisitsOffered,
      handedOut: c.frontier.pagesHandedOut,
      discoveryQueued: Math.max(0, c.frontier.size - pending.size),
      watch: !!opts.watch,
    });

  function tick(): void {
    if (!enabled() || !ctx || !store) return;
    const c = ctx;
    const now = clock(new Date());
    const allowance = allowanceNow(c);
    if (allowance <= 0) return;
    const due = store.dueRevisits(now).map((r) => ({ id: r.id, url: r.url, h: store!.hotnessAt(r, now) }));
    const plan = planRevisits(due, pending, allowance, bands);
    if (plan.length) batches++;
    for (const r of plan) {
      c.frontier.offerRevisit({ url: r.url, depth: 0, score: r.score, components: { hotness: r.h } });
      pending.add(r.id);
      pendingByUrl.set(r.url, { id: r.id, h: r.h, batch: batches });
      stats.revisitsOffered++;
    }
  }

  async function fetchApiPages(api: string[], have: XhrCapture[], max: number, parent: { url: string; fetchedAt: Date }): Promise<XhrCapture[]> {
    const got = new Set(have.map((x) => x.url));
    const out: XhrCapture[] = [];
    const waitUntil = Date.now() + API_WAIT_BUDGET_MS;
    for (const url of api) {
      if (out.length >= max) break;
      if (got.has(url)) continue;
      try {
        out.push({ url, json: await fetchJson(url, parent, Math.max(0, waitUntil - Date.now())) });
        stats.apiPagesFetched++;
      } catch {
        // Not read (refused, robots.txt, HTTP error…): the reason is in the sub-request log.
      }
    }
    return out;
  }

  /**
   * A listing of a forum template's threads (a board), reached from a page judged relevant: its
   * first unfetched thread is offered in the thread-page band as a probe: the first step of the
   * board's walk (./sibling-threads.ts), which two off-topic threads in a row end.
   */
  function probeListing(url: string, meta: ReturnType<typeof crawlUserData>, onRevisit: boolean, c: CrawlContext): void {
    const k = c.config.threads.siblingThreads;
    const links = c.links;
    if (k <= 0 || onRevisit || !links || !meta.parentUrl || links.relevant(meta.parentUrl) !== true) return;
    const out = links.outLinks(url);
    if (!out) return;
    const listed = [...out];
    const m = listingTemplate(url, listed, [...matchers, ...BUILTIN_MATCHERS]);
    const score = threadPageScore(meta.score, true, bands);
    if (!m || score === undefined) return;
    // As the walk's first step: a misjudged probe is one miss, and the next thread is tried.
    offerSiblings(c, links, { pageUrl: url, parentUrl: url, parentLinks: listed, matcher: m, max: 1 }, score, meta.depth + 1, { siblingThread: 1, threadProbe: 1 });
  }

  /**
   * A listing's next unfetched threads (./sibling-threads.ts) offered in the thread-page band as a
   * floor (src/frontier/score-floor.ts: the scorer's re-scores may raise it, not lower it). Ones
   * offered before are offered again (the frontier keeps the higher floor: no change), so the
   * walk's window is the listing's next `max` threads not yet fetched, whoever offered them (with
   * several workers, another worker's walk). `stats.siblingsOffered` counts each thread id once,
   * not when it was queued higher already.
   */
  function offerSiblings(c: CrawlContext, links: NonNullable<CrawlContext['links']>, q: Omit<Parameters<typeof siblingThreads>[0], 'fetched'>, score: number, depth: number, components: Record<string, number>): void {
    for (const s of siblingThreads({ ...q, fetched: (u) => links.fetched(u) || (c.frontier.hasSeen(u) && !c.frontier.get(uniqueKeyOf(u))) })) {
      const queued = c.frontier.get(uniqueKeyOf(s.url));
      c.frontier.offer({ url: s.url, depth, parentUrl: q.parentUrl, score, components, floor: { score, components } });
      if (!siblingsOffered.has(s.id) && (!queued || queued.score < score)) stats.siblingsOffered++;
      siblingsOffered.add(s.id);
    }
  }

  /** Threads extracted for the crawl-log line (annotate), reused by onPage: one extraction a page. */
  const annotated = new WeakMap<RenderedPage, { ex: ThreadExtract | null; at: Date }>();

  async function onPage(event: PageEvent, c: CrawlContext): Promise<void> {
    if (!enabled() || !store) return;
    const { rendered, verdict } = event;
    if (rendered.html === undefined) return;
    const meta = crawlUserData(rendered.request);
    const onRevisit = !!meta.revisit || fromRevisit.has(rendered.request.url);
    slots = Math.max(slots, c.frontier.pagesInFlight);
    const queued = pendingByUrl.get(rendered.request.url);
    const early = annotated.get(rendered);
    const at = early?.at ?? clock(rendered.fetchedAt);
    if (meta.revisit && queued !== undefined) {
      pending.delete(queued.id);
      pendingByUrl.delete(rendered.request.url);
      stats.revisitsFetched++;
      fetchedRevisits.push({ threadId: queued.id, url: rendered.request.url, h: queued.h, batch: queued.batch, at: at.toISOString() });
    }
    const input = { html: rendered.html, url: rendered.url, fetchedAt: at, xhr: rendered.xhrJson, matchers };
    let ex: ThreadExtract | null = early ? early.ex : extractThread(input);
    if (!ex) {
      probeListing(rendered.request.url, meta, onRevisit, c);
      tick();
      return;
    }
    let split = splitPageUrls(ex.pageUrls, rendered.xhrJson.map((x) => x.url));
    if (split.api.length && c.config.threads.maxApiPages > 0) {
      const extra = await fetchApiPages(split.api, rendered.xhrJson, c.config.threads.maxApiPages, { url: rendered.url, fetchedAt: rendered.fetchedAt });
      if (extra.length) {
        ex = extractThread({ ...input, xhr: [...rendered.xhrJson, ...extra] }) ?? ex;
        split = splitPageUrls(ex.pageUrls, [...rendered.xhrJson, ...extra].map((x) => x.url));
      }
    }
    // Follow a relevant thread's other HTML pages: offered with the page's own score as a floor
    // (src/frontier/score-floor.ts): the scorer may rank them higher, its re-scores never lower.
    // Pages a revisit uncovers (the thread grew) keep the revisit's priority while the revisit
    // share allows, and count against it; beyond it they are ordinary thread pages.
    const depth = meta.depth + 1;
    for (const u of split.html) {
      if (c.frontier.hasSeen(u) && !c.frontier.get(uniqueKeyOf(u))) continue;
      const asRevisit = onRevisit && allowanceNow(c) > 0;
      const score = asRevisit ? (meta.score ?? bands.revisit) : threadPageScore(onRevisit ? undefined : meta.score, verdict.relevant, bands);
      if (score === undefined) continue;
      const queued = c.frontier.get(uniqueKeyOf(u));
      const r = c.frontier.offer({ url: u, depth, parentUrl: rendered.request.url, score, floor: { score } });
      if (queued && queued.score >= score) continue;
      if ((r === 'queued' || r === 'rescored') && onRevisit) fromRevisit.add(u);
      if ((r === 'queued' || r === 'rescored') && asRevisit) stats.revisitsOffered++;
    }
    // A relevant thread's first visit from a listing (a board) keeps the listing's next threads
    // offered, as many as `siblingThreads` × the crawl's pages in flight (./sibling-threads.ts).
    // One off-topic (or misjudged) sibling does not end the walk; two in a row do.
    const k = c.config.threads.siblingThreads;
    let walk = false;
    if (k > 0 && !onRevisit && !pages.has(ex.threadId) && meta.parentUrl) {
      const misses = verdict.relevant ? 0 : (siblingMisses.get(meta.parentUrl) ?? 0) + 1;
      if (verdict.relevant || meta.components?.siblingThread) siblingMisses.set(meta.parentUrl, misses);
      walk = verdict.relevant || (!!meta.components?.siblingThread && misses < SIBLING_MISSES);
    }
    if (walk && meta.parentUrl && c.links) {
      const m = [...matchers, ...BUILTIN_MATCHERS].find((x) => x.name === ex!.matcher);
      const parentLinks = m && c.links.outLinks(meta.parentUrl);
      const score = threadPageScore(meta.score, true, bands);
      if (m && parentLinks && score !== undefined && meta.parentUrl) {
        offerSiblings(c, c.links, { pageUrl: rendered.request.url, parentUrl: meta.parentUrl, parentLinks, matcher: m, max: k * slots }, score, meta.depth, { siblingThread: 1 });
      }
    }
    const list = mergePages(pages.get(ex.threadId) ?? [], rendered.request.url, split.html);
    pages.set(ex.threadId, list);
    const before: ThreadRecord | undefined = store.get(ex.threadId);
    const firstSeen = before?.firstSeen;
    const { newPosts, hotness } = store.recordVisit(ex, at, list[list.length - 1]);
    let found = 0;
    for (const p of newPosts) {
      if (!isNewReply(p, firstSeen, onRevisit)) continue;
      // One synchronous line per reply (src/store/jsonl.ts): a crash loses at most the line being written.
      replies?.append({ threadId: ex.threadId, url: rendered.url, author: p.author, time: p.time, text: p.text, floor: p.floor, foundAt: at.toISOString(), revisit: onRevisit });
      found++;
    }
    stats.newReplies += found;
    if (isHot(hotness, hotThreshold)) hot.add(ex.threadId);
    else hot.delete(ex.threadId);
    stats.threads = store.size;
    stats.hot = hot.size;
    tick();
  }

  const plugin: ThreadsPlugin = {
    name: 'threads',
    get store() {
      return store;
    },
    get repliesPath() {
      return repliesPath;
    },
    stats: () => ({ ...stats }),
    revisits: () => fetchedRevisits.slice(),
    tick,
    annotate(entry, rendered) {
      if (!enabled() || rendered.html === undefined) return;
      const at = clock(rendered.fetchedAt);
      const ex = extractThread({ html: rendered.html, url: rendered.url, fetchedAt: at, xhr: rendered.xhrJson, matchers });
      annotated.set(rendered, { ex, at });
      if (ex) entry.thread = { matcher: ex.matcher, confidence: ex.confidence };
    },
    beforeRun(c) {
      ctx = c;
      if (!c.config.threads.enabled) return;
      hotThreshold = c.config.threads.hotThreshold;
      matchers = opts.matchers ?? loadUserMatchers(c.config.threads.matchers);
      store = new ThreadStore(join(c.runDir, RUN_FILES.threads), hotnessOptions(c.config));
      repliesPath = join(c.runDir, RUN_FILES.replies);
      replies = new JsonLinesWriter<ReplyRecord>(repliesPath);
      bands = scoreBands(c.config.score);
      // A resumed run's store already holds threads: hot is judged at each one's latest visit, as in countThreads.
      for (const r of store.records()) if (isHot(latestHotness(r), hotThreshold)) hot.add(r.id);
      stats.threads = store.size;
      stats.hot = hot.size;
      if (opts.watch) timer = setInterval(tick, opts.tickMs ?? 1000);
    },
    onPage,
    onRecord(entry) {
      // A revisit that failed frees its thread for the next tick.
      const q = pendingByUrl.get(entry.url);
      if (q !== undefined && entry.decision === 'failed') {
        pending.delete(q.id);
        pendingByUrl.delete(entry.url);
      }
    },
    counts: (): Partial<RunCounts> => (store ? { threadsFound: stats.threads, hotThreads: stats.hot, revisits: stats.revisitsFetched, newReplies: stats.newReplies } : {}),
    afterRun() {
      if (timer) clearInterval(timer);
      timer = undefined;
      store?.close();
      replies?.close();
      replies = undefined;
    },
    summary() {
      if (!store) return [];
      const at = clock(new Date());
      const lines = [
        `  reply threads     ${stats.threads} found, ${stats.hot} hot (H > ${hotThreshold}), ${stats.revisitsFetched} revisits, ${stats.newReplies} new replies${repliesPath && stats.newReplies ? ` (${repliesPath})` : ''}`,
      ];
      for (const r of store.hottest(5, at)) {
        const n = r.visits[r.visits.length - 1]?.replyCount ?? 0;
        lines.push(`    H ${store.hotnessAt(r, at).toFixed(1).padStart(5)}  ${String(n).padStart(4)} replies  ${r.url}`);
      }
      return lines;
    },
  };
  return plugin;
}
