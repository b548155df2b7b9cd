/**
 * One fetched request's way through the engine: a page is analysed, routed (./route.ts: judge →
 * scorer → frontier), stored and shown to the plugins; a failure is classified
 * (src/fetch/failure.ts) and logged. Either way the request gets exactly one crawl-log line
 * (./crawl-record.ts).
 */
import type { Request } from 'crawlee';
import type { CrawlSharing } from '../cluster/sharing.js';
import type { CrawlConfig } from '../config/schema.js';
import { analyzePage } from '../extract/page.js';
import { flattenHtml } from '../extract/flatten.js';
import type { AnalysisLimits } from '../extract/page.js';
import type { PageAnalysis } from '../extract/types.js';
import type { RenderedPage } from '../fetch/crawler.js';
import { classifyFailure, type FetchAnswer } from '../fetch/failure.js';
import type { FetchGate } from '../fetch/gate/gate.js';
import { renderedFields } from '../fetch/render-log.js';
import { uniqueKeyOf, type CrawlFrontier } from '../frontier/frontier.js';
import { crawlUserData, type CrawlUserData } from '../frontier/user-data.js';
import type { ProgressReporter } from '../report/progress.js';
import type { CrawlLogEntry } from '../store/crawl-log.js';
import type { NearDuplicateIndex } from '../text/near-duplicate.js';
import type { CrawlRecord } from './crawl-record.js';
import type { PageJudge } from '../judge/judge.js';
import type { LearnabilityWatch } from '../judge/learnability-watch.js';
import type { ScorerInputLog } from './resume.js';
import { checksNearDuplicates, routePage, type RoutedVerdict } from './route.js';
import type { Scorer } from '../score/index.js';
import type { SetAsideTally } from './stop-reason.js';
import type { CrawlContext, CrawlOptions, CrawlPlugin, CrawlTimings, RelevantPage } from './types.js';

export interface PageHandlerParts {
  config: CrawlConfig;
  options: CrawlOptions;
  plugins: CrawlPlugin[];
  ctx: CrawlContext;
  progress: ProgressReporter;
  record: CrawlRecord;
  judge: PageJudge;
  learnability: LearnabilityWatch;
  scorer: Scorer;
  frontier: CrawlFrontier;
  gate: FetchGate;
  nearDuplicates: NearDuplicateIndex;
  /** What the crawl shares with other processes (src/cluster/sharing.ts): taken in before each page is routed. */
  sharing: CrawlSharing;
  scorerInputs: ScorerInputLog;
  setAside: SetAsideTally;
  /** Dataset records name their topic as users do (its name, else its keywords), not by the model's id. */
  topicNames: Map<string, string>;
  /** The seeds' frontier keys: a link to a seed must not re-score it below the seed score. */
  seedKeys: Set<string>;
  /** Links beyond the per-page limit are not even read (a 100,000-link page): the analysis stops at it. */
  analysisLimits: Partial<AnalysisLimits>;
  noteRefused(url: string, reason: string, via: 'link' | 'request', parent?: string): void;
}

type LogBase = Omit<CrawlLogEntry, 'decision'>;

/** Per-stage time of one page, added to the crawl's timings as each stage ends. */
class StageClock {
  private t = performance.now();
  constructor(private readonly timings: CrawlTimings) {}
  lap(k: Exclude<keyof CrawlTimings, 'pages'>): void {
    const now = performance.now();
    this.timings[k] += now - this.t;
    this.t = now;
  }
}

export class PageHandler {
  constructor(private readonly p: PageHandlerParts) {}

