/** What the extract stage hands to the rest of the pipeline: plain data, no DOM. */

export type LinkTag = 'a' | 'area' | 'frame' | 'iframe' | 'img';

/** One outlink with the extended metadata the link scores use (METHODS §3.1, §3.6). */
export interface LinkInfo {
  /** Absolute URL, fragment removed (resolved against <base href> when present). */
  url: string;
  tag: LinkTag;
  anchorText: string;
  /** The `title` attribute, or `alt` for images and image links. */
  title: string;
  /** About 50 characters of text before and after the link. */
  contextBefore: string;
  contextAfter: string;
}

export type PublishTimeSource = 'json-ld' | 'meta' | 'time-element' | 'text' | 'url';

/** A page's publish time as read from it, with where it was found. */
export interface PublishTime {
  /** ISO 8601 with offset. */
  iso: string;
  source: PublishTimeSource;
  /** The string it was read from, for auditing. */
  raw: string;
}

/** What `analyzePage` reads from one HTML page: main text, title, language, publish time, links. */
export interface PageAnalysis {
  /** The URL the page was finally served from. */
  url: string;
  canonicalUrl?: string;
  title: string;
  /** Main text (Readability, with our CJK fixes). */
  text: string;
  headings: string[];
  publishTime?: PublishTime;
  links: LinkInfo[];
  lang?: string;
  /** Target of a <meta http-equiv=refresh>, when present. */
  metaRefresh?: string;
  /** What the analysis did not read of a huge page, and why (src/extract/limits.ts); absent when it read everything. */
  bounded?: string[];
}

/** One page to analyse: its HTML, URL and fetch time. */
export interface AnalyzeInput {
  html: string;
  url: string;
  /** Relative dates (`3小时前`, `昨天 12:00`) resolve against this. */
  fetchedAt: Date;
  /** IANA zone for dates without an offset; default Asia/Shanghai for Chinese pages. */
  timeZone?: string;
}
