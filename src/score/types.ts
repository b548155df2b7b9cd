/** Plain data the scorer takes and gives (METHODS §3), shared by the scorer, strategies and callers. */
import type { FeedbackState, LinkGraph, LinkGraphState, PathRelation } from './structure.js';
import type { RwbDecision } from './ipagerank.js';
import type { SiteTable, SiteTableState } from './filters.js';
import type { ScoreOptions } from './options.js';
import type { LinkFeatures } from './link-ranker.js';
import type { OnlineLogistic } from './learned.js';
import type { DeadLinkKeys, DeadLinkState } from './dead-links.js';

/** One out-link of a fetched page as the scorer takes it: URL, anchor text, context. */
export interface OutLink {
  url: string;
  /** cos(T, A_u), or Sim(T, A_u) with the semantic tree (§2, §3.1). */
  contextSim: number;
  /** f_anchor: topic keyword frequency in the link context, in [0, 1] (§3.2). */
  anchorKeywordFreq: number;
  /** a, area, frame, iframe, img (src/extract/types.ts LinkTag). */
  tag?: string;
  anchorText?: string;
  /** Text around the link on the page (the link ranker's context words). */
  context?: string;
  isRedundant?: boolean;
  /** Publish date read from the URL; parsed here from the URL string when absent (§3.4). */
  urlTime?: Date;
}

/** A fetched page as the scorer learns from it: its verdict, relevance, depth and out-links. */
export interface FetchedPage {
  url: string;
  /** The page the URL was queued from (absent for seeds): drives relevance feedback. */
  parentUrl?: string;
  /** Link depth from the seeds (0 for a seed). */
  depth: number;
  rel: number;
  relevant: boolean;
  /** The judge's topic evidence for the page (src/topic/term-model.ts), when it has one. */
  evidence?: number;
  publishTime?: Date;
  links: OutLink[];
  /**
   * The page's own words (title, headings, main text), distinct, most frequent first: the word
   * model's evidence of what topical pages talk about (src/score/link-words.ts). Only given to
   * strategies that read them (`combined` with `linkWords`).
   */
  words?: string[];
  /** Defaults to the URL's host. */
  host?: string;
  /** HTTP status (non-2xx: a dead link); absent = 200. */
  status?: number;
  /** Why the page can never be relevant (src/judge/never-relevant.ts), if it cannot. */
  neverRelevant?: string;
  /** An earlier page of the crawl showed its text (src/text/near-duplicate.ts): its links are that page's, not offered again. */
  nearDuplicate?: boolean;
  /**
   * The judge read it as a list page (a channel or forum index, a portal home: its content is its
   * links' headlines); `relevant` may still be true when those headlines are on the topic.
   */
  listPage?: boolean;
}

/** A score's named components (what `--explain` shows). */
export interface ScoreBreakdown {
  score: number;
  /** Named factors, e.g. parentPriority, wPath, omega, scaleFree, tunnelBuffer, feedbackDecay… */
  components: Record<string, number>;
}

/** A new score for a queued URL (or its drop), as the scorer hands it back to the frontier. */
export interface ScoreUpdate {
  url: string;
  depth: number;
  /** The in-linker whose term is the largest (for the crawl log and `--explain`). */
  parentUrl?: string;
  score: number;
  breakdown: ScoreBreakdown;
  /** Do not fetch (filtered, RWB-rejected, spent tunnel under hard focus, site cut, outside the time window). */
  drop?: boolean;
  reason?: string;
}

/** What a scorer may use from the crawl: the topic's time distribution and window, the exploration seed. */
export interface ScorerDeps {
  /** Pr(t|T) of the topic's time distribution (§3.4); absent = no time preference. */
  timePr?: (d: Date) => number;
  /** The topic's [t_s, t_e] window check (§3.4); absent = every date is inside. */
  inTimeWindow?: (d: Date) => boolean;
  /** Seed of the RWB exploration generator (§3.5). */
  randomSeed?: number;
}

/** A URL scorer (see `createScorer`): seed and link scores, learning from fetched pages, saved state. */
export interface Scorer {
  readonly strategy: string;
  readonly options: ScoreOptions;
  /** A page was fetched: returns new/updated scores for URLs (children and any re-scored URLs). */
  onPageFetched(page: FetchedPage): ScoreUpdate[];
  /** Seeds get a fixed top score. */
  seedScore(url: string): ScoreBreakdown;
  /** Current IPageRank of fetched relevant pages (last recomputation). */
  ipageRanks(): ReadonlyMap<string, number>;
  readonly sites: SiteTable;
  readonly graph: LinkGraph;
  /** Combined's learned weights, when learning. */
  readonly learner?: OnlineLogistic;
  /** The strategy's word model reads the page's own words: give them in `FetchedPage.words`. */
  readonly readsPageWords?: boolean;
  /**
   * Everything the scorer learned from the pages it took in, as plain data (LIVE: serialise it
   * before the next page; src/score/state-data.ts). A scorer restored from it scores every later
   * page exactly as this one does.
   */
  state(): ScorerState;
  /** Take a `state()` back (deserialised), replacing this scorer's; throws, changing nothing, on a version this code does not read. */
  restore(s: ScorerState): void;
}

/** A scorer's state (`Scorer.state()`): one version per part, each part's own. */
export interface ScorerState {
  v: 1;
  /** Pages taken in. */
  pages: number;
  rng: readonly number[];
  ipr: Map<string, number>;
  graph: LinkGraphState;
  sites: SiteTableState;
  book: LinkBookState;
  deadLinks: DeadLinkState;
  /** The strategy's own learned state (src/score/strategy.ts), when it keeps any. */
  strategy?: { v: number };
}

/** src/score/links.ts's LinkBook as plain data. */
export interface LinkBookState {
  v: 1;
  pending: Map<string, Pending>;
  fetched: Map<string, FetchedInfo>;
  seq: number;
}

/** One in-link of an unfetched URL from a fetched parent, with everything its terms need. */
export interface Contribution {
  parent: string;
  parentRel: number;
  parentRelevant: boolean;
  parentTime?: Date;
  sim: number;
  /** C(p) of the parent (§3.3), undefined when not used. */
  c: number | undefined;
  fAnchor: number;
  relation: PathRelation;
  wPath: number;
  omega: number;
  stoplistWeight: number;
  /** The tunnel buffer this parent hands over (undefined: parent relevant). */
  buffer: number | undefined;
  rwb: RwbDecision;
  /** The link ranker's features of this link (strategies with a link ranker: combined). */
  link?: LinkFeatures;
}

/** A URL known from links and not fetched yet. */
export interface Pending {
  url: string;
  host: string;
  depth: number;
  /** Discovery order (bfs). */
  seq: number;
  urlTime?: Date;
  contributions: Contribution[];
  /** Its dead-link stats (src/score/dead-links.ts), when the strategy uses them. */
  deadKeys?: DeadLinkKeys;
  /** Last score handed out (NaN when dropped), to skip unchanged ones on periodic re-scoring. */
  last?: number;
}

/** What the scorer keeps of a fetched page. */
export interface FetchedInfo {
  depth: number;
  buffer: number | undefined;
  rel: number;
  relevant: boolean;
  publishTime?: Date;
  children: string[];
  feedback: FeedbackState;
  rSum: number;
  /** Links followed since the last relevant page on the path that reached this page (0: relevant). */
  sinceRelevant: number;
  /** The link ranker's features of the in-link this page was reached by (trains its `beyond` model). */
  inlink?: LinkFeatures;
}
