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
import { RenderingWeigher, type Pending } from './adaptive-weigh.js';
import { createBrowserFetcher, type BrowserFetcherOptions, type RenderedPage } from '../crawler.js';
import { DEFAULT_DOCUMENT_FETCH, DocumentFetchError, fetchDocument, type DocumentFetchOptions, type FetchedDocument } from './adaptive-document.js';
import { timed, waited } from '../../util/stage-profile.js';
import { AdaptivePolicy, scriptOn, urlPattern, type Decision } from './adaptive-policy.js';

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

/** A page kept from the HTTP side: the document handed to the engine, as served or filled from its data. */
interface HttpPage {
  decision: Decision;
  html: string | undefined;
  xhrJson: Xhr[];
  analysis: PageAnalysis | undefined;
}

// The parts of Crawlee's PlaywrightCrawler this fetcher replaces: its navigation and its per-request step.
type Navigate = (ctx: PlaywrightCrawlingContext, gotoOptions: Parameters<Page['goto']>[1]) => Promise<Awaited<ReturnType<Page['goto']>>>;
interface CrawleeSteps {
  _navigationHandler: Navigate;
  _runRequestHandler(ctx: PlaywrightCrawlingContext): Promise<void>;
}

/**
 * Crawlee's PlaywrightCrawler with the per-request step replaced: fetch the document over HTTP,
 * decide, then either hand the HTTP page to the engine or let the browser render the same bytes.
 * Concurrency, retries, the frontier (request manager) and the browser pool stay Crawlee's.
 */
export class AdaptiveFetcher {
  /** The crawler the engine runs. */
  readonly crawler: PlaywrightCrawler;
  private readonly docOpts: DocumentFetchOptions;
  private readonly policy: AdaptivePolicy;
  private readonly limits: { limits?: Partial<AnalysisLimits> };
  private readonly learning: LearningRenders;
  /**
   * A page waiting for its pattern's learning renders: at most half the navigation timeout, so
   * that wait and a render of its own stay within Crawlee's handler timeout (navigation + 30 s).
   */
  private readonly maxLearningWaitMs: number;
  /** The data path (./adaptive-data.ts): off with adaptive.dataPath false, and when every page is rendered anyway. */
  private readonly dataPaths: DataPaths | undefined;
  /** What each rendering shows against its HTTP page: the pattern's evidence and the data path's lessons. */
  private readonly weigher: RenderingWeigher;
  /** Documents fetched over HTTP that the browser is about to render, by request uniqueKey. */
  private readonly pending = new Map<string, Pending>();
  /**
   * Renders on kept tabs (./adaptive-render.ts), unless a plugin needs a page of its own per
   * request (traces: one browser context per page); then Crawlee's per-request step.
   */
  private readonly kept: KeptPages | undefined;
  /** Crawlee's own per-request step (open a page, navigate, run the handler), kept for rendering. */
  private readonly renderInBrowser: (ctx: PlaywrightCrawlingContext) => Promise<void>;

  constructor(private readonly opts: AdaptiveFetcherOptions) {
    this.docOpts = { ...DEFAULT_DOCUMENT_FETCH, timeoutMs: opts.navigationTimeoutSecs * 1000, ...opts.documentFetch };
    const policy = (this.policy = opts.policy);
    this.limits = { limits: opts.analysisLimits };
    this.learning = new LearningRenders(policy);
    this.maxLearningWaitMs = (opts.navigationTimeoutSecs * 1000) / 2;
    this.dataPaths =
      policy.opts.dataPath === false || policy.opts.renderAll || !opts.subFetch
        ? undefined
        : (opts.dataPaths ?? new DataPaths({ ...policy.opts, limits: opts.analysisLimits }));
    this.weigher = new RenderingWeigher({ policy, limits: this.limits, dataPaths: this.dataPaths, onPage: opts.onPage });
    const inner = (this.crawler = createBrowserFetcher({
      ...opts,
      onPage: (rendered) => this.onBrowserPage(rendered),
      preNavigation: async (page, request) => {
        await this.fulfil(page, request);
        await opts.preNavigation?.(page, request);
      },
    }));
    const steps = inner as unknown as CrawleeSteps;
    const crawleeNavigate = steps._navigationHandler.bind(inner);
    steps._navigationHandler = (ctx, gotoOptions) => this.navigate(ctx, gotoOptions, crawleeNavigate);
    this.kept = opts.isolatePages || opts.pageClosing ? undefined : this.keptPages();
    this.renderInBrowser = steps._runRequestHandler.bind(inner);
    steps._runRequestHandler = (ctx) => this.step(ctx);
  }

