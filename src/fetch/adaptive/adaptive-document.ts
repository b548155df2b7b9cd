/** The adaptive fetcher's HTTP path (src/fetch/adaptive/adaptive.ts): one document, fetched through the fetch gate hop by hop. */
import { UA_TOKEN } from '../gate/gate-proxy.js';
import type { FetchGate } from '../gate/gate.js';
import { loopTime } from '../loop-clock.js';
import { DEFAULT_MAX_BODY_BYTES, GatedFetchError, gatedRequest, type GatedResponse } from '../gate/gated-request.js';


export interface FetchedDocument {
  /** Every URL of the redirect chain, the requested one first. */
  chain: { url: string; status: number; location?: string }[];
  url: string;
  status: number;
  contentType: string;
  headers: Record<string, string>;
  body: Buffer;
}

/** The crawl's per-host schedule (the frontier's HostPoliteness): redirect hops are paced by it too. */
export interface HostSchedule {
  /** Milliseconds until the host's delay since its last request has passed. */
  paceWait(host: string): number;
  /** A request the frontier did not hand out (a redirect hop) reached the host now. */
  touched(host: string): void;
  /**
   * A schedule shared with other processes (a Redis crawl's, src/cluster/redis-frontier.ts): the hop
   * takes its host's slot there too (`own`: the page's own request is on that host). A release
   * to call after the request, or undefined when it would not get one within `maxWaitMs`.
   */
  holdHop?(host: string, own: number, maxWaitMs: number): Promise<(() => void) | undefined>;
}

export interface DocumentFetchOptions {
  /** The crawl's fetch gate: every hop is checked (after DNS) and requested at the checked address. */
  gate: FetchGate;
  /** Milliseconds for the whole chain (every hop, headers and body). */
  timeoutMs: number;
  /** Largest body, decompressed. */
  maxBytes: number;
  maxRedirects: number;
  userAgent: string;
  /** robots.txt for redirect hops (the frontier checked the first URL): the reason, or undefined when allowed. */
  robotsBlock?(url: string): Promise<string | undefined>;
  /** Redirect hops wait for their host's delay like hand-outs, and count as its last request. */
  hostSchedule?: HostSchedule;
  /** Observer of every refused or failed hop and every fetched one (the crawl's refused.jsonl). */
  onDecision?(d: { url: string; outcome: 'fetched' | 'refused' | 'error'; reason?: string; status?: number }): void;
}

/**
 * Same family as what Chromium sends, so servers answer both paths alike, with the robots.txt
 * product token (the one robots rules are matched by, as the gate proxy adds to the browser's).
 */
export const HTTP_USER_AGENT = `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36 ${UA_TOKEN}`;
export const DEFAULT_DOCUMENT_FETCH: Omit<DocumentFetchOptions, 'gate'> = { timeoutMs: 30_000, maxBytes: DEFAULT_MAX_BODY_BYTES, maxRedirects: 10, userAgent: HTTP_USER_AGENT };

/** A document that could not be fetched: `code` as gatedRequest's (refused, too-large, timeout, ECONNRESET…) or redirect-chain. */
export class DocumentFetchError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(`${code}: ${message}`);
  }
}

const sleep = (ms: number) => new Promise<void>((ok) => setTimeout(ok, ms));

/**
 * GET one document the way the gate proxy fetches for the browser: each hop through the fetch
 * gate (scheme, lists, private addresses after DNS, the connection pinned to the checked
 * address) by `gatedRequest` (decompressed-size and time limits), redirect hops also checked
 * against robots.txt and paced by their host's delay, loops and over-long chains refused. Bytes
 * are kept undecoded so the charset (GBK, Big5, …) is decided by src/extract/encoding.ts exactly
 * as for the HTTP fetcher.
 */
export async function fetchDocument(url: string, opts: DocumentFetchOptions): Promise<FetchedDocument> {
  const chain: FetchedDocument['chain'] = [];
  const seen = new Set<string>();
  // Loop time (./loop-clock.ts): our own stalls of the event loop do not count against the host.
  const deadline = loopTime() + opts.timeoutMs;
  let current = url;
  const fail = (code: string, message: string, outcome: 'refused' | 'error' = 'refused'): never => {
    opts.onDecision?.({ url: current, outcome, reason: `${code}: ${message}` });
    throw new DocumentFetchError(code, message);
  };
  let release: (() => void) | undefined;
  for (let hop = 0; ; hop++) {
    if (seen.has(current)) fail('redirect-chain', `redirect loop at ${current}`);
    if (hop > opts.maxRedirects) fail('redirect-chain', `more than ${opts.maxRedirects} redirects`);
    seen.add(current);
    let host: string;
    try {
      host = new URL(current).host;
    } catch {
      return fail('invalid-url', current);
    }
    if (hop > 0) {
      // A redirect hop is a page fetch the frontier never saw: the gate's cheap checks, robots.txt
      // and the host's delay apply here, as in the gate proxy for the browser.
      const sync = opts.gate.checkSync(current);
      if (!sync.ok) fail('refused', sync.reason);
      const robots = await opts.robotsBlock?.(current);
      if (robots) fail('refused', robots);
      for (let wait = opts.hostSchedule?.paceWait(host) ?? 0; wait > 0; wait = opts.hostSchedule?.paceWait(host) ?? 0) {
        if (loopTime() + wait > deadline) fail('timeout', `redirect hop to ${host} would wait past the time limit`, 'error');
        await sleep(wait);
      }
      if (opts.hostSchedule?.holdHop) {
        release = await opts.hostSchedule.holdHop(host, host === new URL(url).host ? 1 : 0, deadline - loopTime());
        if (!release) fail('timeout', `redirect hop to ${host} would wait past the time limit`, 'error');
      }
      opts.hostSchedule?.touched(host);
    }
    let res: GatedResponse;
    try {
      res = await gatedRequest(opts.gate, current, {
        headers: { 'user-agent': opts.userAgent, accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', 'accept-language': 'zh-CN,zh;q=0.9,en;q=0.8' },
        maxBodyBytes: opts.maxBytes,
        timeoutMs: Math.max(1, deadline - loopTime()),
      });
    } catch (e) {
      const code = e instanceof GatedFetchError ? e.code : 'error';
      return fail(code, (e as Error).message, code === 'refused' ? 'refused' : 'error');
    } finally {
      release?.();
      release = undefined;
    }
    // The delay runs from the end of a page request too, so arrivals at the host are never closer than it.
    opts.hostSchedule?.touched(host);
    opts.onDecision?.({ url: current, outcome: 'fetched', status: res.status });
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(k === 'set-cookie' ? '\n' : ', ') : v;
    const location = headers.location;
    if (res.status >= 300 && res.status < 400 && location) {
      let next: string;
      try {
        next = new URL(location, current).href;
      } catch {
        return fail('invalid-url', `unparsable redirect location ${location.slice(0, 200)}`, 'error');
      }
      chain.push({ url: current, status: res.status, location: next });
      current = next;
      continue;
    }
    chain.push({ url: current, status: res.status });
    return { chain, url: current, status: res.status, contentType: headers['content-type'] ?? '', headers, body: res.body };
  }
}

