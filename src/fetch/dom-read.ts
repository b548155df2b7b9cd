/**
 * The rendered DOM as HTML, serialised by Chromium itself (DevTools `DOM.getOuterHTML` of the
 * document: doctype and all, the same string as Playwright's `page.content()`). Playwright's
 * `content()` evaluates a serialiser in its utility world, 35 ms a render against 9 this way
 * (measured on the mixed test web, a kept tab at load 9); and nothing the page's scripts did to
 * the DOM's JavaScript interface (a redefined `outerHTML`) can change what is read. Used by both
 * browser paths: the adaptive fetcher's kept tabs (./adaptive-render.ts, with the tab's own
 * session) and the browser fetcher's per-request pages (./crawler.ts, a session opened for the read).
 */
import type { CDPSession, Page } from 'playwright';

/** Read with `cdp` (or a session opened for the read); Playwright's `content()` when DevTools fails. */
export async function serialisedDom(page: Page, cdp?: CDPSession): Promise<string> {
  let session = cdp;
  try {
    session ??= await page.context().newCDPSession(page);
    const { root } = await session.send('DOM.getDocument', { depth: 0 });
    return (await session.send('DOM.getOuterHTML', { nodeId: root.nodeId })).outerHTML;
  } catch {
    // session gone (a crashed renderer), not Chromium, or the document replaced meanwhile: Playwright's way
    return page.content();
  } finally {
    if (session && !cdp) void session.detach().catch(() => undefined);
  }
}
