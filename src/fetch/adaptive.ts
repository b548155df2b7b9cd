/**
 * Adaptive rendering (`fetcher: adaptive`): every document is fetched once over plain HTTP; it is
 * rendered in Chromium only when the crawl has not (yet) learned that pages like it give the same
 * analysis without JavaScript. "Pages like it" = same host and URL shape (`urlPattern`). The
 * evidence is a comparison of what matters to a focused crawler (main text by character
 * shingles, out-links, title, publish time, reply threads incl. XHR comments) between the HTTP
 * bytes and the rendered DOM of the same response: when a page is rendered, Chromium is handed
 * the bytes we already fetched (route fulfilment), so both sides see one server response, the
 * host sees one document request (one politeness schedule for both paths), and the comparison is
 * free of server-side variation.
 *
 * Why not Crawlee's AdaptivePlaywrightCrawler: it decides with Math.random (not seedable), runs
 * the HTTP side through got-scraping outside our fetch path (encodings, limits, gate), fetches a
 * detection page twice, compares only pushData/enqueue side effects (our engine writes to the
 * frontier, dataset and plugins directly), calls our navigation hooks with a throwing `page` on
 * the HTTP side, and keeps no evidence we could log or `--explain`. README, "Fetchers".
 */
import { Request, PlaywrightCrawler, type PlaywrightCrawlingContext } from 'crawlee';
import type { Page, Route } from 'playwright';
import { decodeHtml, isHtmlResponse } from '../extract/encoding.js';
import { analyzePage } from '../extract/page.js';
import { DEFAULT_TIME_ZONE, extractThread } from '../extract/replies/index.js';
import { commentsFromXhr } from '../extract/replies/xhr.js';
import type { PageAnalysis } from '../extract/types.js';
import { Rng } from '../testweb/rng.js';
import { createBrowserFetcher, type BrowserFetcherOptions, type RenderedPage } from './crawler.js';
import { hostOf } from '../frontier/url-key.js';
import { JsonLinesWriter, readJsonLines } from '../store/jsonl.js';
import type { FetchGate } from './gate.js';
import { UA_TOKEN } from './gate-proxy.js';
import { DEFAULT_MAX_BODY_BYTES, GatedFetchError, gatedRequest, type GatedResponse } from './gated-request.js';

// ---------------------------------------------------------------- URL patterns

/** A path segment or query value with its digit runs generalised (`n123456.shtml` → `n#.shtml`); long hex ids become `*`. */
function generalise(s: string): string {
  if (/^[0-9a-f-]{16,}$/i.test(s) && /\d/.test(s)) return '*';
  if (s.length > 40) return '*';
  return s.replace(/\d+/g, '#');
}

/**
 * Host + URL shape: path segments and query values with digit runs generalised, query keys
 * sorted. `/news/2008/0512/n123.shtml` and `/news/2008/0601/n9.shtml` share a pattern; a
 * `/live/…` page on the same host does not.
 */
export function urlPattern(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return url;
  }
  const path = u.pathname.split('/').map(generalise).join('/');
  const keys = [...new Set(u.searchParams.keys())].sort();
  const query = keys.map((k) => `${k}=${generalise(u.searchParams.get(k) ?? '')}`).join('&');
  return `${u.host}${path}${query ? '?' + query : ''}`;
}

/** A URL's pattern without its host (`/news/#-#-#/content_#.htm`): what sites built from one template share. */
export function pathPattern(url: string): string {
  const p = urlPattern(url);
  const slash = p.indexOf('/');
  return slash < 0 ? p : p.slice(slash);
}

/** The coarser shape used when a pattern itself has no evidence yet: every letter run generalised too. */
export function urlShape(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return url;
  }
  const path = u.pathname.split('/').map((s) => generalise(s).replace(/[A-Za-z_]+/g, 'a')).join('/');
  const ext = /\.(\w+)$/.exec(u.pathname)?.[1] ?? '';
  return `${u.host}${path}${ext ? '~' + ext : ''}${u.search ? '?' + [...new Set(u.searchParams.keys())].sort().join('&') : ''}`;
}

