/**
 * One route for an analysed page, shared by the engine and `bench/replay.ts` so the two cannot
 * drift apart: judge (topic relevance) → scorer (METHODS §3) → frontier. Both build their scorer
 * with `crawlScorer()` (./scorer.ts), so a replay scores exactly as a crawl does.
 */
import type { LinkInfo, PageAnalysis } from '../extract/types.js';
import type { CrawlFrontier } from '../frontier/frontier.js';
import { uniqueKeyOf } from '../frontier/url-key.js';
import type { CrawlUserData } from '../frontier/user-data.js';
import type { FetchedPage, Scorer } from '../score/index.js';
import { scorerLinks, scorerPageWords } from './scorer.js';
import type { PageJudge, Verdict } from '../judge/judge.js';
import { publishInstant } from '../topic/time.js';

export interface RouteDeps {
  judge: PageJudge;
  /**
   * The crawl's earlier pages' texts: a page whose text one of them contains is no new page.
   * A `NearDuplicateIndex` (src/text/near-duplicate.ts), or a Redis crawl's answer got before
   * the route (src/cluster/redis-near-duplicate.ts): `check` returns the earlier page's URL.
   */
  nearDuplicates: NearDuplicateCheck;
  scorer: Scorer;
  frontier: CrawlFrontier;
  /** Called with the scorer's input before it is scored (the resume log keeps it). */
  onScorerInput?: (page: FetchedPage) => void;
  /** Links read per page (the first ones); default all. */
  maxLinks?: number;
  /** A link is scored only when this accepts it (the fetch gate's checks); default all. */
  keepLink?: (link: LinkInfo) => boolean;
  /** Score updates for these URLs are ignored (seeds keep their seed score). */
  skipUpdate?: (url: string) => boolean;
  /** A linked URL not followed: dropped by the scorer (its reason), or deeper than maxDepth ('too-deep'). */
  onSetAside?: (url: string, reason: string) => void;
  /** Called after each stage, for per-stage timings. */
  lap?: (stage: 'judgeMs' | 'scoreMs' | 'frontierMs') => void;
}

/** `url`: where the text came from; `id`: the page's identity (its frontier key: never a copy of itself). */
export interface NearDuplicateCheck {
  check(url: string, text: string, id: string): string | undefined;
}

/** The judge's verdict, or not relevant as a near-duplicate of an earlier page (its URL). */
export type RoutedVerdict = Verdict & { nearDuplicateOf?: string };

export interface RoutedPage {
  verdict: RoutedVerdict;
  scorerInput: FetchedPage;
}

/** The request a page answered: its URL, its frontier key when not the URL's (a thread's revisit), what the frontier carried. */
export interface RoutedRequest {
  url: string;
  uniqueKey?: string;
  userData: CrawlUserData;
  status?: number;
  html?: string;
}

/**
 * Route one page: `request.url` is the URL the frontier handed out (its key), `analysis.url`
 * where it landed; `status` and `html` let the judge rule out error and login pages. Returns the verdict; the frontier has the page's score updates applied.
 */
export function routePage(analysis: PageAnalysis, request: RoutedRequest, deps: RouteDeps): RoutedPage {
  const { judge, scorer, frontier } = deps;
  const m = request.userData;
  // A redirect lands on another URL: mark it seen so it is not fetched again.
  if (analysis.url !== request.url) frontier.markSeen([uniqueKeyOf(analysis.url)]);
  const verdict: RoutedVerdict = nearDuplicateVerdict(analysis, request, deps) ?? judge.judge(analysis, { isSeed: m.depth === 0, anchorText: m.anchorText, status: request.status, html: request.html, key: request.url });
  const anchorOf = new Map<string, string>();
  const limited = deps.maxLinks !== undefined ? analysis.links.slice(0, deps.maxLinks) : analysis.links;
  const taken = deps.keepLink ? limited.filter(deps.keepLink) : limited;
  for (const l of taken) if (l.anchorText && !anchorOf.has(l.url)) anchorOf.set(l.url, l.anchorText);
  // A near-duplicate's links are its earlier page's, scored there already: not offered again with rel 0.
  const links = verdict.nearDuplicateOf ? [] : scorerLinks(taken === analysis.links ? analysis : { ...analysis, links: taken }, judge);
  deps.lap?.('judgeMs');
  const scorerInput: FetchedPage = {
    url: request.url,
    parentUrl: m.parentUrl,
    depth: m.depth,
    host: new URL(request.url).host,
    rel: verdict.rel,
    relevant: verdict.relevant || !!verdict.listTopical,
    evidence: verdict.evidence,
    publishTime: publishInstant(analysis.publishTime?.iso),
    links,
    words: verdict.neverRelevant || verdict.nearDuplicateOf ? undefined : scorerPageWords(analysis, scorer),
    status: request.status,
    neverRelevant: verdict.neverRelevant?.reason,
    ...(verdict.nearDuplicateOf ? { nearDuplicate: true } : {}),
    ...(verdict.listPage ? { listPage: true } : {}),
  };
  deps.onScorerInput?.(scorerInput);
  const updates = scorer.onPageFetched(scorerInput);
  deps.lap?.('scoreMs');
  for (const u of updates) {
    if (deps.skipUpdate?.(u.url)) continue;
    if (u.drop) {
      frontier.drop(uniqueKeyOf(u.url), u.reason);
      deps.onSetAside?.(u.url, u.reason ?? 'dropped');
    } else if (
      frontier.offer({
        url: u.url,
        depth: u.depth,
        parentUrl: u.parentUrl ?? request.url,
        anchorText: anchorOf.get(u.url),
        score: u.score,
        components: u.breakdown.components,
      }) === 'too-deep'
    )
      deps.onSetAside?.(u.url, 'too-deep');
  }
  deps.lap?.('frontierMs');
  return { verdict, scorerInput };
}

/**
 * A page whose main text an earlier page of the crawl contains (an "only this author" view of a
 * thread, a print view, a mirror: src/text/near-duplicate.ts) is no new page: not relevant, and
 * the judge never sees it, so neither its harvest sample nor its learners count it twice; the
 * scorer gets it as not relevant, so links like the one that led here learn they lead nowhere new.
 * Seeds are remembered but never duplicates; error answers are neither.
 */
function nearDuplicateVerdict(analysis: PageAnalysis, request: RoutedRequest, deps: RouteDeps): RoutedVerdict | undefined {
  if (!checksNearDuplicates(request.status)) return undefined;
  // The page's identity is its frontier key: fetched again under it (a lease that expired with its
  // worker) it is itself; a thread's revisit has a key of its own, so an unchanged one is a copy.
  const of = deps.nearDuplicates.check(analysis.url, analysis.text, request.uniqueKey ?? uniqueKeyOf(request.url));
  if (of === undefined || request.userData.depth === 0) return undefined;
  return { rel: 0, cosine: 0, simD: 0, topicId: deps.judge.model.topics[0].id, relevant: false, nearDuplicateOf: of };
}

/** Whether a page with this HTTP status is checked (and remembered) for near-duplicates: error answers are not. */
export function checksNearDuplicates(status: number | undefined): boolean {
  return status === undefined || status === 0 || (status >= 200 && status <= 299);
}
