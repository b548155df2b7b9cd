/**
 * Built-in reply templates (METHODS §4, "visited URLs are matched against reply templates").
 * Each is plain data so users can add their own through loadMatchers() without code.
 */
import type { Post, ReplyMatcher } from './types.js';
import { absoluteUrl, cleanText, firstInt, safeQueryAll, textOf, timeOfElement } from './dom.js';

export const BUILTIN_MATCHERS: readonly ReplyMatcher[] = [
  {
    name: 'discuz',
    url: String.raw`thread-\d+-\d+-\d+\.html|forum\.php\?(.*&)?mod=viewthread`,
    threadId: String.raw`(?:thread-|[?&]tid=)(\d+)`,
    post: '#postlist > div[id^="post_"], div[id^="post_"]:has(> table[id^="pid"])',
    author: '.authi a.xw1, .pls .authi a, .authi a',
    time: 'em[id^="authorposton"] span[title], em[id^="authorposton"]',
    text: 'td.t_f, .t_msgfont, .pcb',
    floor: '.pi strong a em, a[id^="postnum"] em, .pi strong a',
    pages: '.pg a, .pgs .pg a',
    total: '.hm.ptn, .ptn',
    totalPattern: String.raw`(?:回复|replies)\s*[:：]?\s*(\d+)`,
  },
  {
    name: 'phpbb',
    url: String.raw`viewtopic\.php`,
    threadId: String.raw`[?&]t=(\d+)`,
    post: 'div.post[id^="p"], div.post.bg1, div.post.bg2',
    author: '.author .username, .author .username-coloured, .author strong a, .author strong, dl.postprofile dt a',
    time: '.author time, p.author',
    text: '.content, .postbody .content',
    pages: '.pagination a',
  },
  {
    name: 'fluxbb',
    url: String.raw`viewtopic\.php`,
    threadId: String.raw`[?&](?:id|pid)=(\d+)`,
    post: 'div.blockpost',
    author: '.postleft dt strong, .postleft dt',
    time: 'h2 a, h2',
    text: '.postmsg',
    floor: 'h2 .conr',
    pages: '.pagelink a',
  },
  {
    name: 'vbulletin',
    url: String.raw`showthread\.php|/threads?/\d+|/\d+-[^/]+\.html`,
    threadId: String.raw`(?:[?&]t=|/threads?/|/)(\d+)`,
    post: 'li.postcontainer, li.postbitlegacy, table[id^="post"]:has([id^="post_message_"]), div[id^="edit"] > table.tborder',
    author: '.username, .bigusername, .popupmenu .username',
    time: '.postdate .date, .date, .postdate, td.thead',
    text: '.postcontent, blockquote.postcontent, [id^="post_message_"]',
    floor: 'a.postcounter, a[id^="postcount"], .postcounter',
    pages: '.pagination a, .pagenav a',
  },
  {
    name: 'tieba',
    url: String.raw`tieba\.baidu\.com/p/\d+`,
    threadId: String.raw`/p/(\d+)`,
    post: '.l_post',
    author: '.p_author_name, .d_name a',
    time: '.post-tail-wrap .tail-info, .tail-info, .p_tail li span',
    text: '.d_post_content',
    floor: '.post-tail-wrap .tail-info, .tail-info, .p_tail li span',
    pages: '.l_pager a, .pager_theme_4 a',
    total: '.l_reply_num',
    totalPattern: String.raw`(\d+)\s*回复贴`,
  },
  {
    name: 'discourse',
    url: String.raw`/t/[^/]+/\d+`,
    threadId: String.raw`/t/(?:[^/]+/)?(\d+)`,
    post: '.topic-post, .crawler-post:not([role="navigation"])',
    author: '.names .username a, .names .first a, .creator a, [itemprop="author"] [itemprop="name"]',
    time: '.post-date [data-time], .post-date, time.post-time, [itemprop="datePublished"]',
    text: '.cooked, .post[itemprop="text"], .post[itemprop="articleBody"], [itemprop="text"]',
    floor: '[itemprop="position"]',
    pages: 'a[rel="next"], a[rel="prev"], .crawler-nav a[href*="page="]',
  },
  {
    // XenForo 2's markup is distinctive enough to match on any URL (forums rewrite thread URLs
    // to `.../905512.html` and the like).
    name: 'xenforo',
    url: '.',
    threadId: String.raw`/threads/(?:[^/]*\.)?(\d+)`,
    post: 'article.message--post, article.message[data-author]',
    author: '.message-name .username, .message-name, .username',
    time: '.message-attribution time.u-dt, time.u-dt, time',
    text: '.message-body .bbWrapper, .bbWrapper, .message-body',
    floor: '.message-attribution-opposite li:last-child a',
    pages: '.pageNav-page a, a.pageNav-jump--next',
  },
  {
    // XenForo 1.x: `li.message[data-author]` in `ol.messageList`; the permalink `.DateTime`
    // (span title or abbr data-time) is the post time, `.editDate` is not. Some styles print
    // the time in the user block instead (`.userText small`).
    name: 'xenforo1',
    url: '.',
    threadId: String.raw`/(?:threads|t)/(?:[^/]*\.)?(\d+)`,
    post: 'ol.messageList > li.message, li.message[data-author]',
    author: '.messageUserInfo .username, .userText .username, .authorEnd .username',
    time: '.datePermalink .DateTime, .messageMeta .DateTime, .privateControls .DateTime, .messageDetails .DateTime, .userText small',
    text: '.messageText, .messageContent',
    floor: '.postNumber',
    pages: '.PageNav a, .pageNavLinkGroup .PageNav a',
  },
  {
    // Phorum 5 (read.php?forum,thread): `div.message` = `.generic` header (author, subject,
    // time in <small>) + `.message-body`.
    name: 'phorum',
    url: String.raw`read\.php`,
    threadId: String.raw`read\.php\?\d+,(\d+)`,
    post: 'div.message:has(> .message-body)',
    author: '.message-author a, .message-author',
    time: '.generic small, small',
    text: '.message-body',
    pages: '.paging a, .nav a[href*="read.php"]',
  },
  {
    // Vanilla: forums rewrite `/discussion/ID/slug` to `/category/ID-slug.html` and the like, and
    // `.ItemDiscussion` / `li.ItemComment` with a `.Message` are Vanilla's own, so any URL.
    name: 'vanilla',
    url: '.',
    threadId: String.raw`(?:/discussion/|/)(\d+)(?=[-/.]|$)`,
    post: '.ItemDiscussion, li.ItemComment',
    author: '.Author .Username, a.Username',
    time: '.DateCreated time, time',
    text: '.Message, .userContent',
    pages: '.Pager a',
  },
  {
    name: 'ips',
    url: String.raw`/topic/\d+`,
    threadId: String.raw`/topic/(\d+)`,
    post: 'article.cPost',
    author: '.cAuthorPane_author a, .cAuthorPane_author, [itemprop="author"] [itemprop="name"]',
    time: 'time',
    text: '[data-role="commentContent"], .cPost_contentWrap',
    pages: '.ipsPagination a',
  },
  {
    name: 'wordpress-comments',
    url: '.',
    threadId: String.raw`^(https?://[^?#]+)`,
    post: 'ol.commentlist li.comment, ol.comment-list li.comment, .comment-list li.comment, #comments li.comment',
    author: '.comment-author .fn, .comment-author cite, .comment-author',
    time: '.comment-metadata time, .comment-meta time, .comment-metadata a, .comment-meta a, .commentmetadata a',
    text: '.comment-content, .comment-body > p, .comment-text',
    pages: '.comment-navigation a, .comments-pagination a, .nav-links a[href*="comment-page-"]',
    total: '.comments-title, #comments-title',
  },
];

