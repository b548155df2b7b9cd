/** URL filter, site table and site cutoff: METHODS §3.6 (seed 002). */
import { refill } from './state-data.js';

/** What the URL filter drops: extensions, path ends, domains, search-result URLs, repetitive paths. */
export interface UrlFilterOptions {
  skipExtensions: readonly string[];
  /** Drop paths whose last segment (extension removed) is one of these; empty = keep all. */
  skipPathEnds: readonly string[];
  anchorStoplist: readonly string[];
  stoplistWeight: number;
  allowDomains: readonly string[];
  denyDomains: readonly string[];
  /** Query keys that mark a search-results URL (an unbounded URL space); empty = keep all. */
  skipQueryKeys?: readonly string[];
  /** Most times one path segment or query word may repeat in a URL (0 = no limit). */
  maxRepeats?: number;
}

/** The URL filter's answer: keep or drop, with the reason. */
export interface UrlFilterResult {
  keep: boolean;
  reason?: 'scheme' | 'not-a-page' | 'extension' | 'path-end' | 'denied-domain' | 'not-allowed-domain' | 'bad-url' | 'search-results' | 'repetitive';
  /** 1, or the stoplist weight when the anchor text is a stopword (weakens, never drops). */
  weight: number;
}

/** `example.com` matches the host and its subdomains; `host:port` matches that origin's host exactly. */
function domainMatches(u: URL, domain: string): boolean {
  const d = domain.toLowerCase().replace(/^\.+/, '');
  if (d.includes(':')) return u.host.toLowerCase() === d;
  const host = u.hostname.toLowerCase();
  return host === d || host.endsWith('.' + d);
}

/** §3.6 URL filter. Links come from a/area/frame/iframe; `img` is kept for the graph only. */
export function urlFilter(url: string, link: { tag?: string; anchorText?: string }, opts: UrlFilterOptions): UrlFilterResult {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return { keep: false, reason: 'bad-url', weight: 0 };
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return { keep: false, reason: 'scheme', weight: 0 };
  if (link.tag === 'img') return { keep: false, reason: 'not-a-page', weight: 0 };
  if (opts.denyDomains.some((d) => domainMatches(u, d))) return { keep: false, reason: 'denied-domain', weight: 0 };
  if (opts.allowDomains.length > 0 && !opts.allowDomains.some((d) => domainMatches(u, d))) {
    return { keep: false, reason: 'not-allowed-domain', weight: 0 };
  }
  const last = decodeSafe(u.pathname.split('/').pop() ?? '').toLowerCase();
  const dot = last.lastIndexOf('.');
  const ext = dot > 0 ? last.slice(dot + 1) : '';
  if (ext && opts.skipExtensions.some((e) => e.toLowerCase().replace(/^\./, '') === ext)) return { keep: false, reason: 'extension', weight: 0 };
  const stem = dot > 0 ? last.slice(0, dot) : last;
  if (stem && opts.skipPathEnds.some((p) => p.toLowerCase() === stem)) return { keep: false, reason: 'path-end', weight: 0 };
  if (opts.skipQueryKeys?.length && [...u.searchParams.keys()].some((k) => opts.skipQueryKeys!.includes(k.toLowerCase()))) {
    return { keep: false, reason: 'search-results', weight: 0 };
  }
  if (opts.maxRepeats && pathologicalRepetition(u, opts.maxRepeats)) return { keep: false, reason: 'repetitive', weight: 0 };
  const anchor = (link.anchorText ?? '').trim().toLowerCase();
  const stop = anchor.length > 0 && opts.anchorStoplist.some((s) => s.toLowerCase() === anchor);
  return { keep: true, weight: stop ? opts.stoplistWeight : 1 };
}

/**
 * Spider-trap guard beyond METHODS §3.6 (after Heritrix's PathologicalPathDecideRule): a URL
 * in which one path segment, or one word of a query value, occurs more than `maxRepeats`
 * times is machine-generated (`/a/a/a/…`, `?wd=图片 图片 图片`), not a page anyone linked on purpose.
 */
export function pathologicalRepetition(u: URL, maxRepeats: number): boolean {
  const over = (parts: string[]) => {
    const n = new Map<string, number>();
    for (const p of parts) {
      if (!p) continue;
      const c = (n.get(p) ?? 0) + 1;
      if (c > maxRepeats) return true;
      n.set(p, c);
    }
    return false;
  };
  if (over(u.pathname.split('/').map(decodeSafe))) return true;
  for (const v of u.searchParams.values()) if (over(v.split(/[\s+,]+/))) return true;
  return false;
}

function decodeSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** One site's fetched and relevant pages, for the site cutoff. */
export interface SiteStats {
  pages: number;
  relevant: number;
}

/** §3.6 site cutoff: a site is cut once more than `cutoff` of its pages were irrelevant (0 = every page must be relevant). */
export function siteCutoff(stats: SiteStats | undefined, cutoff: number): boolean {
  if (!stats) return false;
  return stats.pages - stats.relevant > cutoff;
}

/** §3.6 site table: fetched and relevant pages per host, and a site relevance for a small bonus. */
export class SiteTable {
  private readonly sites = new Map<string, SiteStats>();

  /** Pages and relevant pages recorded over all hosts. */
  pages = 0;
  relevantPages = 0;

  record(host: string, relevant: boolean): SiteStats {
    let s = this.sites.get(host);
    if (!s) this.sites.set(host, (s = { pages: 0, relevant: 0 }));
    s.pages++;
    this.pages++;
    if (relevant) s.relevant++, this.relevantPages++;
    return s;
  }

  get(host: string): SiteStats | undefined {
    return this.sites.get(host);
  }

  /** relevant / fetched pages of the host; 0 for a host not fetched yet. */
  relevance(host: string): number {
    const s = this.sites.get(host);
    return s && s.pages > 0 ? s.relevant / s.pages : 0;
  }

  isCut(host: string, cutoff: number): boolean {
    return siteCutoff(this.sites.get(host), cutoff);
  }

  entries(): IterableIterator<[string, SiteStats]> {
    return this.sites.entries();
  }

  /** Its state as plain data, live (serialise it before the next record), for a scorer snapshot (src/score/state-data.ts). */
  state(): SiteTableState {
    return { v: 1, sites: this.sites, pages: this.pages, relevantPages: this.relevantPages };
  }

  restore(s: SiteTableState): void {
    refill(this.sites, s.sites);
    this.pages = s.pages;
    this.relevantPages = s.relevantPages;
  }
}

/** A SiteTable's saved state (for resume). */
export interface SiteTableState {
  v: 1;
  sites: Map<string, SiteStats>;
  pages: number;
  relevantPages: number;
}
