/**
 * The adaptive fetcher's third way (`fetchedWith: 'http+data'`): a page whose text a script puts
 * into the DOM from data — JSON carried inline (`__NEXT_DATA__`, `var ARTICLE_DATA = {…}`) or
 * fetched from the site's API (`/api/article/123.json`, a comment widget's `/api/comments?aid=…`)
 * — is analysed from its HTTP bytes with that data put where the browser put it, without a render.
 *
 * Per URL pattern (the plain-HTTP rule's, src/fetch/adaptive/adaptive-policy.ts), learnt on the renders the
 * fetcher makes anyway on patterns that need the browser: from the HTTP page, the rendering and
 * the JSON the page had (inline blocks, the render's captured XHR/fetch JSON) a recipe is induced
 * — which containers the script filled and how (src/extract/data-template.ts), where each JSON
 * block comes from on the next page (its inline key, or a URL template, ./adaptive-data-url.ts) —
 * and checked with the SAME comparison as plain HTTP (main text shingles, out-links, title,
 * publish time, replies incl. XHR comments fed from the API's JSON). A recipe that rebuilt
 * `minSamples` renderings in a row (the one it was induced on included) serves the pattern; a
 * seeded share of its pages is still rendered and compared (a failed re-check, or data that
 * cannot be had, drops it and the pattern renders again); the text guard applies as for HTTP.
 * The patterns' states are kept in the run folder (`adaptive-data.jsonl`, openDataPaths) so that
 * `--resume` serves settled patterns from their data at once instead of learning them again.
 *
 * The data path must not cost more than it saves: its API requests take the host's politeness
 * slots like pages (a site with a crawl delay pays it again for every page's JSON), where the
 * browser's own sub-requests do not. So each pattern's pages are timed on both paths as they are
 * fetched (the data path: API, fill and analysis; a rendering: the render and its analysis), and
 * a settled recipe serves only while its mean time per page is below the renderings' (after
 * `COST_SAMPLES` of each); otherwise the pattern renders, with the re-check share still served
 * from its data so that the comparison follows the load.
 */
import { analyzePage, type AnalysisLimits } from '../../extract/page.js';
import { applyFills, induceFills, renumberSources, sourcesUsed, type Fill } from '../../extract/data-template.js';
import { inlineJsonOf } from '../../extract/inline-json.js';
import { DEFAULT_TIME_ZONE } from '../../extract/replies/index.js';
import { commentsFromXhr } from '../../extract/replies/xhr.js';
import { JsonLinesWriter, readJsonLines } from '../../store/jsonl.js';
import { Rng } from '../../util/rng.js';
import { compareRenderings, signalsOf, type Comparison, type ComparisonLimits, type PageSignals } from './adaptive-compare.js';
import { describeTemplate, learnUrlTemplates, urlFromTemplate, type UrlTemplate } from './adaptive-data-url.js';
import { urlPattern, type Decision } from './adaptive-policy.js';

export type DataSource = { kind: 'inline'; key: string } | { kind: 'api'; urls: UrlTemplate[] };

export interface DataRecipe {
  sources: DataSource[];
  fills: Fill[];
}

export interface Xhr {
  url: string;
  json: unknown;
}

/** The data one page gives a recipe: a JSON value per source, and the API responses (the thread analysis reads them as the browser's XHR capture). */
export interface PageData {
  values: unknown[];
  xhr: Xhr[];
}

export class DataUnavailable extends Error {}

const hasComments = (x: Xhr, at: Date) => (commentsFromXhr([x], at, DEFAULT_TIME_ZONE)?.posts.length ?? 0) > 0;