// ---------------------------------------------------------------- comparing two renderings

/** What a focused crawler reads from a page; the comparison works on these. */
export interface PageSignals {
  text: string;
  title: string;
  publishTime?: string;
  links: string[];
  /** Posts of the reply thread found in the DOM (and, in the browser, in captured XHR JSON). */
  replies: number;
  /** Of those, how many came from XHR JSON. */
  xhrReplies: number;
}

export function signalsOf(analysis: PageAnalysis, html: string, xhr: RenderedPage['xhrJson'], fetchedAt: Date): PageSignals {
  let replies = 0;
  let xhrReplies = 0;
  try {
    replies = extractThread({ html, url: analysis.url, fetchedAt, xhr })?.posts.length ?? 0;
    // Comments that came as JSON (a comment widget's API): counted apart, they mean "browser".
    if (xhr.length) xhrReplies = commentsFromXhr(xhr, fetchedAt, DEFAULT_TIME_ZONE)?.posts.length ?? 0;
  } catch {
    // a thread matcher failing on odd markup: no thread on either side
  }
  return {
    text: analysis.text,
    title: analysis.title,
    publishTime: analysis.publishTime?.iso,
    links: [...new Set(analysis.links.map((l) => l.url))],
    replies,
    xhrReplies,
  };
}

/** Character k-shingles of a text, whitespace removed (CJK has no word spaces; k = 5 ≈ two words). */
export function shingles(text: string, k = 5): Set<string> {
  const s = text.replace(/\s+/g, '');
  const out = new Set<string>();
  if (s.length > 0 && s.length < k) out.add(s);
  for (let i = 0; i + k <= s.length; i++) out.add(s.slice(i, i + k));
  return out;
}

/** F1 of two shingle sets (Dice coefficient); both empty = 1. */
export function shingleF1(a: string, b: string, k = 5): number {
  const A = shingles(a, k);
  const B = shingles(b, k);
  if (A.size === 0 && B.size === 0) return 1;
  if (A.size === 0 || B.size === 0) return 0;
  let common = 0;
  const [small, large] = A.size <= B.size ? [A, B] : [B, A];
  for (const x of small) if (large.has(x)) common++;
  return (2 * common) / (A.size + B.size);
}

export interface ComparisonLimits {
  /** Main text shingle F1 at least this. */
  minTextF1: number;
  /** Share of the browser's out-links the HTTP page also has, at least this. */
  minLinkRecall: number;
}

export interface Comparison {
  equivalent: boolean;
  textF1: number;
  linkRecall: number;
  /** What differed, in words (empty when equivalent). */
  differences: string[];
}

/** Does the HTTP page give the same analysis as the rendered one? (The decision rule's evidence.) */
export function compareRenderings(http: PageSignals, browser: PageSignals, limits: ComparisonLimits): Comparison {
  const differences: string[] = [];
  const textF1 = shingleF1(http.text, browser.text);
  if (textF1 < limits.minTextF1) differences.push(`main text differs (shingle F1 ${textF1.toFixed(2)}; HTTP ${http.text.length} chars, browser ${browser.text.length})`);
  const have = new Set(http.links);
  const missing = browser.links.filter((l) => !have.has(l)).length;
  const linkRecall = browser.links.length ? 1 - missing / browser.links.length : 1;
  if (linkRecall < limits.minLinkRecall) differences.push(`out-links missing over HTTP (${missing} of ${browser.links.length})`);
  if (http.title.trim() !== browser.title.trim()) differences.push('title differs');
  if ((http.publishTime ?? '') !== (browser.publishTime ?? '')) differences.push(`publish time differs (${http.publishTime ?? 'none'} vs ${browser.publishTime ?? 'none'})`);
  if (browser.xhrReplies > 0) differences.push(`comments arrive by XHR (${browser.xhrReplies})`);
  else if (browser.replies > http.replies) differences.push(`replies rendered by JavaScript (${browser.replies} vs ${http.replies})`);
  return { equivalent: differences.length === 0, textF1, linkRecall, differences };
}

