/**
 * The gate proxy: a forward proxy on 127.0.0.1 (random port, per-run credentials) that every
 * request of both fetchers goes through — Chromium's documents, redirect hops, scripts, XHR
 * and iframes (Chromium is launched with it and `<-loopback>`, so loopback is proxied too), and
 * the HTTP fetcher's requests. For each plain-HTTP request it asks the fetch gate (and for a
 * redirect hop also robots.txt, the chain limit and the per-host delay), then makes the
 * request itself with `gatedRequest` (pinned address, time and decompressed-size limits).
 * HTTPS goes through CONNECT: the gate checks the host and port and the tunnel is opened to
 * the checked address; paths inside TLS are not visible to it.
 *
 * Refusals and connection failures answer with a 4xx/5xx carrying `x-fetch-gate` (refused) or
 * `x-fetch-error` (could not fetch), which the fetchers turn into a `failed` record with that
 * reason (never a page). Built on `proxy-chain` (Apify's, which Crawlee already uses).
 */
import { randomBytes } from 'node:crypto';
import type http from 'node:http';
import { Server } from 'proxy-chain';
import { contentTypeForBrowser } from '../../extract/encoding.js';
import { FetchGate } from './gate.js';
import { parseBlock, type BlockRule } from '../../store/steering-journal.js';
import { gatedRequest, GatedFetchError, DEFAULT_MAX_BODY_BYTES } from './gated-request.js';

export const GATE_HEADER = 'x-fetch-gate';
export const ERROR_HEADER = 'x-fetch-error';
/** The robots.txt product token, also put in every request's User-Agent so the two agree. */
export const ROBOTS_TOKEN = 'focused-crawler';
export const UA_TOKEN = `${ROBOTS_TOKEN}/0.1`;

export interface GateProxyOptions {
  gate: FetchGate;
  maxBodyBytes?: number;
  /** Per request (headers and body). */
  timeoutMs?: number;
  /**
   * Per sub-request (a page's scripts, styles, XHR: anything that is neither a page handed out nor
   * a redirect hop from one), when shorter than timeoutMs: a script on a host that accepts the
   * connection and never answers holds the page's parser back, and the page must not wait for
   * it longer than its settle allows.
   */
  subRequestTimeoutMs?: number;
  /** Redirect hops followed from one fetched URL before the chain is refused. */
  maxRedirects?: number;
  /** robots.txt for redirect hops: undefined = allowed, otherwise the reason it is not. */
  robotsBlock?: (url: string) => Promise<string | undefined>;
  /** Minimum milliseconds between two page requests (hand-outs and redirect hops) to one host. */
  hostDelayMs?: (host: string) => number | Promise<number>;
  /**
   * Several workers of one crawl (Redis): after its own delay a redirect hop takes its host's
   * slot in the crawl-wide schedule too (src/cluster/redis-politeness.ts `holdHop`; `own` 1 when
   * the chain started on that host, whose slot the page's own lease holds). Resolves to a release
   * to call once the hop's answer is in, or undefined when no slot came within `maxWaitMs`.
   */
  holdHop?: (host: string, own: number, maxWaitMs: number) => Promise<(() => void) | undefined>;
  /** Observer of every decision (tests, the hostile-site suite). */
  onDecision?: (d: { url: string; outcome: 'fetched' | 'refused' | 'error'; reason?: string; status?: number }) => void;
}

export interface GateProxy {
  /** `http://127.0.0.1:PORT` */
  server: string;
  username: string;
  password: string;
  /** Proxy URL with credentials (for the HTTP fetcher). */
  url: string;
  /** A page URL handed out now (or again, for a retry): redirect hops from it are counted and paced from this moment. */
  noteNavigation(url: string): void;
  /** Refuse, from now on, a host or URL pattern the user blocked while the crawl runs (src/store/steering-journal.ts parseBlock). */
  block(pattern: string): void;
  close(): Promise<void>;
}

function withToken(ua: string | string[] | undefined): string {
  const s = Array.isArray(ua) ? ua.join(' ') : (ua ?? '');
  if (s.includes(ROBOTS_TOKEN)) return s;
  return s ? `${s} ${UA_TOKEN}` : `Mozilla/5.0 (compatible; ${UA_TOKEN})`;
}

const STRIP_RESPONSE = new Set(['content-encoding', 'content-length', 'transfer-encoding', 'connection', 'keep-alive']);

