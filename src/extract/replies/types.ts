/** Reply-thread data types (METHODS §4). Plain data, no DOM. */

export interface Post {
  author: string;
  /** ISO 8601 (UTC), when a time could be resolved. */
  time?: string;
  text: string;
  /** Floor (post position) as the forum shows it, when it shows one. */
  floor?: number;
}

export interface ThreadExtract {
  /** Name of the matcher that recognised the page (`generic` for the repeated-block detector). */
  matcher: string;
  /**
   * How sure the extractor is that this is a reply thread and its posts are the posts, 0..1:
   * a template that matched URL and markup, else the generic detector's own evidence.
   */
  confidence: number;
  /** What made the page a thread: the repeated structure found and the reply signals beside it. */
  evidence: ThreadEvidence;
  threadId: string;
  posts: Post[];
  /** Replies known for the thread: the forum's own total when it shows one, else posts seen minus the opening post. */
  replyCount: number;
  /** Absolute URLs of the thread's other pages (pagination), current page excluded. */
  pageUrls: string[];
}

/** Reply signals a thread's posts showed (a listing of headlines shows none of them). */
export type ReplySignal =
  /** A template written for the forum's engine matched URL and post markup. */
  | 'template'
  /** The page declares its posts (schema.org microdata or JSON-LD). */
  | 'schema.org'
  /** Comment JSON from the page's own API calls. */
  | 'comment-api'
  /** Blocks repeating an author, a time and a body of their own prose. */
  | 'author+time+body'
  /** A reply or quote link or button in the posts. */
  | 'reply-affordance'
  /** The posts sit in a comment container (`#comments`, Disqus). */
  | 'comments-container';

export interface ThreadEvidence {
  /** The repeated structure, in words: `12 × div.post (author + time + body) in div#posts; opening post above`. */
  structure: string;
  signals: ReplySignal[];
}

/**
 * A declarative reply template. JSON/YAML-serialisable so users can add their own
 * (see loadMatchers) without touching the crawler. Selectors are CSS; `post` is matched
 * in the document, the others inside each post block.
 */
export interface ReplyMatcher {
  name: string;
  /** RegExp source tested against the page URL (case-insensitive). */
  url: string;
  /** RegExp source applied to the URL; capture group 1 is the thread id (default: URL without page parts). */
  threadId?: string;
  post: string;
  author: string;
  time: string;
  text: string;
  floor?: string;
  /** Links to the thread's other pages (next link and page numbers). */
  pages?: string;
  /** A document-level element whose text carries the total reply count. */
  total?: string;
  /** RegExp source with one capture group for the total inside `total`'s text (default: its first integer). */
  totalPattern?: string;
  /** Posts required before the page counts as a thread (default 1). */
  minPosts?: number;
}

export interface XhrCapture {
  url: string;
  json: unknown;
}

export interface ExtractThreadInput {
  html: string;
  url: string;
  fetchedAt: Date;
  timeZone?: string;
  xhr?: XhrCapture[];
  /** Matchers to try before the built-in ones (user templates). */
  matchers?: ReplyMatcher[];
  /** Built-in templates to skip, by name (bench:threads leaves a forum's own template out). */
  disabledMatchers?: readonly string[];
}
