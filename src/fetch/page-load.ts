/**
 * How a rendered page is loaded and read, one way for every browser path (the browser fetcher,
 * the adaptive fetcher's kept tabs, `npm run extract`):
 *
 * - Sub-requests the analysis never reads are not fetched (`blockReason`): images, media, fonts,
 *   style sheets, beacons and requests to known ad and analytics hosts, as Crawlee's
 *   `playwrightUtils.blockRequests` does by URL pattern (its `extraUrlPatterns` are ours too).
 * - Loading keeps what arrived (`settlePage`): the navigation waits for the document only (its
 *   commit); then a bounded settle, to the document's `load` and a quiet network, capped. A page
 *   whose scripts, styles or images hang is read as it stands at the cap, and the crawl log says
 *   how it settled. A page is lost only when its own document never came.
 * - The document as served is kept beside the rendering (`MainDocument`), and the analysis is
 *   made from the better of the two (`chooseAnalysis`): never from a browser error page
 *   (`chrome-error://`, `about:blank` after a failed navigation), not from a rendering whose
 *   scripts replaced the article with a short message (a failed request's "not available"), and
 *   from the rendering only when its scripts built the page's text.
 */
import type { Page, Request as PwRequest, Response } from 'playwright';
import { analyzePage, type AnalysisLimits } from '../extract/page.js';
import { decodeHtml, isHtmlResponse } from '../extract/encoding.js';
import type { PageAnalysis } from '../extract/types.js';
import { waitForQuietNetwork, type NetworkActivity } from './network-activity.js';
import { serialisedDom } from './dom-read.js';

// ---------------------------------------------------------------- blocking

/** Resource types whose bytes the analysis never reads (it reads the DOM, which they do not change). */
const NOT_FOR_ANALYSIS = new Set(['image', 'media', 'font', 'stylesheet', 'texttrack', 'manifest', 'ping']);

/**
 * Hosts of ad servers, trackers and analytics: nothing on them builds an article's text, and they
 * are the sub-requests that most often hang. A host matches itself and its subdomains.
 */
export const AD_AND_ANALYTICS_HOSTS = [
  'doubleclick.net', 'googlesyndication.com', 'googleadservices.com', 'google-analytics.com', 'googletagmanager.com',
  'googletagservices.com', 'adservice.google.com', 'scorecardresearch.com', 'quantserve.com', 'chartbeat.com', 'chartbeat.net',
  'hotjar.com', 'criteo.com', 'criteo.net', 'taboola.com', 'outbrain.com', 'amazon-adsystem.com', 'adnxs.com', 'rubiconproject.com',
  'pubmatic.com', 'openx.net', 'casalemedia.com', 'moatads.com', 'newrelic.com', 'nr-data.net', 'segment.io', 'segment.com',
  'mixpanel.com', 'optimizely.com', 'krxd.net', 'bluekai.com', 'facebook.net', 'connect.facebook.net', 'ads-twitter.com',
  'hm.baidu.com', 'cpro.baidu.com', 'pos.baidu.com', 'cnzz.com', 'umeng.com', 'mmstat.com', 'tanx.com', 'miaozhen.com',
  'admaster.com.cn', 'gridsumdissector.com', 'irs01.com', 'irs01.net', 'beacon.qq.com', 'pingjs.qq.com', 'tajs.qq.com',
];

/** Which sub-requests a rendering does not fetch (config `blockRequests`, `--no-block-requests`). */
export interface BlockOptions {
  /** Block the default set (resource types above and AD_AND_ANALYTICS_HOSTS). */
  enabled: boolean;
  /** More URL patterns, as Crawlee's blockRequests reads them: a substring of the URL, `*` any run of characters. */
  extraUrlPatterns?: string[];
}

export const DEFAULT_BLOCKING: BlockOptions = { enabled: true, extraUrlPatterns: [] };

const patternCache = new Map<string, RegExp>();
function patternRegex(p: string): RegExp {
  let re = patternCache.get(p);
  if (!re) {
    re = new RegExp(p.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*'), 'i');
    patternCache.set(p, re);
  }
  return re;
}

/** Why a sub-request is not fetched, or undefined when it is (documents are never blocked here). */
export function blockReason(url: string, resourceType: string, opts: BlockOptions = DEFAULT_BLOCKING): string | undefined {
  for (const p of opts.extraUrlPatterns ?? []) if (patternRegex(p).test(url)) return `pattern ${p}`;
  if (!opts.enabled) return undefined;
  if (NOT_FOR_ANALYSIS.has(resourceType)) return resourceType;
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return undefined;
  }
  for (const h of AD_AND_ANALYTICS_HOSTS) if (host === h || host.endsWith(`.${h}`)) return `ad/analytics host ${h}`;
  return undefined;
}