  /** A fetched request: its page analysed, routed, stored, and shown to the plugins. */
  async onPage(page: RenderedPage): Promise<void> {
    const { record } = this.p;
    if (!record.firstTime(page.request.uniqueKey)) return;
    const m = crawlUserData(page.request);
    const base: LogBase = {
      time: page.fetchedAt.toISOString(),
      url: page.request.url,
      status: page.status,
      depth: m.depth,
      parent: m.parentUrl,
      score: m.score,
      components: m.components,
      contentType: page.contentType,
      ...(page.fetchedWith ? { fetchedWith: page.fetchedWith, fetchWhy: page.fetchWhy } : {}),
      ...renderedFields(page),
    };
    if (page.html === undefined) {
      await record.logLine(page.request.uniqueKey, { ...base, decision: 'not-html', reason: page.contentType });
      return;
    }
    const clock = new StageClock(record.timings);
    record.timings.pages++;
    const analysis = await this.analyse(page, page.html, base);
    if (!analysis) return;
    clock.lap('extractMs');
    const verdict = await this.route(page, page.html, analysis, m, clock);
    await this.store(page, analysis, verdict, m, base, clock);
  }

  /** A request given up on: one line, not-html for a download or a type the fetcher does not read (src/fetch/failure.ts). */
  async onFailure(request: Request, error: Error, answer?: FetchAnswer): Promise<void> {
    if (!this.p.record.firstTime(request.uniqueKey)) return;
    const m = crawlUserData(request);
    const failure = classifyFailure(error, answer);
    await this.p.record.logLine(request.uniqueKey, {
      time: new Date().toISOString(),
      url: request.url,
      status: failure.status,
      depth: m.depth,
      parent: m.parentUrl,
      score: m.score,
      components: m.components,
      decision: failure.kind === 'not-html' ? 'not-html' : 'failed',
      reason: error.message.split('\n')[0].slice(0, 300),
      contentType: failure.contentType,
    });
  }

  /** The page's analysis (the fetcher's, else made here); undefined when there is no document, its line written. */
  private async analyse(page: RenderedPage, html: string, base: LogBase): Promise<PageAnalysis | undefined> {
    const { analysisLimits, record } = this.p;
    let analysis: PageAnalysis;
    try {
      analysis = page.analysis ?? analyzePage({ html, url: page.url, fetchedAt: page.fetchedAt }, { limits: analysisLimits });
    } catch (e) {
      // Nested too deep for the extractor's recursion: analyse the page flattened (src/extract/flatten.ts).
      // Anything else it cannot take is a failure with its reason, never a crash.
      try {
        if (!(e instanceof RangeError)) throw e;
        analysis = analyzePage({ html: flattenHtml(html), url: page.url, fetchedAt: page.fetchedAt }, { limits: analysisLimits });
        base.reason = 'nested too deep: analysed flattened';
      } catch (e2) {
        await record.logLine(page.request.uniqueKey, { ...base, decision: 'failed', reason: `no document: ${(e2 as Error).message.split('\n')[0].slice(0, 200)}` });
        return undefined;
      }
    }
    // What a huge page's analysis left unread, and why (src/extract/limits.ts).
    if (analysis.bounded) base.reason = [base.reason, ...analysis.bounded].filter(Boolean).join('; ');
    if (!analysis.title && !analysis.text && analysis.links.length === 0 && analysis.headings.length === 0 && html.trim()) {
      await record.logLine(page.request.uniqueKey, { ...base, decision: 'failed', reason: 'no document: the HTML parses to an empty page' });
      return undefined;
    }
    return analysis;
  }

