/**
 * The adaptive fetcher's renders on kept pages. Adaptive renders a page only to analyse it
 * (text, links, title, date, XHR comments), from bytes it already fetched, so a render needs
 * none of a page's per-request set-up: a tab is opened once per concurrency slot and navigated
 * from one document to the next (Crawlee's per-request step opens and closes a tab, sets up the
 * guard, blocking and capture each time: ~0.36 s of a ~0.9 s render on the mixed test web).
 * What analysis never reads is not loaded (./page-load.ts blockReason): images, media, fonts,
 * style sheets (the analysis reads the serialised DOM, which they do not change), beacons, ad
 * and analytics hosts. A render waits for its document's commit, then settles within a cap
 * (./page-load.ts settlePage), and is analysed from the better of the rendering and the fetched
 * bytes (chooseAnalysis).
 *
 * The guarantees of a Crawlee-rendered page hold per document: dialogs, windows and downloads
 * answered (./page-guard.ts), the first main-frame navigation is the crawler's own (fulfilled
 * with the fetched bytes), any later one stays on the page (a `location` loop makes no
 * requests), and every other request goes through the gate proxy. Between documents the tab
 * rests with script execution switched off, so nothing of a page runs on while it waits. A tab that failed or
 * crashed is closed, never reused; every tab is replaced after `rendersPerPage` documents.
 *
 * Not for traces: a Playwright trace is per browser context, so with a plugin that isolates
 * pages or works at page close the adaptive fetcher renders with Crawlee's own step
 * (src/fetch/adaptive/adaptive.ts).
 */
import type { Request } from 'crawlee';
import type { CDPSession, Page, Response } from 'playwright';
import type { AnalysisLimits } from '../../extract/page.js';
import type { PageAnalysis } from '../../extract/types.js';
import { DEFAULT_SETTLE_CAP_MS, readRendering, trackNetworkActivity, type NetworkActivity } from '../crawler.js';
import { guardDialogs, STAY_ON_PAGE } from '../page-guard.js';
import { blockReason, DEFAULT_BLOCKING, MainDocument, settlePage, type AnalysedFrom, type BlockOptions, type Settled } from '../page-load.js';
import { waited } from '../../util/stage-profile.js';

export interface KeptPagesOptions {
  /** A new tab in the crawler's browser (Crawlee's browser pool). */
  newPage(): Promise<Page>;
  navigationTimeoutMs: number;
  settleTimeoutMs: number;
  /** From the commit, the longest settle before the page is read as it stands. */
  settleCapMs?: number;
  /** Sub-requests not fetched (default: ./page-load.ts DEFAULT_BLOCKING). */
  blocking?: BlockOptions;
  analysisLimits?: Partial<AnalysisLimits>;
  /** Documents per tab before it is replaced (bounds what a long-lived renderer accumulates). */
  rendersPerPage?: number;
  preNavigation?(page: Page, request: Request): Promise<void>;
  postNavigation?(page: Page, request: Request, failed: boolean): Promise<void>;
}

/** A kept page's rendering of one document, valid while the `use` callback runs. */
export interface KeptRendering {
  page: Page;
  url: string;
  status: number;
  contentType: string;
  html?: string;
  xhrJson: { url: string; json: unknown }[];
  openRequests: number;
  settled: Settled;
  /** The analysis of the better of the rendering and the fetched bytes (absent: not HTML, or left to the engine). */
  analysis?: PageAnalysis;
  analysedFrom?: AnalysedFrom;
  analysedWhy?: string;
  /** The rendered DOM, when it could be read, and its analysis (the comparison with the HTTP analysis reads them). */
  renderedHtml?: string;
  renderedAnalysis?: PageAnalysis;
  renderingLost?: boolean;
  /** The fetched bytes' analysis, when the choice between them and the rendering made it. */
  servedAnalysis?: PageAnalysis;
  scriptNavigations: string[];
}

/** The document as fetched over HTTP (src/fetch/adaptive/adaptive.ts `FetchedDocument`). */
export interface FetchedBytes {
  url: string;
  status: number;
  contentType: string;
  headers: Record<string, string>;
  body: Buffer;
}

interface Showing {
  /** The fetched document's URL without its fragment, as Chromium requests it. */
  target: string;
  doc: FetchedBytes;
  navigated: boolean;
  xhrJson: { url: string; json: unknown }[];
  main: MainDocument;
}

interface Kept {
  page: Page;
  /** The tab's own DevTools session (serialising the DOM, see serialisedDom). */
  cdp?: CDPSession;
  net: NetworkActivity;
  current?: Showing;
  renders: number;
  broken: boolean;
  /** Stopping the last document (frozen, or about:blank): resolves false when it failed. */
  resting?: Promise<boolean>;
  /** Script execution is switched off on the tab (resting, see release). */
  scriptsOff?: boolean;
}

