/**
 * The downloader: Crawlee's PlaywrightCrawler renders each page our frontier hands out and
 * passes plain data (final URL, status, rendered HTML, captured JSON responses) to the engine.
 * Everything that decides what to fetch lives elsewhere; keep this glue thin.
 */
import './loopback-only.js'; // first: before Crawlee's browser pool opens its proxy
import { Configuration, HttpCrawler, PlaywrightCrawler, ProxyConfiguration, type IRequestManager, type Log, type Request } from 'crawlee';
import { gateFailure } from './gate/gate-proxy.js';
import { mediaTypeOf, type FetchAnswer } from './failure.js';
import { guardPage } from './page-guard.js';
import { decodeHtml, isHtmlResponse } from '../extract/encoding.js';
import type { LaunchOptions, Page } from 'playwright';
import type { PageAnalysis } from '../extract/types.js';
import type { AnalysisLimits } from '../extract/page.js';
import { chooseAnalysis, DEFAULT_BLOCKING, MainDocument, readDom, settlePage, withScriptNavigations, type AnalysedFrom, type BlockOptions, type Chosen, type Settled } from './page-load.js';
import { chromium } from 'playwright';
import { waited } from '../util/stage-profile.js';

/** A rendered page, as plain data. */
export interface RenderedPage {
  request: Request;
  /** URL after redirects. */
  url: string;
  status: number;
  contentType: string;
  /** Rendered DOM serialised; absent for non-HTML responses. */
  html?: string;
  fetchedAt: Date;
  /** JSON bodies the page loaded (comment widgets load replies by XHR). */
  xhrJson: { url: string; json: unknown }[];
  /** The live browser page (absent with the HTTP fetcher). */
  page?: Page;
  /** XHR/fetch requests still open when the rendered page was read (the wait gave up on them). */
  openRequests?: number;
  /** `fetcher: adaptive` (src/fetch/adaptive/adaptive.ts): which path fetched the page, and why. */
  fetchedWith?: 'http' | 'http+data' | 'browser';
  fetchWhy?: string;
  /** HTTP vs rendered analysis of the same response, when the adaptive fetcher compared them. */
  comparison?: { equivalent: boolean; textF1: number; linkRecall: number; differences: string[] };
  /** The page analysis, when the fetcher already made it (the engine reuses it). */
  analysis?: PageAnalysis;
  /** Rendered pages: which document the analysis was made from (./page-load.ts chooseAnalysis), and why when not the rendering. */
  analysedFrom?: AnalysedFrom;
  analysedWhy?: string;
  /** Rendered pages: the rendering was the browser's own page, unreadable, or its article replaced (no evidence of what the page renders to). */
  renderingLost?: boolean;
  /** Rendered pages analysed as served: the rendering's DOM and analysis all the same (the adaptive fetcher compares them with HTTP). */
  renderedHtml?: string;
  renderedAnalysis?: PageAnalysis;
  /** Rendered pages: how the page settled before it was read. */
  settled?: Settled;
  /** Navigations the page's scripts attempted (stopped; offered to the crawl as links). */
  scriptNavigations?: string[];
}

/** What the engine needs from a downloader: Crawlee's crawler run/stop. */
export interface Fetcher {
  run(): Promise<unknown>;
  stop(reason?: string): void;
}

export interface BrowserFetcherOptions {
  /** Our frontier, as Crawlee's request manager (src/frontier/request-manager.ts). */
  requestManager: IRequestManager;
  launchOptions: LaunchOptions;
  maxConcurrency: number;
  navigationTimeoutSecs: number;
  maxRequestRetries: number;
  storageDir: string;
  respectRobotsTxt: boolean;
  /** Keep running when the queue is empty (`--watch`: revisits arrive later); stop() ends it. */
  keepAlive?: boolean;
  /** Sub-requests not fetched (./page-load.ts blockReason; default: images, media, fonts, styles, beacons, ad and analytics hosts). */
  blocking?: BlockOptions;
  /** After `load`, requests the page starts later than this are not waited for (JS-injected text). */
  settleTimeoutMs?: number;
  /** From the document's commit, the longest wait for its load and a quiet network; then it is read as it stands. */
  settleCapMs?: number;
  /** The crawl's bounds on page analysis (src/extract/limits.ts). */
  analysisLimits?: Partial<AnalysisLimits>;
  onPage(page: RenderedPage): Promise<void>;
  /** Plugin hooks around navigation (tracing, response capture). */
  preNavigation?(page: Page, request: Request): Promise<void>;
  postNavigation?(page: Page, request: Request, failed: boolean): Promise<void>;
  /** Runs before each page closes (inside Crawlee's 5-second close limit): finish per-page work such as traces. */
  pageClosing?(page: Page): Promise<void>;
  /** One browser context per page (Crawlee incognito pages), needed for per-page Playwright traces. */
  isolatePages?: boolean;
  /** A request given up on; `answer` is what the server answered to its last attempt, when the HTTP fetcher got one (./failure.ts). */
  onFailure(request: Request, error: Error, answer?: FetchAnswer): Promise<void>;
  /** The gate proxy (src/fetch/gate/gate-proxy.ts) every request goes through; `url` carries its credentials. */
  gateProxy?: { url: string };
  /** Crawlee's logger for this crawler and its parts (default: Crawlee's global one). */
  log?: Log;
}

