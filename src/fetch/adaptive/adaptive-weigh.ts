/**
 * What a rendering of the adaptive fetcher (./adaptive.ts) shows against the HTTP page of the same
 * response: the comparison recorded as its URL pattern's evidence (./adaptive-policy.ts), and the
 * data path's lesson on renders of pages that need the browser (./adaptive-data.ts), timed apart
 * from the render's cost.
 */
import { decodeHtml, isHtmlResponse } from '../../extract/encoding.js';
import { analyzePage, type AnalysisLimits } from '../../extract/page.js';
import type { PageAnalysis } from '../../extract/types.js';
import type { BrowserFetcherOptions, RenderedPage } from '../crawler.js';
import type { DataPaths } from './adaptive-data.js';
import type { FetchedDocument } from './adaptive-document.js';
import { compareRenderings, signalsOf, type AdaptivePolicy, type Comparison, type Decision } from './adaptive-policy.js';
import { timed, waited } from '../../util/stage-profile.js';

/** A document fetched over HTTP that the browser renders, and why it is rendered. */
export interface Pending {
  doc: FetchedDocument;
  decision: Decision;
}

/** What comparing a rendering with its HTTP page decoded and computed, reused by the data path's lesson. */
interface Weighed {
  httpHtml?: string;
  browserSignals?: ReturnType<typeof signalsOf>;
  comparison?: Comparison;
}

/** A rendering that is evidence (read with nothing open, not lost), with the HTTP document of the same response. */
interface Evidence {
  rendered: RenderedPage;
  doc: FetchedDocument;
  renderedHtml: string;
  renderedAnalysis: PageAnalysis;
}

export interface RenderingWeigherOptions {
  policy: AdaptivePolicy;
  /** The crawl's bounds on page analysis. */
  limits: { limits?: Partial<AnalysisLimits> };
  /** The data path's state; absent when there is no data path. */
  dataPaths?: DataPaths;
  /** The engine's handler of a fetched page. */
  onPage: BrowserFetcherOptions['onPage'];
}

/** Weighs each rendering against its HTTP page and hands it to the engine. */
export class RenderingWeigher {
  /** Time the data path's lesson took on a render, by request uniqueKey: not part of the render's cost. */
  private readonly lessonMs = new Map<string, number>();

  constructor(private readonly o: RenderingWeigherOptions) {}

  /** The time the data path's lesson took on the render of this request (0 without one), forgotten once read. */
  takeLessonMs(uniqueKey: string): number {
    const ms = this.lessonMs.get(uniqueKey) ?? 0;
    this.lessonMs.delete(uniqueKey);
    return ms;
  }