const normal = (url: string) => {
  try {
    const u = new URL(url);
    u.hash = '';
    return u.href;
  } catch {
    return url;
  }
};

export class KeptPages {
  /** Rested tabs, longest resting first (its about:blank navigation is most likely done). */
  private readonly idle: Kept[] = [];
  private readonly open = new Set<Kept>();
  private closed = false;
  /** The tab `warm()` is opening, until a render takes it. */
  private warming?: Promise<Kept | undefined>;

  constructor(private readonly opts: KeptPagesOptions) {}

  /** Render `doc` (already fetched) on a kept tab and hand the result to `use` while the tab still shows it. */
  async render(request: Request, doc: FetchedBytes, use: (r: KeptRendering) => Promise<void>): Promise<void> {
    const kept = await waited('render: take a kept tab', () => this.take());
    const main = new MainDocument(kept.page);
    try {
      const showing: Showing = { target: normal(doc.url), doc, navigated: false, xhrJson: [], main };
      main.servedBytes(doc);
      kept.current = showing;
      kept.net.open.clear();
      kept.net.lastChange = Date.now();
      await this.opts.preNavigation?.(kept.page, request);
      let response: Response | null;
      try {
        // To the commit only, then a bounded settle: a script that navigates the tab during
        // loading (stopped by the route below) resets Playwright's lifecycle, and a goto waiting
        // for `load` then times out on a page that is in fact there (a `location` loop); a
        // sub-resource that hangs would hold `load` back as long as it hangs.
        response = await waited('render: navigate to the commit', () => kept.page.goto(doc.url, { waitUntil: 'commit', timeout: this.opts.navigationTimeoutMs }));
      } catch (e) {
        await this.opts.postNavigation?.(kept.page, request, true);
        throw e;
      }
      const committedAt = Date.now();
      await this.opts.postNavigation?.(kept.page, request, !response || response.status() >= 400);
      const settled = await waited('render: settle (load, quiet network)', () => settlePage(kept.page, kept.net, committedAt, { capMs: this.opts.settleCapMs ?? DEFAULT_SETTLE_CAP_MS, settleMs: this.opts.settleTimeoutMs }));
      const contentType = response?.headers()['content-type'] ?? doc.contentType;
      const isHtml = !contentType || /html|xml/i.test(contentType);
      const read = isHtml ? await readRendering(kept.page, main, { fetchedAt: new Date(), limits: this.opts.analysisLimits, cdp: kept.cdp }) : undefined;
      // A renderer that could not answer (a script that never yields) is not kept for the next document.
      if (read && read.renderedHtml === undefined) kept.broken = true;
      await use({
        page: kept.page,
        url: read?.url ?? kept.page.url(),
        status: response?.status() ?? doc.status,
        contentType,
        html: read?.html,
        xhrJson: showing.xhrJson,
        openRequests: settled.openRequests,
        settled,
        analysis: read?.analysis,
        analysedFrom: read?.analysedFrom,
        analysedWhy: read?.why,
        renderedHtml: read?.renderedHtml,
        renderedAnalysis: read?.renderedAnalysis,
        renderingLost: read?.renderingLost,
        servedAnalysis: read?.servedAnalysis,
        scriptNavigations: main.scriptNavigations,
      });
    } catch (e) {
      kept.broken = true;
      throw e;
    } finally {
      main.detach();
      this.release(kept);
    }
  }

