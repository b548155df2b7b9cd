/**
 * One HTTP request made the gate's way: to the address the gate checked (pinned DNS), with a
 * time limit for the headers and one for the whole body, and the body decompressed as it streams
 * in and abandoned as soon as it passes `maxBodyBytes` (a 50 MB page or a gzip bomb costs at
 * most the limit, never the inflated size). Written on node:http because no maintained client
 * lets us pin the checked address and cap the *decompressed* size while streaming.
 */
import http from 'node:http';
import https from 'node:https';
import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import type { FetchGate } from './gate.js';
import { loopTimeout } from '../loop-clock.js';
import { unreachableReason } from '../unreachable.js';

export const DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024;

export class GatedFetchError extends Error {
  constructor(
    /** `refused` (gate), `too-large`, `timeout`, or a socket error code (ECONNREFUSED, ECONNRESET…). */
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface GatedResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** Decompressed body. */
  body: Buffer;
}

export interface GatedRequestOptions {
  method?: string;
  headers?: Record<string, string | string[] | undefined>;
  /** Request body (a proxied POST). */
  body?: Readable;
  maxBodyBytes?: number;
  /**
   * Milliseconds for the whole exchange: connect, headers and body (slowloris ends here), in loop
   * time (./loop-clock.ts): our own stalls of the event loop do not count against the remote.
   */
  timeoutMs?: number;
  /** Over the limit: keep the first maxBodyBytes instead of failing (robots.txt, RFC 9309 §2.5). */
  truncate?: boolean;
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'proxy-authenticate', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host', 'accept-encoding']);

const agents = { http: new http.Agent({ keepAlive: true, maxSockets: 16 }), https: new https.Agent({ keepAlive: true, maxSockets: 16 }) };

function decoder(encoding: string | undefined): NodeJS.ReadWriteStream | undefined {
  switch ((encoding ?? '').trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return zlib.createGunzip();
    case 'deflate':
      return zlib.createInflate();
    case 'br':
      return zlib.createBrotliDecompress();
    default:
      return undefined;
  }
}

/** One request, no redirects followed (the caller sees the 3xx and decides). */
export async function gatedRequest(gate: FetchGate, url: string, opts: GatedRequestOptions = {}): Promise<GatedResponse> {
  const verdict = await gate.check(url);
  if (!verdict.ok) throw new GatedFetchError('refused', verdict.reason);
  try {
    return await attempt(gate, url, verdict.addresses, opts);
  } catch (e) {
    // A kept-alive socket the server had just closed: the request never reached it; send it once
    // more, on a connection of its own. The pool's other idle sockets to that server were closed
    // by the same timeout and, while our event loop was held up (a long analysis, a loaded
    // machine), their closings are not read yet either: a retry through the pool would write to
    // one of them and fail the same way ("socket hang up", test/gated-request-stale.test.ts).
    if (e instanceof StaleSocketError && !opts.body) return attempt(gate, url, verdict.addresses, opts, true);
    throw e instanceof StaleSocketError ? e.cause : e;
  }
}

class StaleSocketError extends Error {
  constructor(readonly cause: GatedFetchError) {
    super(cause.message);
  }
}

/** `fresh`: a new connection, closed after the answer (agent false), instead of one from the keep-alive pool. */
function attempt(gate: FetchGate, url: string, addresses: string[] | undefined, opts: GatedRequestOptions, fresh = false): Promise<GatedResponse> {
  const u = new URL(url);
  const maxBody = opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const headers: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(opts.headers ?? {})) if (v !== undefined && !HOP_BY_HOP.has(k.toLowerCase())) headers[k] = v;
  headers['accept-encoding'] = 'gzip, deflate, br';
  const lib = u.protocol === 'https:' ? https : http;
  return new Promise<GatedResponse>((resolve, reject) => {
    let settled = false;
    const fail = (e: GatedFetchError) => {
      if (settled) return;
      settled = true;
      timer.clear();
      req.destroy();
      reject(e);
    };
    const timer = loopTimeout(() => fail(new GatedFetchError('timeout', `no complete answer within ${Math.round(timeoutMs / 1000)} s`)), timeoutMs);
    const req = lib.request(
      {
        protocol: u.protocol,
        hostname: u.hostname.replace(/^\[|\]$/g, ''),
        port: u.port || undefined,
        path: u.pathname + u.search,
        method: opts.method ?? 'GET',
        headers: { ...headers, host: u.host },
        lookup: addresses ? gate.pinnedLookup(addresses) : undefined,
        agent: fresh ? false : u.protocol === 'https:' ? agents.https : agents.http,
      },
      (res) => {
        const declared = Number(res.headers['content-length']);
        const dec = decoder(res.headers['content-encoding']);
        if (!dec && Number.isFinite(declared) && declared > maxBody && !opts.truncate) {
          fail(new GatedFetchError('too-large', `body of ${declared} bytes is over the ${maxBody}-byte limit`));
          res.destroy();
          return;
        }
        const stream: Readable = dec ? (res.pipe(dec) as unknown as Readable) : res;
        const chunks: Buffer[] = [];
        let size = 0;
        stream.on('data', (c: Buffer) => {
          size += c.length;
          if (size > maxBody) {
            if (opts.truncate && !settled) {
              chunks.push(c.subarray(0, c.length - (size - maxBody)));
              settled = true;
              timer.clear();
              resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) });
            }
            fail(new GatedFetchError('too-large', `body over the ${maxBody}-byte limit${dec ? ' once decompressed' : ''}`));
            res.destroy();
            stream.destroy();
            return;
          }
          chunks.push(c);
        });
        stream.on('error', (e: NodeJS.ErrnoException) => fail(new GatedFetchError(e.code ?? 'body-error', `body: ${e.message}`)));
        res.on('error', (e: NodeJS.ErrnoException) => fail(new GatedFetchError(e.code ?? 'ECONNRESET', e.message)));
        res.on('aborted', () => fail(new GatedFetchError('ECONNRESET', 'connection closed in the middle of the body')));
        stream.on('end', () => {
          if (settled) return;
          settled = true;
          timer.clear();
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) });
        });
      },
    );
    let answered = false;
    req.on('response', () => (answered = true));
    req.on('error', (e: NodeJS.ErrnoException) => {
      const err = new GatedFetchError(e.code ?? 'error', e.message);
      if (!answered && req.reusedSocket && (e.code === 'ECONNRESET' || e.code === 'EPIPE')) fail(new StaleSocketError(err) as unknown as GatedFetchError);
      else fail(err);
    });
    if (opts.body) opts.body.pipe(req);
    else req.end();
  });
}

