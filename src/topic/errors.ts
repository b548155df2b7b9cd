import { UserError } from '../config/errors.js';

/**
 * A topic the user must fix: empty or all-stopword keywords, an unreadable topic or CSV file,
 * a bad CSV row, a missing thesaurus. The message names the file (and line) so the CLI can
 * print it as one line.
 */
export class TopicError extends UserError {
  override name = 'TopicError';
  constructor(
    message: string,
    readonly file?: string,
    readonly line?: number,
  ) {
    super(file ? `${file}${line !== undefined ? `:${line}` : ''}: ${message}` : message);
  }
}

/** A search-engine results page yielded no organic results (names provider and URL). */
export class SearchSeedingError extends UserError {
  override name = 'SearchSeedingError';
}