  /** Close every kept tab (the crawl's end; Crawlee closes the browser after). */
  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.open];
    this.open.clear();
    this.idle.length = 0;
    await Promise.all(all.map(async (k) => closeAtRest(k.page, k.resting)));
  }

  /**
   * Open the first tab now (launching the browser) without waiting for it: the crawl's first
   * pages go over HTTP meanwhile, so the launch overlaps them instead of stalling the first
   * renders (measured: all slots waiting 1.7-2.4 s on the launch at a crawl's start). A failure
   * here is not reported: the first render opens a tab again and reports its own.
   */
  warm(): void {
    if (this.warming || this.open.size) return;
    this.warming = this.open1().catch(() => undefined);
  }

  private async take(): Promise<Kept> {
    for (let k = this.idle.shift(); k; k = this.idle.shift()) {
      if (await k.resting) return k;
      this.drop(k);
    }
    const warming = this.warming; // one render takes the warmed tab; any other opens its own
    this.warming = undefined;
    const warmed = warming && (await warming);
    if (warmed && !this.closed && !warmed.page.isClosed()) return warmed;
    return this.open1();
  }

  private async open1(): Promise<Kept> {
    const page = await this.opts.newPage();
    if (this.closed) {
      await page.close().catch(() => undefined);
      throw new Error('kept pages closed');
    }
    const kept: Kept = { page, net: trackNetworkActivity(page), renders: 0, broken: false };
    this.open.add(kept);
    try {
      await this.setUp(kept);
    } catch (e) {
      this.drop(kept);
      throw e;
    }
    return kept;
  }

  private async setUp(kept: Kept): Promise<void> {
    const { page } = kept;
    page.on('crash', () => (kept.broken = true));
    kept.cdp = await page.context().newCDPSession(page).catch(() => undefined);
    await guardDialogs(page);
    page.on('response', async (res) => {
      const showing = kept.current;
      const t = res.request().resourceType();
      if (!showing || (t !== 'xhr' && t !== 'fetch') || !(res.headers()['content-type'] ?? '').includes('json')) return;
      try {
        showing.xhrJson.push({ url: res.url(), json: await res.json() });
      } catch {
        // body gone (page moved on) or not JSON after all
      }
    });
    const block = this.opts.blocking ?? DEFAULT_BLOCKING;
    await page.route('**/*', async (route, req) => {
      if (req.isNavigationRequest() && req.frame() === page.mainFrame()) {
        const showing = kept.current;
        // The crawler's own navigation: the fetched bytes (one server response for both analyses,
        // one request at the host). Should Chromium name the URL differently, it goes to the network.
        if (showing && !showing.navigated) {
          showing.navigated = true;
          if (kept.scriptsOff) {
            // on again for the document about to be handed over (the resting one could not run
            // meanwhile, so nothing of it can have navigated the tab in the crawler's place)
            try {
              await kept.cdp!.send('Emulation.setScriptExecutionDisabled', { value: false });
              kept.scriptsOff = false;
            } catch {
              kept.broken = true;
              return route.abort('failed');
            }
          }
          if (normal(req.url()) !== showing.target) return route.fallback();
          const headers = { ...showing.doc.headers };
          delete headers['content-length'];
          delete headers['content-encoding'];
          delete headers['transfer-encoding'];
          return route.fulfill({ status: showing.doc.status, headers, body: showing.doc.body });
        }
        kept.current?.main.noteScriptNavigation(req.url());
        return route.fulfill(STAY_ON_PAGE);
      }
      if (!req.isNavigationRequest() && blockReason(req.url(), req.resourceType(), block)) return route.abort('blockedbyclient');
      return route.fallback();
    });
  }

  private release(kept: Kept): void {
    kept.current = undefined;
    kept.renders++;
    if (this.closed || kept.broken || kept.page.isClosed() || kept.renders >= (this.opts.rendersPerPage ?? 50)) {
      this.drop(kept);
      return;
    }
    // Stop the document now, not when the tab is next needed: with script execution switched off
    // (DevTools `Emulation.setScriptExecutionDisabled`; a frozen lifecycle state, tried first,
    // leaves timers running) none of its timers or handlers run, so it makes no request while it
    // waits, and the next render navigates straight from it; scripts are switched back on as that
    // navigation's document is handed over (setUp). The navigation to about:blank used before
    // cost a second renderer process swap per render (Chromium CPU 191-200 vs 144-153 ms a
    // render, measured sequentially at load 4-6). Without a DevTools session, about:blank.
    kept.resting = kept.cdp
      ? kept.cdp.send('Emulation.setScriptExecutionDisabled', { value: true }).then(
          () => (kept.scriptsOff = true),
          () => false,
        )
      : kept.page.goto('about:blank').then(
          () => true,
          () => false,
        );
    this.idle.push(kept);
  }

  private drop(kept: Kept): void {
    this.open.delete(kept);
    void closeAtRest(kept.page);
  }
}

/**
 * Close a tab once it rests on about:blank. Once `page.close()` is called, Playwright passes the
 * tab's intercepted requests on to the network instead of to our route, so a document still
 * running (a `location` loop) would reach its host past STAY_ON_PAGE; on about:blank nothing of it
 * runs. A script's own navigation can interrupt the way there: a few tries, then close anyway.
 */
async function closeAtRest(page: Page, resting?: Promise<boolean>): Promise<void> {
  if (!page.isClosed()) {
    if (resting) await resting;
    for (let i = 0; i < 3 && !page.isClosed() && page.url() !== 'about:blank'; i++) {
      await page.goto('about:blank', { timeout: 5000 }).catch(() => undefined);
    }
  }
  await page.close().catch(() => undefined);
}
