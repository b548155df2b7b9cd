/**
 * Long because: one ordered list of date sources (JSON-LD, meta, time elements, marked elements, URL), read in one pass.
 *
 * Publish time of a page (METHODS §3.4), from the most to the least reliable source:
 * JSON-LD datePublished, meta tags, <time datetime>, a visible date near the headline, a date in
 * an element marked as one (class or id `date`, `datum`, `byline`, `published`…), the URL, the
 * page's modified date, and last any plausible date in the text. When the machine-readable dates
 * disagree on the day (published and modified, JSON-LD and meta, UTC and local), the one the page
 * shows under its headline or in its byline wins (shownMachineDate).
 *
 * The time is written as the page states it (dates.ts DateStamp): with the page's own offset, as a
 * wall time without one, or as a date alone; the calendar date a reader sees is never shifted.
 */
import { dayStamp, MONTH_ALTERNATION, parseDateStamp, stampFromDate, type DateStamp } from './dates.js';
import type { PublishTime } from './types.js';

/** Dates before this are not publish times of web pages (htmldate's lower bound too). */
const MIN_PLAUSIBLE = Date.UTC(1995, 0, 1);

/**
 * The date in a URL (METHODS §3.4): `/20080905/`, `2008-09-05`, `2008/09/05`, `/2008/0905/`,
 * also `2008_09_05` and `/2008-09/05/`. Returns {y, m, d} or null; no time of day.
 */
export function urlDate(url: string): { year: number; month: number; day: number } | null {
  let path = url;
  // An archived copy (`web.archive.org/web/20131110121040/http://…`): the capture time is not the page's date.
  const archived = /^https?:\/\/web\.archive\.org\/web\/\d+[a-z_]*\/(.+)$/i.exec(url);
  if (archived) return urlDate(archived[1]!);
  try {
    const u = new URL(url);
    path = u.pathname + u.search;
  } catch {
    // not absolute: read the string as is
  }
  const patterns = [
    /(?<!\d)((?:19|20)\d\d)[-/_.]?(0[1-9]|1[0-2])[-/_.]?(0[1-9]|[12]\d|3[01])(?!\d)/,
    /(?<!\d)((?:19|20)\d\d)[-/_](0?[1-9]|1[0-2])[-/_](0?[1-9]|[12]\d|3[01])(?!\d)/,
    /\/((?:19|20)\d\d)[-/](0[1-9]|1[0-2])\/(0[1-9]|[12]\d|3[01])(?!\d)/,
    // Day first (`/meldungen/29-10-2021`, `23-01-2022-titel`): read in the order the path gives.
    /(?<![\d.])(0[1-9]|[12]\d|3[01])[-_.](0[1-9]|1[0-2])[-_.]((?:19|20)\d\d)(?!\d)/,
  ];
  for (const [i, re] of patterns.entries()) {
    const m = re.exec(path);
    if (!m) continue;
    const [year, month, day] = i === patterns.length - 1 ? [Number(m[3]), Number(m[2]), Number(m[1])] : [Number(m[1]), Number(m[2]), Number(m[3])];
    const probe = new Date(Date.UTC(year, month - 1, day));
    if (probe.getUTCMonth() === month - 1 && probe.getUTCDate() === day) return { year, month, day };
  }
  return null;
}

const META_NAMES = [
  'article:published_time', 'og:article:published_time', 'og:published_time', 'published_time',
  'pubdate', 'publishdate', 'publish_date', 'publish-date', 'publishtime', 'publish_time',
  'pub_date', 'datepublished', 'date.published', 'article.published', 'article_date_original',
  'dc.date.issued', 'dcterms.issued', 'dc.date', 'dcterms.date', 'dcterms.created', 'dc.date.created',
  'sailthru.date', 'parsely-pub-date', 'cxenseparse:recs:publishtime', 'originalpublicationdate',
  'article:created', 'weibo:article:create_at', 'og:release_date', 'release_date', 'date',
  'created', 'creation_date', 'firstpublishedtime', 'createdate', 'ptime', 'publication_date',
];
const META_RANK = new Map(META_NAMES.map((n, i) => [n, i]));
/** A page's modified date: used only when nothing states when it was published. */
const MODIFIED_META = new Map(['article:modified_time', 'og:updated_time', 'og:article:modified_time', 'datemodified', 'dc.date.modified', 'dcterms.modified', 'last-modified', 'lastmod', 'modified', 'revised', 'updated_time', 'parsely-pub-date-modified'].map((n, i) => [n, i]));