// ---------------------------------------------------------------- the main document

const isWebUrl = (u: string) => /^https?:/i.test(u);

/**
 * What happened to a page's main frame while it loaded: the document the server sent (its bytes,
 * read as they arrived), navigations its scripts attempted (stopped by the page guard), and the
 * browser's own navigation errors. Attach before the navigation.
 */
export class MainDocument {
  /** Navigation targets the page's scripts tried after the crawler's own navigation. */
  readonly scriptNavigations: string[] = [];
  /** The browser's reason a main-frame navigation failed (`net::ERR_SSL_PROTOCOL_ERROR`, …). */
  navigationError?: string;
  private served?: Promise<{ url: string; status: number; contentType: string; body?: Buffer } | undefined>;

  constructor(private readonly page: Page) {
    page.on('requestfailed', this.onFailed);
  }

  private readonly onFailed = (r: PwRequest) => {
    if (r.isNavigationRequest() && r.frame() === this.page.mainFrame()) this.navigationError = `${r.failure()?.errorText ?? 'navigation failed'} (${r.url().slice(0, 200)})`;
  };

  /** Stop listening (a kept tab moves on to its next document). */
  detach(): void {
    this.page.off('requestfailed', this.onFailed);
  }

  /** A script's navigation, stopped by the guard: remembered, and offered to the crawl as a link. */
  noteScriptNavigation(url: string): void {
    if (this.scriptNavigations.length < 10 && !this.scriptNavigations.includes(url)) this.scriptNavigations.push(url);
  }

  /** The navigation's response: its body is read now, before anything can replace the document. */
  fromResponse(response: Response | null): void {
    if (!response) return;
    this.served = response.body().then(
      (body) => ({ url: response.url(), status: response.status(), contentType: response.headers()['content-type'] ?? '', body }),
      () => ({ url: response.url(), status: response.status(), contentType: response.headers()['content-type'] ?? '' }),
    );
  }

  /** The document as served, when its bytes were given (the adaptive fetcher fetched them itself). */
  servedBytes(doc: { url: string; status: number; contentType: string; body: Buffer }): void {
    this.served = Promise.resolve(doc);
  }

  /** The document as served, decoded, when it was HTML; waits at most `ms` for its bytes. */
  async servedHtml(ms = 2000): Promise<{ url: string; status: number; html: string } | undefined> {
    if (!this.served) return undefined;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<undefined>((ok) => (timer = setTimeout(() => ok(undefined), ms)));
    const doc = await Promise.race([this.served, late]).finally(() => clearTimeout(timer));
    if (!doc?.body || !isHtmlResponse(doc.contentType, doc.body.subarray(0, 512))) return undefined;
    return { url: doc.url, status: doc.status, html: decodeHtml(doc.body, doc.contentType) };
  }
}

// ---------------------------------------------------------------- settling

/** How a page settled before it was read (crawl log `settled`, `--explain`, `extract --json`). */
export interface Settled {
  /** `quiet`: loaded and no request open; `load-cap`: the document's load never came within the cap; `open-requests`: loaded, requests still open at the cap. */
  state: 'quiet' | 'load-cap' | 'open-requests';
  /** Milliseconds from the document's commit to its read. */
  ms: number;
  openRequests: number;
  /** One line for people. */
  how: string;
}

export interface SettleOptions {
  /** From the document's commit, the longest wait for its `load` and a quiet network. */
  capMs: number;
  /** After this, requests the page starts are not waited for (waitForQuietNetwork). */
  settleMs: number;
}

/**
 * The time a page's sub-request gets to answer (the gate proxy's limit for anything that is not a
 * page): a third of the settle cap, so that two hanging scripts in a row (a parser-blocking one,
 * then an async one the parser finds after it) still let the document load within the cap.
 */
export function subRequestTimeoutMs(settleCapMs: number): number {
  return Math.max(1000, Math.round(settleCapMs / 3));
}

const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/**
 * After the commit: to the document's `load`, then to a quiet network, all within `capMs`. Never
 * throws for a slow page: at the cap the page is read as it stands, and the result says so.
 */
