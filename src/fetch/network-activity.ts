/**
 * A page's open XHR/fetch requests and the wait for its network to go quiet: shared by the
 * browser fetcher (./crawler.ts) and page loading (./page-load.ts), in a module of its own so
 * that neither imports the other.
 */
import type { Page } from 'playwright';

/** The XHR/fetch requests a page has open (each with the time it started), and when that last changed. */
export interface NetworkActivity {
  open: Map<object, number>;
  lastChange: number;
  /** Called on every change (the waiting waitForQuietNetwork wakes up). */
  changed?: () => void;
}

/** Start counting the page's open XHR/fetch requests (call before navigating). */
export function trackNetworkActivity(page: Page): NetworkActivity {
  const net: NetworkActivity = { open: new Map(), lastChange: Date.now() };
  page.on('request', (r) => {
    const t = r.resourceType();
    if (t !== 'xhr' && t !== 'fetch') return;
    net.open.set(r, Date.now());
    net.lastChange = Date.now();
    net.changed?.();
  });
  const done = (r: object) => {
    if (!net.open.delete(r)) return;
    net.lastChange = Date.now();
    net.changed?.();
  };
  page.on('requestfailed', done);
  page.on('requestfinished', done);
  return net;
}

/**
 * Wait until the page's network has been quiet for `idleMs`. Cheaper than Playwright's
 * `networkidle` (a fixed 500 ms) on pages that finish quickly, and still catches article text
 * fetched after `load`. After `settleMs` it stops waiting for requests the page starts from then
 * on (polling, tickers), but still waits for those begun before, up to `capMs`: on a loaded
 * machine the article's own XHR can take longer than the settle window, and a page saved before
 * it lands has no text (seen on CI: a JavaScript-built article saved as "正在加载...").
 * Returns how many requests were still open when it stopped waiting (0: the network went quiet).
 *
 * Event-driven: it sleeps until the page's network changes or the next moment a condition can
 * turn true (the idle time reached, the settle window or the cap ended), instead of polling the
 * page every 40 ms (each poll a round trip through Playwright, and up to 40 ms late).
 */
export async function waitForQuietNetwork(page: Page, net: NetworkActivity, idleMs = 120, settleMs = 3000, capMs = 30_000): Promise<number> {
  const start = Date.now();
  for (;;) {
    const now = Date.now();
    // Quiet counts from the wait's start too: a request the page made just before `load` may reach
    // us after it (with request interception, as the adaptive fetcher's rendering uses).
    if (net.open.size === 0 && now - Math.max(net.lastChange, start) >= idleMs) {
      // The last response is in; let the page's own callbacks (which build the DOM from it, or
      // start the next request) run, and wait on if they started one.
      const seen = net.lastChange;
      await page.evaluate(() => new Promise<void>((resolve) => setTimeout(resolve, 0))).catch(() => undefined);
      if (net.open.size === 0 && net.lastChange === seen) return 0;
      continue;
    }
    if (now - start >= capMs) return net.open.size;
    const early = ![...net.open.values()].some((t) => t < start + settleMs);
    if (now - start >= settleMs && early) return net.open.size;
    if (page.isClosed()) throw new Error('page closed while waiting for its network to go quiet');
    let sleep = start + capMs - now;
    if (net.open.size === 0) sleep = Math.min(sleep, Math.max(net.lastChange, start) + idleMs - now);
    else if (early) sleep = Math.min(sleep, start + settleMs - now);
    await new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        net.changed = undefined;
        page.off('close', wake);
        resolve();
      };
      const timer = setTimeout(wake, Math.max(1, sleep));
      net.changed = wake;
      page.once('close', wake);
    });
  }
}