/** A recipe from one page's HTTP HTML, its rendering and captured XHR JSON; or why there is none. */
export function induceRecipe(page: { url: string; httpHtml: string; renderedHtml: string; xhr: Xhr[]; fetchedAt: Date }): { recipe?: DataRecipe; why: string } {
  const inline = inlineJsonOf(page.httpHtml);
  const xhr = [...new Map(page.xhr.map((x) => [x.url, x])).values()];
  const all = [...inline.map((b) => b.json), ...xhr.map((x) => x.json)];
  const fills = induceFills(page.httpHtml, page.renderedHtml, all);
  const used = sourcesUsed(fills);
  xhr.forEach((x, i) => hasComments(x, page.fetchedAt) && used.add(inline.length + i));
  if (used.size === 0) return { why: `none of the rendered changes is in the page's JSON (${inline.length} inline block(s), ${xhr.length} XHR JSON response(s))` };
  const sources: DataSource[] = [];
  const renumber = new Map<number, number>();
  for (const i of [...used].sort((a, b) => a - b)) {
    renumber.set(i, sources.length);
    if (i < inline.length) {
      sources.push({ kind: 'inline', key: inline[i].key });
      continue;
    }
    const x = xhr[i - inline.length];
    const urls = learnUrlTemplates(x.url, page.url, page.httpHtml).filter((t) => urlFromTemplate(t, page.url, page.httpHtml) === new URL(x.url).href);
    if (!urls.length) return { why: `the page's request ${x.url} cannot be named from its URL or HTML` };
    sources.push({ kind: 'api', urls });
  }
  return { recipe: { sources, fills: renumberSources(fills, renumber) }, why: describeRecipe({ sources, fills: [] }) };
}

export function describeRecipe(r: DataRecipe): string {
  const src = r.sources.map((s) => (s.kind === 'inline' ? `inline ${s.key}` : `API ${describeTemplate(s.urls[0])}`)).join(', ');
  return `${src}${r.fills.length ? ` into ${r.fills.map((f) => f.selector).join(', ')}` : ''}`;
}

/**
 * The recipe's data on a page: inline blocks from its HTML, API responses by `api(url)` (the
 * render's capture when learning, a gated fetch on the data path). Throws DataUnavailable.
 */
export async function dataOf(recipe: DataRecipe, pageUrl: string, html: string, api: (urls: string[]) => Promise<Xhr | undefined>): Promise<PageData> {
  const inline = recipe.sources.some((s) => s.kind === 'inline') ? new Map(inlineJsonOf(html).map((b) => [b.key, b.json])) : new Map<string, unknown>();
  const values: unknown[] = [];
  const xhr: Xhr[] = [];
  for (const s of recipe.sources) {
    if (s.kind === 'inline') {
      if (!inline.has(s.key)) throw new DataUnavailable(`no inline ${s.key} on the page`);
      values.push(inline.get(s.key));
      continue;
    }
    // the first template (the most specific still standing) that names a request on this page
    const url = s.urls.map((t) => urlFromTemplate(t, pageUrl, html)).find((u) => u !== undefined);
    if (!url) throw new DataUnavailable(`the page does not name its API request (${describeTemplate(s.urls[0])})`);
    const got = await api([url]);
    if (!got) throw new DataUnavailable(`no JSON from ${url}`);
    values.push(got.json);
    xhr.push(got);
  }
  return { values, xhr };
}

/** The page as the data path analyses it: HTML with the containers filled, and its API JSON for the thread analysis. */
export function dataPage(recipe: DataRecipe, httpHtml: string, data: PageData): string {
  return applyFills(httpHtml, recipe.fills, data.values);
}

/**
 * Keep the URL templates that named a request the browser really made on this page (several may
 * fit the page they were learnt on: a fixed URL, a page-URL token, a data-* attribute). A source
 * left with none keeps its list, and the check that follows fails on it.
 */
function narrowUrls(recipe: DataRecipe, page: { url: string; httpHtml: string; xhr: Xhr[] }): void {
  const made = new Set(page.xhr.map((x) => new URL(x.url).href));
  for (const s of recipe.sources) {
    if (s.kind !== 'api') continue;
    const kept = s.urls.filter((t) => {
      const u = urlFromTemplate(t, page.url, page.httpHtml);
      return u !== undefined && made.has(u);
    });
    if (kept.length) s.urls = kept;
  }
}

export interface DataStats {
  recipe?: DataRecipe;
  /** Renderings in a row the recipe rebuilt (the one it was induced on counts). */
  streak: number;
  /** Inductions in a row that found no recipe (a pattern whose text is computed, not carried). */
  refusals: number;
  /** Renderings in a row the recipe must rebuild before it serves: minSamples, or 1 for a recipe borrowed from a settled sibling pattern. */
  needs: number;
  last?: string;
}

