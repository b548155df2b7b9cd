/**
 * The local test web: a seeded, deterministic set of Chinese news portals, a Discuz-like
 * forum, a search engine, a charity site (tunnel) and a trap site, served on loopback, with
 * ground truth available only through this API (never in the pages).
 */
import { existsSync } from 'node:fs';
import robotsParserImport from 'robots-parser';
import { generateModel, type WebModel } from './model.js';
import { resolve, type Ctx, type PageTruth, type MiscOptions } from './render.js';
import { startServers, type RequestLogEntry } from './server.js';
import { TOPIC_LEXICONS } from './lexicon.js';

export type { PageTruth } from './render.js';

// robots-parser is CommonJS; under NodeNext its typings describe the namespace, at run time the
// default import is the function itself.
interface Robot { isDisallowed(url: string, ua?: string): boolean | undefined }
const robotsParser = robotsParserImport as unknown as (url: string, robotstxt: string) => Robot;
export { generateModel } from './model.js';
export type { WebModel } from './model.js';

/** Options of `startTestWeb`: seed, size, start time, latency, robots lines, fixed origins. */
export interface TestWebOptions {
  seed?: number;
  articlesPerChannel?: number;
  portals?: number;
  useThucnews?: string | false;
  startTime?: Date;
  slowPageMs?: number;
  /** Milliseconds added to every response of every site (a far-away web; default 0). */
  latencyMs?: number;
  /**
   * The mixed web for the adaptive fetcher: the default web plus seven server-rendered portals and
   * one whose URL patterns differ (server-rendered, JavaScript-built, comments by XHR). The
   * default web's own sites keep their content and truth.
   */
  mixed?: boolean;
  /** Mixed web: the test-web time from which the mixed portal's server-rendered articles turn JavaScript-only. */
  staticTurnsJsAt?: Date;
  /**
   * Every HTML page carries a stylesheet (with a web font), a photo and a pixel from a CDN site on
   * its own loopback address, which answers each after this many ms (what request blocking saves).
   */
  thirdPartyMs?: number;
  /** Lines added to a site's robots.txt, by site key (`news2: 'Disallow: /api/comments'`), for tests of robots handling. */
  extraRobots?: Record<string, string>;
  /** Serve each site exactly at this origin (site key → `http://127.0.0.x:port`), e.g. the origins of an earlier run being resumed. */
  origins?: Record<string, string>;
  /** Serve every site on this port of its own loopback address (127.0.0.2, .3, … in site order), so a config file can name them. */
  port?: number;
}
/** One topic of the test web: its id, label and keywords. */
export interface TopicTruth { id: string; label: string; keywords: string[] }
/** A tunnel of the test web: relevant pages reachable only through irrelevant ones. */
export interface TunnelTruth {
  topic: string;
  /** The off-topic pages a crawler must cross (in order: entry articles, then the door page). */
  via: string[];
  /** Relevant pages reachable only through `via`. */
  cluster: string[];
}
/** A running test web: its sites, topics, ground truth (`isRelevant`, `truth`), clock and `close()`. */
export interface TestWeb {
  sites: { key: string; name: string; kind: 'news' | 'forum' | 'search' | 'misc'; origin: string }[];
  topics: TopicTruth[];
  demo: { topic: string; keywords: string[]; seeds: string[] };
  /** Ignores the fragment; forum.php?mod=viewthread aliases share their thread page's truth. */
  truth(url: string): PageTruth | undefined;
  /**
   * Which page a URL shows, by the generator's own routing (its canonical key, e.g. `forum|/thread-7-2-1.html`):
   * the URL forms of one page (a thread page's static, `viewthread` and "only this author" `authorid` views,
   * a page number past the end) share it. Undefined for a URL the web does not serve.
   */
  pageOf(url: string): string | undefined;
  /** article/thread pages whose topic is topicId (both URL forms of a thread page count). */
  isRelevant(url: string, topicId: string): boolean;
  /** Distinct relevant pages reachable from the demo seeds by a robots-respecting crawler, at clock.now(). */
  relevantTotal(topicId: string): number;
  /** Every 200 text/html page reachable from the seeds (robots ignored; traps not expanded), at clock.now(). */
  pages(): string[];
  clock: { now(): Date; advance(ms: number): void };
  requestLog: RequestLogEntry[];
  /** The CDN site's origin (`thirdPartyMs`); its requests are in `requestLog` too. */
  cdnOrigin?: string;
  /** Extra: tunnels (relevant clusters behind off-topic pages), as absolute URLs. */
  tunnels: TunnelTruth[];
  close(): Promise<void>;
}

