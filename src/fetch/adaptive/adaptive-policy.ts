/**
 * The adaptive fetcher's decision rule (src/fetch/adaptive/adaptive.ts): URL patterns, the per-pattern
 * policy with its re-checks and text guard, and its evidence kept in the run folder for --resume;
 * the comparison of an HTTP and a browser rendering of one response is ./adaptive-compare.ts
 * (re-exported here). Plain data in, decisions out: no fetching here.
 */
import { Rng } from '../../util/rng.js';
import type { ComparisonLimits, Comparison } from './adaptive-compare.js';
import { hostOf } from '../../frontier/url-key.js';
import { JsonLinesWriter, readJsonLines } from '../../store/jsonl.js';

// ---------------------------------------------------------------- URL patterns

/** A path segment or query value with its digit runs generalised (`n123456.shtml` → `n#.shtml`); long hex ids become `*`. */
function generalise(s: string): string {
  if (/^[0-9a-f-]{16,}$/i.test(s) && /\d/.test(s)) return '*';
  if (s.length > 40) return '*';
  return s.replace(/\d+/g, '#');
}

/**
 * Host + URL shape: path segments and query values with digit runs generalised, query keys
 * sorted. `/news/2008/0512/n123.shtml` and `/news/2008/0601/n9.shtml` share a pattern; a
 * `/live/…` page on the same host does not.
 */
export function urlPattern(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return url;
  }
  const path = u.pathname.split('/').map(generalise).join('/');
  const keys = [...new Set(u.searchParams.keys())].sort();
  const query = keys.map((k) => `${k}=${generalise(u.searchParams.get(k) ?? '')}`).join('&');
  return `${u.host}${path}${query ? '?' + query : ''}`;
}

/** A URL's pattern without its host (`/news/#-#-#/content_#.htm`): what sites built from one template share. */
export function pathPattern(url: string): string {
  const p = urlPattern(url);
  const slash = p.indexOf('/');
  return slash < 0 ? p : p.slice(slash);
}

/** The coarser shape used when a pattern itself has no evidence yet: every letter run generalised too. */
export function urlShape(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return url;
  }
  const path = u.pathname.split('/').map((s) => generalise(s).replace(/[A-Za-z_]+/g, 'a')).join('/');
  const ext = /\.(\w+)$/.exec(u.pathname)?.[1] ?? '';
  return `${u.host}${path}${ext ? '~' + ext : ''}${u.search ? '?' + [...new Set(u.searchParams.keys())].sort().join('&') : ''}`;
}

export { scriptOn } from '../script-free.js';

// ---------------------------------------------------------------- comparing two renderings (./adaptive-compare.ts)

export * from './adaptive-compare.js';

// ---------------------------------------------------------------- the decision rule

export interface AdaptivePolicyOptions extends ComparisonLimits {
  /** Consecutive equivalent comparisons before a pattern is fetched over HTTP. */
  minSamples: number;
  /** After a difference, this many consecutive equivalent comparisons before HTTP again. */
  afterDifference: number;
  /** Share of HTTP-decided pages rendered anyway to re-check the pattern (seeded). */
  recheckShare: number;
  /** An HTTP page whose main text is below this share of the pattern's rendered median is rendered. */
  textGuard: number;
  /** Render every page, compared with nothing (what the fetcher's renders alone cost: the benchmark's split of the ratio). */
  renderAll?: boolean;
  /** Serve patterns that need the browser from their data when a recipe rebuilds the rendering (./adaptive-data.ts); default on. */
  dataPath?: boolean;
  randomSeed: number;
}

export const DEFAULT_POLICY: AdaptivePolicyOptions = {
  minTextF1: 0.95,
  minLinkRecall: 0.95,
  minSamples: 3,
  afterDifference: 10,
  recheckShare: 0.1,
  textGuard: 0.5,
  randomSeed: 1,
};

interface PatternStats {
  compared: number;
  equivalent: number;
  /** Equivalent comparisons since the last difference. */
  streak: number;
  differences: number;
  lastDifference?: { url: string; what: string[] };
  /** Main-text lengths of rendered pages (for the text guard), last 15. */
  textLengths: number[];
  http: number;
  browser: number;
  /** Pages served by the data path (http+data). */
  data: number;
  /** Hosts only: a pattern of the host reached its run of equivalent renderings, and the host never differed. */
  clean?: boolean;
}

