/**
 * The crawl's own fetching for requests that are not pages of the frontier (comment-API pages
 * of reply threads): one function, owned by the crawl, that treats them as a page request is
 * treated —
 *   1. the fetch gate's checks (scheme, length, allow/deny lists, private and metadata
 *      addresses, the latter after DNS with the connection pinned: `gatedRequest`);
 *   2. robots.txt (the crawl's own cache, the one the frontier consults);
 *   3. the per-host delay and concurrency cap, waited for in the frontier's own HostPoliteness
 *      state and marked started/ended there, so pages and sub-requests to one host are paced
 *      together (a page is not handed out while a sub-request to its host is under way, and
 *      the other way round);
 *   4. the crawl's size and time limits, each redirect hop going through 1–3 again;
 * and records every request, fetched, failed or refused with its reason, in the run's
 * sub-request log (runs/<id>/subrequests.jsonl). Not in the crawl log: that is one line per
 * page of the budget, which the counts, the harvest rate, --resume and the kill soak all read
 * as such; a comment-API page costs no budget and is not a page.
 */
import type { FetchGate } from '../fetch/gate/gate.js';
import { gatedRequest, GatedFetchError } from '../fetch/gate/gated-request.js';
import { UA_TOKEN } from '../fetch/gate/gate-proxy.js';
import type { HostPoliteness } from '../frontier/politeness.js';
import { hostOf } from '../frontier/url-key.js';
import { countSubRequests, SubRequestLog, type SubRequestCounts, type SubRequestRecord } from '../store/sub-requests.js';

export type { SubRequestCounts, SubRequestRecord } from '../store/sub-requests.js';

export interface PoliteRequest {
  url: string;
  kind: string;
  /**
   * The page this request is made for, when its handler is still running: its own hand-out is
   * still "in flight" at its host, which must not block its sub-requests; the host's delay then
   * counts from when the page was fetched.
   */
  parent?: { url: string; fetchedAt: Date };
  accept?: string;
  /** Longest wait for the host's delay for this request (default the fetch's maxWaitMs). */
  maxWaitMs?: number;
}

export type PoliteResponse = { ok: true; url: string; status: number; body: Buffer } | { ok: false; refused: boolean; reason: string };

export type PoliteFetch = (req: PoliteRequest) => Promise<PoliteResponse>;

export interface PoliteFetchOptions {
  gate: FetchGate;
  /** The frontier's politeness state (`frontier.politeness`). */
  politeness: HostPoliteness;
  /** robots.txt: why a URL may not be fetched, or undefined (the crawl's RobotsCache.block); absent = not honoured. */
  robotsBlock?: (url: string) => Promise<string | undefined>;
  maxBodyBytes?: number;
  /** Per request (connect, headers and body). */
  timeoutMs?: number;
  maxRedirects?: number;
  /**
   * Longest wait for a busy host. A request waiting on another page's host while that page's
   * handler waits on this one's would otherwise wait for ever; it gives up with a reason.
   */
  maxWaitMs?: number;
  /** Where records go (the sub-request log). */
  record?: (r: SubRequestRecord) => void;
  /**
   * The host schedule of every process of the crawl (a Redis crawl's: src/cluster/redis-frontier.ts),
   * taken after this process's own: other workers' pages and requests count too.
   */
  sharedHosts?: SharedHostSchedule;
}

/** A host slot shared with other processes: held for one request, then released. */
export interface SharedHostSchedule {
  /** `own`: the asker's own page in flight on that host. A token, or how long to wait (-1: until a request ends). */
  hold(host: string, own: number): Promise<{ token: string } | { waitMs: number }>;
  release(token: string): Promise<void>;
}

const sleep = (ms: number) => new Promise<void>((ok) => setTimeout(ok, ms));
/** Re-check a host held by a request in flight this often (its end has no event to wait on). */
const BUSY_POLL_MS = 25;