export const DEFAULT_START = new Date('2008-06-01T12:00:00+08:00');

export function resolveOptions(opts: TestWebOptions = {}) {
  const seed = opts.seed ?? 42;
  const articlesPerChannel = opts.articlesPerChannel ?? 40;
  const portals = opts.portals ?? 2;
  if (!Number.isInteger(seed)) throw new Error(`testweb: seed must be an integer, got ${seed}`);
  if (!Number.isInteger(articlesPerChannel) || articlesPerChannel < 1) throw new Error(`testweb: articlesPerChannel must be a positive integer, got ${articlesPerChannel}`);
  if (!Number.isInteger(portals) || portals < 1 || portals > 20) throw new Error(`testweb: portals must be an integer 1..20, got ${portals}`);
  const thucnews: string | false = opts.useThucnews && existsSync(opts.useThucnews) ? opts.useThucnews : false;
  return { seed, articlesPerChannel, portals, thucnews, start: opts.startTime ?? DEFAULT_START, slowPageMs: opts.slowPageMs ?? 3000, mixed: !!opts.mixed, staticTurnsJsAt: opts.staticTurnsJsAt?.getTime() };
}

const RELEVANT_KINDS = new Set(['article', 'thread']);
/** Kinds whose links the reachability walk does not follow (infinite or outside the web). */
const NO_EXPAND = new Set(['trap', 'search', 'fault']);

/**
 * Walk the served web from the seeds exactly as a crawler would (rendered HTML, redirects,
 * optionally robots.txt), without HTTP. Returns canonical key → first URL reached.
 */
export function walk(model: WebModel, ctx: Ctx, seeds: string[], site: (url: string) => { site: string; path: string } | undefined, opts: MiscOptions, respectRobots: boolean, avoid: ReadonlySet<string> = new Set()): Map<string, { url: string; truth?: PageTruth; status: number; html: boolean }> {
  const out = new Map<string, { url: string; truth?: PageTruth; status: number; html: boolean }>();
  const robots = new Map<string, Robot>();
  const seen = new Set<string>();
  const queue = seeds.slice();
  while (queue.length) {
    const url = queue.shift()!;
    if (seen.has(url) || avoid.has(url)) continue;
    seen.add(url);
    const loc = site(url);
    if (!loc) continue;
    if (respectRobots) {
      let rp = robots.get(loc.site);
      if (!rp) {
        const s = model.sites.find((x) => x.key === loc.site)!;
        rp = robotsParser(ctx.origin(loc.site) + '/robots.txt', s.robots);
        robots.set(loc.site, rp);
      }
      if (rp.isDisallowed(url, 'testweb-walker')) continue;
    }
    const route = resolve(model, loc.site, loc.path, ctx.now, opts);
    if (!route) continue;
    if (out.has(route.canonical) && route.truth) continue;
    const kind = route.truth?.kind;
    // Do not render the slow/huge/binary pages just to look for links they do not have.
    const r = kind === 'fault' || loc.path === '/archive/all.html' || loc.path === '/slow.html'
      ? { status: kind === 'fault' ? 404 : 200, headers: { 'content-type': kind === 'fault' ? 'x' : 'text/html' }, body: '' }
      : route.respond(ctx);
    if (r.status >= 300 && r.status < 400 && r.headers.location) {
      queue.push(new URL(r.headers.location, url).href);
      continue;
    }
    const isHtml = /text\/html/.test(r.headers['content-type'] ?? '');
    if (route.truth) out.set(route.canonical, { url, truth: route.truth, status: r.status, html: isHtml });
    if (!isHtml || r.status !== 200 || (kind && NO_EXPAND.has(kind))) continue;
    const body = typeof r.body === 'string' ? r.body : '';
    for (const m of body.matchAll(/<(?:a|area|iframe|frame)\b[^>]*?\s(?:href|src)="([^"]*)"/g)) {
      const href = m[1].replace(/&amp;/g, '&');
      if (/^(javascript|mailto):/i.test(href) || href.startsWith('#')) continue;
      let abs: URL;
      try { abs = new URL(href, url); } catch { continue; }
      abs.hash = '';
      if (!seen.has(abs.href)) queue.push(abs.href);
    }
  }
  return out;
}