/** A refusal (`x-fetch-gate`) or a failure to fetch (`x-fetch-error`), as the proxy's answer to the client. */
const answer = (status: number, header: string, reason: string) => ({
  customResponseFunction: async () => ({
    statusCode: status,
    headers: { [header]: encodeURIComponent(reason).slice(0, 500), 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' },
    body: `${header === GATE_HEADER ? 'refused by the crawler' : 'not fetched'}: ${reason}\n`,
  }),
});

const sleep = (ms: number) => new Promise((ok) => setTimeout(ok, ms).unref?.());

/** A plain-HTTP request the gate let through, as the proxy forwards it. */
interface Admitted {
  request: http.IncomingMessage;
  url: string;
  host: string;
  /** Its redirect chain so far, when it is a hop of one. */
  chain?: { n: number; from: string };
  timeoutMs?: number;
  /** The host's crawl-wide slot a redirect hop holds (several workers), released once the answer is in. */
  release?: () => void;
}

/**
 * The proxy server: the gate, the limits and the counters every request shares (redirect chains
 * in flight, the last page request to each host, the page URLs handed out), with one handler for
 * plain-HTTP requests and one for CONNECT.
 */
export class GateProxyServer {
  readonly username = 'crawler';
  readonly password = randomBytes(12).toString('hex');
  private readonly maxRedirects: number;
  // Blocks given while the crawl runs: the crawler's own gate has them, and this gate (a process of
  // its own) must refuse a redirect hop or a page's sub-request to a blocked host as well.
  private readonly blocked: BlockRule[] = [];
  /** Redirect target → hops so far in its chain and the host the chain started on (kept small: cleared as chains are followed). */
  private readonly hops = new Map<string, { n: number; from: string }>();
  private readonly lastPageRequest = new Map<string, number>();
  /** Page URLs handed out and not yet answered (their answer time counts for the host's delay too). */
  private readonly navigations = new Set<string>();
  private readonly server: Server;

  constructor(private readonly opts: GateProxyOptions) {
    this.maxRedirects = opts.maxRedirects ?? 10;
    opts.gate.addBlock((u) => this.blocked.find((r) => r.matches(u))?.pattern);
    this.server = new Server({
      port: 0,
      host: '127.0.0.1',
      verbose: false,
      prepareRequestFunction: async ({ request, username, password, hostname, port, isHttp }) => {
        if (username !== this.username || password !== this.password) return { requestAuthentication: true, failMsg: 'proxy credentials required' };
        return isHttp ? this.onRequest(request) : this.onConnect(hostname, port);
      },
    });
  }

  /** Listens on a free port of 127.0.0.1; the proxy as its clients use it. */
  async listen(): Promise<GateProxy> {
    await this.server.listen();
    const port = this.server.port;
    return {
      server: `http://127.0.0.1:${port}`,
      username: this.username,
      password: this.password,
      url: `http://${this.username}:${this.password}@127.0.0.1:${port}`,
      noteNavigation: (url: string) => this.noteNavigation(url),
      block: (pattern: string) => this.block(pattern),
      close: () => this.server.close(true),
    };
  }

  noteNavigation(url: string): void {
    try {
      this.lastPageRequest.set(new URL(url).host, Date.now());
      this.navigations.add(url);
      // Handed out as a page, it is no hop, even where an abandoned chain (a client that gave
      // up on a redirect loop) last pointed to it.
      this.hops.delete(url);
      if (this.navigations.size > 10_000) this.navigations.delete(this.navigations.values().next().value!);
    } catch {
      // not a URL
    }
  }

  block(pattern: string): void {
    const rule = parseBlock(pattern);
    if (!this.blocked.some((r) => r.pattern === rule.pattern)) this.blocked.push(rule);
  }

  /** CONNECT host:port (HTTPS): gate the host, pin the tunnel to the checked address. */
  private async onConnect(hostname: string, port: number) {
    const verdict = await this.opts.gate.check(`https://${hostname.includes(':') ? `[${hostname}]` : hostname}:${port}/`);
    if (!verdict.ok) {
      this.opts.onDecision?.({ url: `https://${hostname}:${port}/`, outcome: 'refused', reason: verdict.reason });
      throw new Error(`refused: ${verdict.reason}`);
    }
    return { dnsLookup: verdict.addresses ? this.opts.gate.pinnedLookup(verdict.addresses) : undefined };
  }

  /** A plain-HTTP request: the gate, and for a redirect hop the chain limit, robots.txt and the host's delay; then the request itself. */
  private async onRequest(request: http.IncomingMessage) {
    const opts = this.opts;
    const url = request.url ?? '';
    const refuse = (reason: string) => {
      opts.onDecision?.({ url, outcome: 'refused', reason });
      return answer(403, GATE_HEADER, reason);
    };
    const sync = opts.gate.checkSync(url);
    if (!sync.ok) return refuse(sync.reason);
    const chain = this.hops.get(url);
    const isPage = chain !== undefined || this.navigations.has(url);
    const timeoutMs = isPage || opts.subRequestTimeoutMs === undefined ? opts.timeoutMs : Math.min(opts.timeoutMs ?? 30_000, opts.subRequestTimeoutMs);
    if (chain) {
      this.hops.delete(url);
      if (chain.n > this.maxRedirects) return refuse(`redirect-chain: more than ${this.maxRedirects} redirects`);
    }
    const host = new URL(url).host;
    let release: (() => void) | undefined;
    if (chain) {
      // A redirect hop is a page fetch the frontier never saw: robots.txt applies here. (Hand-outs
      // were checked by the frontier; a page's own sub-resources are not pages and skip robots.)
      const robots = await opts.robotsBlock?.(url);
      if (robots) return refuse(robots);
      const held = await this.paceHop(url, host, chain);
      if (held === 'timeout') {
        opts.onDecision?.({ url, outcome: 'error', reason: `timeout: redirect hop to ${host} would wait past the time limit` });
        return answer(504, ERROR_HEADER, `timeout: redirect hop to ${host} would wait past the time limit`);
      }
      release = held;
    }
    const admitted: Admitted = { request, url, host, chain, timeoutMs, release };
    return { customResponseFunction: () => this.forward(admitted) };
  }

  /**
   * A redirect hop is a page request to its host: it waits for the host's delay like a hand-out,
   * then (several workers) for the host's slot in the crawl-wide schedule. The slot's release,
   * or 'timeout' when no slot came in time.
   */
  private async paceHop(url: string, host: string, chain: { from: string }): Promise<(() => void) | undefined | 'timeout'> {
    const opts = this.opts;
    const wait = (this.lastPageRequest.get(host) ?? 0) + ((await opts.hostDelayMs?.(host)) ?? 0) - Date.now();
    if (wait > 0) await sleep(wait);
    let release: (() => void) | undefined;
    if (opts.holdHop) {
      release = await opts.holdHop(host, host === chain.from ? 1 : 0, opts.timeoutMs ?? 30_000);
      if (!release) return 'timeout';
    }
    this.lastPageRequest.set(host, Date.now());
    return release;
  }

  /** Makes the request through the gate (gatedRequest) and answers with the response, or with the refusal or failure. */
  private async forward({ request, url, host, chain, timeoutMs, release }: Admitted) {
    const opts = this.opts;
    const hop = chain?.n;
    try {
      const res = await gatedRequest(opts.gate, url, {
        method: request.method,
        headers: { ...(request.headers as Record<string, string | string[]>), 'user-agent': withToken(request.headers['user-agent']) },
        body: request.method === 'GET' || request.method === 'HEAD' ? undefined : request,
        maxBodyBytes: opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
        timeoutMs,
      });
      const headers: Record<string, string | string[]> = {};
      for (const [k, v] of Object.entries(res.headers)) if (v !== undefined && !STRIP_RESPONSE.has(k)) headers[k] = v;
      // An HTML document the server sent without a charset, in UTF-8: Chromium would render it
      // as windows-1252 (mojibake), the crawler's decoder reads it as UTF-8; told in the header,
      // the rendering and the document as served agree (the HTTP fetcher decodes it the same either way).
      const declared = res.headers['content-type'];
      const forBrowser = contentTypeForBrowser(typeof declared === 'string' ? declared : undefined, res.body);
      if (forBrowser) headers['content-type'] = forBrowser;
      const redirected = this.noteRedirect(url, res.status, res.headers.location, hop, chain?.from ?? host);
      // The delay runs from the end of a page request too, so arrivals at the host are never
      // closer than it. A response that redirects is a page request of a chain whatever asked
      // for it (a retried page is not noted as a navigation): its next hop waits from here.
      if (this.navigations.delete(url) || hop !== undefined || redirected) this.lastPageRequest.set(host, Date.now());
      opts.onDecision?.({ url, outcome: 'fetched', status: res.status });
      // proxy-chain types headers as strings; node's setHeader takes arrays (several Set-Cookie).
      return { statusCode: res.status, headers: headers as Record<string, string>, body: res.body as unknown as string };
    } catch (e) {
      const code = e instanceof GatedFetchError ? e.code : 'error';
      const reason = `${code}: ${(e as Error).message}`;
      opts.onDecision?.({ url, outcome: code === 'refused' ? 'refused' : 'error', reason });
      const r = code === 'refused' ? answer(403, GATE_HEADER, (e as Error).message) : answer(code === 'timeout' ? 504 : 502, ERROR_HEADER, reason);
      return r.customResponseFunction();
    } finally {
      release?.();
    }
  }

  /** A redirect's target becomes the next hop of the chain (true), unless the response is no redirect or its Location no URL. */
  private noteRedirect(url: string, status: number, location: string | undefined, hop: number | undefined, from: string): boolean {
    if (status < 300 || status >= 400 || !location) return false;
    try {
      const target = new URL(location, url).href;
      this.hops.set(target, { n: (hop ?? 0) + 1, from });
      if (this.hops.size > 10_000) this.hops.delete(this.hops.keys().next().value!);
      return true;
    } catch {
      // unparsable Location: the client will fail on it
      return false;
    }
  }
}

/** Starts the gate proxy on a free port of 127.0.0.1, with credentials of its own. */
export async function startGateProxy(opts: GateProxyOptions): Promise<GateProxy> {
  return new GateProxyServer(opts).listen();
}

/** The reason a proxied response carries, when the gate proxy refused or could not fetch. */
export function gateFailure(headers: Record<string, string | string[] | undefined>): string | undefined {
  const g = headers[GATE_HEADER];
  if (g) return `refused: ${decodeURIComponent(String(g))}`;
  const e = headers[ERROR_HEADER];
  if (e) return decodeURIComponent(String(e));
  return undefined;
}
