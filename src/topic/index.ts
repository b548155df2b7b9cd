/** The topic stage's public face: one call builds the relevance model for a crawl. */
import type { CrawlConfig } from '../config/schema.js';
import { type TopicModelOptions } from './model.js';
import { MultiTopicModel } from './multi-topic.js';
import { loadThesaurus, type Thesaurus } from './semantic.js';

export * from './errors.js';
export * from './model.js';
export * from './multi-topic.js';
export * from './semantic.js';
export * from './time.js';
export * from './search.js';

export interface TopicStage {
  model: MultiTopicModel;
  thesaurus?: Thesaurus;
  /** One line for the CLI to print at start (which semantic tree, or cosine only). */
  note: string;
}

/**
 * Build the model for a crawl: Cilin from `config.cilinPath` (and WordNet when asked), one
 * TopicModel per topic over a shared IDF. Throws TopicError (a UserError) on bad input.
 */
export function createTopicStage(
  config: Pick<CrawlConfig, 'topics' | 'pageThreshold' | 'cilinPath'>,
  options: Omit<TopicModelOptions, 'thesaurus' | 'pageThreshold'> & { wordnet?: boolean } = {},
): TopicStage {
  const thesaurus = loadThesaurus({ cilinPath: config.cilinPath, wordnet: options.wordnet });
  const model = new MultiTopicModel(config.topics, { ...options, thesaurus, pageThreshold: config.pageThreshold });
  const note = thesaurus
    ? `[topic] semantic tree: ${thesaurus.name} (relevance = λ·cos + (1-λ)·sem, METHODS §2)`
    : '[topic] no thesaurus configured (cilinPath): relevance uses the cosine alone';
  return { model, thesaurus, note };
}