/** Start the local test web (news sites, forums, a search site on loopback ports) with its ground truth; close it when done. */
export async function startTestWeb(opts: TestWebOptions = {}): Promise<TestWeb> {
  const o = resolveOptions(opts);
  const model = generateModel({ seed: o.seed, articlesPerChannel: o.articlesPerChannel, portals: o.portals, thucnews: o.thucnews, start: o.start, mixed: o.mixed });
  for (const s of model.sites) if (opts.extraRobots?.[s.key]) s.robots += `${opts.extraRobots[s.key].trim()}\n`;
  let now = model.start;
  const requestLog: RequestLogEntry[] = [];
  const misc: MiscOptions = { slowPageMs: o.slowPageMs, staticTurnsJsAt: o.staticTurnsJsAt, latencyMs: opts.latencyMs, thirdPartyMs: opts.thirdPartyMs };
  const fixedPort = opts.port ? Object.fromEntries(model.sites.map((site, i) => [site.key, `http://127.0.0.${i + 2}:${opts.port}`])) : undefined;
  const servers = await startServers(model, () => now, requestLog, misc, opts.origins ?? fixedPort);
  const byOrigin = new Map([...servers.origins].map(([k, v]) => [v, k]));
  const locate = (url: string) => {
    let u: URL;
    try { u = new URL(url); } catch { return undefined; }
    const s = byOrigin.get(u.origin);
    return s ? { site: s, path: u.pathname + u.search } : undefined;
  };
  const ctx = (): Ctx => ({ model, origin: (s) => servers.origins.get(s)!, now });
  const seeds = model.portals.map((p) => servers.origins.get(p.site)! + '/');
  const cache = new Map<string, ReturnType<typeof walk>>();
  const walked = (robots: boolean) => {
    const k = `${now}:${robots}`;
    let w = cache.get(k);
    if (!w) { w = walk(model, ctx(), seeds, locate, misc, robots); cache.set(k, w); }
    return w;
  };
  const truth = (url: string): PageTruth | undefined => {
    const loc = locate(url);
    if (!loc) return undefined;
    return resolve(model, loc.site, loc.path, now, misc)?.truth;
  };
  const pageOf = (url: string): string | undefined => {
    const loc = locate(url);
    return loc ? resolve(model, loc.site, loc.path, now, misc)?.canonical : undefined;
  };
  const abs = (k: string) => { const [s, p] = k.split('|'); return servers.origins.get(s)! + p; };
  const quake = TOPIC_LEXICONS.find((t) => t.id === 'quake')!;
  return {
    sites: model.sites.map((s) => ({ key: s.key, name: s.name, kind: s.kind, origin: servers.origins.get(s.key)! })),
    cdnOrigin: servers.cdnOrigin,
    topics: TOPIC_LEXICONS.map((t) => ({ id: t.id, label: t.label, keywords: t.keywords.slice() })),
    demo: { topic: quake.id, keywords: ['汶川地震', '救援'], seeds },
    truth,
    pageOf,
    isRelevant(url, topicId) {
      const t = truth(url);
      return !!t && RELEVANT_KINDS.has(t.kind) && t.topic === topicId;
    },
    relevantTotal(topicId) {
      let n = 0;
      for (const v of walked(true).values()) if (v.truth && RELEVANT_KINDS.has(v.truth.kind) && v.truth.topic === topicId && v.status === 200) n++;
      return n;
    },
    pages() {
      return [...walked(false).values()].filter((v) => v.status === 200 && v.html).map((v) => v.url);
    },
    clock: {
      now: () => new Date(now),
      advance(ms: number) {
        if (!Number.isFinite(ms) || ms < 0) throw new Error(`clock.advance: ms must be a non-negative number, got ${ms}`);
        now += ms;
      },
    },
    requestLog,
    tunnels: model.tunnels.map((t) => ({ topic: t.topic, via: t.via.map(abs), cluster: t.cluster.map(abs) })),
    close: () => servers.close(),
  };
}