  /** Kept tabs from the crawler's browser pool, warmed when a run starts and closed when it ends. */
  private keptPages(): KeptPages {
    const { opts, crawler: inner } = this;
    const kept = new KeptPages({
      newPage: async () => (await inner.browserPool.newPage()) as Page,
      navigationTimeoutMs: opts.navigationTimeoutSecs * 1000,
      settleTimeoutMs: opts.settleTimeoutMs ?? 3000,
      settleCapMs: opts.settleCapMs,
      blocking: opts.blocking,
      analysisLimits: opts.analysisLimits,
      preNavigation: opts.preNavigation,
      postNavigation: opts.postNavigation,
    });
    const run = inner.run.bind(inner);
    inner.run = async (...args: Parameters<typeof run>) => {
      kept.warm();
      try {
        return await run(...args);
      } finally {
        await kept.close();
      }
    };
    return kept;
  }

  /** A data-path API request, made for the page `parent` through the crawl's polite fetch like every request that is not a page. */
  private fetchApi(parent: { url: string; fetchedAt: Date }) {
    return async (urls: string[]): Promise<Xhr | undefined> => {
      const res = await this.opts.subFetch!({ url: urls[0], kind: 'data-api', parent, accept: 'application/json, text/plain, */*' });
      if (!res.ok) throw new Error(`API ${urls[0]} ${res.refused ? 'refused' : 'failed'}: ${res.reason}`);
      if (res.status < 200 || res.status >= 300) throw new Error(`API ${urls[0]} answered HTTP ${res.status}`);
      try {
        return { url: res.url, json: JSON.parse(res.body.toString('utf8')) as unknown };
      } catch {
        throw new Error(`API ${urls[0]} did not answer JSON`);
      }
    };
  }

  /** A render's document is served the bytes already fetched (route fulfilment), not fetched again. */
  private async fulfil(page: Page, request: Request): Promise<void> {
    const p = this.pending.get(request.uniqueKey);
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
  }

  /** Crawlee's navigation, to the end of the redirect chain the document came through (see fulfil). */
  private async navigate(ctx: PlaywrightCrawlingContext, gotoOptions: Parameters<Page['goto']>[1], crawleeNavigate: Navigate) {
    const p = this.pending.get(ctx.request.uniqueKey);
    if (!p || withoutHash(p.doc.url) === withoutHash(ctx.request.url)) return crawleeNavigate(ctx, gotoOptions);
    return ctx.page.goto(p.doc.url, gotoOptions);
  }

  private async onBrowserPage(rendered: RenderedPage): Promise<void> {
    const p = this.pending.get(rendered.request.uniqueKey);
    this.pending.delete(rendered.request.uniqueKey);
    await this.weigher.weigh(rendered, p);
  }

  /** The per-request step: the document over HTTP, the decision, then the HTTP page, its data, or a render. */
  private async step(ctx: PlaywrightCrawlingContext): Promise<void> {
    const request = ctx.request;
    const doc = await this.fetchOverHttp(request);
    request.loadedUrl = doc.url;
    const html = isHtmlResponse(doc.contentType, doc.body.subarray(0, 512)) ? decodeHtml(doc.body, doc.contentType) : undefined;
    // Error pages, non-HTML responses and pages with nothing that can run script are the same
    // without JavaScript: never worth a render, and no evidence about the pattern's other pages.
    const sure =
      html === undefined
        ? 'not HTML'
        : doc.status >= 400
          ? `HTTP ${doc.status}`
          : timed('script scan', () => scriptOn(html))
            ? undefined
            : 'no script on the page: JavaScript cannot change it';
    let decision = await this.decide(request.url, sure);
    const fetchedAt = new Date();
    if (this.dataPaths && decision.needsBrowser && html !== undefined && doc.status < 400) decision = this.dataPaths.decide(doc.url) ?? decision;
    let page: HttpPage = { decision, html, xhrJson: [], analysis: undefined };
    if (page.decision.mode === 'http+data') page = await this.serveData(request, doc, html!, fetchedAt, page);
    if (page.decision.mode === 'http' && html !== undefined && doc.status < 400) {
      const analysis = (page.analysis = analyzePage({ html, url: doc.url, fetchedAt }, this.limits));
      const guard = sure ? undefined : this.policy.guard(request.url, analysis.text.length);
      if (guard) page.decision = { mode: 'browser', pattern: page.decision.pattern, why: `text guard: ${guard}` };
    }
    if (page.decision.mode === 'browser') return this.render(ctx, doc, page.decision);
    this.policy.count(request.url, page.decision.mode);
    await this.opts.onPage({
      request,
      url: doc.url,
      status: doc.status,
      contentType: doc.contentType,
      html: page.html,
      fetchedAt,
      xhrJson: page.xhrJson,
      analysis: page.analysis,
      fetchedWith: page.decision.mode,
      fetchWhy: page.decision.why,
    });
  }