function* jsonLdObjects(v: unknown): Generator<Record<string, unknown>> {
  if (Array.isArray(v)) for (const x of v) yield* jsonLdObjects(x);
  else if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    yield o;
    if (o['@graph']) yield* jsonLdObjects(o['@graph']);
    if (o.mainEntity) yield* jsonLdObjects(o.mainEntity);
  }
}

/** JSON-LD types whose dates are the page's own (an Article's, not its publisher's or an image's). */
const ARTICLE_TYPE = /Article|Posting|Report|WebPage|Blog|Review|Recipe|VideoObject|Event|CreativeWork|Story|Page/i;

/** JSON-LD dates: the published one (datePublished, dateCreated, uploadDate) and the modified one. */
function fromJsonLd(doc: Document): { published: string | null; modified: string | null } {
  let published: { v: string; article: boolean } | null = null;
  let modified: string | null = null;
  for (const s of Array.from(doc.querySelectorAll('script[type="application/ld+json"]'))) {
    let data: unknown;
    try {
      data = JSON.parse(s.textContent ?? '');
    } catch {
      continue; // broken JSON-LD is common; other sources follow
    }
    for (const o of jsonLdObjects(data)) {
      const type = String(o['@type'] ?? '');
      const article = ARTICLE_TYPE.test(type);
      const v = o.datePublished ?? o.dateCreated ?? o.uploadDate;
      // An article's date beats the first object's (a WebSite or Organization with a founding date).
      if (typeof v === 'string' && v.trim() && (!published || (article && !published.article))) published = { v: v.trim(), article };
      if (!modified && typeof o.dateModified === 'string' && o.dateModified.trim()) modified = o.dateModified.trim();
    }
  }
  return { published: published?.v ?? null, modified };
}

function fromMeta(doc: Document, ranks = META_RANK): string | null {
  let best: { rank: number; value: string } | null = null;
  for (const m of Array.from(doc.querySelectorAll('meta[content]'))) {
    const key = (m.getAttribute('property') ?? m.getAttribute('name') ?? m.getAttribute('itemprop') ?? m.getAttribute('http-equiv') ?? '').trim().toLowerCase();
    const rank = ranks.get(key);
    const value = (m.getAttribute('content') ?? '').trim();
    if (rank !== undefined && value && (!best || rank < best.rank)) best = { rank, value };
  }
  return best?.value ?? null;
}

/** A <time> or itemprop date that says it is an update, not the publication. */
const UPDATED_MARK = /updated|modified|aktualisiert|mis à jour|actualizado|aggiornato/i;

function fromTimeElement(doc: Document): string | null {
  const times = Array.from(doc.querySelectorAll('time[datetime], [itemprop="datePublished"], [itemprop="dateCreated"], [property$="datePublished"][content], [property$="dateCreated"][content]'))
    .filter((t) => !inCommentBox(t) && !inOtherContent(t));
  const marked = (t: Element) => t.hasAttribute('pubdate') || /datePublished|dateCreated/.test(`${t.getAttribute('itemprop') ?? ''} ${t.getAttribute('property') ?? ''}`) || /publish|entry-date|post-date|posted/i.test(t.getAttribute('class') ?? '');
  const pick = times.find(marked) ?? times.find((t) => !UPDATED_MARK.test(`${t.getAttribute('class') ?? ''} ${t.getAttribute('itemprop') ?? ''} ${t.parentElement?.getAttribute('class') ?? ''} ${t.parentElement?.textContent?.slice(0, 40) ?? ''}`));
  if (!pick) return null;
  return (pick.getAttribute('datetime') ?? pick.getAttribute('content') ?? pick.textContent ?? '').trim() || null;
}

