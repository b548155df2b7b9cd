/** node:http servers for the test web: one per site, each on its own loopback address. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve, notFound, type Ctx, type MiscOptions } from './render.js';
import type { WebModel } from './model.js';

export interface RequestLogEntry { at: number; host: string; path: string; status: number; userAgent: string }

export interface SiteServers {
  origins: Map<string, string>;
  /** The CDN site's origin when pages carry third-party resources (MiscOptions.thirdPartyMs). */
  cdnOrigin?: string;
  close(): Promise<void>;
}

/** What the CDN site serves: a stylesheet naming a web font, the font, a photo, a pixel. */
const CDN_FILES: Record<string, { type: string; body: string | Buffer }> = {
  '/robots.txt': { type: 'text/plain', body: 'User-agent: *\nAllow: /\n' },
  '/css/site.css': { type: 'text/css', body: '@font-face{font-family:cdnfont;src:url(/fonts/site.woff2) format("woff2")}body{font-family:cdnfont,serif}.cdn-photo{width:320px}' },
  '/fonts/site.woff2': { type: 'font/woff2', body: Buffer.alloc(24_000, 7) },
  '/img/photo.jpg': { type: 'image/jpeg', body: Buffer.alloc(60_000, 1) },
  '/img/pixel.gif': { type: 'image/gif', body: Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64') },
};

/** The tags that put the CDN's files on a page (before `</head>` and before `</body>`). */
function withThirdParty(html: string, cdn: string): string {
  return html
    .replace('</head>', `<link rel="stylesheet" href="${cdn}/css/site.css"></head>`)
    .replace('</body>', `<img class="cdn-photo" src="${cdn}/img/photo.jpg" alt=""><img src="${cdn}/img/pixel.gif" width="1" height="1" alt=""></body>`);
}

function listen(server: http.Server, host: string, port = 0): Promise<AddressInfo> {
  return new Promise((ok, fail) => {
    const onError = (e: Error) => fail(e);
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      ok(server.address() as AddressInfo);
    });
  });
}

/**
 * Start one server per site on 127.0.0.2, 127.0.0.3, … (distinct hostnames, ephemeral ports).
 * If a 127.0.0.x address cannot be bound, that site falls back to 127.0.0.1 on its own port.
 * `fixedOrigins` (site key → `http://host:port`): listen exactly there instead (a resumed demo
 * crawl needs the URLs it queued to answer again); an address in use is an error.
 */
export async function startServers(
  model: WebModel,
  getNow: () => number,
  log: RequestLogEntry[],
  opts: MiscOptions,
  fixedOrigins?: Record<string, string>,
): Promise<SiteServers> {
  const origins = new Map<string, string>();
  const servers: http.Server[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const ctxBase = { model, origin: (site: string) => origins.get(site) ?? '' };
  let cdnOrigin: string | undefined;

  for (let i = 0; i < model.sites.length; i++) {
    const site = model.sites[i].key;
    const server = http.createServer((req, res) => {
      const path = req.url ?? '/';
      const send = (status: number, headers: Record<string, string>, body: string | Buffer) => {
        if (cdnOrigin && typeof body === 'string' && /text\/html/.test(headers['content-type'] ?? '')) body = withThirdParty(body, cdnOrigin);
        log.push({ at: Date.now(), host: req.headers.host ?? origins.get(site)!.replace(/^http:\/\//, ''), path, status, userAgent: String(req.headers['user-agent'] ?? '') });
        res.writeHead(status, { ...headers, 'content-length': String(Buffer.byteLength(body)), connection: 'keep-alive' });
        res.end(req.method === 'HEAD' ? undefined : body);
      };
      // A fixed latency on every response (a web far away: crawls become I/O-bound, bench/redis-scale.ts).
      const finish: typeof send = (...args) => {
        if (!opts.latencyMs) return send(...args);
        const t = setTimeout(() => { timers.delete(t); if (!res.destroyed) send(...args); }, opts.latencyMs);
        timers.add(t);
      };
      try {
        const ctx: Ctx = { ...ctxBase, now: getNow() };
        const route = resolve(model, site, path, ctx.now, opts);
        if (!route) {
          const r = notFound();
          return finish(r.status, r.headers as Record<string, string>, r.body);
        }
        const r = route.respond(ctx);
        if (r.delayMs) {
          const t = setTimeout(() => { timers.delete(t); if (!res.destroyed) finish(r.status, r.headers, r.body); }, r.delayMs);
          timers.add(t);
          return;
        }
        finish(r.status, r.headers, r.body);
      } catch (e) {
        finish(500, { 'content-type': 'text/plain; charset=utf-8' }, `internal error: ${(e as Error).message}`);
      }
    });
    server.keepAliveTimeout = 2000;
    let addr: AddressInfo;
    const fixed = fixedOrigins?.[site];
    if (fixed) {
      const u = new URL(fixed);
      try {
        addr = await listen(server, u.hostname, Number(u.port));
      } catch (e) {
        await Promise.all(servers.map((s) => new Promise<void>((ok) => s.close(() => ok()))));
        throw new Error(`cannot listen on ${u.host} again: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
      }
    } else {
      try {
        addr = await listen(server, `127.0.0.${i + 2}`);
      } catch {
        addr = await listen(server, '127.0.0.1');
      }
    }
    origins.set(site, `http://${addr.address}:${addr.port}`);
    servers.push(server);
  }

  if (opts.thirdPartyMs !== undefined) {
    const delay = opts.thirdPartyMs;
    const cdn = http.createServer((req, res) => {
      const path = (req.url ?? '/').split('?')[0];
      const f = CDN_FILES[path];
      log.push({ at: Date.now(), host: req.headers.host ?? '', path, status: f ? 200 : 404, userAgent: String(req.headers['user-agent'] ?? '') });
      const t = setTimeout(() => {
        timers.delete(t);
        if (res.destroyed) return;
        res.writeHead(f ? 200 : 404, { 'content-type': f?.type ?? 'text/plain', 'cache-control': 'no-store', 'content-length': String(f ? Buffer.byteLength(f.body) : 0) });
        res.end(f?.body);
      }, path === '/robots.txt' ? 0 : delay);
      timers.add(t);
    });
    cdn.keepAliveTimeout = 2000;
    const addr = await listen(cdn, `127.0.0.${model.sites.length + 2}`).catch(() => listen(cdn, '127.0.0.1'));
    cdnOrigin = `http://${addr.address}:${addr.port}`;
    servers.push(cdn);
  }

  return {
    origins,
    cdnOrigin,
    async close() {
      for (const t of timers) clearTimeout(t);
      timers.clear();
      await Promise.all(servers.map((s) => new Promise<void>((ok) => {
        s.close(() => ok());
        s.closeAllConnections();
      })));
    },
  };
}
