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
 * the HTTP side, and keeps no evidence we could log or `--explain`. docs/fetchers.md.
 */
import { Request, PlaywrightCrawler, type PlaywrightCrawlingContext } from 'crawlee';
import type { Page, Route } from 'playwright';
import { decodeHtml, isHtmlResponse } from '../../extract/encoding.js';
import { analyzePage, type AnalysisLimits } from '../../extract/page.js';
import type { PageAnalysis } from '../../extract/types.js';
import type { PoliteFetch } from '../../crawl/polite-fetch.js';
import { DataPaths, serveFromData, type Xhr } from './adaptive-data.js';
import { LearningRenders } from './adaptive-learning.js';
import { KeptPages } from './adaptive-render.js';
import { createBrowserFetcher, type BrowserFetcherOptions, type RenderedPage } from '../crawler.js';
import { DEFAULT_DOCUMENT_FETCH, DocumentFetchError, fetchDocument, type DocumentFetchOptions, type FetchedDocument } from './adaptive-document.js';
import { timed, waited } from '../../util/stage-profile.js';
import { AdaptivePolicy, compareRenderings, scriptOn, signalsOf, urlPattern, type Comparison, type Decision } from './adaptive-policy.js';

export * from './adaptive-policy.js';
export * from './adaptive-document.js';