// ---------------------------------------------------------------- the decision rule

export interface AdaptivePolicyOptions extends ComparisonLimits {
  /** Consecutive equivalent comparisons before a pattern is fetched over HTTP. */
  minSamples: number;
  /** After a difference, this many consecutive equivalent comparisons before HTTP again. */
  afterDifference: number;
  /** Share of HTTP-decided pages rendered anyway to re-check the pattern (seeded). */
  recheckShare: number;
  /** An HTTP page whose main text is below this share of the pattern's rendered median is rendered. */
  textGuard: number;
  randomSeed: number;
}

export const DEFAULT_POLICY: AdaptivePolicyOptions = {
  minTextF1: 0.95,
  minLinkRecall: 0.95,
  minSamples: 3,
  afterDifference: 10,
  recheckShare: 0.1,
  textGuard: 0.5,
  randomSeed: 1,
};

interface PatternStats {
  compared: number;
  equivalent: number;
  /** Equivalent comparisons since the last difference. */
  streak: number;
  differences: number;
  lastDifference?: { url: string; what: string[] };
  /** Main-text lengths of rendered pages (for the text guard), last 15. */
  textLengths: number[];
  http: number;
  browser: number;
}

export type FetchMode = 'http' | 'browser';
export interface Decision {
  mode: FetchMode;
  pattern: string;
  /** Why, in words (goes to the crawl log and --explain). */
  why: string;
  /** Rendered although the pattern is decided HTTP: a re-check. */
  recheck?: boolean;
  /** Compare the HTTP analysis with the rendering (false: a pattern that keeps differing, sampled). */
  compare?: boolean;
}

/**
 * Per host + URL shape: browser until `minSamples` comparisons in a row found the HTTP analysis
 * equivalent (and `afterDifference` in a row after any difference); then HTTP, with a seeded
 * share re-checked in the browser. A pattern never seen falls back to its coarse shape's
 * evidence only when that shape has no difference at all; otherwise the browser (when unsure).
 */
export class AdaptivePolicy {
  readonly opts: AdaptivePolicyOptions;
  private readonly patterns = new Map<string, PatternStats>();
  private readonly shapes = new Map<string, PatternStats>();
  private readonly hosts = new Map<string, PatternStats>();
  /** Evidence by path pattern across hosts (sites built from one template), with the hosts it came from. */
  private readonly paths = new Map<string, PatternStats & { hostsSeen?: Set<string> }>();
  private readonly rng: Rng;
  /** Each comparison as it is recorded (the run folder's evidence log, replayed by --resume). */
  onEvidence?: (e: AdaptiveEvidence) => void;

  /** `resumedPages`: pages an earlier part of this run fetched (the re-check draws continue on a stream of their own). */
  constructor(opts: Partial<AdaptivePolicyOptions> = {}, resumedPages = 0) {
    this.opts = { ...DEFAULT_POLICY, ...opts };
    this.rng = new Rng(this.opts.randomSeed).fork(resumedPages ? `adaptive-recheck:${resumedPages}` : 'adaptive-recheck');
  }

  /** A comparison read back from the evidence log (--resume): counted as if just made. */
  replay(e: AdaptiveEvidence): void {
    this.apply(e.url, e.equivalent, e.differences, e.textLength);
  }

  private stats(map: Map<string, PatternStats>, k: string): PatternStats {
    let s = map.get(k);
    if (!s) map.set(k, (s = { compared: 0, equivalent: 0, streak: 0, differences: 0, textLengths: [], http: 0, browser: 0 }));
    return s;
  }

  /**
   * Enough equivalent renderings in a row. On a host where every comparison so far (at least
   * minSamples) was equivalent, one is enough for a further pattern: the host's evidence is the
   * prior. Any difference on the host restores the full count for all its patterns.
   */
  private settled(s: PatternStats | undefined, host?: PatternStats): boolean {
    if (!s) return false;
    if (s.differences > 0) return s.streak >= Math.max(this.opts.afterDifference, this.opts.minSamples);
    const cleanHost = host !== undefined && host.differences === 0 && host.compared >= this.opts.minSamples;
    return s.streak >= (cleanHost ? 1 : this.opts.minSamples);
  }

