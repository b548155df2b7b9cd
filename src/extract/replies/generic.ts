/**
 * Generic detector for forums no template knows: repeated sibling blocks that each carry an
 * author, a time and body text. No library does this (Readability finds one main block, not
 * repeated ones), hence hand-written.
 *
 * 1. Time anchors: <time>, elements with datetime/data-time attributes, short elements whose
 *    text looks like a date.
 * 2. Every anchor votes, for each ancestor A with parent P, for "P has child A with a time".
 * 3. For parents with ≥ MIN_POSTS such children, keep children that also have an author signal
 *    and non-link text; the parent with most such children (same tag) is the post list.
 *
 * Long because: one heuristic in stages (time anchors, votes, the post list, nested comment
 * trees, the opening post, each post's author, time and body) whose named thresholds are tuned
 * against each other on bench:threads; they read best side by side.
 */
import type { Post, ReplySignal, ThreadEvidence } from './types.js';
import { jsonLdThread, microdataPosts } from './schema.js';
import { cleanText, DATE_LIKE, pageBody, textOf, timeOfElement } from './dom.js';

// 3, not 2: two author+date blocks are common on article pages (bylines, teasers); the
// templates still accept two-post threads.
export const GENERIC_MIN_POSTS = 3;
/**
 * A reply list may hold only two replies when the opening post, printed with other markup,
 * sits above it: the list is a candidate at 2, the thread still needs GENERIC_MIN_POSTS posts
 * counting the opening post.
 */
const MIN_REPLY_LIST = 2;

const AUTHOR_CLASS = /(^|[\s_-])(author|user(name)?|poster|member|nick(name)?|byline|username|uname|posterinfo|profile|postauthor|name)([\s_-]|$)/i;
const AUTHOR_HREF = /member|user|profile|space-uid|\/u\/|people|author|uid=/i;
const BODY_CLASS = /(^|[\s_-])(content|message|body|text|postbody|post_?text|entry|comment|cooked|bbwrapper|postmsg|messagetext)([\s_-]|$)/i;
const SKIP_TAGS = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'HEAD', 'SELECT', 'OPTION', 'svg']);

/** A `title` attribute this long or longer is a tooltip sentence, not a timestamp (`2008-5-13 10:22`). */
const MAX_TITLE_DATE_CHARS = 60;
/**
 * A text time anchor is a short element: its date is its own text, not a paragraph mentioning
 * one. Up to 8 children: `<b>By</b> <a>name</a> <b>On</b> 2020.03.12` is one short header line;
 * up to 80 characters once whitespace is collapsed (`Re: subject 11-August-2011 16:02`), at
 * most 400 raw (table-cell indentation inflates the raw text), at least 4 (`heute`).
 */
const MAX_ANCHOR_CHILDREN = 8;
const MAX_ANCHOR_RAW_CHARS = 400;
const MAX_ANCHOR_CHARS = 80;
const MIN_ANCHOR_CHARS = 4;
/** A label in front of a date is a few words (`Registriert seit:`, `Membre depuis`), not a line of prose. */
const MAX_LABEL_CHARS = 40;
/** An author name element longer than this is a profile box or a sentence, not a name. */
const MAX_AUTHOR_CHARS = 60;
/** Words a name-like text may have (`Alex D.`, `The Old Man`): more is a phrase or a title. */
const MAX_NAME_WORDS = 4;
/** A body whose link-free text is under this share of its text is a list of linked titles. */
const MAX_LINK_BODY_SHARE = 0.1;
/** Parents with the most time-carrying children that are examined as post lists (cost bound). */
const MAX_CANDIDATE_LISTS = 30;
/** Ancestors of an anchor grouped for threaded trees: replies nest deeply but not beyond this. */
const MAX_TREE_DEPTH = 12;
/**
 * An opening-post candidate may be this many times the elements of the largest reply before it
 * is taken for page chrome (a sidebar, the whole layout) rather than one post.
 */
const MAX_OPENING_SIZE_RATIO = 40;

/**
 * Dates that are not the post's time: the member's join date and last visit in the profile box
 * beside every post (`Registered: 2017-03-14`, `Registriert seit: 13. Januar 2020`), and edit
 * stamps. They repeat once per post like the post time does, so only their label tells them
 * apart. Labels of the common board languages (en, de, fr, es, it, nl, zh).
 */
const PROFILE_DATE_LABEL = new RegExp(
  String.raw`(?<!\p{L})(registered|joined|join date|member since|since|seit|depuis|desde|last (seen|visit(ed)?|active|online)|birthday|(last )?edited|registriert|dabei seit|mitglied seit|anmeldedatum|beigetreten|zuletzt|letzter besuch|geburtstag|bearbeitet|inscrit|inscription|membre depuis|derni[èe]re visite|modifi[ée]|[ée]dit[ée]|registrado|miembro desde|editado|iscritto|modificato|lid sinds|geregistreerd)(?!\p{L})|注册|加入于|最后登录|编辑于`,
  'iu',
);