  /**
   * The rendering handed to the engine, with why it was rendered, what it shows against the HTTP
   * page (recorded as the pattern's evidence) and what the data path learnt from it.
   */
  async weigh(
    rendered: RenderedPage,
    p: Pending | undefined,
    renderedHtml = rendered.renderedHtml ?? rendered.html,
    servedAnalysis?: PageAnalysis,
  ): Promise<void> {
    if (!p || rendered.html === undefined) {
      await this.o.onPage({ ...rendered, fetchedWith: 'browser', fetchWhy: p?.decision.why ?? 'browser' });
      return;
    }
    const { doc, decision } = p;
    const analysis = rendered.analysis ?? analyzePage({ html: rendered.html, url: rendered.url, fetchedAt: rendered.fetchedAt }, this.o.limits);
    // What the browser made of the page, whichever document was analysed: the comparison and the
    // data path learn from the rendering (a page analysed as served because its scripts added
    // little may still differ from HTTP in its links or data).
    const renderedAnalysis = rendered.analysedFrom === 'served' ? rendered.renderedAnalysis : analysis;
    // A rendering read while requests were still open may lack what they would have built (a
    // loaded machine): compared with the HTTP page it could look "equivalent" and teach the
    // pattern wrongly, so it is no evidence either way. Nor is one that was lost (the browser's
    // error page, or scripts that replaced the article: the bytes as served were analysed).
    const cutOff =
      (rendered.openRequests ?? 0) > 0 ||
      rendered.settled?.state === 'load-cap' ||
      rendered.renderingLost === true ||
      renderedHtml === undefined ||
      renderedAnalysis === undefined;
    const evidence: Evidence = { rendered, doc, renderedHtml: renderedHtml!, renderedAnalysis: renderedAnalysis! };
    const weighed: Weighed = {};
    if (decision.compare !== false && !cutOff && isHtmlResponse(doc.contentType, doc.body.subarray(0, 512))) this.compare(evidence, weighed, servedAnalysis);
    const { comparison } = weighed;
    this.o.policy.count(rendered.request.url, 'browser');
    const verdict = comparison
      ? comparison.equivalent
        ? 'HTTP equivalent'
        : `HTTP differs: ${comparison.differences.join('; ')}`
      : cutOff
        ? `read with ${rendered.openRequests} request(s) still open: not compared`
        : '';
    // The data path learns on renders of pages that need the browser (./adaptive-data.ts).
    let lesson = '';
    const needsBrowser = decision.needsBrowser || decision.dataRecheck || (comparison !== undefined && !comparison.equivalent);
    const dataPaths = this.o.dataPaths;
    if (
      dataPaths &&
      needsBrowser &&
      !cutOff &&
      doc.status < 400 &&
      isHtmlResponse(doc.contentType, doc.body.subarray(0, 512)) &&
      dataPaths.wantsLesson(doc.url)
    )
      lesson = await this.learnData(dataPaths, evidence, weighed);
    const why = [decision.why, verdict, lesson].filter(Boolean).join(' → ');
    await this.o.onPage({ ...rendered, analysis, fetchedWith: 'browser', fetchWhy: why, comparison });
  }

  /** The HTTP page against the rendering, recorded as the pattern's evidence; what it decoded and computed is kept in `weighed` for the data path. */
  private compare({ rendered, doc, renderedHtml, renderedAnalysis }: Evidence, weighed: Weighed, servedAnalysis: PageAnalysis | undefined): void {
    const httpHtml = (weighed.httpHtml = decodeHtml(doc.body, doc.contentType));
    // The kept tab's read analysed these same bytes already (to choose between them and the rendering).
    const httpAnalysis =
      servedAnalysis && servedAnalysis.url === doc.url
        ? servedAnalysis
        : analyzePage({ html: httpHtml, url: doc.url, fetchedAt: rendered.fetchedAt }, this.o.limits);
    const browserSignals = (weighed.browserSignals = timed('compare HTTP and rendering', () =>
      signalsOf(renderedAnalysis, renderedHtml, rendered.xhrJson, rendered.fetchedAt),
    ));
    const comparison = (weighed.comparison = timed('compare HTTP and rendering', () =>
      compareRenderings(signalsOf(httpAnalysis, httpHtml, [], rendered.fetchedAt), browserSignals, this.o.policy.opts),
    ));
    this.o.policy.record(rendered.request.url, comparison, renderedAnalysis.text.length);
  }

  /** The data path's lesson on a render (./adaptive-data.ts), timed apart from the render's cost; its outcome for the log. */
  private async learnData(dataPaths: DataPaths, { rendered, doc, renderedHtml, renderedAnalysis }: Evidence, weighed: Weighed): Promise<string> {
    const httpHtml = weighed.httpHtml ?? decodeHtml(doc.body, doc.contentType);
    const browser = weighed.browserSignals ?? signalsOf(renderedAnalysis, renderedHtml, rendered.xhrJson, rendered.fetchedAt);
    const learnt = { url: doc.url, httpHtml, renderedHtml, xhr: rendered.xhrJson, fetchedAt: rendered.fetchedAt, browser };
    const began = performance.now();
    const lesson = (await waited('data path: learn on a render', () => dataPaths.learn(learnt))).why;
    this.lessonMs.set(rendered.request.uniqueKey, performance.now() - began);
    return lesson;
  }
}