/** A response the gate proxy refused or could not fetch becomes a failure with its reason, not a page. */
function throwIfGated(request: Request, headers: Record<string, string | string[] | undefined>): void {
  const reason = gateFailure(headers);
  if (!reason) return;
  request.noRetry = true;
  throw new Error(reason);
}

/**
 * `--concurrency N` means N pages in flight. Crawlee's AutoscaledPool would start at 1, add one
 * every 10 s, and start nothing new while it judges the system overloaded; its CPU signal is the
 * whole machine's, so on a shared machine (or while our own page analysis keeps the event loop
 * busy) a crawl ran one page at a time whatever the setting (measured: 1 of 4 for a whole crawl
 * at load average 3). Memory stays bounded by N itself: at most N pages are open.
 */
export function fixedConcurrency(n: number): { minConcurrency: number; maxConcurrency: number } {
  return { minConcurrency: n, maxConcurrency: n };
}

/** Pages a browser serves before Crawlee's pool replaces it (bounds what a long-lived Chromium accumulates). */
export const RETIRE_BROWSER_AFTER_PAGES = 1000;

/**
 * Crawlee's browser pool held to one Chromium. Its defaults launch a second browser while the
 * first still runs: after 100 pages (the old one closes only once its pages have), and whenever
 * opening a tab takes over 15 s (a loaded machine), which retires the browser it asked; each
 * Chromium is some 600 MB of processes. Here a browser serves RETIRE_BROWSER_AFTER_PAGES pages,
 * a tab may take as long as a navigation to open, and a browser has room for every tab the
 * crawl can have open at once (a tab per slot, the ones closing behind them, the adaptive
 * fetcher's warm tab): beyond that the pool would open another browser.
 */
export function oneBrowser(maxConcurrency: number, navigationTimeoutSecs: number) {
  return {
    // Fingerprint injection rewrites every page's JS environment: costly and useless here.
    useFingerprints: false,
    retireBrowserAfterPageCount: RETIRE_BROWSER_AFTER_PAGES,
    operationTimeoutSecs: Math.max(15, navigationTimeoutSecs),
    maxOpenPagesPerBrowser: Math.max(20, 2 * maxConcurrency + 2),
  };
}

/** Crawlee configuration rooted at our storage folder (datasets, key-value stores). */
export function crawleeConfig(storageDir: string): Configuration {
  return new Configuration({
    storageClientOptions: { localDataDirectory: storageDir },
    persistStorage: true,
    purgeOnStart: false,
  });
}

import { trackNetworkActivity, type NetworkActivity } from './network-activity.js';
export { trackNetworkActivity, waitForQuietNetwork, type NetworkActivity } from './network-activity.js';

/**
 * The HTTP downloader (Crawlee's HttpCrawler): no rendering, so only for server-rendered sites,
 * but an order of magnitude faster; the benchmarks use it for large static webs.
 */