/** The label in front of a date: its own text before the date, or the `<dt>` of a `<dd>`. */
function isProfileDate(el: Element): boolean {
  const own = cleanText(el.textContent);
  const m = DATE_LIKE.exec(own);
  if (m && PROFILE_DATE_LABEL.test(own.slice(0, m.index))) return true;
  const prev = el.previousElementSibling;
  if (prev && cleanText(prev.textContent).length < MAX_LABEL_CHARS && PROFILE_DATE_LABEL.test(cleanText(prev.textContent))) return true;
  const parent = el.parentElement;
  if (parent && !prev) {
    const p = cleanText(parent.textContent);
    const i = p.indexOf(own);
    if (i > 0 && i < MAX_LABEL_CHARS && PROFILE_DATE_LABEL.test(p.slice(0, i))) return true;
  }
  return false;
}

function timeAnchors(doc: Document): Element[] {
  return rawTimeAnchors(doc).filter((a) => !isProfileDate(a) && !a.closest(QUOTE_SELECTOR));
}

/**
 * A quoted post carries its author (`Zitat von Kreisel`) and often its time: its anchors are the
 * quoted post's, not the quoting one's, and must not make the quote a post of its own.
 */
const QUOTE_SELECTOR = 'blockquote, q, [class~="quote"], [class*="bbCodeQuote"], [class*="quotecontent"], [class*="quote-content"], [class*="Quote"]';

function rawTimeAnchors(doc: Document): Element[] {
  const out: Element[] = Array.from(
    doc.querySelectorAll('time, [datetime], [data-time], [data-timestamp], [data-datetime], [data-utime]'),
  );
  const seen = new Set(out);
  for (const el of Array.from(pageBody(doc).querySelectorAll('*'))) {
    if (seen.has(el) || SKIP_TAGS.has(el.tagName)) continue;
    const title = el.getAttribute('title');
    if (title && title.length < MAX_TITLE_DATE_CHARS && DATE_LIKE.test(title)) {
      out.push(el);
      continue;
    }
    if (el.children.length > MAX_ANCHOR_CHILDREN) continue;
    // Measured without the indentation whitespace templates leave in table cells.
    const raw = el.textContent ?? '';
    if (raw.length > MAX_ANCHOR_RAW_CHARS) continue;
    const t = cleanText(raw);
    if (t.length > MAX_ANCHOR_CHARS || t.length < MIN_ANCHOR_CHARS) continue;
    if (DATE_LIKE.test(t)) out.push(el);
  }
  return out;
}

interface AuthorInfo {
  el: Element;
  name: string;
}

const AUTHOR_ATTRS = ['data-author', 'data-user', 'data-username', 'data-poster'];

function findAuthor(block: Element): AuthorInfo | null {
  for (const el of Array.from(block.querySelectorAll('*'))) {
    if (el.closest(QUOTE_SELECTOR) && block.contains(el.closest(QUOTE_SELECTOR))) continue;
    const cls = `${el.getAttribute('class') ?? ''} ${el.getAttribute('itemprop') ?? ''} ${el.getAttribute('rel') ?? ''}`;
    const href = el.tagName === 'A' ? el.getAttribute('href') ?? '' : '';
    if (AUTHOR_CLASS.test(cls) || (href && AUTHOR_HREF.test(href))) {
      const name = cleanText(el.textContent);
      if (!name || name.length > MAX_AUTHOR_CHARS) continue;
      // A profile box holds the name and the member's rank (`Sober Stammgast`): the name is
      // the box's first link or bold text when it has one.
      const short = el.tagName === 'A' ? '' : Array.from(el.querySelectorAll('a[href], b, strong'), (e) => cleanText(e.textContent)).find((t) => t) ?? '';
      return { el, name: short || name };
    }
  }
  // Many engines name the author on the post element itself (`<li data-author="…">`).
  for (const a of AUTHOR_ATTRS) {
    const name = cleanText(block.getAttribute(a));
    if (name && name.length <= MAX_AUTHOR_CHARS) return { el: block, name };
  }
  return null;
}

/** Longest text a name can be (display names, `Alex D.`, `DVB-T2 HD`). */
const MAX_NAME_CHARS = 40;
/**
 * Share of a list's blocks that must hold a name-like text at the same place before that place
 * is taken for the author: nearly all (a deleted member or a guest post may lack it), so that
 * a place only some posts fill (a title, a badge) does not pass.
 */
const AUTHOR_PLACE_SHARE = 0.8;

/**
 * Authors for boards that mark them up with no telling class, link or attribute (`<dt><strong>
 * wzrdtales</strong></dt>`): the first place, in the same position in nearly every block, that
 * holds a short name-like text (letters, no date, no sentence), with at least two names among
 * the blocks. Structure stands in for the class name a template would have used.
 */