/** Embedded social posts (their blockquote's class): the post's date is its author's. */
const EMBED = 'instagram-media|twitter-tweet|tiktok-embed|fb-post';
const IN_EMBED = new RegExp(String.raw`(?:^|\s)(?:${EMBED})(?:$|\s)`, 'i');

/**
 * Teasers of other pages (related posts, sidebars, widgets, navigation, footers) and embedded
 * social posts (Instagram, X/Twitter, TikTok, Facebook): their dates belong to the posts they show.
 */
const OTHER_CONTENT = new RegExp(String.raw`(?:^|[-_])(?:related|sidebar|widget|teaser|recommend(?:ed|ations)?|popular|more-?(?:news|articles|posts|stories)|also-?read|weitere|aehnlich|ähnlich|newsticker|carousel|${EMBED})(?:$|[-_s])`, 'i');
const OTHER_TAGS = new Set(['ASIDE', 'NAV', 'FOOTER']);

function inOtherContent(e: Element): boolean {
  // <body> and <html> classes describe the layout (`right-sidebar`), not a part of the page;
  // WordPress's `tag-…`/`category-…` classes name the post's own tags.
  let footer = false;
  for (let p: Element | null = e; p && !/^(BODY|HTML)$/i.test(p.tagName); p = p.parentElement) {
    const tag = p.tagName.toUpperCase();
    // An <article>'s own <footer> holds its byline and date (Drupal's `node__meta`).
    if (tag === 'FOOTER') footer = true;
    else if (tag === 'ARTICLE') footer = false;
    else if (OTHER_TAGS.has(tag)) return true;
    const marks = `${p.getAttribute('class') ?? ''} ${p.getAttribute('id') ?? ''}`.split(/\s+/).filter((c) => !/^(tag|category|post|format|status|has|with|no)-/i.test(c));
    if (marks.some((c) => OTHER_CONTENT.test(c))) return true;
  }
  return footer;
}

/** hAtom microformat stamps: `<abbr class="published" title="2013-04-04T18:52:11+00:00">`. */
function fromTitleStamps(doc: Document): { published: string | null; updated: string | null } {
  let published: string | null = null;
  let updated: string | null = null;
  for (const e of Array.from(doc.querySelectorAll('abbr[title], [class*="published"][title], [class*="updated"][title], [class*="entry-date"][title]'))) {
    const v = (e.getAttribute('title') ?? '').trim();
    if (!/^\d{4}-\d\d-\d\d/.test(v) || inCommentBox(e) || inOtherContent(e)) continue;
    if (UPDATED_MARK.test(e.getAttribute('class') ?? '')) updated ??= v;
    else published ??= v;
  }
  return { published, updated };
}

function inCommentBox(e: Element): boolean {
  for (let p: Element | null = e; p; p = p.parentElement) {
    if (COMMENT_BOX.test(`${p.getAttribute('class') ?? ''} ${p.getAttribute('id') ?? ''}`)) return true;
  }
  return false;
}

/** Chinese numerals and 半 as counts in relative forms (`两小时前`, `半小时前`). */
const CN_COUNT = '[一两二三四五六七八九十半]';