export async function settlePage(page: Page, net: NetworkActivity, committedAt: number, opts: SettleOptions): Promise<Settled> {
  const deadline = committedAt + opts.capMs;
  const loaded = await documentLoaded(page, deadline);
  let openRequests = 0;
  if (loaded) {
    const left = deadline - Date.now();
    openRequests = left > 0 ? await waitForQuietNetwork(page, net, 120, Math.min(opts.settleMs, left), left).catch(() => net.open.size) : net.open.size;
  } else {
    openRequests = net.open.size;
  }
  const ms = Date.now() - committedAt;
  if (!loaded) return { state: 'load-cap', ms, openRequests, how: `read at the ${secs(opts.capMs)} cap: the document's load never came (a script, style or frame still loading)` };
  if (openRequests > 0) return { state: 'open-requests', ms, openRequests, how: `loaded; read at the cap with ${openRequests} request(s) still open, after ${secs(ms)}` };
  return { state: 'quiet', ms, openRequests: 0, how: `loaded and the network quiet after ${secs(ms)}` };
}

/**
 * Until the document's `load` (readyState "complete"), or false at `deadline`. One evaluation in
 * the page that resolves on the event (Playwright's `waitForFunction` polls from an injected
 * script it compiles into every new document first: 112 ms to `load` on a kept tab against 29 ms
 * this way). A page whose main thread never yields (`while(true)`) never answers: the deadline
 * ends the wait all the same.
 */
async function documentLoaded(page: Page, deadline: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((ok) => (timer = setTimeout(() => ok(false), Math.max(1, deadline - Date.now()))));
  const load = () =>
    page.evaluate(
      () =>
        document.readyState === 'complete' ||
        new Promise<boolean>((resolve) => {
          // the event, and a poll in case the page's own load listener stops it from reaching us
          addEventListener('load', () => resolve(true), { once: true });
          const poll = setInterval(() => document.readyState === 'complete' && (clearInterval(poll), resolve(true)), 50);
        }),
    );
  try {
    for (;;) {
      const r = await Promise.race([load().then(() => true as const, () => 'again' as const), late]);
      if (r !== 'again') return r;
      // the evaluation's context was destroyed (a document replaced): ask the new one
      if (page.isClosed() || Date.now() >= deadline) return false;
      await new Promise((ok) => setTimeout(ok, 20));
    }
  } finally {
    clearTimeout(timer);
  }
}

/** The DOM as it stands, or undefined when the page cannot answer within `ms` (a renderer stuck in a loop). */
export async function readDom(page: Page, ms: number, cdp?: Parameters<typeof serialisedDom>[1]): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((ok) => (timer = setTimeout(() => ok(undefined), ms)));
  try {
    return await Promise.race([serialisedDom(page, cdp).catch(() => undefined), late]);
  } finally {
    clearTimeout(timer);
  }
}

// ---------------------------------------------------------------- choosing what to analyse

export type AnalysedFrom = 'served' | 'rendered';

export interface Chosen {
  /** Title, text, dates and links: from the document `analysedFrom` says (links from the rendering too). */
  analysis: PageAnalysis;
  /** The page handed on (saved, given to plugins): the rendering unless it was lost. */
  html: string;
  url: string;
  analysedFrom: AnalysedFrom;
  /** Why the served document was analysed instead of the rendering (absent when rendered). */
  why?: string;
  /**
   * The rendering is no evidence of what the page renders to: the browser's own page, a DOM that
   * could not be read, or scripts that replaced the article (the adaptive fetcher does not learn from it).
   */
  renderingLost?: boolean;
  /** The served document's analysis, when it was made (the adaptive fetcher compares it with the rendering's instead of analysing the same bytes again). */
  servedAnalysis?: PageAnalysis;
  /** The rendering's analysis, when it was made (the adaptive fetcher's comparison reads the rendering, whichever was chosen). */
  renderedAnalysis?: PageAnalysis;
}

/**
 * The rendered DOM keeps less than this share of the served document's main text: its scripts
 * replaced the article (an error or paywall message after a failed request). Pages whose scripts
 * build the text have little served text, so the rendering wins there.
 */
export const SERVED_TEXT_RATIO = 0.5;
/** Served main text shorter than this is no article to fall back to (a loader, a shell). */
export const SERVED_TEXT_MIN = 100;
/**
 * The rendering adds at most this share to the served document's main text: the scripts built no
 * article, the document as served is the author's page and is analysed. What scripts add to a
 * page that is already there is comments opened, widgets, recommendations and, where the server
 * declared no charset over HTTPS, the browser's mis-decoding; what they build on a page that needs
 * them (a shell filled by XHR, a teaser completed) is most of its text.
 */