function authorsByPlace(blocks: Element[]): Map<Element, AuthorInfo> {
  const out = new Map<Element, AuthorInfo>();
  if (blocks.length < MIN_REPLY_LIST) return out;
  const places = new Map<string, { order: number; hits: Map<Element, AuthorInfo> }>();
  for (const b of blocks) {
    let order = 0;
    for (const el of Array.from(b.querySelectorAll('b, strong, a, span, dt, h3, h4, h5, cite, div, td'))) {
      order++;
      if (el.children.length > 1 || el.closest(QUOTE_SELECTOR)) continue;
      const name = cleanText(el.textContent);
      // A link to a page that is no member's (a headline, a category, a channel) names what a
      // teaser is about, not who wrote it.
      const link = el.closest('a[href]');
      if (link && b.contains(link) && !AUTHOR_HREF.test(link.getAttribute('href') ?? '')) continue;
      if (name.length < 2 || name.length > MAX_NAME_CHARS || !/\p{L}/u.test(name) || DATE_LIKE.test(name) || /[.!?:]$/.test(name) || name.split(' ').length > MAX_NAME_WORDS) continue;
      const key = pathIn(b, el);
      let p = places.get(key);
      if (!p) places.set(key, (p = { order, hits: new Map() }));
      if (!p.hits.has(b)) p.hits.set(b, { el, name });
    }
  }
  const best = [...places.values()]
    .filter((p) => p.hits.size >= AUTHOR_PLACE_SHARE * blocks.length && new Set([...p.hits.values()].map((a) => a.name)).size >= 2)
    .sort((a, b) => a.order - b.order)[0];
  return best?.hits ?? out;
}

function linkFreeLength(el: Element): number {
  let links = 0;
  // Links with a target only, outermost only: a post wrapped whole in a name anchor
  // (`<a name="post-1"/>` left open by XHTML-style markup) is not link text, and a link inside
  // a link is not counted twice.
  for (const a of Array.from(el.querySelectorAll('a[href]'))) {
    if (a.parentElement?.closest('a[href]') && el.contains(a.parentElement.closest('a[href]'))) continue;
    links += cleanText(a.textContent).length;
  }
  return Math.max(0, textOf(el).length - links);
}

/** A date with its clock (`2008/5/31`, `2020-03-12 10:22`): text every post and every listed headline carries. */
const DATE_TEXT = new RegExp(String.raw`(?:${DATE_LIKE.source})(?:\s*\d{1,2}:\d\d(?::\d\d)?)?`, 'gi');

function dateChars(s: string): number {
  let n = 0;
  for (const m of s.matchAll(DATE_TEXT)) n += m[0].length;
  return n;
}

/**
 * What a member wrote in a block: its text outside links and outside dates. A listing's items
 * (a headline link and its date, `重庆消防官兵抢修 2008/5/31`) have none, however many there are;
 * a post has its message.
 */
function proseLength(el: Element): number {
  let linkDates = 0;
  for (const a of Array.from(el.querySelectorAll('a[href]'))) {
    if (a.parentElement?.closest('a[href]') && el.contains(a.parentElement.closest('a[href]'))) continue;
    linkDates += dateChars(cleanText(a.textContent));
  }
  const chars = Math.max(0, linkFreeLength(el) - (dateChars(textOf(el)) - linkDates));
  // A Han character carries about what a short word does: `收到大家的意见，下周业主大会上会讨论车位方案。`
  // (23 characters) is a message, as its English twice as long would be.
  return chars + Math.min(chars, (textOf(el).match(/\p{Script=Han}/gu) ?? []).length);
}

function bodyElement(block: Element, author: Element, anchor: Element): Element {
  let best: Element | null = null;
  let bestLen = 0;
  for (const el of Array.from(block.querySelectorAll('*'))) {
    if (!BODY_CLASS.test(el.getAttribute('class') ?? '') && el.getAttribute('itemprop') !== 'text') continue;
    // A `Comment` wrapper around the whole post holds the author too: the body does not.
    if (el.contains(author) || el.contains(anchor)) continue;
    const len = (el.textContent ?? '').length;
    if (len > bestLen) {
      best = el;
      bestLen = len;
    }
  }
  if (best) return best;
  // No telling class: the largest descendant that holds neither the author nor the time, nor is
  // a heading (a thread title above the opening post is not its body).
  for (const el of Array.from(block.querySelectorAll('*'))) {
    if (el.contains(author) || el.contains(anchor) || el.closest('h1, h2, h3, h4, h5, h6')) continue;
    const len = (el.textContent ?? '').length;
    if (len > bestLen) {
      best = el;
      bestLen = len;
    }
  }
  return best ?? block;
}

function bodyText(block: Element, author: Element, anchor: Element): string {
  return textOf(bodyElement(block, author, anchor));
}

/**
 * A body that is all link text is a teaser's title (`Recent threads` lists: title link, `Most
 * recent by NAME`, time, view counts), not something a member wrote.
 */
function isLinkBody(el: Element): boolean {
  const all = textOf(el).length;
  return all > 0 && linkFreeLength(el) < MAX_LINK_BODY_SHARE * all;
}

/**
 * Confidence of a structural find (0..1): a base for "repeated author+time+body blocks", more
 * with more blocks (a coincidence of three blocks is far likelier than of twelve), with a time
 * resolved in every post and with two or more voices. Capped below the schema.org paths: a
 * page that declares its posts is surer than one whose shape suggests them.
 */
const STRUCTURAL_BASE_CONFIDENCE = 0.4;
const STRUCTURAL_SIZE_WEIGHT = 0.2;
/** Blocks beyond the minimum at which more blocks stop adding confidence. */
const STRUCTURAL_SIZE_SATURATION = 8;
const STRUCTURAL_TIME_WEIGHT = 0.15;
const STRUCTURAL_VOICES_WEIGHT = 0.1;
/** The page marks its posts up as schema.org items with author, time and body. */
const MICRODATA_CONFIDENCE = 0.9;
/** Posts taken from JSON-LD alone: declared, but JSON-LD is often a digest (first comments only). */
const JSON_LD_CONFIDENCE = 0.7;
/** Microdata items needed before they decide on their own (one item is usually only the opening post). */
const MIN_MICRODATA_POSTS = 2;
/** Leading characters of the JSON-LD opening post looked for in the page, to know it is printed here. */
const OPENING_PROBE_CHARS = 40;