  /**
   * Sites built from one template (a CMS) share path patterns across hosts: an unseen pattern may
   * go over HTTP when the same path pattern was equivalent `minSamples` times in a row on at
   * least two other hosts and never differed anywhere. A host where it is JavaScript-only after
   * all is caught by the text guard (the path's rendered median) and the re-checks, and its
   * difference ends the cross-host evidence for that path.
   */
  private templateSettled(url: string): boolean {
    const t = this.paths.get(pathPattern(url));
    if (!t || t.differences > 0 || t.streak < this.opts.minSamples) return false;
    const others = [...(t.hostsSeen ?? [])].filter((h) => h !== hostOf(url));
    return others.length >= 2;
  }

  decide(url: string): Decision {
    const pattern = urlPattern(url);
    const p = this.patterns.get(pattern);
    const shape = this.shapes.get(urlShape(url));
    const host = this.hosts.get(hostOf(url));
    let d: Decision;
    if (p && p.compared > 0) {
      if (this.settled(p, host)) d = { mode: 'http', pattern, why: `pattern ${pattern}: ${p.streak} rendering(s) in a row gave the same analysis over HTTP` };
      else if (p.streak < p.compared && p.lastDifference) {
        // A pattern that differed on its last renderings (a JavaScript site) is compared only on
        // a seeded share of its pages: the comparison costs a second analysis on every render.
        const compare = p.streak > 0 || p.differences < this.opts.minSamples || this.rng.float() < this.opts.recheckShare;
        d = { mode: 'browser', pattern, why: `pattern ${pattern} needs the browser: ${p.lastDifference.what.join('; ')} (on ${p.lastDifference.url}); ${p.streak} equivalent since`, compare };
      }
      else d = { mode: 'browser', pattern, why: `learning pattern ${pattern}: ${p.streak} of ${this.opts.minSamples} equivalent renderings so far` };
    } else if (shape && shape.differences === 0 && this.settled(shape, host)) {
      d = { mode: 'http', pattern, why: `new pattern ${pattern}; its URL shape ${urlShape(url)} gave the same analysis over HTTP ${shape.streak} times, never different` };
    } else if (this.templateSettled(url)) {
      const t = this.paths.get(pathPattern(url))!;
      d = { mode: 'http', pattern, why: `new pattern ${pattern}; path ${pathPattern(url)} gave the same analysis over HTTP ${t.streak} times on ${t.hostsSeen!.size} other hosts, never different` };
    } else {
      d = { mode: 'browser', pattern, why: `learning pattern ${pattern}: not rendered yet` };
    }
    if (d.mode === 'http' && this.opts.recheckShare > 0 && this.rng.float() < this.opts.recheckShare) {
      d = { mode: 'browser', pattern, why: `re-check (${Math.round(this.opts.recheckShare * 100)}% of HTTP pages are rendered): ${d.why}`, recheck: true };
    }
    return d;
  }