export function createHttpFetcher(opts: Omit<BrowserFetcherOptions, 'launchOptions' | 'blocking' | 'settleTimeoutMs' | 'settleCapMs'>): HttpCrawler<any> {
  // Crawlee checks an answer's content type in its first post-navigation hook and throws when it
  // does not read the type; ours runs after it, so an attempt whose answer reached ours had its
  // type accepted (a failure after that is something else).
  const typeAccepted = new Set<string>();
  return new HttpCrawler(
    {
      // Crawlee types a `requestManager` option, but 3.18's option check (ow exactShape) rejects it,
      // so the request manager goes in as `requestQueue`, which BasicCrawler uses as one.
      requestQueue: opts.requestManager as never,
      ...fixedConcurrency(opts.maxConcurrency),
      maxRequestRetries: opts.maxRequestRetries,
      navigationTimeoutSecs: opts.navigationTimeoutSecs,
      respectRobotsTxtFile: opts.respectRobotsTxt,
      keepAlive: opts.keepAlive ?? false,
      useSessionPool: false,
      log: opts.log,
      proxyConfiguration: opts.gateProxy ? new ProxyConfiguration({ proxyUrls: [opts.gateProxy.url] }) : undefined,
      // Hand us the bytes as they came: decodeHtml reads the declared charset itself, and Crawlee
      // would otherwise re-encode them first, or fail on a charset it does not know.
      forceResponseEncoding: 'latin1',
      // Non-HTML bodies are recorded by type, not rejected as errors.
      // (Crawlee matches these exactly, no wildcards; other types end in onFailure, where the engine logs them not-html.)
      additionalMimeTypes: ['application/octet-stream', 'application/json', 'application/pdf', 'text/plain'],
      preNavigationHooks: [
        ({ request }) => {
          typeAccepted.delete(request.uniqueKey);
        },
      ],
      postNavigationHooks: [
        ({ request }) => {
          typeAccepted.add(request.uniqueKey);
        },
      ],
      requestHandler: async ({ request, body, response }) => {
        throwIfGated(request, response.headers);
        const contentType = String(response.headers['content-type'] ?? '');
        const bytes = typeof body === 'string' ? Buffer.from(body) : body;
        const html = isHtmlResponse(contentType, bytes.subarray(0, 512)) ? decodeHtml(bytes, contentType) : undefined;
        await opts.onPage({
          request,
          url: request.loadedUrl ?? request.url,
          status: response.statusCode ?? 0,
          contentType,
          html,
          fetchedAt: new Date(),
          xhrJson: [],
        });
        typeAccepted.delete(request.uniqueKey);
      },
      failedRequestHandler: async ({ request, response }, error) => {
        const answer: FetchAnswer | undefined = response && {
          status: response.statusCode ?? 0,
          contentType: mediaTypeOf(response.headers['content-type']),
          typeAccepted: typeAccepted.delete(request.uniqueKey),
        };
        await opts.onFailure(request, error, answer);
      },
    },
    crawleeConfig(opts.storageDir),
  );
}

/** The default cap on a rendered page's settle (config `settleCapSecs`). */
export const DEFAULT_SETTLE_CAP_MS = 10_000;

/**
 * A rendered page read for analysis, the same way on every browser path: the DOM as it stands
 * (bounded: a renderer stuck in a loop does not answer), the document as served beside it, and
 * the analysis made from the better of the two (./page-load.ts chooseAnalysis). Throws when
 * neither can be analysed (the browser's error page and no served document).
 */
export async function readRendering(page: Page, doc: MainDocument, input: { fetchedAt: Date; limits?: Partial<AnalysisLimits>; cdp?: Parameters<typeof readDom>[2] }) {
  // Bounded: a renderer stuck in a script that never yields does not answer (then the served document is analysed).
  const html = await waited('render: read the DOM', () => readDom(page, 10_000, input.cdp));
  const url = page.url();
  const served = await doc.servedHtml();
  let chosen: Chosen;
  try {
    chosen = chooseAnalysis({ rendered: html === undefined ? undefined : { html, url }, served, navigationError: doc.navigationError, fetchedAt: input.fetchedAt, limits: input.limits });
  } catch (e) {
    // Nested too deep for the extractor's recursion: the engine analyses the rendering flattened.
    if (!(e instanceof RangeError) || html === undefined) throw e;
    return { html, url, analysedFrom: 'rendered' as const, analysis: undefined, why: undefined, renderingLost: false, renderedHtml: html, servedAnalysis: undefined, renderedAnalysis: undefined };
  }
  return { ...chosen, analysis: withScriptNavigations(chosen.analysis, doc.scriptNavigations), renderedHtml: html };
}