export interface GenericResult {
  posts: Post[];
  blocks: Element[];
  /** The page is an article and the posts are its comments (no opening post among them). */
  comments: boolean;
  confidence: number;
  evidence: ThreadEvidence;
}

const ARTICLE_TYPES = /"@type"\s*:\s*"(NewsArticle|Article|BlogPosting|ReportageNewsArticle|OpinionNewsArticle|AnalysisNewsArticle|TechArticle|Report)"|itemtype="https?:\/\/schema\.org\/(NewsArticle|Article|BlogPosting)"/;
const THREAD_TYPES = /"@type"\s*:\s*"(DiscussionForumPosting|QAPage|Question)"|schema\.org\/(DiscussionForumPosting|Question)/;
const COMMENT_BOX = /comment|disqus|respon|reaction/i;

/**
 * Whether the page declares itself an article (schema.org Article family in JSON-LD or
 * microdata) and not a discussion. On such pages repeated author+date blocks are usually
 * teasers, bylines or embedded feeds; only blocks inside a comment container count.
 */
export function isArticlePage(doc: Document): boolean {
  const ld = Array.from(doc.querySelectorAll('script[type="application/ld+json"]')).map((s) => s.textContent ?? '').join('\n');
  const micro = Array.from(doc.querySelectorAll('[itemtype]')).map((e) => `itemtype="${e.getAttribute('itemtype')}"`).join('\n');
  const all = `${ld}\n${micro}`;
  return ARTICLE_TYPES.test(all) && !THREAD_TYPES.test(all);
}

/**
 * Page furniture around the main content: navigation, sidebars and their widgets (`Recent
 * comments`, a tweet feed, a countdown), footers. Their dated, named entries are listings of
 * other pages' items, never the thread the page shows.
 */
const FURNITURE_TAGS = new Set(['NAV', 'ASIDE', 'FOOTER']);
/**
 * A class or id naming furniture (`sidebar`, `widget_recent_comments`, `giz-sidebar1`,
 * `main-nav`… not the layout modifiers `with-sidebar`, `sticky-footer-body` that wrap a page's
 * main content too).
 */
const FURNITURE_TOKEN = /^(sidebar|widget|widgets|navbar|nav|navigation|menu|footer)([_-].*)?$|^(main|site|top|primary)[_-]?(nav|navigation|menu)$|(?<!(with|has|no)[_-]?)sidebar\d*$/i;

function inFurniture(el: Element): boolean {
  // Up to the body: <body>/<html> classes describe the whole layout (`Sidebar` when it has one).
  for (let p: Element | null = el; p && p.tagName !== 'BODY'; p = p.parentElement) {
    if (FURNITURE_TAGS.has(p.tagName)) return true;
    if ([p.id, ...(p.getAttribute('class') ?? '').split(/\s+/)].some((t) => t && FURNITURE_TOKEN.test(t))) return true;
  }
  return false;
}

function inCommentBox(el: Element): boolean {
  for (let p = el.parentElement; p; p = p.parentElement) {
    if (COMMENT_BOX.test(`${p.id} ${p.getAttribute('class') ?? ''}`)) return true;
  }
  return false;
}

interface Block {
  el: Element;
  /** The body row, when the post's body sits in the next sibling (table layouts). */
  body?: Element;
  anchor: Element;
  author: AuthorInfo;
}

const classes = (e: Element | undefined) => new Set((e?.getAttribute('class') ?? '').split(/\s+/).filter(Boolean));

/**
 * Short posts must look like the proven ones: same tag (and body-row tag), and every class the
 * proven blocks all share. Not the whole class list: boards add state classes per post
 * (`Alt`, `Offline`, `Role_Moderator`, `firstpost`).
 */
function shapeMatcher(proven: Block[]): (b: Block) => boolean {
  const common = (pick: (b: Block) => Element | undefined) => {
    let acc: Set<string> | null = null;
    for (const b of proven) {
      const c = classes(pick(b));
      acc = acc ? new Set([...acc].filter((x: string) => c.has(x))) : c;
    }
    return acc ?? new Set<string>();
  };
  const el = common((b) => b.el);
  const body = common((b) => b.body);
  const tags = new Set(proven.map((b) => `${b.el.tagName}|${b.body?.tagName ?? ''}`));
  return (b) => {
    if (!tags.has(`${b.el.tagName}|${b.body?.tagName ?? ''}`)) return false;
    const c = classes(b.el);
    const cb = classes(b.body);
    return [...el].every((x) => c.has(x)) && [...body].every((x) => cb.has(x));
  };
}

/** Body text or a picture, video or attachment link: something a member posted. */
function hasContent(el: Element): boolean {
  return textOf(el).length > 0 || !!el.querySelector('img, video, iframe, audio');
}

function indexIn(parent: Element, el: Element): number {
  return Array.prototype.indexOf.call(parent.children, el) as number;
}