  /** Judge → scorer → frontier (./route.ts), with what the other processes of a shared crawl learned first. */
  private async route(page: RenderedPage, html: string, analysis: PageAnalysis, m: CrawlUserData, clock: StageClock): Promise<RoutedVerdict> {
    const { config, judge, scorer, frontier, gate, sharing, seedKeys, scorerInputs, setAside } = this.p;
    // A shared crawl: the other processes' pages first (this page's links are scored, and the page
    // judged, with the whole crawl's evidence) and the shared near-duplicate index's answer, got
    // before the (synchronous) route. A crawl of its own has nothing to wait for and routes at once.
    const shared = sharing.beforeRoute(scorer, judge, (url) => seedKeys.has(uniqueKeyOf(url)), checksNearDuplicates(page.status) ? { url: analysis.url, text: analysis.text, id: page.request.uniqueKey } : undefined);
    const nearDuplicates = shared ? await shared : this.p.nearDuplicates;
    const { verdict } = routePage(analysis, { url: page.request.url, uniqueKey: page.request.uniqueKey, userData: m, status: page.status, html }, {
      judge,
      scorer,
      frontier,
      nearDuplicates,
      // At most maxLinksPerPage links, each through the gate's checks that need no DNS (scheme,
      // length, domain lists, literal private addresses): refused ones are never queued.
      maxLinks: config.maxLinksPerPage,
      keepLink: (l) => {
        const v = gate.checkSync(l.url);
        if (!v.ok) this.p.noteRefused(l.url, v.reason, 'link', page.request.url);
        return v.ok;
      },
      skipUpdate: (url) => seedKeys.has(uniqueKeyOf(url)),
      onScorerInput: (input) => {
        scorerInputs.append(input);
        sharing.shareScorerInput(input);
      },
      onSetAside: (url, reason) => setAside.note(reason === 'too-deep' ? `deeper than ${config.maxDepth}` : reason, url),
      lap: (k) => clock.lap(k),
    });
    // A topic its seed pages cannot teach the judge: said as soon as it shows (src/judge/learnability-watch.ts).
    for (const line of this.p.learnability.notices(judge)) this.p.progress.log(line);
    return verdict;
  }

  /** The dataset item and crawl-log line, then the plugins and the caller's onRelevantPage. */
  private async store(page: RenderedPage, analysis: PageAnalysis, verdict: RoutedVerdict, m: CrawlUserData, base: LogBase, clock: StageClock): Promise<void> {
    const { plugins, ctx, options, progress, record, topicNames } = this.p;
    const saved: RelevantPage | undefined = verdict.relevant
      ? {
          url: page.url,
          title: analysis.title,
          publishTime: analysis.publishTime?.iso,
          topic: topicNames.get(verdict.topicId) ?? verdict.topicId,
          relevance: verdict.rel,
          score: m.score,
          text: analysis.text,
          fetchedAt: page.fetchedAt.toISOString(),
        }
      : undefined;
    const entry: CrawlLogEntry = {
      ...base,
      relevance: verdict.rel,
      relevant: verdict.relevant,
      topic: verdict.topicId,
      title: analysis.title,
      publishTime: analysis.publishTime?.iso,
      // A non-2xx answer is a failed fetch (a dead link), whatever its body says.
      decision: verdict.neverRelevant?.reason === 'http-status' ? 'failed' : verdict.outOfWindow ? 'out-of-window' : verdict.relevant ? 'saved' : 'recorded',
      reason: [base.reason, verdict.neverRelevant?.detail, verdict.nearDuplicateOf && `near-duplicate of ${verdict.nearDuplicateOf}`].filter(Boolean).join('; ') || undefined,
    };
    for (const pl of plugins) pl.annotate?.(entry, page);
    // The dataset item, then its crawl-log line, written behind the slot (src/store/write-behind.ts).
    const { stored } = await record.pageWrites.add(page.request.uniqueKey, saved, (error) =>
      record.record(error ? { ...entry, decision: 'failed', reason: `dataset write failed: ${error.message.split('\n')[0].slice(0, 200)}` } : entry),
    );
    clock.lap('storeMs');
    for (const pl of plugins) {
      try {
        await pl.onPage?.({ rendered: page, analysis, verdict, entry }, ctx);
      } catch (e) {
        // The page is logged already; a plugin's failure on it must not make Crawlee fetch it again.
        progress.log(`${pl.name}: ${page.request.url}: ${(e as Error).message.split('\n')[0]}`);
      }
    }
    if (saved && options.onRelevantPage) {
      try {
        await stored; // "as it is saved": its item is on disk
        await options.onRelevantPage(saved);
      } catch (e) {
        progress.log(`onRelevantPage: ${page.request.url}: ${(e as Error).message.split('\n')[0]}`);
      }
    }
  }
}
