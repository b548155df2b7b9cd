/**
 * What a hostile page may not do to the browser: open dialogs (dismissed), windows (closed),
 * downloads (cancelled), or navigate the tab somewhere else once it is loading (a script
 * rewriting `location` in a loop made thousands of requests). The first main-frame navigation
 * (the crawler's own; its redirect hops are the gate proxy's business) goes through, later ones
 * are aborted. Everything else a page requests still passes the gate proxy.
 */
import type { Page } from 'playwright';
import { blockReason, type BlockOptions, type MainDocument } from './page-load.js';

/** Dialogs and windows answered inside the page: a hundred `alert`s cost no round trips to the driver. */
const NO_DIALOGS = `(() => {
  const w = window;
  w.alert = () => undefined;
  w.confirm = () => false;
  w.prompt = () => null;
  w.print = () => undefined;
  w.open = () => null;
})();`;

/** Dialogs, windows and downloads answered for every document the page will hold (set once per page). */
export async function guardDialogs(page: Page): Promise<void> {
  await page.addInitScript(NO_DIALOGS);
  // Whatever still gets through (beforeunload, a popup from a plugin) is dismissed or closed.
  page.on('dialog', (d) => void d.dismiss().catch(() => undefined));
  page.on('popup', (p) => void p.close().catch(() => undefined));
  page.on('download', (d) => void d.cancel().catch(() => undefined));
}

/** 204 No Content: the browser stays on the page it has (an abort would show an error page instead). */
export const STAY_ON_PAGE = { status: 204 } as const;

/**
 * `block`: sub-requests the analysis never reads are aborted (./page-load.ts blockReason).
 * `doc`: a later main-frame navigation's target is remembered there (the crawl sees it as a link
 * and gates it like one; the tab stays on the page).
 */
export async function guardPage(page: Page, opts: { block?: BlockOptions; doc?: MainDocument } = {}): Promise<void> {
  await guardDialogs(page);
  let mainNavigations = 0;
  await page.route('**/*', (route, request) => {
    if (request.isNavigationRequest() && request.frame() === page.mainFrame()) {
      if (mainNavigations++ === 0) return route.fallback();
      opts.doc?.noteScriptNavigation(request.url());
      return route.fulfill(STAY_ON_PAGE);
    }
    if (opts.block && !request.isNavigationRequest() && blockReason(request.url(), request.resourceType(), opts.block)) return route.abort('blockedbyclient');
    return route.fallback();
  });
}
