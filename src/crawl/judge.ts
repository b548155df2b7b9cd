/**
 * Routes one analysed page into the topic model: builds its position-weighted fields
 * (METHODS §0), asks for rel(p) (§1–§2), grows the seed set, and measures each link context
 * against the topic (§3.1 cos(T, A_u), §3.2 f_anchor).
 */
import type { CrawlConfig } from '../config/schema.js';
import type { LinkInfo, PageAnalysis } from '../extract/types.js';
import { urlTokens } from '../text/tokenize.js';
import type { PageFields } from '../text/vector.js';
import { MultiTopicModel, type Relevance } from '../topic/model.js';
import { loadThesaurus } from '../topic/semantic.js';
import { neverRelevant, type NeverRelevant } from './never-relevant.js';

export type Verdict = Relevance & {
  /** Set when the page can never be relevant (non-2xx, error page, boilerplate only, login wall): rel 0, not a seed. */
  neverRelevant?: NeverRelevant;
};

export interface JudgeCall {
  /** Seed pages define the topic's seed set D (METHODS §1). */
  isSeed: boolean;
  /** Anchor text of the link the page was reached by (position weight 2, METHODS §0). */
  anchorText?: string;
  /** HTTP status of the response (non-2xx is never relevant); absent = unknown. */
  status?: number;
  /** Raw HTML, when at hand (login walls' password forms). */
  html?: string;
}

export class PageJudge {
  private readonly keywordTerms: Set<string>;

  private constructor(readonly model: MultiTopicModel) {
    this.keywordTerms = new Set(model.topics.flatMap((t) => [...t.keywordTf.keys()]));
  }

  static async create(config: CrawlConfig, notice?: (line: string) => void): Promise<PageJudge> {
    const thesaurus = loadThesaurus({ cilinPath: config.cilinPath });
    const model = new MultiTopicModel(config.topics, { thesaurus, pageThreshold: config.pageThreshold });
    for (const t of model.topics)
      for (const w of t.stopwordKeywords)
        notice?.(`topic "${t.id}": keyword "${w}" is a stopword; it is kept as a topic term (and in pages) all the same`);
    notice?.(
      thesaurus
        ? `semantic tree loaded (${config.cilinPath}): relevance = λ·cos + (1-λ)·sem (METHODS §2)`
        : 'no thesaurus configured (--cilin): relevance uses the keyword cosine alone',
    );
    return new PageJudge(model);
  }

  static fields(analysis: PageAnalysis, anchorText?: string): PageFields {
    return { title: analysis.title, headings: analysis.headings, body: analysis.text, url: analysis.url, anchorText };
  }

  judge(analysis: PageAnalysis, call: JudgeCall): Verdict {
    // Not a page of content: no relevance, no seed, not counted in the IDF (src/crawl/never-relevant.ts).
    const never = neverRelevant({
      status: call.status,
      title: analysis.title,
      headings: analysis.headings,
      text: analysis.text,
      html: call.html,
      linkTexts: analysis.links.map((l) => l.anchorText),
    });
    if (never) return { rel: 0, cosine: 0, simD: 0, topicId: this.model.topics[0].id, relevant: false, neverRelevant: never };
    const fields = PageJudge.fields(analysis, call.anchorText);
    const publishTime = analysis.publishTime ? new Date(analysis.publishTime.iso) : undefined;
    const verdict = this.model.relevance(fields, { publishTime });
    if (call.isSeed) {
      // A seed joins D (METHODS §1) only when it is itself about the topic: a portal home page
      // given as an entry point would otherwise pull simD towards navigation pages.
      const topic = this.model.topic(verdict.topicId);
      if (verdict.cosine >= topic.threshold) topic.addSeedDocument(fields);
    } else {
      this.model.maybeGrowSeedSet(fields, verdict);
    }
    return verdict;
  }

  /** The link context A_u: anchor text, title/alt, text around the link, URL tokens (§3.1). */
  static contextText(link: LinkInfo): string {
    return [link.anchorText, link.title, link.contextBefore, link.contextAfter, urlTokens(link.url).join(' ')].join(' ');
  }

  linkRelevance(link: LinkInfo): number {
    return this.model.linkRelevance(PageJudge.contextText(link));
  }

  /** f_anchor (§3.2): share of the topic's keyword terms present in the link context, in [0,1]. */
  anchorKeywordFreq(link: LinkInfo): number {
    if (this.keywordTerms.size === 0) return 0;
    const terms = new Set(this.model.analyze(PageJudge.contextText(link)));
    let hits = 0;
    for (const k of this.keywordTerms) if (terms.has(k)) hits++;
    return hits / this.keywordTerms.size;
  }
}