export interface DataPathOptions extends ComparisonLimits {
  minSamples: number;
  recheckShare: number;
  randomSeed: number;
  limits?: Partial<AnalysisLimits>;
}

/** What learning on one render found (the crawl log's words). */
export interface DataLesson {
  equivalent: boolean;
  why: string;
  comparison?: Comparison;
}

/** One pattern's state after a lesson or a failure on page `url`, as the run folder keeps it (`adaptive-data.jsonl`). */
export interface DataPathEvent {
  url: string;
  pattern: string;
  state: DataStats;
}

/** Pages timed on each path before a pattern's data path is judged by its cost. */
export const COST_SAMPLES = 3;

/** A running mean of wall time per page, weighted to the recent pages (the load moves). */
class PathCost {
  n = 0;
  meanMs = 0;
  add(ms: number): void {
    this.n++;
    this.meanMs += (ms - this.meanMs) / Math.min(this.n, 8);
  }
}

export class DataPaths {
  private readonly patterns = new Map<string, DataStats>();
  /** Each pattern's time per page on the data path and when rendered (not kept across --resume: measured again). */
  private readonly costs = new Map<string, { data: PathCost; render: PathCost }>();
  private readonly rng: Rng;
  /** Each pattern's state as it changes (the run folder's log, replayed by --resume); written before the page's crawl-log line. */
  onChange?: (e: DataPathEvent) => void;

  /** `resumedPages`: pages an earlier part of this run fetched (the re-check draws continue on a stream of their own, as the policy's). */
  constructor(private readonly opts: DataPathOptions, resumedPages = 0) {
    this.rng = new Rng(opts.randomSeed).fork(resumedPages ? `adaptive-data-recheck:${resumedPages}` : 'adaptive-data-recheck');
  }

  /** A state read back from the run folder's log (--resume): the pattern's state as it was after that page. */
  replay(e: DataPathEvent): void {
    this.patterns.set(e.pattern, structuredClone(e.state));
  }

  private changed(url: string): void {
    const pattern = urlPattern(url);
    const state = this.patterns.get(pattern);
    if (state && this.onChange) this.onChange({ url, pattern, state });
  }

  /** Patterns whose recipe serves now (tests, the summary). */
  settled(): string[] {
    return [...this.patterns].filter(([, s]) => s.recipe && s.streak >= s.needs).map(([k]) => k);
  }

  private stats(url: string): DataStats {
    const k = urlPattern(url);
    let s = this.patterns.get(k);
    if (!s) this.patterns.set(k, (s = { streak: 0, refusals: 0, needs: this.opts.minSamples }));
    return s;
  }

  /** The data path for a page whose pattern needs the browser: http+data when its recipe is settled (a seeded share re-checked), else undefined. */
  decide(url: string): Decision | undefined {
    const s = this.patterns.get(urlPattern(url));
    if (!s?.recipe || s.streak < s.needs) return undefined;
    const pattern = urlPattern(url);
    const why = `pattern ${pattern} needs the browser, but its data rebuilt ${s.streak} rendering(s) in a row: ${describeRecipe(s.recipe)}`;
    // the plain rule's re-check share (src/fetch/adaptive/adaptive-policy.ts recheckShareOf): falling as the run grows, a quarter at the least
    const base = this.opts.recheckShare;
    const share = s.streak <= this.opts.minSamples ? base : Math.max(base / 4, (base * this.opts.minSamples) / s.streak);
    const draw = this.rng.float();
    if (draw < share) return { mode: 'browser', pattern, why: `re-check of the data path (${(share * 100).toFixed(share < 0.1 ? 1 : 0)}%): ${why}`, recheck: true, dataRecheck: true };
    const cost = this.costs.get(pattern);
    // A costlier data path renders, but a re-check share (the draws above 1 − share) is still
    // served from the data, so the two costs stay measured.
    if (cost && cost.data.n >= COST_SAMPLES && cost.render.n >= COST_SAMPLES && cost.data.meanMs > cost.render.meanMs && draw < 1 - share) {
      return { mode: 'browser', pattern, why: `${why}, but its data path takes ${Math.round(cost.data.meanMs)} ms a page against ${Math.round(cost.render.meanMs)} ms to render: render`, needsBrowser: true };
    }
    return { mode: 'http+data', pattern, why: cost && cost.data.n >= COST_SAMPLES && cost.render.n >= COST_SAMPLES ? `${why} (${Math.round(cost.data.meanMs)} ms a page against ${Math.round(cost.render.meanMs)} ms to render)` : why };
  }

