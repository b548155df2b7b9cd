/**
 * The scorer a crawl uses, built from its config, and the scorer's view of a page's links: one
 * place for both so `debug:extract` scores links exactly as the crawl would (same strategy, same
 * filters, same link features) instead of a formula of its own.
 */
import type { CrawlConfig } from '../config/schema.js';
import type { PageAnalysis } from '../extract/types.js';
import { createScorer, type OutLink, type Scorer } from '../score/index.js';
import type { PageJudge } from '../judge/judge.js';
import { tokenize } from '../text/tokenize.js';

/** Most words of a page the word model keeps (a long article's rarest words add little and fill the resume log). */
const PAGE_WORDS = 400;

/**
 * The page's own words for the scorer's word model (src/score/link-words.ts): distinct, most
 * frequent first, at most PAGE_WORDS; undefined when the scorer does not read them.
 */
export function scorerPageWords(analysis: PageAnalysis, scorer: Scorer): string[] | undefined {
  if (!scorer.readsPageWords) return undefined;
  const counts = new Map<string, number>();
  for (const t of tokenize([analysis.title, ...analysis.headings, analysis.text].join('\n'))) counts.set(t, (counts.get(t) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1]).slice(0, PAGE_WORDS).map(([t]) => t);
}

export function crawlScorer(config: CrawlConfig, judge: PageJudge): Scorer {
  const time = judge.model.topics[0].time;
  // The crawl-level domain lists and θ_page are the scorer's too: one setting, one meaning.
  const scoreOptions = {
    ...config.score,
    pageThreshold: config.pageThreshold,
    allowDomains: [...config.score.allowDomains, ...config.allowDomains],
    denyDomains: [...config.score.denyDomains, ...config.denyDomains],
  };
  return createScorer(config.strategy, scoreOptions, {
    randomSeed: config.randomSeed,
    timePr: time ? (d) => time.Pr(d) : undefined,
    inTimeWindow: time ? (d) => time.timeRelevance(d) > 0 : undefined,
  });
}

/** A page's links as the scorer takes them: the link-context features come from the judge. */
export function scorerLinks(analysis: PageAnalysis, judge: PageJudge): OutLink[] {
  return analysis.links.map((l) => ({ url: l.url, tag: l.tag, anchorText: l.anchorText, context: `${l.contextBefore} ${l.contextAfter}`, contextSim: judge.linkRelevance(l), anchorKeywordFreq: judge.anchorKeywordFreq(l) }));
}