export const RENDERED_GAIN_MAX = 0.5;

/** The page is no page: the browser shows its own error page or a blank one. */
export function browserErrorPage(finalUrl: string): boolean {
  return !isWebUrl(finalUrl);
}

/** The served analysis with the rendering's links added (links its scripts built are still discovered). */
function withRenderedLinks(served: PageAnalysis, rendered: PageAnalysis): PageAnalysis {
  const known = new Set(served.links.map((l) => l.url));
  const extra = rendered.links.filter((l) => !known.has(l.url));
  return extra.length ? { ...served, links: [...served.links, ...extra] } : served;
}

/**
 * What to analyse. The document as served when the rendering is the browser's own page (no web
 * URL: an error page after a failed navigation), when it holds much less main text than the
 * document as served (scripts replaced the article), or when it adds little to it (the scripts
 * built no article: the author's document is read, not what scripts did to it). The rendering
 * when its scripts built the text. Throws with the browser's reason when there is neither a
 * rendering nor a served document.
 */
export function chooseAnalysis(
  input: {
    rendered?: { html: string; url: string };
    served?: { html: string; url: string; status: number };
    navigationError?: string;
    fetchedAt: Date;
    limits?: Partial<AnalysisLimits>;
    /** The rendering's analysis, when the caller made it already. */
    renderedAnalysis?: PageAnalysis;
  },
): Chosen {
  const { rendered, served, fetchedAt } = input;
  const analyse = (d: { html: string; url: string }) => analyzePage({ html: d.html, url: d.url, fetchedAt }, { limits: input.limits });
  const broken = !rendered ? 'the rendered page could not be read' : browserErrorPage(rendered.url) ? `the browser showed its own page (${rendered.url.slice(0, 60)})${input.navigationError ? `: ${input.navigationError}` : ''}` : undefined;
  if (broken) {
    if (!served) throw new Error(`rendering failed: ${broken}`);
    return { analysis: analyse(served), html: served.html, url: served.url, analysedFrom: 'served', renderingLost: true, why: `rendering failed: ${broken}; analysed the document as served` };
  }
  const r = rendered!;
  const renderedAnalysis = input.renderedAnalysis ?? analyse(r);
  if (!served || served.status >= 400) return { analysis: renderedAnalysis, html: r.html, url: r.url, analysedFrom: 'rendered', renderedAnalysis };
  const servedAnalysis = analyse(served);
  const s = servedAnalysis.text.length;
  const n = renderedAnalysis.text.length;
  // Analysed as served, the page is still the rendering where that is intact: the DOM handed on
  // (the reply extractor, plugins) holds what scripts loaded (comment widgets fill from XHR).
  const asServed = (why: string, renderingLost: boolean): Chosen => ({
    analysis: withRenderedLinks(servedAnalysis, renderedAnalysis),
    html: renderingLost ? served.html : r.html,
    url: renderingLost ? served.url : r.url,
    analysedFrom: 'served',
    why,
    renderingLost,
    servedAnalysis,
    renderedAnalysis,
  });
  if (s >= SERVED_TEXT_MIN && n < SERVED_TEXT_RATIO * s) return asServed(`the rendered page holds ${n} characters of main text, the document as served ${s}: analysed as served`, true);
  if (s >= SERVED_TEXT_MIN && n <= (1 + RENDERED_GAIN_MAX) * s) return asServed(`the document as served holds ${s} characters of main text, the rendered page ${n}: its scripts built no article, analysed as served`, false);
  return { analysis: renderedAnalysis, html: r.html, url: r.url, analysedFrom: 'rendered', servedAnalysis, renderedAnalysis };
}

/** Script navigations as links of the analysis: the crawl's gate decides on them like on any link. */
export function withScriptNavigations(analysis: PageAnalysis, targets: string[]): PageAnalysis {
  const known = new Set(analysis.links.map((l) => l.url));
  const extra = targets
    .filter(isWebUrl)
    .map((u) => u.replace(/#.*$/, ''))
    .filter((u) => u !== analysis.url && !known.has(u))
    .map((url) => ({ url, tag: 'a' as const, anchorText: '', title: 'script navigation', contextBefore: '', contextAfter: '' }));
  return extra.length ? { ...analysis, links: [...analysis.links, ...extra] } : analysis;
}