  /** A page of `url`'s pattern took `ms` on the data path, or rendered (a pattern that needs the browser). */
  observeCost(url: string, path: 'data' | 'render', ms: number): void {
    const pattern = urlPattern(url);
    let c = this.costs.get(pattern);
    if (!c) this.costs.set(pattern, (c = { data: new PathCost(), render: new PathCost() }));
    c[path].add(ms);
  }

  /** A pattern's mean time per page on each path so far (the summary, tests). */
  costOf(url: string): { data: { n: number; meanMs: number }; render: { n: number; meanMs: number } } | undefined {
    const c = this.costs.get(urlPattern(url));
    return c && { data: { n: c.data.n, meanMs: c.data.meanMs }, render: { n: c.render.n, meanMs: c.render.meanMs } };
  }

  recipeFor(url: string): DataRecipe | undefined {
    return this.patterns.get(urlPattern(url))?.recipe;
  }

  /** Learn on a render of a page that needs the browser? Always until a recipe is settled; after repeated refusals, a seeded share. */
  wantsLesson(url: string): boolean {
    const s = this.patterns.get(urlPattern(url));
    if (!s || s.refusals < this.opts.minSamples) return true;
    return this.rng.float() < this.opts.recheckShare;
  }

  /** The data path on an http+data page could not be had (data missing, API failed): the pattern renders again until re-learnt. */
  failed(url: string, why: string): void {
    const s = this.stats(url);
    s.streak = 0;
    s.recipe = undefined;
    s.last = why;
    this.changed(url);
  }

  /** Learn from one rendering: check the pattern's recipe on it, or induce one from it. */
  async learn(page: { url: string; httpHtml: string; renderedHtml: string; xhr: Xhr[]; fetchedAt: Date; browser: PageSignals }): Promise<DataLesson> {
    const lesson = await this.lesson(page);
    this.changed(page.url);
    return lesson;
  }

  private async lesson(page: { url: string; httpHtml: string; renderedHtml: string; xhr: Xhr[]; fetchedAt: Date; browser: PageSignals }): Promise<DataLesson> {
    const s = this.stats(page.url);
    const captured = (urls: string[]) => Promise.resolve(page.xhr.find((x) => urls.includes(new URL(x.url).href)));
    let before = '';
    if (s.recipe) {
      narrowUrls(s.recipe, page);
      const check = await this.check(s.recipe, page, captured);
      if (check.equivalent) {
        s.streak++;
        return { ...check, why: `data path (${describeRecipe(s.recipe)}) rebuilt it: ${s.streak} in a row` };
      }
      before = `the pattern's recipe failed here (${check.why}); `;
      s.recipe = undefined;
      s.streak = 0;
    } else {
      const borrowed = await this.borrow(page, captured);
      if (borrowed) return borrowed;
    }
    s.needs = this.opts.minSamples;
    const induced = induceRecipe(page);
    if (!induced.recipe) {
      s.refusals++;
      s.last = induced.why;
      return { equivalent: false, why: `${before}no data path: ${induced.why}` };
    }
    const check = await this.check(induced.recipe, page, captured);
    if (!check.equivalent) {
      s.refusals++;
      s.last = check.why;
      return { ...check, why: `${before}no data path: ${describeRecipe(induced.recipe)} does not rebuild the rendering (${check.why})` };
    }
    s.refusals = 0;
    s.recipe = induced.recipe;
    s.streak = 1;
    return { ...check, why: `${before}data path learnt (${describeRecipe(induced.recipe)}): 1 of ${this.opts.minSamples}` };
  }