/** GET a small text resource (robots.txt), following up to `maxRedirects` hops, each one gated. */
export async function gatedFetchText(
  gate: FetchGate,
  url: string,
  opts: { timeoutMs?: number; maxBodyBytes?: number; maxRedirects?: number; userAgent?: string } = {},
): Promise<{ status: number; text: string } | { failure: string } | undefined> {
  let current = url;
  for (let hop = 0; hop <= (opts.maxRedirects ?? 5); hop++) {
    let r: GatedResponse;
    try {
      // RFC 9309 §2.5: a crawler may stop reading after 500 KiB; the first part is still obeyed.
      r = await gatedRequest(gate, current, { timeoutMs: opts.timeoutMs, maxBodyBytes: opts.maxBodyBytes ?? 500 * 1024, truncate: true, headers: opts.userAgent ? { 'user-agent': opts.userAgent } : {} });
    } catch (err) {
      return { failure: unreachableReason(err) }; // refused by the gate or unreachable: the caller treats it as unreachable
    }
    const loc = r.headers.location;
    if (r.status >= 300 && r.status < 400 && loc) {
      current = new URL(loc, current).href;
      continue;
    }
    return { status: r.status, text: r.status >= 200 && r.status < 300 ? r.body.toString('utf8') : '' };
  }
  return undefined;
}