  /**
   * The text guard: an HTTP-decided page whose main text is far shorter than what rendering gave
   * on this pattern is probably a JavaScript shell (the site changed, or the pattern mixes page
   * kinds): render it. Returns the reason, or undefined when the page looks fine.
   */
  guard(url: string, httpTextLength: number): string | undefined {
    const p = this.patterns.get(urlPattern(url)) ?? this.shapes.get(urlShape(url)) ?? this.paths.get(pathPattern(url));
    if (!p || p.textLengths.length === 0) return undefined;
    const sorted = [...p.textLengths].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)];
    if (median > 0 && httpTextLength < this.opts.textGuard * median) {
      return `HTTP main text ${httpTextLength} chars, under ${Math.round(this.opts.textGuard * 100)}% of this pattern's rendered median ${median}`;
    }
    return undefined;
  }

  /** Record a comparison made on a rendered page. */
  record(url: string, c: Comparison, renderedTextLength: number): void {
    this.apply(url, c.equivalent, c.differences, renderedTextLength);
    this.onEvidence?.({ url, equivalent: c.equivalent, differences: c.differences, textLength: renderedTextLength });
  }

  private apply(url: string, equivalent: boolean, differences: string[], renderedTextLength: number): void {
    const path = this.stats(this.paths, pathPattern(url)) as PatternStats & { hostsSeen?: Set<string> };
    (path.hostsSeen ??= new Set()).add(hostOf(url));
    for (const s of [this.stats(this.patterns, urlPattern(url)), this.stats(this.shapes, urlShape(url)), this.stats(this.hosts, hostOf(url)), path]) {
      s.compared++;
      if (equivalent) {
        s.equivalent++;
        s.streak++;
      } else {
        s.differences++;
        s.streak = 0;
        s.lastDifference = { url, what: differences };
      }
      s.textLengths.push(renderedTextLength);
      if (s.textLengths.length > 15) s.textLengths.shift();
    }
  }

  /** Count what was done (for the summary). */
  count(url: string, mode: FetchMode): void {
    this.stats(this.patterns, urlPattern(url))[mode]++;
  }

  /** Per pattern: mode it would take now, counts and evidence (summary, tests). */
  table(): { pattern: string; mode: FetchMode; compared: number; equivalent: number; http: number; browser: number; lastDifference?: string }[] {
    return [...this.patterns.entries()].map(([pattern, s]) => ({
      pattern,
      mode: this.settled(s, this.hosts.get(pattern.split('/')[0])) ? 'http' : 'browser',
      compared: s.compared,
      equivalent: s.equivalent,
      http: s.http,
      browser: s.browser,
      lastDifference: s.lastDifference?.what.join('; '),
    }));
  }
}

/** One comparison, as the run folder keeps it (`adaptive-evidence.jsonl`). */
export interface AdaptiveEvidence {
  url: string;
  equivalent: boolean;
  differences: string[];
  /** Main-text length of the rendering (the text guard's reference). */
  textLength: number;
}

/**
 * The crawl's policy with its evidence kept in the run folder: every comparison is appended as
 * it is made (synchronously, before the page's crawl-log line), and `--resume` replays those of
 * pages the crawl log has, so a resumed crawl decides as the interrupted one would have instead
 * of learning every pattern again.
 */
export function openAdaptivePolicy(
  opts: Partial<AdaptivePolicyOptions>,
  evidenceFile: string,
  resumed?: { log: { url: string; fetchedWith?: FetchMode }[]; fetched(url: string): boolean },
): { policy: AdaptivePolicy; close(): void } {
  const policy = new AdaptivePolicy(opts, resumed?.log.length ?? 0);
  if (resumed) {
    for (const e of readJsonLines<AdaptiveEvidence>(evidenceFile)) if (resumed.fetched(e.url)) policy.replay(e);
    for (const e of resumed.log) if (e.fetchedWith) policy.count(e.url, e.fetchedWith);
  }
  const log = new JsonLinesWriter<AdaptiveEvidence>(evidenceFile);
  policy.onEvidence = (e) => log.append(e);
  return { policy, close: () => log.close() };
}

// ---------------------------------------------------------------- the HTTP path

export interface FetchedDocument {
  /** Every URL of the redirect chain, the requested one first. */
  chain: { url: string; status: number; location?: string }[];
  url: string;
  status: number;
  contentType: string;
  headers: Record<string, string>;
  body: Buffer;
}

/** The crawl's per-host schedule (the frontier's HostPoliteness): redirect hops are paced by it too. */
export interface HostSchedule {
  /** Milliseconds until the host's delay since its last request has passed. */
  paceWait(host: string): number;
  /** A request the frontier did not hand out (a redirect hop) reached the host now. */
  touched(host: string): void;
}

