/**
 * Bounds on what one page analysis reads. Without them one huge page (the hostile site's
 * 100,000 links, 3.5 MB) cost about 1 GB of heap and 16 s of synchronous work in a single
 * analysis, nearly all of it Readability's repeated passes over every element, while the event
 * loop every fetch in flight needs is held (measured by `npm run bench:huge-page`,
 * docs/benchmarks.md). Each bound that cuts a page is said in `PageAnalysis.bounded`, and the crawl log's
 * reason carries it.
 */

export interface AnalysisLimits {
  /** HTML characters parsed; the rest of a longer page is not read (parse memory grows with it). */
  maxHtmlChars: number;
  /**
   * Elements above which the main text is read without Readability (the body's text with link
   * lists and captions dropped): Readability's cost grows with elements (about 0.1 ms each here),
   * and retries up to three more times on a page whose article comes out short.
   */
  maxElements: number;
  /** Links taken from the page, in document order (the crawl passes its `maxLinksPerPage`). */
  maxLinks: number;
}

/** Links taken from one page by default (the config's `maxLinksPerPage` default too). */
export const DEFAULT_MAX_LINKS_PER_PAGE = 2000;

/**
 * The largest of the 250 benchmark pages (article-extraction-benchmark and zh-content-extraction)
 * has 1.5 M characters and 7,777 elements (p99: 1.1 M and 1,586): the defaults leave every one
 * of them to the full analysis, with room for long real pages (a 20,000-element page costs about
 * 3 s of Readability on this machine).
 */
export const DEFAULT_ANALYSIS_LIMITS: AnalysisLimits = {
  maxHtmlChars: 4_000_000,
  maxElements: 20_000,
  maxLinks: DEFAULT_MAX_LINKS_PER_PAGE,
};

/** Elements under `root` (itself included), counted up to `stopAfter + 1`; no recursion (deep pages). */
export function countElements(root: Element | null | undefined, stopAfter: number): number {
  let n = 0;
  let e: Element | null = root ?? null;
  while (e && n <= stopAfter) {
    n++;
    if (e.firstElementChild) {
      e = e.firstElementChild;
      continue;
    }
    while (e && e !== root && !e.nextElementSibling) e = e.parentElement;
    e = e && e !== root ? e.nextElementSibling : null;
  }
  return n;
}

export const thousands = (n: number) => n.toLocaleString('en-US');