export function createBrowserFetcher(opts: BrowserFetcherOptions): PlaywrightCrawler {
  const pageState = new WeakMap<Page, { inFlight: NetworkActivity; xhrJson: { url: string; json: unknown }[]; doc: MainDocument; committedAt: number }>();
  return new PlaywrightCrawler(
    {
      // Crawlee types a `requestManager` option, but 3.18's option check (ow exactShape) rejects it,
      // so the request manager goes in as `requestQueue`, which BasicCrawler uses as one.
      requestQueue: opts.requestManager as never,
      ...fixedConcurrency(opts.maxConcurrency),
      maxRequestRetries: opts.maxRequestRetries,
      navigationTimeoutSecs: opts.navigationTimeoutSecs,
      requestHandlerTimeoutSecs: opts.navigationTimeoutSecs + 30,
      respectRobotsTxtFile: opts.respectRobotsTxt,
      keepAlive: opts.keepAlive ?? false,
      useSessionPool: false,
      log: opts.log,
      // handleSIGINT off: Playwright would kill Chromium and exit(130) on Ctrl-C; the engine stops
      // the crawl itself so the thread store, crawl log and run state are closed first.
      launchContext: { launcher: chromium, launchOptions: { ...opts.launchOptions, handleSIGINT: false }, useIncognitoPages: opts.isolatePages ?? false },
      browserPoolOptions: {
        ...oneBrowser(opts.maxConcurrency, opts.navigationTimeoutSecs),
        prePageCloseHooks: opts.pageClosing ? [async (page) => opts.pageClosing?.(page as Page)] : [],
      },
      preNavigationHooks: [
        async ({ page, request }, gotoOptions) => {
          // The navigation waits for the document only; its sub-resources get a bounded settle
          // (requestHandler): a script or image on a host that never answers cannot lose the page.
          if (gotoOptions) gotoOptions.waitUntil = 'commit';
          const doc = new MainDocument(page);
          await guardPage(page, { block: opts.blocking ?? DEFAULT_BLOCKING, doc });
          await opts.preNavigation?.(page, request);
          const state = { inFlight: trackNetworkActivity(page), xhrJson: [] as { url: string; json: unknown }[], doc, committedAt: 0 };
          pageState.set(page, state);
          page.on('response', async (res) => {
            const t = res.request().resourceType();
            if ((t !== 'xhr' && t !== 'fetch') || !(res.headers()['content-type'] ?? '').includes('json')) return;
            try {
              state.xhrJson.push({ url: res.url(), json: await res.json() });
            } catch {
              // body gone (page closed) or not JSON after all
            }
          });
        },
      ],
      postNavigationHooks: [
        async ({ page, request, response }) => {
          const state = pageState.get(page);
          if (state) {
            state.committedAt = Date.now();
            state.doc.fromResponse(response ?? null);
          }
          await opts.postNavigation?.(page, request, !response || response.status() >= 400);
        },
      ],
      requestHandler: async ({ page, request, response }) => {
        if (response) throwIfGated(request, response.headers());
        const state = pageState.get(page)!;
        const settled = await settlePage(page, state.inFlight, state.committedAt || Date.now(), { capMs: opts.settleCapMs ?? DEFAULT_SETTLE_CAP_MS, settleMs: opts.settleTimeoutMs ?? 3000 });
        const contentType = response?.headers()['content-type'] ?? '';
        const isHtml = !contentType || /html|xml/i.test(contentType);
        const fetchedAt = new Date();
        const base = { request, status: response?.status() ?? 0, contentType, fetchedAt, xhrJson: state.xhrJson, page, openRequests: settled.openRequests, settled };
        if (!isHtml) {
          await opts.onPage({ ...base, url: page.url() });
          return;
        }
        let read: Awaited<ReturnType<typeof readRendering>>;
        try {
          read = await readRendering(page, state.doc, { fetchedAt, limits: opts.analysisLimits });
        } catch (e) {
          request.noRetry = true;
          throw e;
        }
        await opts.onPage({
          ...base,
          url: read.url,
          html: read.html,
          analysis: read.analysis,
          analysedFrom: read.analysedFrom,
          analysedWhy: read.why,
          renderingLost: read.renderingLost,
          renderedHtml: read.renderedHtml,
          renderedAnalysis: read.renderedAnalysis,
          scriptNavigations: state.doc.scriptNavigations,
        });
      },
      failedRequestHandler: async ({ request }, error) => {
        await opts.onFailure(request, error);
      },
    },
    crawleeConfig(opts.storageDir),
  );
}
