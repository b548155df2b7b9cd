/**
 * Crawlee's browser pool starts a `proxy-chain` server at load time (browser-pool's
 * proxy-server.js, port 0, no host: every interface, no authentication) and would point
 * Chromium at it. We launch Chromium with our own gate proxy instead, but that server still
 * listened on `*:<port>` as an open proxy into the machine's loopback services. A proxy-chain
 * server given no host now listens on 127.0.0.1 only.
 *
 * This must run before @crawlee/browser-pool is first loaded, so it is the first import of the
 * modules that load Crawlee (src/fetch/crawler.ts, src/crawl/engine.ts, src/cli/main.ts);
 * test/listening-sockets.test.ts reads /proc during a browser crawl and checks that no socket of
 * the crawler or a process it started listens beyond loopback (it fails without this patch).
 */
import { createRequire } from 'node:module';

// The proxy-chain browser-pool loads (resolved from there: as an installed package's dependency it
// need not be hoisted next to ours).
const fromBrowserPool = createRequire(createRequire(createRequire(import.meta.url).resolve('crawlee')).resolve('@crawlee/browser-pool'));
const chain = fromBrowserPool('proxy-chain') as { Server: { prototype: { listen(cb?: unknown): Promise<void>; host?: string } } };
const proto = chain.Server.prototype as { listen(cb?: unknown): Promise<void>; host?: string; __loopbackOnly?: boolean };
if (!proto.__loopbackOnly) {
  const listen = proto.listen;
  proto.listen = function (this: { host?: string }, cb?: unknown) {
    if (!this.host) this.host = '127.0.0.1';
    return listen.call(this, cb);
  };
  proto.__loopbackOnly = true;
}