/**
 * Which of a block's time anchors is its post time: a machine-readable attribute, then text
 * with digits (a date), then bare words (`heute`, `hier`: French for yesterday, but German for
 * "here", as in a member rank `Ist häufiger hier`).
 */
function anchorRank(el: Element): number {
  if (el.tagName === 'TIME' || el.hasAttribute('datetime') || el.hasAttribute('data-time') || el.hasAttribute('data-timestamp')) return 3;
  return /\d/.test(el.getAttribute('title') ?? el.textContent ?? '') ? 2 : 1;
}

/** Higher rank wins; at equal rank the inner anchor (`15/05/19`, not the header line around it). */
function isBetterAnchor(a: Element, than: Element): boolean {
  const ra = anchorRank(a);
  const rb = anchorRank(than);
  return ra > rb || (ra === rb && than !== a && than.contains(a));
}

function bestAnchorIn(el: Element, anchors: Element[]): Element | undefined {
  let best: Element | undefined;
  for (const a of anchors) if (el.contains(a) && (!best || isBetterAnchor(a, best))) best = a;
  return best;
}

/** Link-free characters beyond the author's name that make a block a post on its own (shorter ones join a proven list). */
const MIN_PROSE = 25;
/** One author alone needs this many posts to be a thread (a serial, a diary), not a byline or feed. */
const SINGLE_AUTHOR_MIN_POSTS = 6;