export interface MatchedThread {
  posts: Post[];
  pageUrls: string[];
  total?: number;
  threadId: string;
}

/** Apply a declarative template to a parsed page. Null when the URL or the post selector does not match. */
export function applyMatcher(
  m: ReplyMatcher,
  doc: Document,
  url: string,
  ref: Date,
  timeZone: string,
  dayFirst?: boolean,
): MatchedThread | null {
  let urlRe: RegExp;
  try {
    urlRe = new RegExp(m.url, 'i');
  } catch {
    return null;
  }
  if (!urlRe.test(url)) return null;
  const blocks = safeQueryAll(doc, m.post);
  const blockSet = new Set(blocks);
  // Blocks may nest (WordPress reply comments sit inside their parent comment): a field belongs
  // to the nearest enclosing block only.
  // Selector lists are priority lists: `.comment-author .fn, .comment-author` prefers the first.
  const own = (b: Element, sel: string) =>
    splitSelectors(sel).flatMap((one) =>
      safeQueryAll(b, one).filter((e) => {
        let p = e.parentElement;
        while (p && !blockSet.has(p)) p = p.parentElement;
        return p === b;
      }),
    );
  const posts: Post[] = [];
  for (const b of blocks) {
    const authorEl = own(b, m.author)[0];
    // XenForo, IPS and others name the author on the post block itself.
    const author = authorEl ? textOf(authorEl) : cleanText(b.getAttribute('data-author'));
    const textEl = own(b, m.text)[0];
    const text = textEl ? textOf(textEl) : '';
    let time: Date | null = null;
    for (const t of own(b, m.time)) {
      time = timeOfElement(t, ref, timeZone, dayFirst);
      if (time) break;
    }
    // No body, no post: ad slots and "sponsored" rows copy the post markup but carry no message
    // and no time. A post of only a picture or an embedded video is a post all the same.
    const media = textEl?.querySelector('img, video, iframe, audio');
    if (!text && !(media && time && author)) continue;
    let floor: number | undefined;
    if (m.floor) {
      for (const f of own(b, m.floor)) {
        const s = cleanText(f.textContent);
        // Tieba's tail shows client, floor and time in look-alike spans: only `N楼`/`#N`/bare N.
        if (/^(#?\s*\d+\s*(楼|#|F)?|第\s*\d+\s*楼)$/i.test(s)) {
          floor = firstInt(s);
          break;
        }
      }
    }
    const post: Post = { author, text };
    if (time) post.time = time.toISOString();
    if (floor !== undefined) post.floor = floor;
    posts.push(post);
  }
  if (posts.length < (m.minPosts ?? 1)) return null;
  const pageUrls = m.pages ? collectPageUrls(safeQueryAll(doc, m.pages), url) : [];
  let total: number | undefined;
  if (m.total) {
    const s = safeQueryAll(doc, m.total).map((e) => cleanText(e.textContent)).join(' ');
    if (m.totalPattern) {
      const mm = new RegExp(m.totalPattern, 'i').exec(s);
      if (mm) total = Number(mm[1]);
    } else {
      total = firstInt(s);
    }
  }
  return { posts, pageUrls, total, threadId: threadIdFor(m.threadId, url) };
}

/** Split a selector list at top-level commas (not inside :has(...)/:not(...) or [attr="a,b"]). */
export function splitSelectors(sel: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let quote = '';
  let cur = '';
  for (const ch of sel) {
    if (quote) {
      if (ch === quote) quote = '';
    } else if (ch === '"' || ch === "'") quote = ch;
    else if (ch === '(' || ch === '[') depth++;
    else if (ch === ')' || ch === ']') depth--;
    else if (ch === ',' && depth === 0) {
      if (cur.trim()) out.push(cur.trim());
      cur = '';
      continue;
    }
    cur += ch;
  }
  if (cur.trim()) out.push(cur.trim());
  return out;
}

export function threadIdFor(pattern: string | undefined, url: string): string {
  if (pattern) {
    const mm = new RegExp(pattern, 'i').exec(url);
    if (mm?.[1]) return mm[1];
  }
  // Default: the URL with page-number parts removed, so every page of a thread shares an id.
  try {
    const u = new URL(url);
    u.hash = '';
    for (const k of ['page', 'p', 'pn', 'start', 'extra']) u.searchParams.delete(k);
    return u.href.replace(/\/page-?\d+\/?$/, '/');
  } catch {
    return url;
  }
}

/** Absolute, de-duplicated page links, the current page left out. */
export function collectPageUrls(links: Element[], pageUrl: string): string[] {
  const here = absoluteUrl(pageUrl, pageUrl);
  const host = new URL(pageUrl).host;
  const out = new Set<string>();
  for (const a of links) {
    const u = absoluteUrl(a.getAttribute('href'), pageUrl);
    if (!u || u === here || new URL(u).host !== host) continue;
    out.add(u);
  }
  return [...out];
}