export type FetchMode = 'http' | 'http+data' | 'browser';
export interface Decision {
  mode: FetchMode;
  pattern: string;
  /** Why, in words (goes to the crawl log and --explain). */
  why: string;
  /** Rendered although the pattern is decided HTTP: a re-check. */
  recheck?: boolean;
  /** Compare the HTTP analysis with the rendering (false: a pattern that keeps differing, sampled). */
  compare?: boolean;
  /** Rendered to learn the pattern (no difference seen on it yet): other pages of it may wait for the outcome (./adaptive-learning.ts). */
  learning?: boolean;
  /** Rendered because the pattern's HTTP analysis differed (the data path may serve it, ./adaptive-data.ts). */
  needsBrowser?: boolean;
  /** Rendered to re-check the pattern's data path. */
  dataRecheck?: boolean;
}

/**
 * Per host + URL shape: browser until `minSamples` comparisons in a row found the HTTP analysis
 * equivalent (and `afterDifference` in a row after any difference); then HTTP, with a seeded
 * share re-checked in the browser. A pattern never seen falls back to its coarse shape's
 * evidence only when that shape has no difference at all; otherwise the browser (when unsure).
 */
export class AdaptivePolicy {
  readonly opts: AdaptivePolicyOptions;
  private readonly patterns = new Map<string, PatternStats>();
  private readonly shapes = new Map<string, PatternStats>();
  private readonly hosts = new Map<string, PatternStats>();
  /** Evidence by path pattern across hosts (sites built from one template), with the hosts it came from. */
  private readonly paths = new Map<string, PatternStats & { hostsSeen?: Set<string> }>();
  private readonly rng: Rng;
  /** Hosts marked clean, and hosts with any difference (the crawl level of the prior, see required). */
  private cleanHosts = 0;
  private differingHosts = 0;
  /** Each comparison as it is recorded (the run folder's evidence log, replayed by --resume). */
  onEvidence?: (e: AdaptiveEvidence) => void;

  /** `resumedPages`: pages an earlier part of this run fetched (the re-check draws continue on a stream of their own). */
  constructor(opts: Partial<AdaptivePolicyOptions> = {}, resumedPages = 0) {
    this.opts = { ...DEFAULT_POLICY, ...opts };
    this.rng = new Rng(this.opts.randomSeed).fork(resumedPages ? `adaptive-recheck:${resumedPages}` : 'adaptive-recheck');
  }

  /** A comparison read back from the evidence log (--resume): counted as if just made. */
  replay(e: AdaptiveEvidence): void {
    this.apply(e.url, e.equivalent, e.differences, e.textLength);
  }

  private stats(map: Map<string, PatternStats>, k: string): PatternStats {
    let s = map.get(k);
    if (!s) map.set(k, (s = { compared: 0, equivalent: 0, streak: 0, differences: 0, textLengths: [], http: 0, browser: 0, data: 0 }));
    return s;
  }

  /**
   * Equivalent renderings in a row a pattern of `host` needs before HTTP: a hierarchical prior,
   * crawl → host → pattern. On a clean host (one of its patterns reached its run and the host
   * never differed) one is enough: the host's evidence is the prior. On a host still learning its
   * first pattern, one fewer than minSamples when the crawl's other hosts make a new host more
   * likely server-rendered than not: the Laplace estimate (clean + 1) / (clean + differing + 2)
   * over one half, resting on at least two clean hosts (a crawl across many sites of one kind,
   * each learned host shortens the next one's learning). Any difference on the host restores
   * the full count for all its patterns.
   */
  private required(hostKey: string): number {
    const host = this.hosts.get(hostKey);
    if (host && host.differences > 0) return this.opts.minSamples;
    if (host?.clean) return 1;
    const crawlPrior = this.cleanHosts >= 2 && this.cleanHosts > this.differingHosts;
    return Math.max(1, this.opts.minSamples - (crawlPrior ? 1 : 0));
  }

  /** Enough equivalent renderings in a row (the whole afterDifference run once it differed). */
  private settled(s: PatternStats | undefined, hostKey: string): boolean {
    if (!s) return false;
    if (s.differences > 0) return s.streak >= Math.max(this.opts.afterDifference, this.opts.minSamples);
    return s.streak >= this.required(hostKey);
  }

  /**
   * Sites built from one template (a CMS) share path patterns across hosts: an unseen pattern may
   * go over HTTP when the same path pattern was equivalent `minSamples` times in a row on at
   * least two other hosts and never differed anywhere. A host where it is JavaScript-only after
   * all is caught by the text guard (the path's rendered median) and the re-checks, and its
   * difference ends the cross-host evidence for that path.
   */
  private templateSettled(url: string): boolean {
    const t = this.paths.get(pathPattern(url));
    if (!t || t.differences > 0 || t.streak < this.opts.minSamples) return false;
    const others = [...(t.hostsSeen ?? [])].filter((h) => h !== hostOf(url));
    return others.length >= 2;
  }