  /** The document over plain HTTP through the gate; a refusal, a limit or a dead connection fails the request without a retry, as on the browser path. */
  private async fetchOverHttp(request: Request): Promise<FetchedDocument> {
    try {
      return await waited('fetch document (HTTP)', () => fetchDocument(request.url, this.docOpts));
    } catch (e) {
      this.pending.delete(request.uniqueKey);
      if (e instanceof DocumentFetchError) request.noRetry = true;
      throw e;
    }
  }

  /** HTTP, render or learn: every page rendered (renderAll), sure over HTTP, or as the pattern's evidence says (waiting for its learning renders). */
  private async decide(url: string, sure: string | undefined): Promise<Decision> {
    if (this.policy.opts.renderAll) return { mode: 'browser', pattern: urlPattern(url), why: 'every page rendered (adaptive.renderAll)', compare: false };
    if (sure) return { mode: 'http', pattern: urlPattern(url), why: sure };
    return waited('decide (incl. waiting for learning renders)', () => this.learning.decide(url, this.maxLearningWaitMs));
  }

  /** The page served from its data (API calls, fill, analysis); a render instead when that fails or its text falls short. */
  private async serveData(request: Request, doc: FetchedDocument, html: string, fetchedAt: Date, page: HttpPage): Promise<HttpPage> {
    const dataPaths = this.dataPaths!;
    const began = performance.now();
    const served = await waited('data path: serve (API, fill, analysis)', () =>
      serveFromData(dataPaths, { url: doc.url, html, fetchedAt, limits: this.opts.analysisLimits }, this.fetchApi({ url: doc.url, fetchedAt })),
    );
    dataPaths.observeCost(doc.url, 'data', performance.now() - began);
    const guard = 'failed' in served ? undefined : this.policy.guard(request.url, served.analysis.text.length);
    if ('failed' in served || guard) {
      if (guard) dataPaths.failed(doc.url, `text guard: ${guard}`);
      const why = `data path failed (${'failed' in served ? served.failed : `text guard: ${guard}`}): render`;
      return { ...page, decision: { mode: 'browser', pattern: page.decision.pattern, why, needsBrowser: true } };
    }
    return { ...page, html: served.html, xhrJson: served.xhr, analysis: served.analysis };
  }

  /** The same bytes rendered in the browser: on a kept tab, or by Crawlee's own step; its cost observed against the pattern's data path. */
  private async render(ctx: PlaywrightCrawlingContext, doc: FetchedDocument, decision: Decision): Promise<void> {
    const request = ctx.request;
    const learnt = decision.learning ? this.learning.begin(request.url) : undefined;
    const began = performance.now();
    try {
      if (this.kept)
        return await this.kept.render(request, doc, (r) =>
          this.weigher.weigh({ ...r, request, fetchedAt: new Date() }, { doc, decision }, r.renderedHtml, r.servedAnalysis),
        );
      this.pending.set(request.uniqueKey, { doc, decision });
      return await this.renderInBrowser(ctx);
    } finally {
      learnt?.();
      // What a rendering of the pattern costs, against its data path (if it gets one).
      const lesson = this.weigher.takeLessonMs(request.uniqueKey);
      this.dataPaths?.observeCost(doc.url, 'render', performance.now() - began - lesson);
    }
  }
}

/** The adaptive fetcher's crawler (see AdaptiveFetcher). */
export function createAdaptiveFetcher(opts: AdaptiveFetcherOptions): PlaywrightCrawler {
  return new AdaptiveFetcher(opts).crawler;
}