export function createPoliteFetch(o: PoliteFetchOptions & { initialCounts?: SubRequestCounts }): PoliteFetch & { counts(): SubRequestCounts } {
  const counts: SubRequestCounts = { fetched: 0, failed: 0, refused: 0, ...o.initialCounts };
  const maxRedirects = o.maxRedirects ?? 10;
  const maxWaitMs = o.maxWaitMs ?? 60_000;
  const p = o.politeness;

  const note = (r: Omit<SubRequestRecord, 'time'>) => {
    counts[r.outcome]++;
    o.record?.({ time: new Date().toISOString(), ...r });
  };

  /**
   * Wait until the host may take one more request: true, or the shared schedule's token to
   * release after it; false when it would not within `limitMs`.
   */
  async function waitForHost(host: string, parent: PoliteRequest['parent'], limitMs: number): Promise<boolean | string> {
    const own = parent && hostOf(parent.url) === host ? 1 : 0;
    const deadline = Date.now() + limitMs;
    for (;;) {
      const now = p.now();
      const afterParent = parent ? parent.fetchedAt.getTime() + p.delayOf(host) - now : 0;
      let wait = Math.max(p.wait(host, now, own), afterParent);
      if (wait <= 0 && !o.sharedHosts) return true;
      if (wait <= 0) {
        const held = await o.sharedHosts!.hold(host, own);
        if ('token' in held) return held.token;
        wait = held.waitMs < 0 ? Number.POSITIVE_INFINITY : Math.max(1, held.waitMs);
      }
      // A known wait past the limit is not waited out; a busy host is re-checked until the limit.
      if (Date.now() + (Number.isFinite(wait) ? wait : BUSY_POLL_MS) > deadline) return false;
      await sleep(Number.isFinite(wait) ? Math.min(wait, 1000) : BUSY_POLL_MS);
    }
  }

  const fetchOne: PoliteFetch = async (req) => {
    let url = req.url;
    const base = { kind: req.kind, parent: req.parent?.url };
    for (let hop = 0; ; hop++) {
      const refuse = (reason: string): PoliteResponse => {
        note({ ...base, url, outcome: 'refused', reason });
        return { ok: false, refused: true, reason };
      };
      if (hop > maxRedirects) return refuse(`redirect-chain: more than ${maxRedirects} redirects`);
      const sync = o.gate.checkSync(url);
      if (!sync.ok) return refuse(sync.reason);
      const robots = await o.robotsBlock?.(url);
      if (robots) return refuse(robots);
      const host = hostOf(url);
      const t0 = Date.now();
      const limitMs = Math.max(0, req.maxWaitMs ?? maxWaitMs);
      const held = await waitForHost(host, req.parent, limitMs);
      if (!held) {
        const reason = `host busy: ${host} would not be free for another request within ${(limitMs / 1000).toFixed(1)} s`;
        note({ ...base, url, outcome: 'failed', reason, waitedMs: Date.now() - t0 });
        return { ok: false, refused: false, reason };
      }
      const waitedMs = Date.now() - t0;
      p.started(host);
      let res;
      try {
        res = await gatedRequest(o.gate, url, {
          headers: { 'user-agent': `Mozilla/5.0 (compatible; ${UA_TOKEN})`, accept: req.accept ?? 'application/json' },
          maxBodyBytes: o.maxBodyBytes,
          timeoutMs: o.timeoutMs,
        });
      } catch (e) {
        const refused = e instanceof GatedFetchError && e.code === 'refused';
        const reason = e instanceof GatedFetchError && !refused ? `${e.code}: ${e.message}` : (e as Error).message;
        note({ ...base, url, outcome: refused ? 'refused' : 'failed', reason, waitedMs });
        return { ok: false, refused, reason };
      } finally {
        p.ended(host);
        if (typeof held === 'string') void o.sharedHosts!.release(held).catch(() => undefined);
      }
      const loc = res.headers.location;
      if (res.status >= 300 && res.status < 400 && loc) {
        note({ ...base, url, outcome: 'fetched', status: res.status, bytes: res.body.length, waitedMs, reason: 'redirect' });
        try {
          url = new URL(loc, url).href;
        } catch {
          return refuse(`invalid redirect: ${String(loc).slice(0, 200)}`);
        }
        continue;
      }
      const ok = res.status >= 200 && res.status < 300;
      note({ ...base, url, outcome: ok ? 'fetched' : 'failed', status: res.status, bytes: res.body.length, waitedMs, ...(ok ? {} : { reason: `HTTP ${res.status}` }) });
      return ok ? { ok: true, url, status: res.status, body: res.body } : { ok: false, refused: false, reason: `HTTP ${res.status}` };
    }
  };
  return Object.assign(fetchOne, { counts: () => ({ ...counts }) });
}

/**
 * The crawl's polite fetch with its sub-request log (JSON Lines written synchronously, like the
 * crawl log: a crash loses at most the line being written). A resumed run appends to the log
 * and goes on counting from it.
 */
export function crawlPoliteFetch(o: Omit<PoliteFetchOptions, 'record'> & { logPath: string }): { fetch: PoliteFetch & { counts(): SubRequestCounts }; close(): void } {
  const initialCounts = countSubRequests(SubRequestLog.read(o.logPath));
  const log = new SubRequestLog(o.logPath);
  return { fetch: createPoliteFetch({ ...o, initialCounts, record: (r) => log.append(r) }), close: () => log.close() };
}