  decide(url: string): Decision {
    const pattern = urlPattern(url);
    const p = this.patterns.get(pattern);
    const shape = this.shapes.get(urlShape(url));
    const host = hostOf(url);
    const own = p !== undefined && p.compared > 0;
    let d: Decision;
    /** The evidence an HTTP decision rests on (its run of agreements sets the re-check share). */
    let evidence: PatternStats | undefined;
    if (own && this.settled(p, host)) {
      d = { mode: 'http', pattern, why: `pattern ${pattern}: ${p.streak} rendering(s) in a row gave the same analysis over HTTP` };
      evidence = p;
    } else if (own && p.streak < p.compared && p.lastDifference) {
      // A pattern that differed on its last renderings (a JavaScript site) is compared only on
      // a seeded share of its pages: the comparison costs a second analysis on every render.
      const compare = p.streak > 0 || p.differences < this.opts.minSamples || this.rng.float() < this.opts.recheckShare;
      d = { mode: 'browser', pattern, why: `pattern ${pattern} needs the browser: ${p.lastDifference.what.join('; ')} (on ${p.lastDifference.url}); ${p.streak} equivalent since`, compare, needsBrowser: true };
    } else if (shape && shape.differences === 0 && this.settled(shape, host)) {
      // Also for a pattern of its own still short of minSamples but never different: agreeing
      // renderings (a re-check of a pattern decided by its shape or template) never cost more
      // renderings than none would have (they used to put the pattern back to learning).
      d = { mode: 'http', pattern, why: `${own ? 'pattern' : 'new pattern'} ${pattern}; its URL shape ${urlShape(url)} gave the same analysis over HTTP ${shape.streak} times, never different` };
      evidence = shape;
    } else if (this.templateSettled(url)) {
      const t = this.paths.get(pathPattern(url))!;
      const others = [...t.hostsSeen!].filter((h) => h !== hostOf(url)).length;
      d = { mode: 'http', pattern, why: `${own ? 'pattern' : 'new pattern'} ${pattern}; path ${pathPattern(url)} gave the same analysis over HTTP ${t.streak} times on ${others} other hosts, never different` };
      evidence = t;
    } else if (own) {
      d = { mode: 'browser', pattern, why: `learning pattern ${pattern}: ${p.streak} of ${this.required(host)} equivalent renderings so far`, learning: true };
    } else {
      d = { mode: 'browser', pattern, why: `learning pattern ${pattern}: not rendered yet (${this.required(host)} equivalent needed)`, learning: true };
    }
    const share = d.mode === 'http' ? this.recheckShareOf(evidence) : 0;
    if (share > 0 && this.rng.float() < share) {
      d = { mode: 'browser', pattern, why: `re-check (${(share * 100).toFixed(share < 0.1 ? 1 : 0)}% of this pattern's HTTP pages are rendered): ${d.why}`, recheck: true };
    }
    return d;
  }

  /**
   * Equivalent renderings the page's pattern still needs when `decide` would render it to learn
   * (no difference on it, not decided by itself, its shape or its template); undefined otherwise.
   * Draws nothing from the re-check stream, so asking does not change later decisions.
   */
  learningNeed(url: string): number | undefined {
    const p = this.patterns.get(urlPattern(url));
    const host = hostOf(url);
    if (p && p.differences > 0) return undefined;
    if (p && p.compared > 0 && this.settled(p, host)) return undefined;
    const shape = this.shapes.get(urlShape(url));
    if ((shape && shape.differences === 0 && this.settled(shape, host)) || this.templateSettled(url)) return undefined;
    return this.required(host) - (p?.streak ?? 0);
  }

  /**
   * The share of a pattern's HTTP pages rendered to re-check it: `recheckShare` while the run of
   * equivalent renderings its decision rests on (its own, or its shape's or template's when
   * those decided) is short, falling as minSamples/streak with each further agreement, to a
   * quarter of it at the least: a long run of agreements makes a change less likely per page,
   * and each re-check is a rendering. A change is still caught, later, by these and at once by
   * the text guard.
   */
  private recheckShareOf(evidence: PatternStats | undefined): number {
    const base = this.opts.recheckShare;
    if (!evidence || evidence.compared === 0 || evidence.streak <= this.opts.minSamples) return base;
    return Math.max(base / 4, (base * this.opts.minSamples) / evidence.streak);
  }

