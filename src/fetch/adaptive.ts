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
import { analyzePage, type AnalysisLimits } from '../extract/page.js';
import type { PageAnalysis } from '../extract/types.js';
import { LearningRenders } from './adaptive-learning.js';
import { KeptPages } from './adaptive-render.js';
import { createBrowserFetcher, type BrowserFetcherOptions, type RenderedPage } from './crawler.js';
import type { FetchGate } from './gate.js';
import { UA_TOKEN } from './gate-proxy.js';
import { loopTime } from './loop-clock.js';
import { DEFAULT_MAX_BODY_BYTES, GatedFetchError, gatedRequest, type GatedResponse } from './gated-request.js';
import { AdaptivePolicy, compareRenderings, scriptOn, signalsOf, urlPattern, type Comparison, type Decision, type FetchMode } from './adaptive-policy.js';

export * from './adaptive-policy.js';

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
  /**
   * A schedule shared with other processes (a Redis crawl's, src/frontier/redis.ts): the hop
   * takes its host's slot there too (`own`: the page's own request is on that host). A release
   * to call after the request, or undefined when it would not get one within `maxWaitMs`.
   */
  holdHop?(host: string, own: number, maxWaitMs: number): Promise<(() => void) | undefined>;
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
  // Loop time (./loop-clock.ts): our own stalls of the event loop do not count against the host.
  const deadline = loopTime() + opts.timeoutMs;
  let current = url;
  const fail = (code: string, message: string, outcome: 'refused' | 'error' = 'refused'): never => {
    opts.onDecision?.({ url: current, outcome, reason: `${code}: ${message}` });
    throw new DocumentFetchError(code, message);
  };
  let release: (() => void) | undefined;
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
        if (loopTime() + wait > deadline) fail('timeout', `redirect hop to ${host} would wait past the time limit`, 'error');
        await sleep(wait);
      }
      if (opts.hostSchedule?.holdHop) {
        release = await opts.hostSchedule.holdHop(host, host === new URL(url).host ? 1 : 0, deadline - loopTime());
        if (!release) fail('timeout', `redirect hop to ${host} would wait past the time limit`, 'error');
      }
      opts.hostSchedule?.touched(host);
    }
    let res: GatedResponse;
    try {
      res = await gatedRequest(opts.gate, current, {
        headers: { 'user-agent': opts.userAgent, accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', 'accept-language': 'zh-CN,zh;q=0.9,en;q=0.8' },
        maxBodyBytes: opts.maxBytes,
        timeoutMs: Math.max(1, deadline - loopTime()),
      });
    } catch (e) {
      const code = e instanceof GatedFetchError ? e.code : 'error';
      return fail(code, (e as Error).message, code === 'refused' ? 'refused' : 'error');
    } finally {
      release?.();
      release = undefined;
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
  /** The crawl's bounds on page analysis (src/extract/limits.ts), as the engine's own analyses use. */
  analysisLimits?: Partial<AnalysisLimits>;
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
  const limits = { limits: opts.analysisLimits };
  const learning = new LearningRenders(policy);
  // A page waiting for its pattern's learning renders: at most half the navigation timeout, so
  // that wait and a render of its own stay within Crawlee's handler timeout (navigation + 30 s).
  const maxLearningWaitMs = (opts.navigationTimeoutSecs * 1000) / 2;
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
    await analyseRendering(rendered, p);
  };
  const analyseRendering = async (rendered: RenderedPage, p: { doc: FetchedDocument; decision: Decision } | undefined) => {
    if (!p || rendered.html === undefined) {
      await opts.onPage({ ...rendered, fetchedWith: 'browser', fetchWhy: p?.decision.why ?? 'browser' });
      return;
    }
    const { doc, decision } = p;
    const analysis = analyzePage({ html: rendered.html, url: rendered.url, fetchedAt: rendered.fetchedAt }, limits);
    let comparison: Comparison | undefined;
    // A rendering read while requests were still open may lack what they would have built (a
    // loaded machine): compared with the HTTP page it could look "equivalent" and teach the
    // pattern wrongly, so it is no evidence either way.
    const cutOff = (rendered.openRequests ?? 0) > 0;
    if (decision.compare !== false && !cutOff && isHtmlResponse(doc.contentType, doc.body.subarray(0, 512))) {
      const httpHtml = decodeHtml(doc.body, doc.contentType);
      const httpAnalysis = analyzePage({ html: httpHtml, url: doc.url, fetchedAt: rendered.fetchedAt }, limits);
      comparison = compareRenderings(
        signalsOf(httpAnalysis, httpHtml, [], rendered.fetchedAt),
        signalsOf(analysis, rendered.html, rendered.xhrJson, rendered.fetchedAt),
        policy.opts,
      );
      policy.record(rendered.request.url, comparison, analysis.text.length);
    }
    policy.count(rendered.request.url, 'browser');
    const verdict = comparison
      ? comparison.equivalent ? 'HTTP equivalent' : `HTTP differs: ${comparison.differences.join('; ')}`
      : cutOff ? `read with ${rendered.openRequests} request(s) still open: not compared` : '';
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

  // Renders on kept tabs (./adaptive-render.ts), unless a plugin needs a page of its own per
  // request (traces: one browser context per page); then Crawlee's per-request step below.
  const kept = opts.isolatePages || opts.pageClosing
    ? undefined
    : new KeptPages({
        newPage: async () => (await inner.browserPool.newPage()) as Page,
        navigationTimeoutMs: opts.navigationTimeoutSecs * 1000,
        settleTimeoutMs: opts.settleTimeoutMs ?? 3000,
        blockResources: opts.blockResources,
        preNavigation: opts.preNavigation,
        postNavigation: opts.postNavigation,
      });
  if (kept) {
    const run = inner.run.bind(inner);
    inner.run = async (...args: Parameters<typeof run>) => {
      kept.warm();
      try {
        return await run(...args);
      } finally {
        await kept.close();
      }
    };
  }

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
    // Error pages, non-HTML responses and pages with nothing that can run script are the same
    // without JavaScript: never worth a render, and no evidence about the pattern's other pages.
    const sure = html === undefined ? 'not HTML' : doc.status >= 400 ? `HTTP ${doc.status}` : scriptOn(html) ? undefined : 'no script on the page: JavaScript cannot change it';
    let decision: Decision = policy.opts.renderAll
      ? { mode: 'browser', pattern: urlPattern(request.url), why: 'every page rendered (adaptive.renderAll)', compare: false }
      : sure ? { mode: 'http', pattern: urlPattern(request.url), why: sure } : await learning.decide(request.url, maxLearningWaitMs);
    let analysis: PageAnalysis | undefined;
    const fetchedAt = new Date();
    if (decision.mode === 'http' && html !== undefined && doc.status < 400) {
      analysis = analyzePage({ html, url: doc.url, fetchedAt }, limits);
      const guard = sure ? undefined : policy.guard(request.url, analysis.text.length);
      if (guard) decision = { mode: 'browser', pattern: decision.pattern, why: `text guard: ${guard}` };
    }
    if (decision.mode === 'browser') {
      const learnt = decision.learning ? learning.begin(request.url) : undefined;
      try {
        if (kept) return await kept.render(request, doc, (r) => analyseRendering({ ...r, request, fetchedAt: new Date() }, { doc, decision }));
        pending.set(request.uniqueKey, { doc, decision });
        return await renderInBrowser(ctx);
      } finally {
        learnt?.();
      }
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