const withoutHash = (url: string) => url.replace(/#.*$/, '');

// ---------------------------------------------------------------- the fetcher

export interface AdaptiveFetcherOptions extends BrowserFetcherOptions {
  policy: AdaptivePolicy;
  documentFetch: Partial<DocumentFetchOptions> & Pick<DocumentFetchOptions, 'gate'>;
  /** The crawl's bounds on page analysis (src/extract/limits.ts), as the engine's own analyses use. */
  analysisLimits?: Partial<AnalysisLimits>;
  /**
   * The crawl's fetch for requests that are not pages (src/crawl/polite-fetch.ts: gate, robots.txt,
   * the host's delay and concurrency, limits, the sub-request log): the data path's API calls.
   * Without it there is no data path.
   */
  subFetch?: PoliteFetch;
  /** The data path's state (the engine's is kept in the run folder for --resume, ./adaptive-data.ts openDataPaths); a fresh one when absent. */
  dataPaths?: DataPaths;
}

/**
 * Crawlee's PlaywrightCrawler with the per-request step replaced: fetch the document over HTTP,
 * decide, then either hand the HTTP page to the engine or let the browser render the same bytes.
 * Concurrency, retries, the frontier (request manager) and the browser pool stay Crawlee's.
 */
// Long because: the per-request step (HTTP, decide, render) shares the policy's and the learning renders' state.
export function createAdaptiveFetcher(opts: AdaptiveFetcherOptions): PlaywrightCrawler {
  const docOpts: DocumentFetchOptions = { ...DEFAULT_DOCUMENT_FETCH, timeoutMs: opts.navigationTimeoutSecs * 1000, ...opts.documentFetch };
  const policy = opts.policy;
  const limits = { limits: opts.analysisLimits };
  const learning = new LearningRenders(policy);
  // A page waiting for its pattern's learning renders: at most half the navigation timeout, so
  // that wait and a render of its own stay within Crawlee's handler timeout (navigation + 30 s).
  const maxLearningWaitMs = (opts.navigationTimeoutSecs * 1000) / 2;
  // The data path (./adaptive-data.ts): off with adaptive.dataPath false, and when every page is rendered anyway.
  const subFetch = opts.subFetch;
  const dataPaths = policy.opts.dataPath === false || policy.opts.renderAll || !subFetch ? undefined : (opts.dataPaths ?? new DataPaths({ ...policy.opts, limits: opts.analysisLimits }));
  /** A data-path API request, made for the page `parent` through the crawl's polite fetch like every request that is not a page. */
  const fetchApi = (parent: { url: string; fetchedAt: Date }) => async (urls: string[]): Promise<Xhr | undefined> => {
    const res = await subFetch!({ url: urls[0], kind: 'data-api', parent, accept: 'application/json, text/plain, */*' });
    if (!res.ok) throw new Error(`API ${urls[0]} ${res.refused ? 'refused' : 'failed'}: ${res.reason}`);
    if (res.status < 200 || res.status >= 300) throw new Error(`API ${urls[0]} answered HTTP ${res.status}`);
    try {
      return { url: res.url, json: JSON.parse(res.body.toString('utf8')) as unknown };
    } catch {
      throw new Error(`API ${urls[0]} did not answer JSON`);
    }
  };
  /** Time the data path's lesson took on a render, by request uniqueKey: not part of the render's cost. */
  const lessonMs = new Map<string, number>();
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
  const analyseRendering = async (rendered: RenderedPage, p: { doc: FetchedDocument; decision: Decision } | undefined, renderedHtml = rendered.renderedHtml ?? rendered.html, servedAnalysis?: PageAnalysis) => {
    if (!p || rendered.html === undefined) {
      await opts.onPage({ ...rendered, fetchedWith: 'browser', fetchWhy: p?.decision.why ?? 'browser' });
      return;
    }
    const { doc, decision } = p;
    const analysis = rendered.analysis ?? analyzePage({ html: rendered.html, url: rendered.url, fetchedAt: rendered.fetchedAt }, limits);
    // What the browser made of the page, whichever document was analysed: the comparison and the
    // data path learn from the rendering (a page analysed as served because its scripts added
    // little may still differ from HTTP in its links or data).
    const renderedAnalysis = rendered.analysedFrom === 'served' ? rendered.renderedAnalysis : analysis;
    let comparison: Comparison | undefined;
    let browserSignals: ReturnType<typeof signalsOf> | undefined;
    let httpHtml: string | undefined;
    // A rendering read while requests were still open may lack what they would have built (a
    // loaded machine): compared with the HTTP page it could look "equivalent" and teach the
    // pattern wrongly, so it is no evidence either way. Nor is one that was lost (the browser's
    // error page, or scripts that replaced the article: the bytes as served were analysed).
    const cutOff =
      (rendered.openRequests ?? 0) > 0 || rendered.settled?.state === 'load-cap' || rendered.renderingLost === true || renderedHtml === undefined || renderedAnalysis === undefined;
    if (decision.compare !== false && !cutOff && isHtmlResponse(doc.contentType, doc.body.subarray(0, 512))) {
      httpHtml = decodeHtml(doc.body, doc.contentType);
      // The kept tab's read analysed these same bytes already (to choose between them and the rendering).
      const httpAnalysis = servedAnalysis && servedAnalysis.url === doc.url ? servedAnalysis : analyzePage({ html: httpHtml, url: doc.url, fetchedAt: rendered.fetchedAt }, limits);
      browserSignals = timed('compare HTTP and rendering', () => signalsOf(renderedAnalysis!, renderedHtml!, rendered.xhrJson, rendered.fetchedAt));
      comparison = timed('compare HTTP and rendering', () => compareRenderings(signalsOf(httpAnalysis, httpHtml!, [], rendered.fetchedAt), browserSignals!, policy.opts));
      policy.record(rendered.request.url, comparison, renderedAnalysis!.text.length);
    }
    policy.count(rendered.request.url, 'browser');
    const verdict = comparison
      ? comparison.equivalent ? 'HTTP equivalent' : `HTTP differs: ${comparison.differences.join('; ')}`
      : cutOff ? `read with ${rendered.openRequests} request(s) still open: not compared` : '';
    // The data path learns on renders of pages that need the browser (./adaptive-data.ts).
    let lesson = '';
    const needsBrowser = decision.needsBrowser || decision.dataRecheck || (comparison !== undefined && !comparison.equivalent);
    if (dataPaths && needsBrowser && !cutOff && doc.status < 400 && isHtmlResponse(doc.contentType, doc.body.subarray(0, 512)) && dataPaths.wantsLesson(doc.url)) {
      httpHtml ??= decodeHtml(doc.body, doc.contentType);
      browserSignals ??= signalsOf(renderedAnalysis!, renderedHtml!, rendered.xhrJson, rendered.fetchedAt);
      const learnt = { url: doc.url, httpHtml, renderedHtml: renderedHtml!, xhr: rendered.xhrJson, fetchedAt: rendered.fetchedAt, browser: browserSignals };
      const began = performance.now();
      lesson = (await waited('data path: learn on a render', () => dataPaths.learn(learnt))).why;
      lessonMs.set(rendered.request.uniqueKey, performance.now() - began);
    }
    const why = [decision.why, verdict, lesson].filter(Boolean).join(' → ');
    await opts.onPage({ ...rendered, analysis, fetchedWith: 'browser', fetchWhy: why, comparison });
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
        settleCapMs: opts.settleCapMs,
        blocking: opts.blocking,
        analysisLimits: opts.analysisLimits,
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
      doc = await waited('fetch document (HTTP)', () => fetchDocument(request.url, docOpts));
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
    const sure = html === undefined ? 'not HTML' : doc.status >= 400 ? `HTTP ${doc.status}` : timed('script scan', () => scriptOn(html)) ? undefined : 'no script on the page: JavaScript cannot change it';
    let decision: Decision = policy.opts.renderAll
      ? { mode: 'browser', pattern: urlPattern(request.url), why: 'every page rendered (adaptive.renderAll)', compare: false }
      : sure ? { mode: 'http', pattern: urlPattern(request.url), why: sure } : await waited('decide (incl. waiting for learning renders)', () => learning.decide(request.url, maxLearningWaitMs));
    let analysis: PageAnalysis | undefined;
    const fetchedAt = new Date();
    let pageHtml = html;
    let xhrJson: Xhr[] = [];
    if (dataPaths && decision.needsBrowser && html !== undefined && doc.status < 400) decision = dataPaths.decide(doc.url) ?? decision;
    if (decision.mode === 'http+data') {
      const began = performance.now();
      const served = await waited('data path: serve (API, fill, analysis)', () => serveFromData(dataPaths!, { url: doc.url, html: html!, fetchedAt, limits: opts.analysisLimits }, fetchApi({ url: doc.url, fetchedAt })));
      dataPaths!.observeCost(doc.url, 'data', performance.now() - began);
      const guard = 'failed' in served ? undefined : policy.guard(request.url, served.analysis.text.length);
      if ('failed' in served || guard) {
        if (guard) dataPaths!.failed(doc.url, `text guard: ${guard}`);
        decision = { mode: 'browser', pattern: decision.pattern, why: `data path failed (${'failed' in served ? served.failed : `text guard: ${guard}`}): render`, needsBrowser: true };
      } else {
        ({ html: pageHtml, xhr: xhrJson, analysis } = served);
      }
    }
    if (decision.mode === 'http' && html !== undefined && doc.status < 400) {
      analysis = analyzePage({ html, url: doc.url, fetchedAt }, limits);
      const guard = sure ? undefined : policy.guard(request.url, analysis.text.length);
      if (guard) decision = { mode: 'browser', pattern: decision.pattern, why: `text guard: ${guard}` };
    }
    if (decision.mode === 'browser') {
      const learnt = decision.learning ? learning.begin(request.url) : undefined;
      const began = performance.now();
      try {
        if (kept) return await kept.render(request, doc, (r) => analyseRendering({ ...r, request, fetchedAt: new Date() }, { doc, decision }, r.renderedHtml, r.servedAnalysis));
        pending.set(request.uniqueKey, { doc, decision });
        return await renderInBrowser(ctx);
      } finally {
        learnt?.();
        // What a rendering of the pattern costs, against its data path (if it gets one).
        const lesson = lessonMs.get(request.uniqueKey) ?? 0;
        lessonMs.delete(request.uniqueKey);
        dataPaths?.observeCost(doc.url, 'render', performance.now() - began - lesson);
      }
    }
    policy.count(request.url, decision.mode);
    await opts.onPage({
      request,
      url: doc.url,
      status: doc.status,
      contentType: doc.contentType,
      html: pageHtml,
      fetchedAt,
      xhrJson,
      analysis,
      fetchedWith: decision.mode,
      fetchWhy: decision.why,
    });
  };
  return inner;
}
