/**
 * The dashboard's HTTP server (node:http: four routes need no framework). Loopback only; every
 * request must carry the token printed in the URL (query `token=`), compared in constant time,
 * and name this server in its Host header (a page elsewhere cannot reach it through a DNS name
 * that resolves to 127.0.0.1); anything else is refused with 403.
 *
 *   GET  /?token=…                 the page
 *   GET  /events?token=…           server-sent events: the view, every tick while someone watches
 *   GET  /explain?token=…&url=…    the --explain text of a URL
 *   POST /action?token=…           a steering action (JSON), answered { message } or { error }
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { UserError } from '../config/errors.js';

export interface DashboardServerOptions {
  /** 0: any free port. */
  port: number;
  page(): string;
  /** The view as JSON (built once a tick and sent to every client). */
  view(): unknown;
  action(body: unknown): Promise<string> | string;
  explain(url: string): string;
  /** Milliseconds between updates (default 1000). */
  intervalMs?: number;
  /** Fixed token (tests); default 24 random bytes. */
  token?: string;
}

export interface DashboardServer {
  readonly url: string;
  readonly port: number;
  readonly token: string;
  /** Clients listening to the events now. */
  readonly clients: number;
  /** Send the view now (after an action, at the end). */
  push(): void;
  close(): Promise<void>;
}

export const LOOPBACK = '127.0.0.1';

export async function startDashboardServer(o: DashboardServerOptions): Promise<DashboardServer> {
  const token = o.token ?? randomBytes(24).toString('base64url');
  const tokenBytes = Buffer.from(token);
  const clients = new Set<ServerResponse>();
  let port = 0;
  const allowedHosts = () => [`${LOOPBACK}:${port}`, `localhost:${port}`];
  const authorised = (req: IncomingMessage, url: URL): boolean => {
    const given = Buffer.from(url.searchParams.get('token') ?? '');
    return given.length === tokenBytes.length && timingSafeEqual(given, tokenBytes) && allowedHosts().includes((req.headers.host ?? '').toLowerCase());
  };
  const send = (res: ServerResponse, status: number, type: string, body: string) => {
    res.writeHead(status, { 'content-type': `${type}; charset=utf-8`, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer' });
    res.end(body);
  };
  const push = () => {
    if (!clients.size) return;
    let data: string;
    try {
      data = `data: ${JSON.stringify(o.view())}\n\n`;
    } catch (e) {
      data = `event: failure\ndata: ${JSON.stringify((e as Error).message)}\n\n`;
    }
    for (const c of clients) c.write(data);
  };
  const readBody = (req: IncomingMessage): Promise<string> =>
    new Promise((ok, fail) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (d: string) => {
        body += d;
        if (body.length > 16_384) {
          fail(new UserError('request too large'));
          req.destroy();
        }
      });
      req.on('end', () => ok(body));
      req.on('error', fail);
    });

  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', `http://${LOOPBACK}`);
      if (!authorised(req, url)) return send(res, 403, 'text/plain', 'Forbidden: open the dashboard with the URL the crawl printed (it carries the token).\n');
      if (req.method === 'GET' && url.pathname === '/') return send(res, 200, 'text/html', o.page());
      if (req.method === 'GET' && url.pathname === '/events') {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive' });
        res.write('retry: 3000\n\n');
        clients.add(res);
        req.on('close', () => clients.delete(res));
        push();
        return;
      }
      if (req.method === 'GET' && url.pathname === '/explain') {
        const target = url.searchParams.get('url') ?? '';
        try {
          return send(res, 200, 'text/plain', o.explain(target));
        } catch (e) {
          return send(res, e instanceof UserError ? 400 : 500, 'text/plain', (e as Error).message.split('\n')[0]);
        }
      }
      if (req.method === 'POST' && url.pathname === '/action') {
        try {
          const body = JSON.parse(await readBody(req)) as unknown;
          const message = await o.action(body);
          send(res, 200, 'application/json', JSON.stringify({ message }));
          push();
        } catch (e) {
          const user = e instanceof UserError || e instanceof SyntaxError;
          send(res, user ? 400 : 500, 'application/json', JSON.stringify({ error: (e as Error).message.split('\n')[0] }));
        }
        return;
      }
      send(res, 404, 'text/plain', 'Not found\n');
    })().catch((e: Error) => {
      if (!res.headersSent) send(res, 500, 'text/plain', e.message.split('\n')[0]);
    });
  });
  await new Promise<void>((ok, fail) => {
    server.once('error', (e: NodeJS.ErrnoException) => fail(e.code === 'EADDRINUSE' ? new UserError(`--dashboard: port ${o.port} on ${LOOPBACK} is in use (give another, or 0 for any free port)`) : e));
    server.listen(o.port, LOOPBACK, () => ok());
  });
  port = (server.address() as AddressInfo).port;
  const timer = setInterval(push, o.intervalMs ?? 1000);
  timer.unref();
  return {
    url: `http://${LOOPBACK}:${port}/?token=${token}`,
    port,
    token,
    get clients() {
      return clients.size;
    },
    push,
    async close() {
      clearInterval(timer);
      for (const c of clients) c.end();
      clients.clear();
      server.closeAllConnections();
      await new Promise<void>((ok) => server.close(() => ok()));
    },
  };
}