/** Date-shaped substrings: numeric with a year, Chinese forms, relative forms, English month names. */
export const DATE_IN_TEXT = new RegExp([
  String.raw`(?<!\d)(?:19|20)\d\d\s*(?:[-/.]|年)\s*\d{1,2}\s*(?:[-/.]|月)\s*\d{1,2}(?!\d)\s*日?(?:\s*(?:[T ]|上午|下午|晚上)?\s*\d{1,2}\s*[:：时]\s*\d{1,2}(?:\s*[:：分]\s*\d{1,2})?)?`,
  String.raw`(?<![\d月])(?:\d{1,3}|${CN_COUNT})\s*(?:秒钟?|分钟|个?小时|小時|天|周|个月)\s*前`,
  String.raw`(?:今天|昨天|前天)\s*\d{1,2}[:：]\d{2}`,
  // 刚刚 as a stamp, not the adverb (`刚刚开始起步` is followed by the verb).
  String.raw`刚刚(?![\u3400-\u9fff])`,
  // A forum or feed stamp without a year, with a time of day (`12-27 10:30`, `12月27日 10:30`).
  String.raw`(?<![\d/.-])(?:1[0-2]|0?[1-9])\s*(?:-|月)\s*(?:3[01]|[12]\d|0?[1-9])\s*日?\s+\d{1,2}[:：]\d{2}(?![\d/.-])`,
  String.raw`\b(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\.?\s+\d{1,2}(?:st|nd|rd|th)?,?\s+(?:19|20)\d\d(?:,?\s+(?:at\s+)?\d{1,2}:\d{2}\s*(?:[ap]\.?m\.?)?)?`,
  String.raw`\b\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\.?,?\s+(?:19|20)\d\d`,
  String.raw`\b(?:\d+|an?)\s+(?:minutes?|hours?|days?)\s+ago`,
  String.raw`(?<![\d/])\d{1,2}/\d{1,2}/(?:19|20)\d\d(?:\s+\d{1,2}:\d{2}(?::\d{2})?\s*(?:[AP]M)?)?`,
  // European day-first: `25.01.2022`, `22.04.2020 / 06:15`, `25.01.2022 - 14:45`.
  String.raw`(?<![\d.])\d{1,2}\.\s?\d{1,2}\.\s?(?:19|20)\d\d(?!\d)(?:[,\s/|-]{1,4}(?:um\s+|à\s+|a las\s+|alle\s+|om\s+)?\d{1,2}[:.h]\d{2}(?!\d))?`,
  // A month's name in one of the languages dates.ts knows: `2. November 2021`, `15 de septiembre de 2009`.
  String.raw`(?<![\p{L}\d])\d{1,2}(?:\.|er|º)?\s*(?:de\s+)?(?:${MONTH_ALTERNATION})\.?(?!\p{L})[,\s]*(?:de\s+)?(?:19|20)\d\d(?!\d)(?:[,\s]{1,3}(?:um\s+|à\s+|at\s+|-\s+)?\d{1,2}[:h]\d{2}(?!\d))?`,
  String.raw`(?<![\p{L}\d])(?:${MONTH_ALTERNATION})\.?\s+\d{1,2}(?:st|nd|rd|th)?,?\s+(?:19|20)\d\d(?!\d)`,
].join('|'), 'giu');

const SKIP = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'SELECT', 'OPTION', 'TEXTAREA', 'TITLE']);

/**
 * Containers of comments or replies (by class or id): their stamps are when readers wrote, not
 * when the article was published. `postcomment`, `comment-list`, `replies`, `respond`, `评论`.
 */
const COMMENT_BOX = /comment|repl(?:y|ies)|respond|discuss|评论|回复|留言|(?:^|\s)wm-ipp/i;

/** `h1`: index of the first piece of the <h1> the piece is in (-1 outside one). */
interface TextPiece { text: string; inComment: boolean; h1: number }

function textNodes(root: Node): TextPiece[] {
  const out: TextPiece[] = [];
  const walk = (n: Node, inComment: boolean, h1: number) => {
    for (let c = n.firstChild; c; c = c.nextSibling) {
      if (c.nodeType === 3) {
        const text = (c.nodeValue ?? '').replace(/[\s\u00a0\u3000]+/g, ' ').trim();
        if (text) out.push({ text, inComment, h1 });
      } else if (c.nodeType === 1 && !SKIP.has((c as Element).tagName.toUpperCase()) && !IN_EMBED.test((c as Element).getAttribute('class') ?? '')) {
        const e = c as Element;
        const isH1 = h1 < 0 && e.tagName.toUpperCase() === 'H1';
        walk(c, inComment || COMMENT_BOX.test(`${e.getAttribute('class') ?? ''} ${e.getAttribute('id') ?? ''}`), isH1 ? out.length : h1);
      }
    }
  };
  walk(root, false, -1);
  return out;
}

/**
 * A date-shaped string on the page. It is parsed only when a rule reaches it (`date` then holds
 * the result, null when rejected): forum lists carry a hundred stamps and parsing costs ~0.1 ms each.
 */
interface Found { raw: string; pos: number; hasTime: boolean; labelled: boolean; inComment: boolean; clock: boolean; date?: DateStamp | null }