  /**
   * The text guard: an HTTP-decided page whose main text is far shorter than what rendering gave
   * on this pattern is probably a JavaScript shell (the site changed, or the pattern mixes page
   * kinds): render it. Returns the reason, or undefined when the page looks fine.
   */
  guard(url: string, httpTextLength: number): string | undefined {
    // The most specific evidence that has rendered lengths: a pattern fetched only over HTTP so far
    // (decided by its shape or template, counted by `count`) has stats but no renderings, and
    // must not hide the shape's or the path's median (clean-clone CI: a mixed site's pattern,
    // decided by template, turned JavaScript-only and three empty HTTP pages passed unguarded).
    const p = [this.patterns.get(urlPattern(url)), this.shapes.get(urlShape(url)), this.paths.get(pathPattern(url))].find((s) => s !== undefined && s.textLengths.length > 0);
    if (!p) return undefined;
    const sorted = [...p.textLengths].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)];
    if (median > 0 && httpTextLength < this.opts.textGuard * median) {
      return `HTTP main text ${httpTextLength} chars, under ${Math.round(this.opts.textGuard * 100)}% of this pattern's rendered median ${median}`;
    }
    return undefined;
  }

  /** Record a comparison made on a rendered page. */
  record(url: string, c: Comparison, renderedTextLength: number): void {
    this.apply(url, c.equivalent, c.differences, renderedTextLength);
    this.onEvidence?.({ url, equivalent: c.equivalent, differences: c.differences, textLength: renderedTextLength });
  }

  private apply(url: string, equivalent: boolean, differences: string[], renderedTextLength: number): void {
    const path = this.stats(this.paths, pathPattern(url)) as PatternStats & { hostsSeen?: Set<string> };
    (path.hostsSeen ??= new Set()).add(hostOf(url));
    const host = this.stats(this.hosts, hostOf(url));
    const pattern = this.stats(this.patterns, urlPattern(url));
    if (!equivalent) {
      if (host.clean) this.cleanHosts--;
      if (host.differences === 0) this.differingHosts++;
      host.clean = false;
    }
    for (const s of [pattern, this.stats(this.shapes, urlShape(url)), host, path]) {
      s.compared++;
      if (equivalent) {
        s.equivalent++;
        s.streak++;
      } else {
        s.differences++;
        s.streak = 0;
        s.lastDifference = { url, what: differences };
      }
      s.textLengths.push(renderedTextLength);
      if (s.textLengths.length > 15) s.textLengths.shift();
    }
    // a host that never differed reached a run (in one pattern, or over its patterns): it is clean
    if (equivalent && host.differences === 0 && !host.clean && Math.max(pattern.streak, host.streak) >= this.required(hostOf(url))) {
      host.clean = true;
      this.cleanHosts++;
    }
  }

  /** Count what was done (for the summary). */
  count(url: string, mode: FetchMode): void {
    this.stats(this.patterns, urlPattern(url))[mode === 'http+data' ? 'data' : mode]++;
  }

  /** Per pattern: mode it would take now, counts and evidence (summary, tests). */
  table(): { pattern: string; mode: FetchMode; compared: number; equivalent: number; http: number; browser: number; data: number; lastDifference?: string }[] {
    return [...this.patterns.entries()].map(([pattern, s]) => ({
      pattern,
      mode: this.settled(s, pattern.split('/')[0]) ? 'http' : 'browser',
      compared: s.compared,
      equivalent: s.equivalent,
      http: s.http,
      browser: s.browser,
      data: s.data,
      lastDifference: s.lastDifference?.what.join('; '),
    }));
  }
}

/** One comparison, as the run folder keeps it (`adaptive-evidence.jsonl`). */
export interface AdaptiveEvidence {
  url: string;
  equivalent: boolean;
  differences: string[];
  /** Main-text length of the rendering (the text guard's reference). */
  textLength: number;
}

/**
 * The crawl's policy with its evidence kept in the run folder: every comparison is appended as
 * it is made (synchronously, before the page's crawl-log line), and `--resume` replays those of
 * pages the crawl log has, so a resumed crawl decides as the interrupted one would have instead
 * of learning every pattern again.
 */
export function openAdaptivePolicy(
  opts: Partial<AdaptivePolicyOptions>,
  evidenceFile: string,
  resumed?: { log: { url: string; fetchedWith?: FetchMode }[]; fetched(url: string): boolean },
): { policy: AdaptivePolicy; close(): void } {
  const policy = new AdaptivePolicy(opts, resumed?.log.length ?? 0);
  if (resumed) {
    for (const e of readJsonLines<AdaptiveEvidence>(evidenceFile)) if (resumed.fetched(e.url)) policy.replay(e);
    for (const e of resumed.log) if (e.fetchedWith) policy.count(e.url, e.fetchedWith);
  }
  const log = new JsonLinesWriter<AdaptiveEvidence>(evidenceFile);
  policy.onEvidence = (e) => log.append(e);
  return { policy, close: () => log.close() };
}