export interface DocumentFetchOptions {
  /** The crawl's fetch gate: every hop is checked (after DNS) and requested at the checked address. */
  gate: FetchGate;
  /** Milliseconds for the whole chain (every hop, headers and body). */
  timeoutMs: number;
  /** Largest body, decompressed. */
  maxBytes: number;
  maxRedirects: number;
  userAgent: string;
  /** robots.txt for redirect hops (the frontier checked the first URL): the reason, or undefined when allowed. */
  robotsBlock?(url: string): Promise<string | undefined>;
  /** Redirect hops wait for their host's delay like hand-outs, and count as its last request. */
  hostSchedule?: HostSchedule;
  /** Observer of every refused or failed hop and every fetched one (the crawl's refused.jsonl). */
  onDecision?(d: { url: string; outcome: 'fetched' | 'refused' | 'error'; reason?: string; status?: number }): void;
}

/**
 * Same family as what Chromium sends, so servers answer both paths alike, with the robots.txt
 * product token (the one robots rules are matched by, as the gate proxy adds to the browser's).
 */
export const HTTP_USER_AGENT = `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36 ${UA_TOKEN}`;
export const DEFAULT_DOCUMENT_FETCH: Omit<DocumentFetchOptions, 'gate'> = { timeoutMs: 30_000, maxBytes: DEFAULT_MAX_BODY_BYTES, maxRedirects: 10, userAgent: HTTP_USER_AGENT };

/** A document that could not be fetched: `code` as gatedRequest's (refused, too-large, timeout, ECONNRESET…) or redirect-chain. */
export class DocumentFetchError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(`${code}: ${message}`);
  }
}