const LABEL = /(发布|发表|时间|日期|更新|published|posted|updated|date|datum|erstellt|veröffentlicht|publiziert|erschienen|publié|publicado|pubblicato|gepubliceerd)/i;
/** A "today is" widget (`今天是2024年3月10日 星期日`): the visitor's date, not the article's. */
const TODAY_LABEL = /(今天是|今日是|今天[:：]|今日[:：]|today is|today[:：])\s*$/i;
/** Copyright lines (`© 2003-2020`, `版权所有 2005.1.1`) date the site, not the article. */
const COPYRIGHT = /©|\(c\)|copyright|版权所有|版權所有/i;
const WEEKDAY = /星期[一二三四五六日天]|周[一二三四五六日]|礼拜[一二三四五六日天]|\b(?:Mon|Tues?|Wed(?:nes)?|Thu(?:rs)?|Fri|Sat(?:ur)?|Sun)(?:day)?\b/i;
/** Relative forms (`3天前`, `刚刚`) count only in a short stamp, not inside running text. */
const MAX_RELATIVE_STAMP_CHARS = 20;
/** How far after the headline (characters of visible text) its dateline is looked for. */
const HEADLINE_WINDOW_CHARS = 1500;
/** How far above the headline (characters) a blog's date header counts as the post's dateline. */
const DATELINE_ABOVE_CHARS = 80;
const YEAR_MONTH = /(?<!\d)((?:19|20)\d\d)年(\d{1,2})月(?!\d{1,2}日)/g;
const DAY_MS = 86_400_000;

/** How a visible date was chosen: next to the headline, by a label or a time of day, or as any date. */
export type VisibleHow = 'headline' | 'stamp' | 'any';

/**
 * A visible date: the first one within ~1500 characters after the headline (a stamp with a time
 * of day first); failing that, the first stamp with a time of day (a publish stamp, unlike archive
 * lists and calendars), preferring a labelled one (`发布时间：`); then any labelled date, any date,
 * and last a bare `1998年3月` (magazine issues). Rejected: "today is" widgets, copyright lines,
 * dates after the fetch, relative forms inside running text; dates in comment boxes are used only
 * when the page has no other.
 */
interface VisibleDate { raw: string; date: DateStamp; how: VisibleHow; all: Found[]; valid: (f: Found) => boolean }

