/**
 * Posts a page declares itself through schema.org: microdata items (`itemscope
 * itemtype=".../DiscussionForumPosting"` with `itemprop=author/dateCreated/text`) and JSON-LD
 * (`DiscussionForumPosting` with a `comment` list, `QAPage`/`Question` with answers). Many
 * boards emit one or the other whatever their software, so this needs no template.
 * Hand-written: the microdata walk is a few lines over the DOM we already hold, and no
 * maintained package reads microdata from a linkedom tree.
 */
import type { Post } from './types.js';
import { cleanText, textOf } from './dom.js';
import { resolveTimeText } from './time.js';

/** Types whose items are posts in a discussion (not Article/BlogPosting: those are articles). */
const POST_TYPE = /schema\.org\/(DiscussionForumPosting|Comment|Answer|Question|SocialMediaPosting|UserComments)\/?$/i;
const TIME_PROPS = ['dateCreated', 'datePublished', 'uploadDate', 'commentTime'];
const TEXT_PROPS = ['text', 'articleBody', 'commentText'];
/** Quoted posts keep their own microdata on some boards; a quote is not a post. */
const QUOTE = 'blockquote:not([itemprop]), q, [class~="quote"], [class*="bbCodeQuote"], [class*="quotecontent"]';

export interface SchemaPost {
  post: Post;
  /** The item's element (microdata) or null (JSON-LD). */
  el: Element | null;
}

/** Properties an item owns itself (not those of items nested in it). */
function ownProps(item: Element, name: string): Element[] {
  return Array.from(item.querySelectorAll(`[itemprop~="${name}"]`)).filter((p) => p.parentElement?.closest('[itemscope]') === item);
}

/** <time> elements of the item itself, not of items nested in it. */
function ownTimes(item: Element): Element[] {
  return Array.from(item.querySelectorAll('time')).filter((t) => t.closest('[itemscope]') === item || t.parentElement?.closest('[itemscope]') === item);
}

function propValue(el: Element): string {
  return cleanText(el.getAttribute('content') ?? el.getAttribute('datetime') ?? el.getAttribute('title') ?? el.textContent);
}

function authorOf(item: Element): string {
  for (const a of [...ownProps(item, 'author'), ...ownProps(item, 'creator')]) {
    if (a.hasAttribute('itemscope')) {
      const name = ownProps(a, 'name')[0];
      if (name) return propValue(name);
      const url = ownProps(a, 'url')[0];
      if (url && cleanText(a.textContent)) return cleanText(a.textContent);
    }
    const t = propValue(a);
    if (t && t.length <= 60) return t;
  }
  return '';
}

/** Microdata post items in document order; quotes and items without a body are left out. */
export function microdataPosts(doc: Document, ref: Date, timeZone: string, dayFirst?: boolean): SchemaPost[] {
  const out: SchemaPost[] = [];
  for (const item of Array.from(doc.querySelectorAll('[itemscope][itemtype]'))) {
    if (!POST_TYPE.test(item.getAttribute('itemtype') ?? '')) continue;
    if (item.parentElement?.closest(QUOTE)) continue;
    const textEl = TEXT_PROPS.map((p) => ownProps(item, p)[0]).find(Boolean);
    const text = textEl ? textOf(textEl) : '';
    if (!text && !textEl?.querySelector('img, video, iframe, audio')) continue;
    const author = authorOf(item);
    // The time the page shows: a visible creation-time property, else a visible <time> of the
    // item (boards that migrated print the import date and keep the original in a <meta>),
    // else the hidden property.
    const props = TIME_PROPS.flatMap((p) => ownProps(item, p));
    const visible = [...props.filter((e) => e.tagName !== 'META'), ...ownTimes(item), ...props.filter((e) => e.tagName === 'META')];
    let time: Date | null = null;
    for (const el of visible) if ((time = resolveTimeText(propValue(el), ref, timeZone, dayFirst))) break;
    if (!author && !time) continue;
    const post: Post = { author, text };
    if (time) post.time = time.toISOString();
    out.push({ post, el: item });
  }
  return out;
}

type Json = Record<string, unknown>;
const asArray = (v: unknown): unknown[] => (Array.isArray(v) ? v : v === undefined || v === null ? [] : [v]);

function ldNodes(doc: Document): Json[] {
  const out: Json[] = [];
  const walk = (v: unknown): void => {
    for (const x of asArray(v)) {
      if (!x || typeof x !== 'object') continue;
      const o = x as Json;
      out.push(o);
      if (o['@graph']) walk(o['@graph']);
    }
  };
  for (const s of Array.from(doc.querySelectorAll('script[type="application/ld+json"]'))) {
    try {
      walk(JSON.parse(s.textContent ?? ''));
    } catch {
      // malformed JSON-LD is common; the page's HTML still counts
    }
  }
  return out;
}

const typeOf = (o: Json) => asArray(o['@type']).map(String);

function ldPost(o: Json, ref: Date, timeZone: string): Post | null {
  const a = o.author ?? o.creator;
  const first = asArray(a)[0];
  const author = typeof first === 'string' ? first : cleanText(String((first as Json | undefined)?.name ?? ''));
  const text = cleanText(String(o.text ?? o.articleBody ?? o.commentText ?? ''));
  const t = String(o.dateCreated ?? o.datePublished ?? '');
  const time = t ? resolveTimeText(t, ref, timeZone) : null;
  if (!text && !author) return null;
  const post: Post = { author, text };
  if (time) post.time = time.toISOString();
  return post;
}

/**
 * The thread a page's JSON-LD declares: the opening posting (DiscussionForumPosting or a
 * Question) and its comments or answers. Boards that list the opening post again as the first
 * comment are not counted twice (same author and time).
 */
export function jsonLdThread(doc: Document, ref: Date, timeZone: string): { opening: Post | null; replies: Post[] } | null {
  for (const o of ldNodes(doc)) {
    const types = typeOf(o);
    let main: Json | null = null;
    if (types.includes('DiscussionForumPosting') || types.includes('Question') || types.includes('SocialMediaPosting')) main = o;
    else if (types.includes('QAPage') && o.mainEntity && typeof o.mainEntity === 'object') main = asArray(o.mainEntity)[0] as Json;
    if (!main) continue;
    const opening = ldPost(main, ref, timeZone);
    const replies: Post[] = [];
    for (const c of [...asArray(main.comment), ...asArray(main.acceptedAnswer), ...asArray(main.suggestedAnswer)]) {
      if (!c || typeof c !== 'object') continue;
      const p = ldPost(c as Json, ref, timeZone);
      if (!p) continue;
      if (opening && replies.length === 0 && p.time === opening.time && (p.author === opening.author || !opening.author)) continue;
      replies.push(p);
    }
    return { opening, replies };
  }
  return null;
}