function structuralThread(doc: Document, ref: Date, timeZone: string, dayFirst?: boolean): GenericResult | null {
  const byParent = new Map<Element, Map<Element, Element>>();
  const anchors = timeAnchors(doc);
  for (const anchor of anchors) {
    let child: Element | null = anchor;
    while (child && child.parentElement) {
      const parent: Element = child.parentElement;
      let kids = byParent.get(parent);
      if (!kids) byParent.set(parent, (kids = new Map()));
      const had = kids.get(child);
      if (!had || isBetterAnchor(anchor, had)) kids.set(child, anchor);
      child = parent;
    }
  }
  const candidates = [...byParent.entries()]
    .filter(([, kids]) => kids.size >= MIN_REPLY_LIST)
    .sort((a, b) => b[1].size - a[1].size)
    .slice(0, MAX_CANDIDATE_LISTS);
  let best: { blocks: Block[]; parent: Element; score: number } | null = null;
  const comments = isArticlePage(doc);
  for (const [parent, kids] of candidates) {
    // On an article page only a list inside a comment container can be a thread.
    if (comments && !COMMENT_BOX.test(`${parent.id} ${parent.getAttribute('class') ?? ''}`) && !inCommentBox(parent)) continue;
    if (inFurniture(parent)) continue;
    const ok: Block[] = [];
    // Short replies (`+1`, `gute initiative.`) join a list other blocks have proven; they
    // cannot prove one on their own.
    const short: Block[] = [];
    let placed: Map<Element, AuthorInfo> | null = null;
    // Document order: the anchors voted in their own order (attribute anchors first).
    for (const child of Array.from(parent.children)) {
      const anchor = kids.get(child);
      if (!anchor) continue;
      const author = findAuthor(child) ?? (placed ??= authorsByPlace([...kids.keys()])).get(child);
      if (!author) continue;
      // Table layouts print a post as two rows: header (author, time) then body. The body row
      // is the next sibling row and names no author (prose may mention `heute` and so hold a
      // time anchor of its own).
      const next = child.nextElementSibling;
      if (child.tagName === 'TR' && next?.tagName === 'TR' && !findAuthor(next)) {
        const len = linkFreeLength(next);
        if (len > 0) (len >= MIN_PROSE ? ok : short).push({ el: child, body: next, anchor, author });
        continue;
      }
      // Posts carry prose beyond author and date; lists of linked titles (related articles) do not.
      const prose = proseLength(child) - author.name.length;
      if (prose >= MIN_PROSE && !isLinkBody(bodyElement(child, author.el, anchor))) ok.push({ el: child, anchor, author });
      else if (prose > 0 || hasContent(bodyElement(child, author.el, anchor))) short.push({ el: child, anchor, author });
    }
    // Posts of one list share a tag; keep the majority tag.
    const tags = new Map<string, number>();
    for (const b of ok) tags.set(b.el.tagName, (tags.get(b.el.tagName) ?? 0) + 1);
    const top = [...tags.entries()].sort((a, b) => b[1] - a[1])[0];
    if (!top) continue;
    let same = ok.filter((b) => b.el.tagName === top[0]);
    if (same.length < MIN_REPLY_LIST) continue;
    const looksLike = shapeMatcher(same);
    const extra = short.filter(looksLike);
    if (extra.length) same = [...same, ...extra].sort((a, b) => indexIn(parent, a.el) - indexIn(parent, b.el));
    const score = same.length;
    // At equal count the inner list wins: an outer one's blocks are wrappers around whole
    // sections (the discussion and its replies as one block).
    if (!best || score > best.score || (score === best.score && best.parent.contains(parent))) best = { blocks: same, parent, score };
  }
  const nested = nestedBlocks(doc, anchors, comments);
  const treeWon = !!nested && (!best || nested.score > best.score);
  if (treeWon) best = nested;
  if (!best) return null;
  settleAnchors(best.blocks, anchors);
  let opening: Block | null = null;
  if (!comments) {
    opening = findOpeningPost(best.parent, best.blocks, anchors);
    if (opening) best.blocks.unshift(opening);
  }
  const toPost = (b: Block): Post | null => {
    const t = timeOfElement(b.anchor, ref, timeZone, dayFirst);
    const bodyEl = b.body ?? bodyElement(b.el, b.author.el, b.anchor);
    const post: Post = { author: b.author.name, text: textOf(bodyEl) };
    // No body, no post: ad slots copy the post markup (`Publicité`, author-like sponsor name,
    // a date) but carry no message. A post of only a picture or a video is a post all the same.
    if (!post.text && !bodyEl.querySelector('img, video, iframe, audio')) return null;
    if (t) post.time = t.toISOString();
    return post;
  };
  const kept = best.blocks.map((b) => ({ b, post: toPost(b) })).filter((x): x is { b: Block; post: Post } => x.post !== null);
  // An opening card that repeats the first post's author and time is that post's header
  // (title, author, date above the message), not a post of its own.
  if (opening && kept[0]?.b === opening && kept[1] && kept[0].post.author === kept[1].post.author && kept[0].post.time === kept[1].post.time) kept.shift();
  best.blocks = kept.map((x) => x.b);
  const posts = kept.map((x) => x.post);
  // One voice repeating a few times is a byline or an embedded feed, not a conversation
  // (a long single-author thread — a serial, a diary — still passes).
  if (voiceCount(posts.map((p) => p.author)) < 2 && posts.length < SINGLE_AUTHOR_MIN_POSTS) return null;
  // The same author, time and text twice is one block found through two anchors, not two posts.
  const seen = new Set<string>();
  const unique = posts.filter((p) => {
    const k = `${p.author}\u0000${p.time ?? ""}\u0000${p.text}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
  if (unique.length < GENERIC_MIN_POSTS) return null;
  const timed = unique.filter((p) => p.time).length / unique.length;
  const confidence =
    STRUCTURAL_BASE_CONFIDENCE +
    STRUCTURAL_SIZE_WEIGHT * Math.min(1, (unique.length - GENERIC_MIN_POSTS + 1) / STRUCTURAL_SIZE_SATURATION) +
    STRUCTURAL_TIME_WEIGHT * timed +
    (voiceCount(unique.map((p) => p.author)) >= 2 ? STRUCTURAL_VOICES_WEIGHT : 0);
  const openingAbove = !!opening && best.blocks[0] === opening;
  return { posts: unique, blocks: best.blocks.map((b) => b.el), comments, confidence: Math.round(confidence * 100) / 100, evidence: structuralEvidence(best.parent, best.blocks, unique.length, openingAbove, treeWon) };
}

/**
 * The generic detector: the page's own schema.org microdata when it marks two or more posts,
 * else repeated blocks found structurally; JSON-LD adds the opening post the structure missed,
 * or forms the thread when the HTML shows none.
 */
export function detectRepeatedPosts(doc: Document, ref: Date, timeZone: string, dayFirst?: boolean): GenericResult | null {
  const comments = isArticlePage(doc);
  const md = comments ? [] : microdataPosts(doc, ref, timeZone, dayFirst);
  if (md.length >= MIN_MICRODATA_POSTS) {
    const evidence: ThreadEvidence = { structure: `${md.length} schema.org microdata items with author, time and body`, signals: ['schema.org'] };
    return { posts: md.map((m) => m.post), blocks: md.map((m) => m.el!), comments: false, confidence: MICRODATA_CONFIDENCE, evidence };
  }
  const found = structuralThread(doc, ref, timeZone, dayFirst);
  const ld = comments ? null : jsonLdThread(doc, ref, timeZone);
  if (!ld?.opening) return found;
  const opening = ld.opening;
  // Printed on this page (not page 2 of a thread whose JSON-LD still describes page 1)?
  const probe = cleanText(opening.text).slice(0, OPENING_PROBE_CHARS);
  const pageText = cleanText(pageBody(doc).textContent);
  if (!probe || !pageText.includes(probe)) return found;
  if (found) {
    const first = found.posts[0];
    const same = (p: Post) => (p.time && p.time === opening.time) || cleanText(p.text).startsWith(probe);
    if (!found.comments && !found.posts.some(same) && (!first?.time || !opening.time || opening.time <= first.time)) {
      found.posts.unshift(opening);
      found.evidence = { structure: `${found.evidence.structure}; opening post from JSON-LD`, signals: [...found.evidence.signals, 'schema.org'] };
    }
    return found;
  }
  const posts = [opening, ...ld.replies];
  if (posts.length < GENERIC_MIN_POSTS) return null;
  const evidence: ThreadEvidence = { structure: `schema.org JSON-LD discussion: opening post and ${ld.replies.length} replies`, signals: ['schema.org'] };
  return { posts, blocks: [], comments: false, confidence: JSON_LD_CONFIDENCE, evidence };
}

/**
 * Where an anchor sits in its post block: tag and first class of each step down from the block
 * (the first class only: boards append state classes such as `old`/`new`, `Alt`).
 */
function pathIn(block: Element, el: Element): string {
  const parts: string[] = [];
  for (let e: Element | null = el; e && e !== block; e = e.parentElement) parts.push(`${e.tagName}.${(e.getAttribute('class') ?? '').trim().split(/\s+/)[0]}`);
  return parts.reverse().join('>');
}

/**
 * Pick each block's post time by consensus: the post time sits at the same place in every post
 * (the header's date), while a date in one post's prose or a member's stamp sits elsewhere or
 * in a few posts only. The place found in most blocks wins (ties: machine-readable first, then
 * the earlier place); a block without that place keeps the anchor it voted with.
 */
function settleAnchors(blocks: Block[], anchors: Element[]): void {
  const anchorSet = new Set(anchors);
  const per = blocks.map((b) => Array.from(b.el.querySelectorAll('*')).filter((e) => anchorSet.has(e)));
  const count = new Map<string, { n: number; rank: number; first: number }>();
  per.forEach((list, i) => {
    const seen = new Set<string>();
    list.forEach((a, j) => {
      const k = pathIn(blocks[i].el, a);
      if (seen.has(k)) return;
      seen.add(k);
      const c = count.get(k) ?? { n: 0, rank: anchorRank(a), first: j };
      c.n++;
      c.first = Math.min(c.first, j);
      count.set(k, c);
    });
  });
  const ranked = [...count.entries()].sort((a, b) => b[1].n - a[1].n || b[1].rank - a[1].rank || a[1].first - b[1].first);
  let best = ranked[0];
  if (!best) return;
  // A header line and the date inside it are one place: take the innermost (`04/02/2005, 12h25`,
  // not the header `04/02/2005, 12h25 #2` around it).
  for (const r of ranked) {
    if (r[1].n === best[1].n && r[1].rank === best[1].rank && r[0].startsWith(`${best[0]}>`)) best = r;
  }
  // A block without that exact place may still have it under zebra classes (`td1`/`td2` on
  // alternate posts): the same tag path will do.
  const tags = (k: string) => k.replace(/\.[^>]*/g, '');
  per.forEach((list, i) => {
    // Two anchors at one place (the profile cell and the date cell share `td.td1`): the better.
    const pick = (xs: Element[]) => xs.reduce<Element | undefined>((b, x) => (!b || isBetterAnchor(x, b) ? x : b), undefined);
    const a = pick(list.filter((x) => pathIn(blocks[i].el, x) === best[0])) ?? pick(list.filter((x) => tags(pathIn(blocks[i].el, x)) === tags(best[0])));
    if (a) blocks[i].anchor = a;
  });
}

/**
 * Distinct voices among author names. A byline and an author box name one person twice, the
 * box with the role run on (`Carrie Arnold` / `Carrie ArnoldContributing Writer`): a name that
 * is another name plus a new word (capital, digit or separator next) is the same voice;
 * `john` / `johnny` stay two.
 */
export function voiceCount(names: string[]): number {
  const sorted = [...new Set(names.map((n) => n.trim()))].filter(Boolean).sort((a, b) => a.length - b.length);
  const kept: string[] = [];
  for (const n of sorted) {
    const same = kept.some((k) => n.toLowerCase() === k.toLowerCase() || (n.startsWith(k) && /^[\s\p{Lu}\d|·•,(/-]/u.test(n.slice(k.length))));
    if (!same) kept.push(n);
  }
  return kept.length;
}

/** Same-signature groups larger than this are layout (list items, table cells), not a reply tree. */
const MAX_NESTED_GROUP = 300;

/**
 * Threaded comment trees nest a reply inside the post it answers (`.top-level-comment >
 * .post-response-item + .sub-comment > .post-response-item + .sub-comment > …`), so the posts
 * are not siblings and the sibling vote never sees three of them under one parent. They still
 * share one tag and class list: group the anchors' ancestors by that signature instead. Groups
 * whose members all sit at one depth are left to the sibling vote; groups whose members nest in
 * one another are wrappers, not posts.
 */
function nestedBlocks(doc: Document, anchors: Element[], comments: boolean): { blocks: Block[]; parent: Element; score: number } | null {
  const groups = new Map<string, Map<Element, Element>>();
  for (const anchor of anchors) {
    let depth = 0;
    for (let e: Element | null = anchor; e && e.tagName !== 'BODY' && depth < MAX_TREE_DEPTH; e = e.parentElement, depth++) {
      const cls = (e.getAttribute('class') ?? '').trim();
      if (!cls) continue;
      const key = `${e.tagName}.${cls.split(/\s+/).sort().join('.')}`;
      let g = groups.get(key);
      if (!g) groups.set(key, (g = new Map()));
      const had = g.get(e);
      if (!had || isBetterAnchor(anchor, had)) g.set(e, anchor);
    }
  }
  let best: { blocks: Block[]; parent: Element; score: number } | null = null;
  let order: Map<Element, number> | null = null;
  for (const g of groups.values()) {
    if (g.size < GENERIC_MIN_POSTS || g.size > MAX_NESTED_GROUP || (best && g.size <= best.score)) continue;
    const els = [...g.keys()];
    // A tree nests: its posts sit at different depths. Same-depth cousins are the inner parts
    // of a flat list's items (each teaser's meta line), which the sibling vote judges whole.
    const depth = (e: Element) => {
      let d = 0;
      for (let p = e.parentElement; p; p = p.parentElement) d++;
      return d;
    };
    const d0 = depth(els[0]);
    if (els.every((e) => depth(e) === d0)) continue;
    if (els.some((a) => els.some((b) => a !== b && a.contains(b)))) continue;
    const ok: Block[] = [];
    const short: Block[] = [];
    for (const [el, anchor] of g) {
      const author = findAuthor(el);
      if (!author) continue;
      const prose = proseLength(el) - author.name.length;
      if (prose >= MIN_PROSE && !isLinkBody(bodyElement(el, author.el, anchor))) ok.push({ el, anchor, author });
      else if (prose > 0) short.push({ el, anchor, author });
    }
    if (ok.length < GENERIC_MIN_POSTS) continue;
    let parent: Element | null = els[0].parentElement;
    while (parent && !els.every((e) => parent!.contains(e))) parent = parent.parentElement;
    if (!parent) continue;
    if (comments && !COMMENT_BOX.test(`${parent.id} ${parent.getAttribute('class') ?? ''}`) && !inCommentBox(parent)) continue;
    if (inFurniture(parent)) continue;
    if (!order) {
      order = new Map();
      let i = 0;
      for (const e of Array.from(doc.querySelectorAll('*'))) order.set(e, i++);
    }
    const pos = order;
    const blocks = [...ok, ...short].sort((a, b) => (pos.get(a.el) ?? 0) - (pos.get(b.el) ?? 0));
    best = { blocks, parent, score: blocks.length };
  }
  return best;
}

/**
 * Many forums print the opening post with other markup than the replies (a `topic` card above
 * a `comments` list). Look for it just before the post list: the nearest earlier sibling of the
 * list or of one of its close ancestors that holds a time anchor, an author and prose.
 */
function findOpeningPost(list: Element, blocks: Block[], anchors: Element[]): Block | null {
  const first = blocks[0]?.el;
  if (!first) return null;
  const chain: Element[] = [first];
  for (let e: Element | null = list; e && chain.length < 4; e = e.parentElement) chain.push(e);
  for (const node of chain) {
    for (let sib = node.previousElementSibling; sib; sib = sib.previousElementSibling) {
      const anchor = bestAnchorIn(sib, anchors);
      if (!anchor) continue;
      const author = findAuthor(sib);
      if (!author) return null;
      if (linkFreeLength(sib) - author.name.length < MIN_PROSE) return null;
      // Not the whole page chrome: an opening post is one block, much like a reply in size.
      if (sib.querySelectorAll('*').length > MAX_OPENING_SIZE_RATIO * Math.max(...blocks.map((b) => b.el.querySelectorAll('*').length))) return null;
      // A header card (title, author, time) whose body follows it as a sibling: take that body.
      if (bodyText(sib, author.el, anchor).length < MIN_PROSE) {
        let body: Element | undefined;
        let bodyLen = MIN_PROSE - 1;
        for (let n = sib.nextElementSibling; n && n !== node; n = n.nextElementSibling) {
          if (anchors.some((a) => n!.contains(a))) break;
          const len = linkFreeLength(n);
          if (len > bodyLen) {
            body = n;
            bodyLen = len;
          }
        }
        if (body) return { el: sib, body, anchor, author };
      }
      return { el: sib, anchor, author };
    }
  }
  return null;
}

/** Reply and quote links or buttons (`回复`, `Zitieren`, `action=reply`): posts invite answers, headlines do not. */
const REPLY_AFFORDANCE = /(?<![a-z])(reply|quote|respond|zitieren|antworten|r[ée]pondre|citer|responder|citar|rispondi|citazione)(?![a-z])|回复|引用/i;

function hasReplyAffordance(el: Element): boolean {
  for (const a of Array.from(el.querySelectorAll('a, button'))) {
    const s = `${cleanText(a.textContent)} ${a.getAttribute('class') ?? ''} ${a.getAttribute('title') ?? ''} ${a.getAttribute('href') ?? ''}`;
    if (REPLY_AFFORDANCE.test(s)) return true;
  }
  return false;
}

/** `tag#id.firstClass`, the way a reader finds an element in the page's source. */
function signature(el: Element): string {
  const cls = (el.getAttribute('class') ?? '').trim().split(/\s+/)[0];
  return `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${cls ? `.${cls}` : ''}`;
}

/** The repeated structure a structural find rests on, and the reply signals its blocks show. */
function structuralEvidence(parent: Element, blocks: Block[], posts: number, openingAbove: boolean, tree: boolean): ThreadEvidence {
  const signals: ReplySignal[] = ['author+time+body'];
  if (blocks.some((b) => hasReplyAffordance(b.el) || (b.body && hasReplyAffordance(b.body)))) signals.push('reply-affordance');
  if (COMMENT_BOX.test(`${parent.id} ${parent.getAttribute('class') ?? ''}`) || inCommentBox(parent)) signals.push('comments-container');
  const sigs = new Map<string, number>();
  for (const b of blocks.slice(openingAbove ? 1 : 0)) sigs.set(signature(b.el), (sigs.get(signature(b.el)) ?? 0) + 1);
  const block = [...sigs].sort((a, b) => b[1] - a[1])[0]?.[0] ?? '?';
  const structure = `${posts} posts: ${block} blocks (author + time + body)${tree ? ' nested as a reply tree' : ''} in ${signature(parent)}${openingAbove ? '; opening post above them' : ''}`;
  return { structure, signals };
}