function fromVisibleText(doc: Document, headline: string | undefined, ref: Date, tz: string): VisibleDate | null {
  const body = doc.body;
  if (!body) return null;
  const texts = textNodes(body);
  const found: Found[] = [];
  let pos = 0;
  let headPos = -1;
  // A very short title (`海姑娘`, a blog's name) says nothing about where the article starts.
  const key = headline && headline.replace(/\s/g, '').length >= 6 ? headline.slice(0, 12) : '';
  const headIndex = key ? texts.findIndex((p) => p.text.includes(key)) : -1;
  for (let i = 0; i < texts.length; i++) {
    const { text: t, inComment } = texts[i]!;
    if (i === headIndex) {
      // The headline's <h1> starts where its first piece does: a date set inside it (a topline) is its dateline.
      const h1 = texts[i]!.h1;
      headPos = h1 >= 0 && h1 < i ? pos - texts.slice(h1, i).reduce((n, p) => n + p.text.length + 1, 0) : pos;
    }
    const before = (texts[i - 1]?.text ?? '').slice(-12);
    // Join a label split from its value (`发布时间：` `<span>2008-05-12</span>`).
    const labelled = LABEL.test(before + ' ' + t);
    const copyright = COPYRIGHT.test(t);
    for (const m of t.matchAll(DATE_IN_TEXT)) {
      const relative = !/\d{4}/.test(m[0]) && !/[A-Za-z]{3}/.test(m[0]);
      if (relative && t.length > MAX_RELATIVE_STAMP_CHARS) continue;
      if (copyright) continue;
      const lead = (before + ' ' + t.slice(0, m.index ?? 0)).slice(-12);
      if (TODAY_LABEL.test(lead)) continue;
      // A date on the fetch day with its weekday, above the headline, may be the page header's clock.
      const clock = headPos < 0 && !!key && WEEKDAY.test(t) && !/\d[:：]\d/.test(m[0]);
      found.push({ raw: m[0], pos: pos + (m.index ?? 0), hasTime: /\d[:：时]\d|前|刚刚|ago/i.test(m[0]), labelled, inComment, clock });
    }
    pos += t.length + 1;
  }
  const valid = (f: Found): boolean => {
    if (f.date === undefined) {
      const d = parseDateStamp(f.raw, ref, tz);
      // A future date is an event date or an ad, not a publish time; the fetch day shown with its
      // weekday above the headline is the page header's clock.
      f.date = !d || !plausible(d, ref) || (f.clock && Math.abs(d.approx.getTime() - ref.getTime()) < DAY_MS) ? null : d;
    }
    return f.date !== null;
  };
  const first = (pool: Found[], test: (f: Found) => boolean = () => true) => pool.find((f) => test(f) && valid(f));
  const pick = (f: Found | undefined, how: VisibleHow) => (f ? { raw: f.raw, date: f.date!, how, all: found, valid } : null);
  if (headPos >= 0) {
    // Within the window a stamp with a time of day beats a bare date (sidebars: `建立于:2004年10月6日`).
    const after = found.filter((f) => f.pos >= headPos && f.pos - headPos <= HEADLINE_WINDOW_CHARS && !f.inComment);
    // Blogs put the post's stamp just above its headline (`Saturday, September 10th, 2005 10:56 am`);
    // the stamp nearest the headline wins. A bare date above it is more often the header's clock, so it comes last.
    const before = found.filter((f) => f.pos < headPos && headPos - f.pos <= DATELINE_ABOVE_CHARS && !f.inComment).reverse();
    const nearest = (a: Found | undefined, b: Found | undefined) => (a && b ? (headPos - b.pos < a.pos - headPos ? b : a) : a ?? b);
    const timed = (f: Found) => f.hasTime;
    // A stamp labelled as the publication (`发布时间：`, `Erstellt am:`) beats unlabelled ones (a list of other stories' stamps).
    const near = first(after, (f) => f.hasTime && f.labelled) ?? nearest(first(after, timed), first(before, timed)) ?? first(after) ?? first(before);
    if (near) return pick(near, 'headline');
  }
  const page = found.filter((f) => !f.inComment);
  for (const pool of [page, found]) {
    const stamp = first(pool, (f) => f.hasTime && f.labelled) ?? first(pool, (f) => f.hasTime) ?? first(pool, (f) => f.labelled);
    if (stamp) return pick(stamp, 'stamp');
    const any = first(pool);
    if (any) return pick(any, 'any');
  }
  for (const { text: t } of texts) {
    if (COPYRIGHT.test(t)) continue;
    for (const m of t.matchAll(YEAR_MONTH)) {
      const [y, mo] = [Number(m[1]), Number(m[2])];
      if (mo >= 1 && mo <= 12 && Date.UTC(y, mo - 1, 1) >= MIN_PLAUSIBLE) return { raw: m[0], date: dayStamp(y, mo, 1, tz), how: 'any', all: found, valid };
    }
  }
  return null;
}

/** Not before 1995, not after the fetch (a day's grace for zones). */
function plausible(d: DateStamp, ref: Date): boolean {
  const t = d.approx.getTime();
  return t >= MIN_PLAUSIBLE && t <= ref.getTime() + DAY_MS;
}

/** Parse a machine-readable date (ISO or near it, or a Unix time); wall times without an offset stay so. */
function parseMachineDate(v: string, ref: Date, tz: string): DateStamp | null {
  const t = v.trim();
  if (/^\d{10}(\d{3})?$/.test(t)) return stampFromDate(new Date(t.length === 10 ? Number(t) * 1000 : Number(t)), 'instant', tz);
  const d = parseDateStamp(t, ref, tz);
  return d && plausible(d, ref) ? d : null;
}

/**
 * Elements marked as holding a date (class or id: date, datum, fecha, time, published, posted,
 * byline, meta, dateline…; htmldate reads the same kind of markup): the first plausible date in
 * their text, outside comment boxes and copyright lines. Bounded: at most MAX_MARKED elements of
 * at most MAX_MARKED_CHARS characters each are read.
 */
