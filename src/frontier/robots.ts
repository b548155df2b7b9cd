/**
 * robots.txt, handled by us instead of Crawlee: Crawlee's `respectRobotsTxtFile` ignores
 * `Crawl-delay` and counts a disallowed URL against the page budget. Here robots.txt is
 * fetched once per origin (plain HTTP, short timeout), parsed by `robots-parser`, and consulted
 * by the frontier before a URL is handed out; `Crawl-delay` feeds the per-host delay.
 */
import robotsParserImport from 'robots-parser';
import { unreachableReason } from '../fetch/unreachable.js';

export { unreachableReason };

// robots-parser is CommonJS; under NodeNext its typings describe the namespace, at run time the
// default import is the function itself (same workaround as src/testweb/index.ts).
interface Robot {
  isAllowed(url: string, ua?: string): boolean | undefined;
  getCrawlDelay(ua?: string): number | undefined;
}
const robotsParser = robotsParserImport as unknown as (url: string, robotstxt: string) => Robot;

export interface RobotsOptions {
  /** User agent matched against robots.txt groups (`*` groups always apply). */
  userAgent?: string;
  /** Give up on a robots.txt after this long (then: allow all). */
  timeoutMs?: number;
  /** Upper bound on an honoured Crawl-delay, so one hostile file cannot stall a host forever. */
  maxCrawlDelayMs?: number;
  /** Injectable for tests; default: global fetch. `failure` says why there was no answer. */
  fetchText?: (url: string, timeoutMs: number) => Promise<{ status: number; text: string } | { failure: string } | undefined>;
  /** After a 5xx or an unreachable robots.txt (disallow all), ask again after this long. */
  retryAfterMs?: number;
  /** Clock, injectable for tests. */
  now?: () => number;
}

/** What was learned about one origin. */
export interface OriginRobots {
  origin: string;
  /** HTTP status of /robots.txt, 0 when unreachable. */
  status: number;
  robot?: Robot;
  crawlDelayMs?: number;
  /** RFC 9309 §2.3.1.4: robots.txt unreachable or 5xx: the whole origin is disallowed until it recovers. */
  disallowAll?: boolean;
  /** When a disallow-all verdict is asked again. */
  retryAt?: number;
  /** Why robots.txt had no answer (`unreachableReason`): the host's failure, not a rule of robots.txt. */
  unreachable?: string;
}


async function defaultFetchText(url: string, timeoutMs: number): Promise<{ status: number; text: string } | { failure: string }> {
  try {
    const res = await fetch(url, { redirect: 'follow', signal: AbortSignal.timeout(timeoutMs) });
    const text = res.ok ? await res.text() : (await res.body?.cancel(), '');
    return { status: res.status, text };
  } catch (err) {
    return { failure: unreachableReason(err) };
  }
}

function originOf(url: string): string | undefined {
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.origin : undefined;
  } catch {
    return undefined;
  }
}

export class RobotsCache {
  private readonly done = new Map<string, OriginRobots>();
  private readonly loading = new Map<string, Promise<OriginRobots>>();
  private readonly delayByHost = new Map<string, number>();
  private readonly ua: string;
  private readonly timeoutMs: number;
  private readonly maxDelay: number;
  private readonly fetchText: NonNullable<RobotsOptions['fetchText']>;
  private readonly retryAfterMs: number;
  private readonly now: () => number;

  constructor(opts: RobotsOptions = {}) {
    this.ua = opts.userAgent ?? 'focused-crawler';
    this.timeoutMs = opts.timeoutMs ?? 5000;
    this.maxDelay = opts.maxCrawlDelayMs ?? 60_000;
    this.fetchText = opts.fetchText ?? defaultFetchText;
    this.retryAfterMs = opts.retryAfterMs ?? 60_000;
    this.now = opts.now ?? Date.now;
  }

  private fresh(origin: string): OriginRobots | undefined {
    const d = this.done.get(origin);
    return d && (d.retryAt === undefined || this.now() < d.retryAt) ? d : undefined;
  }

  /** True when the origin's robots.txt is known (allowed() can answer without waiting). */
  isLoaded(url: string): boolean {
    const o = originOf(url);
    return o === undefined || this.fresh(o) !== undefined;
  }

  /** Fetch and parse the origin's robots.txt once; concurrent callers share one request. */
  load(url: string): Promise<OriginRobots | undefined> {
    const origin = originOf(url);
    if (!origin) return Promise.resolve(undefined);
    const d = this.fresh(origin);
    if (d) return Promise.resolve(d);
    let p = this.loading.get(origin);
    if (!p) {
      p = this.fetchText(`${origin}/robots.txt`, this.timeoutMs).then((answer) => {
        // RFC 9309 §2.3.1: missing (4xx) = allow all; a server error (5xx) or no answer = disallow
        // all, asked again after retryAfterMs ("until it recovers").
        const r = answer && 'status' in answer ? answer : undefined;
        const info: OriginRobots = { origin, status: r?.status ?? 0 };
        if (!r || r.status >= 500 || r.status < 200) {
          info.disallowAll = true;
          info.retryAt = this.now() + this.retryAfterMs;
          if (!r) info.unreachable = answer && 'failure' in answer ? answer.failure : 'host unreachable';
        } else if (r.status >= 200 && r.status < 300) {
          info.robot = robotsParser(`${origin}/robots.txt`, r.text);
          const secs = info.robot.getCrawlDelay(this.ua);
          if (secs !== undefined && Number.isFinite(secs) && secs > 0) {
            info.crawlDelayMs = Math.min(this.maxDelay, Math.round(secs * 1000));
            this.delayByHost.set(new URL(origin).host, info.crawlDelayMs);
          }
        }
        this.done.set(origin, info);
        this.loading.delete(origin);
        return info;
      });
      this.loading.set(origin, p);
    }
    return p;
  }

  /** Allowed by the (loaded) robots.txt; URLs of origins not yet loaded count as allowed. */
  isAllowed(url: string): boolean {
    const o = originOf(url);
    if (!o) return true;
    const d = this.done.get(o);
    if (d?.disallowAll) return false;
    const r = d?.robot;
    return r ? r.isAllowed(url, this.ua) !== false : true;
  }

  /** Why a URL may not be fetched (loading its robots.txt first), or undefined when it may. */
  async block(url: string): Promise<string | undefined> {
    const info = await this.load(url);
    if (this.isAllowed(url)) return undefined;
    if (info?.unreachable) return `${info.unreachable}: robots.txt had no answer: disallow all until it answers (RFC 9309)`;
    return info?.disallowAll ? `robots: robots.txt answered ${info.status}: disallow all (RFC 9309)` : 'robots: disallowed by robots.txt';
  }

  /**
   * The reason a URL `isAllowed` refuses is tallied under: its host's failure when robots.txt had
   * no answer (`host not found (DNS)`, ...), else `robots.txt` (disallowed, or a 5xx robots.txt).
   */
  refusal(url: string): string {
    const o = originOf(url);
    return (o && this.done.get(o)?.unreachable) || 'robots.txt';
  }

  /** Crawl-delay of a host (`host[:port]`, as in URL.host), in milliseconds. */
  crawlDelayMs(host: string): number | undefined {
    return this.delayByHost.get(host);
  }

  /** Origins loaded so far, for reports and resume. */
  origins(): OriginRobots[] {
    return [...this.done.values()];
  }
}