const withoutHash = (url: string) => url.replace(/#.*$/, '');
const sleep = (ms: number) => new Promise<void>((ok) => setTimeout(ok, ms));

/**
 * GET one document the way the gate proxy fetches for the browser: each hop through the fetch
 * gate (scheme, lists, private addresses after DNS, the connection pinned to the checked
 * address) by `gatedRequest` (decompressed-size and time limits), redirect hops also checked
 * against robots.txt and paced by their host's delay, loops and over-long chains refused. Bytes
 * are kept undecoded so the charset (GBK, Big5, …) is decided by src/extract/encoding.ts exactly
 * as for the HTTP fetcher.
 */
export async function fetchDocument(url: string, opts: DocumentFetchOptions): Promise<FetchedDocument> {
  const chain: FetchedDocument['chain'] = [];
  const seen = new Set<string>();
  const deadline = Date.now() + opts.timeoutMs;
  let current = url;
  const fail = (code: string, message: string, outcome: 'refused' | 'error' = 'refused'): never => {
    opts.onDecision?.({ url: current, outcome, reason: `${code}: ${message}` });
    throw new DocumentFetchError(code, message);
  };
  for (let hop = 0; ; hop++) {
    if (seen.has(current)) fail('redirect-chain', `redirect loop at ${current}`);
    if (hop > opts.maxRedirects) fail('redirect-chain', `more than ${opts.maxRedirects} redirects`);
    seen.add(current);
    let host: string;
    try {
      host = new URL(current).host;
    } catch {
      return fail('invalid-url', current);
    }
    if (hop > 0) {
      // A redirect hop is a page fetch the frontier never saw: the gate's cheap checks, robots.txt
      // and the host's delay apply here, as in the gate proxy for the browser.
      const sync = opts.gate.checkSync(current);
      if (!sync.ok) fail('refused', sync.reason);
      const robots = await opts.robotsBlock?.(current);
      if (robots) fail('refused', robots);
      for (let wait = opts.hostSchedule?.paceWait(host) ?? 0; wait > 0; wait = opts.hostSchedule?.paceWait(host) ?? 0) {
        if (Date.now() + wait > deadline) fail('timeout', `redirect hop to ${host} would wait past the time limit`, 'error');
        await sleep(wait);
      }
      opts.hostSchedule?.touched(host);
    }
    let res: GatedResponse;
    try {
      res = await gatedRequest(opts.gate, current, {
        headers: { 'user-agent': opts.userAgent, accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', 'accept-language': 'zh-CN,zh;q=0.9,en;q=0.8' },
        maxBodyBytes: opts.maxBytes,
        timeoutMs: Math.max(1, deadline - Date.now()),
      });
    } catch (e) {
      const code = e instanceof GatedFetchError ? e.code : 'error';
      return fail(code, (e as Error).message, code === 'refused' ? 'refused' : 'error');
    }
    // The delay runs from the end of a page request too, so arrivals at the host are never closer than it.
    opts.hostSchedule?.touched(host);
    opts.onDecision?.({ url: current, outcome: 'fetched', status: res.status });
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(k === 'set-cookie' ? '\n' : ', ') : v;
    const location = headers.location;
    if (res.status >= 300 && res.status < 400 && location) {
      let next: string;
      try {
        next = new URL(location, current).href;
      } catch {
        return fail('invalid-url', `unparsable redirect location ${location.slice(0, 200)}`, 'error');
      }
      chain.push({ url: current, status: res.status, location: next });
      current = next;
      continue;
    }
    chain.push({ url: current, status: res.status });
    return { chain, url: current, status: res.status, contentType: headers['content-type'] ?? '', headers, body: res.body };
  }
}

// ---------------------------------------------------------------- the fetcher

export interface AdaptiveFetcherOptions extends BrowserFetcherOptions {
  policy: AdaptivePolicy;
  documentFetch: Partial<DocumentFetchOptions> & Pick<DocumentFetchOptions, 'gate'>;
}

/** What the adaptive fetcher adds to a RenderedPage (also in the crawl log). */
export interface FetchEvidence {
  fetchedWith: FetchMode;
  why: string;
  pattern: string;
  comparison?: Comparison;
}

/**
 * Crawlee's PlaywrightCrawler with the per-request step replaced: fetch the document over HTTP,
 * decide, then either hand the HTTP page to the engine or let the browser render the same bytes.
 * Concurrency, retries, the frontier (request manager) and the browser pool stay Crawlee's.
 */
export function createAdaptiveFetcher(opts: AdaptiveFetcherOptions): PlaywrightCrawler {
  const docOpts: DocumentFetchOptions = { ...DEFAULT_DOCUMENT_FETCH, timeoutMs: opts.navigationTimeoutSecs * 1000, ...opts.documentFetch };
  const policy = opts.policy;
  /** Documents fetched over HTTP that the browser is about to render, by request uniqueKey. */
  const pending = new Map<string, { doc: FetchedDocument; decision: Decision }>();

  const fulfil = async (page: Page, request: Request) => {
    const p = pending.get(request.uniqueKey);
    if (!p) return;
    // Chromium navigates straight to the final URL of the redirect chain (navigation below) and
    // gets the bytes already fetched: Playwright's routes never see redirected requests, so
    // replaying the hops would send them to the network a second time. Every other request
    // (scripts, XHR, later navigations) goes to the network through the gate proxy.
    const target = withoutHash(p.doc.url);
    let served = false;
    await page.route(
      (u) => !served && withoutHash(u.href) === target,
      async (route: Route) => {
        const req = route.request();
        if (served || !req.isNavigationRequest() || req.frame() !== page.mainFrame()) return route.continue();
        served = true;
        const headers = { ...p.doc.headers };
        delete headers['content-length'];
        delete headers['content-encoding'];
        delete headers['transfer-encoding'];
        return route.fulfill({ status: p.doc.status, headers, body: p.doc.body });
      },
    );
  };

  const onBrowserPage = async (rendered: RenderedPage) => {
    const p = pending.get(rendered.request.uniqueKey);
    pending.delete(rendered.request.uniqueKey);
    if (!p || rendered.html === undefined) {
      await opts.onPage({ ...rendered, fetchedWith: 'browser', fetchWhy: p?.decision.why ?? 'browser' });
      return;
    }
    const { doc, decision } = p;
    const analysis = analyzePage({ html: rendered.html, url: rendered.url, fetchedAt: rendered.fetchedAt });
    let comparison: Comparison | undefined;
    if (decision.compare !== false && isHtmlResponse(doc.contentType, doc.body.subarray(0, 512))) {
      const httpHtml = decodeHtml(doc.body, doc.contentType);
      const httpAnalysis = analyzePage({ html: httpHtml, url: doc.url, fetchedAt: rendered.fetchedAt });
      comparison = compareRenderings(
        signalsOf(httpAnalysis, httpHtml, [], rendered.fetchedAt),
        signalsOf(analysis, rendered.html, rendered.xhrJson, rendered.fetchedAt),
        policy.opts,
      );
      policy.record(rendered.request.url, comparison, analysis.text.length);
    }
    policy.count(rendered.request.url, 'browser');
    const verdict = comparison ? (comparison.equivalent ? 'HTTP equivalent' : `HTTP differs: ${comparison.differences.join('; ')}`) : '';
    await opts.onPage({ ...rendered, analysis, fetchedWith: 'browser', fetchWhy: `${decision.why}${verdict ? ` → ${verdict}` : ''}`, comparison });
  };

  const inner = createBrowserFetcher({
    ...opts,
    onPage: onBrowserPage,
    preNavigation: async (page, request) => {
      await fulfil(page, request);
      await opts.preNavigation?.(page, request);
    },
  });

  // Crawlee's navigation, to the end of the redirect chain the document came through (see fulfil).
  type Navigate = (ctx: PlaywrightCrawlingContext, gotoOptions: Parameters<Page['goto']>[1]) => Promise<Awaited<ReturnType<Page['goto']>>>;
  const crawleeNavigate = (inner as unknown as { _navigationHandler: Navigate })._navigationHandler.bind(inner);
  (inner as unknown as { _navigationHandler: Navigate })._navigationHandler = async (ctx, gotoOptions) => {
    const p = pending.get(ctx.request.uniqueKey);
    if (!p || withoutHash(p.doc.url) === withoutHash(ctx.request.url)) return crawleeNavigate(ctx, gotoOptions);
    return ctx.page.goto(p.doc.url, gotoOptions);
  };

  // Crawlee's own per-request step (open a page, navigate, run the handler), kept for rendering.
  const renderInBrowser = (inner as unknown as { _runRequestHandler(ctx: PlaywrightCrawlingContext): Promise<void> })._runRequestHandler.bind(inner);
  (inner as unknown as { _runRequestHandler(ctx: PlaywrightCrawlingContext): Promise<void> })._runRequestHandler = async (ctx) => {
    const request = ctx.request;
    let doc: FetchedDocument;
    try {
      doc = await fetchDocument(request.url, docOpts);
    } catch (e) {
      pending.delete(request.uniqueKey);
      // Refusals, limits and dead connections end as a failure with their reason, as on the browser path (no retry).
      if (e instanceof DocumentFetchError) request.noRetry = true;
      throw e;
    }
    request.loadedUrl = doc.url;
    const html = isHtmlResponse(doc.contentType, doc.body.subarray(0, 512)) ? decodeHtml(doc.body, doc.contentType) : undefined;
    let decision = policy.decide(request.url);
    // Error pages and non-HTML responses are the same without JavaScript: never worth a render.
    if (html === undefined || doc.status >= 400) decision = { mode: 'http', pattern: decision.pattern, why: html === undefined ? 'not HTML' : `HTTP ${doc.status}` };
    let analysis: PageAnalysis | undefined;
    const fetchedAt = new Date();
    if (decision.mode === 'http' && html !== undefined && doc.status < 400) {
      analysis = analyzePage({ html, url: doc.url, fetchedAt });
      const guard = policy.guard(request.url, analysis.text.length);
      if (guard) decision = { mode: 'browser', pattern: decision.pattern, why: `text guard: ${guard}` };
    }
    if (decision.mode === 'browser') {
      pending.set(request.uniqueKey, { doc, decision });
      return renderInBrowser(ctx);
    }
    policy.count(request.url, 'http');
    await opts.onPage({
      request,
      url: doc.url,
      status: doc.status,
      contentType: doc.contentType,
      html,
      fetchedAt,
      xhrJson: [],
      analysis,
      fetchedWith: 'http',
      fetchWhy: decision.why,
    });
  };
  return inner;
}