const MARKED = /(?:^|[\s_-])(?:[\w-]*(?:date|datum|fecha|data-pub|time|zeit|publi|posted|submitted|byline|dateline|meta|subline|autor|author|info|created|parution|fecha)[\w-]*)(?:$|\s)/i;
const MARKED_SELECTOR = ['date', 'Date', 'datum', 'Datum', 'fecha', 'time', 'Time', 'publi', 'posted', 'submitted', 'byline', 'dateline', 'meta', 'subline', 'autor', 'author', 'created', 'parution']
  .flatMap((k) => [`[class*="${k}"]`, `[id*="${k}"]`]).join(',');
const MAX_MARKED = 1500;
const MAX_MARKED_CHARS = 300;

function fromMarkedElements(doc: Document, ref: Date, tz: string): { raw: string; date: DateStamp } | null {
  // The whole document: a broken <head> can swallow the article (the parser keeps it there).
  const body = doc.documentElement;
  if (!body) return null;
  let seen = 0;
  let fallback: { raw: string; date: DateStamp } | null = null;
  for (const e of Array.from(body.querySelectorAll(MARKED_SELECTOR))) {
    if (++seen > MAX_MARKED) break;
    const mark = `${e.getAttribute('class') ?? ''} ${e.getAttribute('id') ?? ''}`;
    if (!MARKED.test(mark) || SKIP.has(e.tagName.toUpperCase()) || inCommentBox(e) || inOtherContent(e)) continue;
    const text = (e.textContent ?? '').replace(/[\s\u00a0\u3000]+/g, ' ').trim();
    if (!text || text.length > MAX_MARKED_CHARS || COPYRIGHT.test(text)) continue;
    for (const m of text.matchAll(DATE_IN_TEXT)) {
      if (!/\d{4}/.test(m[0])) continue; // relative forms only in the headline's dateline
      const d = parseDateStamp(m[0], ref, tz);
      if (!d || !plausible(d, ref)) continue;
      // An update stamp (`Aktualisiert am …`) yields to a publication stamp further on.
      if (UPDATED_MARK.test(text.slice(Math.max(0, (m.index ?? 0) - 30), m.index ?? 0)) || UPDATED_MARK.test(mark)) {
        fallback ??= { raw: m[0], date: d };
        continue;
      }
      return { raw: m[0], date: d };
    }
  }
  return fallback;
}

/** A UTC stamp at an hour where the local day of Europe (22-24 h) or the Americas (0-9 h) differs. */
function utcNearMidnight(iso: string): boolean {
  const m = /T(\d\d):\d\d:\d\d\+00:00$/.exec(iso);
  return !!m && (Number(m[1]) >= 22 || Number(m[1]) < 9);
}

function oneDayApart(a: string, b: string): boolean {
  return Math.abs(Date.parse(a.slice(0, 10)) - Date.parse(b.slice(0, 10))) === DAY_MS;
}

/**
 * Publish time from the page, or undefined. `fetchedAt` resolves relative dates and bounds every
 * date (none after it); `tz` is the zone relative dates are written in and the approximate
 * instant of wall times is read in. `headline` (the clean title) locates the visible date.
 */
