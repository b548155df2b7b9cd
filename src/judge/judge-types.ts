/** The page judge's data: its verdicts, the inputs it learns from, its state (src/judge/judge.ts). */
import type { Relevance } from '../topic/model.js';
import type { MultiTopicState } from '../topic/multi-topic.js';
import type { SampledPageState } from '../topic/harvest-sample.js';
import type { PageClassifierState } from '../topic/page-classifier.js';
import type { RankVerdictState } from '../topic/rank-verdict.js';
import type { TopicTermModelState } from '../topic/term-model.js';
import type { ReservoirState } from '../topic/sampling.js';
import type { SparseVector } from '../text/vector.js';
import type { NeverRelevant } from './never-relevant.js';

export type Verdict = Relevance & {
  /** Set when the page can never be relevant (non-2xx, error page, boilerplate only, login wall): rel 0, not a seed. */
  neverRelevant?: NeverRelevant;
  /** Calibrated P(relevant) from the learned judge (0 for a page that can never be relevant). */
  probability?: number;
  /** The term model's evidence for the topic (src/topic/term-model.ts). */
  evidence?: number;
  /** The same for the user's negative pages (0 without any). */
  negativeEvidence?: number;
  /**
   * A list page (a channel or forum index, a portal home): no line of main text beyond copyright
   * and navigation, its content is its links' headlines. Not relevant itself and never a seed;
   * `rel` is kept, so its words still reach its links' scores.
   */
  listPage?: boolean;
  /** The θ the cosine verdict used: θ_page, or calibrated from the topic's seed pages. */
  threshold?: number;
  /**
   * Where the log-odds rank verdict placed the page, where it decided (src/topic/rank-verdict.ts):
   * the share of the topic's pages above it and the share it calls relevant (relevant when
   * `above` ≤ `share`).
   */
  rankPlace?: { above: number; share: number };
  /** A list page that the topic model alone would call relevant (its headlines are on topic): a hub, for the scorer. */
  listTopical?: boolean;
};

export type JudgeMode = 'learned' | 'cosine';

/**
 * What the judge learns from, one record per call: a page by its TF (with what decided its kind),
 * a page that can never be relevant, a user's negative page, a user's label. Logged by `--resume`
 * (src/judge/judge-journal.ts); `key`: the URL the frontier handed out.
 */
export type JudgedPage =
  | { kind: 'never'; key?: string }
  | { kind: 'page'; key?: string; url?: string; tf: SparseVector; isSeed: boolean; publishTime?: string; listPage?: true }
  | { kind: 'negative'; url?: string; tf: SparseVector; topicId?: string }
  /** The user's label of a page (src/crawl/labels.ts). */
  | { kind: 'label'; url: string; tf: SparseVector; relevant: boolean; topicId?: string };

/** The judge's learned state (IDF, seed sets, term models, classifiers, harvest sample). */
export interface JudgeState {
  mode: JudgeMode;
  model: MultiTopicState;
  terms: TopicTermModelState[];
  classifiers: PageClassifierState[];
  sample: ReservoirState<SampledPageState>;
  examples: { tf: [string, number][]; url?: string; topicId: string; joined?: true }[];
  /** The user's labelled pages (src/crawl/labels.ts); absent in snapshots without any. */
  labels?: { tf: [string, number][]; url: string; topicId: string; relevant: boolean }[];
  /** Absent in snapshots from before the log-odds rank verdict. */
  rankVerdicts?: RankVerdictState[];
}

export interface JudgeCall {
  /** Seed pages define the topic's seed set D (METHODS §1). */
  isSeed: boolean;
  /** Anchor text of the link the page was reached by (position weight 2, METHODS §0). */
  anchorText?: string;
  /** HTTP status of the response (non-2xx is never relevant); absent = unknown. */
  status?: number;
  /** Raw HTML, when at hand (login walls' password forms). */
  html?: string;
  /** The URL the frontier handed out (what `--resume` knows a fetched page by). */
  key?: string;
}