  /**
   * A hierarchical prior, as the plain-HTTP rule's (crawl → host → pattern): a site's page kinds
   * are usually built by one script (its channels' article patterns), and sites built from one
   * template share path patterns across hosts. A recipe settled on another pattern of the page's
   * host, or on its path pattern on another host, that rebuilds this rendering serves the pattern
   * after this one rendering (a failure on a later re-check or page drops it like any recipe).
   */
  private async borrow(page: { url: string; httpHtml: string; renderedHtml: string; xhr: Xhr[]; fetchedAt: Date; browser: PageSignals }, api: (urls: string[]) => Promise<Xhr | undefined>): Promise<DataLesson | undefined> {
    const own = urlPattern(page.url);
    const split = (k: string) => {
      const slash = k.indexOf('/');
      return slash < 0 ? [k, ''] : [k.slice(0, slash), k.slice(slash)];
    };
    const [host, path] = split(own);
    const siblings = [...this.patterns].filter(([k, t]) => k !== own && t.recipe && t.streak >= t.needs && t.needs === this.opts.minSamples && (split(k)[0] === host || split(k)[1] === path));
    for (const [k, t] of siblings.slice(0, 4)) {
      const recipe = structuredClone(t.recipe!);
      narrowUrls(recipe, page);
      const check = await this.check(recipe, page, api);
      if (!check.equivalent) continue;
      const s = this.stats(page.url);
      Object.assign(s, { recipe, streak: 1, needs: 1, refusals: 0 });
      return { ...check, why: `data path of pattern ${k} (${describeRecipe(recipe)}) rebuilt it: serves this pattern too` };
    }
    return undefined;
  }

  private async check(recipe: DataRecipe, page: { url: string; httpHtml: string; fetchedAt: Date; browser: PageSignals }, api: (urls: string[]) => Promise<Xhr | undefined>): Promise<DataLesson> {
    let html: string;
    let data: PageData;
    try {
      data = await dataOf(recipe, page.url, page.httpHtml, api);
      html = dataPage(recipe, page.httpHtml, data);
    } catch (e) {
      return { equivalent: false, why: (e as Error).message };
    }
    const analysis = analyzePage({ html, url: page.url, fetchedAt: page.fetchedAt }, { limits: this.opts.limits });
    const comparison = compareRenderings(signalsOf(analysis, html, data.xhr, page.fetchedAt), page.browser, this.opts);
    return { equivalent: comparison.equivalent, comparison, why: comparison.equivalent ? 'same analysis' : comparison.differences.join('; ') };
  }
}

/**
 * An http+data page: its recipe's data (API calls through `api`, the fetch gate's path), the HTML
 * with the containers filled and its analysis; or why it cannot be served that way.
 */
export async function serveFromData(
  paths: DataPaths,
  page: { url: string; html: string; fetchedAt: Date; limits?: Partial<AnalysisLimits> },
  api: (urls: string[]) => Promise<Xhr | undefined>,
): Promise<{ html: string; xhr: Xhr[]; analysis: ReturnType<typeof analyzePage> } | { failed: string }> {
  const recipe = paths.recipeFor(page.url);
  if (!recipe) return { failed: 'no recipe' };
  try {
    const data = await dataOf(recipe, page.url, page.html, api);
    const html = dataPage(recipe, page.html, data);
    return { html, xhr: data.xhr, analysis: analyzePage({ html, url: page.url, fetchedAt: page.fetchedAt }, { limits: page.limits }) };
  } catch (e) {
    const why = (e as Error).message;
    paths.failed(page.url, why);
    return { failed: why };
  }
}

/**
 * The crawl's data paths with their states kept in the run folder: every change of a pattern's
 * state is appended as it is made (synchronously, before the page's crawl-log line), and
 * `--resume` replays those of pages the crawl log has (a pattern's last such state wins), so a
 * resumed crawl serves a settled pattern from its data at once instead of rendering it
 * `minSamples` times again. A page that was in flight at the stop and is fetched again may have
 * its lesson counted twice when a later logged page of its pattern changed the state after it.
 */
export function openDataPaths(opts: DataPathOptions, file: string, resumed?: { pages: number; fetched(url: string): boolean }): { paths: DataPaths; close(): void } {
  const paths = new DataPaths(opts, resumed?.pages ?? 0);
  if (resumed) for (const e of readJsonLines<DataPathEvent>(file)) if (resumed.fetched(e.url)) paths.replay(e);
  const log = new JsonLinesWriter<DataPathEvent>(file);
  paths.onChange = (e) => log.append(e);
  return { paths, close: () => log.close() };
}