export function extractPublishTime(doc: Document, url: string, fetchedAt: Date, tz: string, headline?: string): PublishTime | undefined {
  const ld = fromJsonLd(doc);
  const titles = fromTitleStamps(doc);
  const out = (d: DateStamp, source: PublishTime['source'], raw: string): PublishTime => ({ iso: d.iso, source, raw });
  const h = headline ?? doc.querySelector('h1')?.textContent?.trim();
  // The page's own URL, else the one it names as canonical (saved or syndicated copies).
  const canonical = doc.querySelector('link[rel="canonical"]')?.getAttribute('href') ?? doc.querySelector('meta[property="og:url"]')?.getAttribute('content') ?? '';
  const u = urlDate(url) ?? (canonical ? urlDate(canonical) : null);
  const uDay = u ? dayStamp(u.year, u.month, u.day, tz) : null;
  // Machine-readable dates: the published ones in order of reliability, then the modified ones.
  const stated: [PublishTime['source'], string | null][] = [
    ['json-ld', ld.published], ['meta', fromMeta(doc)], ['time-element', fromTimeElement(doc)], ['time-element', titles.published],
  ];
  const machine: MachineDate[] = [];
  for (const [source, raw] of stated) {
    const d = raw ? parseMachineDate(raw, fetchedAt, tz) : null;
    if (d) machine.push({ source, raw: raw!, date: d });
  }
  const published = machine.length;
  for (const [source, raw] of [['json-ld', ld.modified], ['meta', fromMeta(doc, MODIFIED_META)], ['time-element', titles.updated]] as const) {
    const d = raw ? parseMachineDate(raw, fetchedAt, tz) : null;
    if (d) machine.push({ source, raw: raw!, date: d });
  }
  let vis: VisibleDate | null | undefined;
  const visible = () => (vis === undefined ? (vis = fromVisibleText(doc, h, fetchedAt, tz)) : vis);
  let marked: { raw: string; date: DateStamp } | null | undefined;
  const markedDate = () => (marked === undefined ? (marked = fromMarkedElements(doc, fetchedAt, tz)) : marked);
  const first = published > 0 ? machine[0]! : undefined;
  if (first) {
    // A stamp serialised in UTC near midnight may sit on the day before or after the one the page
    // shows its readers; the URL's date, one day away, is the local day.
    if (utcNearMidnight(first.date.iso) && uDay && oneDayApart(uDay.iso, first.date.iso)) return out(uDay, 'url', canonical && !urlDate(url) ? canonical : url);
    const shownPick = shownMachineDate(machine, () => {
      const v = visible();
      const m = markedDate();
      return [v?.how === 'headline' ? v.date.iso : null, m?.date.iso ?? null];
    });
    const pick = shownPick ?? first;
    return out(pick.date, pick.source, pick.raw);
  }
  const v = visible();
  if (v?.how === 'headline') return out(v.date, 'text', v.raw);
  if (v && u) {
    // Not found next to the headline, the visible date may be a sidebar's or a comment's; a date
    // in the URL is the article's own. A visible stamp on the URL's day adds the time of day.
    // Only stamps that show the day's number are parsed.
    const sameDay = v.all.find((f) => f.raw.includes(String(u.day)) && v.valid(f) && f.date!.iso.startsWith(uDay!.iso));
    if (sameDay) return out(sameDay.date!, 'text', sameDay.raw);
  }
  const m = markedDate();
  if (m && (!uDay || m.date.iso.startsWith(uDay.iso))) return out(m.date, 'text', m.raw);
  if (uDay) return out(uDay, 'url', canonical && !urlDate(url) ? canonical : url);
  // Only a modified date is stated: it bounds the publication and is often the same day.
  if (machine.length > 0) return out(machine[0]!.date, machine[0]!.source, machine[0]!.raw);
  return v ? out(v.date, 'text', v.raw) : undefined;
}

interface MachineDate { source: PublishTime['source']; raw: string; date: DateStamp }

/**
 * The machine-readable dates disagree on the day (a published and a modified date, JSON-LD and a
 * meta tag, a UTC stamp and the same instant with the page's own offset): the one the page shows
 * its readers, in the dateline under its headline or in an element marked as its date, is the
 * page's date. Many sites show their last update as the article's date; a date no reader sees
 * (a first import, a CMS's creation stamp) yields to it. Returns null when the first
 * published date is shown, when no machine date is shown, or when all name the same day.
 * `shown` is read only when the days disagree (it walks the page's text).
 */
function shownMachineDate(machine: MachineDate[], shown: () => (string | null)[]): MachineDate | null {
  const day = (m: MachineDate) => m.date.iso.slice(0, 10);
  if (new Set(machine.map(day)).size < 2) return null;
  const days = shown().filter((s): s is string => !!s).map((s) => s.slice(0, 10));
  if (days.length === 0 || days.includes(day(machine[0]!))) return null;
  return machine.find((m) => days.includes(day(m))) ?? null;
}
