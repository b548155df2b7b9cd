/**
 * Publish time of a page (METHODS §3.4), from the most to the least reliable source:
 * JSON-LD datePublished, meta tags, <time datetime>, a visible date near the headline, the URL.
 */
import { parseDateText, toZonedIso, zonedTimeToUtc } from './dates.js';
import type { PublishTime } from './types.js';

/**
 * The date in a URL (METHODS §3.4): `/20080905/`, `2008-09-05`, `2008/09/05`, `/2008/0905/`,
 * also `2008_09_05` and `/2008-09/05/`. Returns {y, m, d} or null; no time of day.
 */
export function urlDate(url: string): { year: number; month: number; day: number } | null {
  let path = url;
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
  ];
  for (const re of patterns) {
    const m = re.exec(path);
    if (!m) continue;
    const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
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

function* jsonLdObjects(v: unknown): Generator<Record<string, unknown>> {
  if (Array.isArray(v)) for (const x of v) yield* jsonLdObjects(x);
  else if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    yield o;
    if (o['@graph']) yield* jsonLdObjects(o['@graph']);
    if (o.mainEntity) yield* jsonLdObjects(o.mainEntity);
  }
}

function fromJsonLd(doc: Document): string | null {
  for (const s of Array.from(doc.querySelectorAll('script[type="application/ld+json"]'))) {
    let data: unknown;
    try {
      data = JSON.parse(s.textContent ?? '');
    } catch {
      continue; // broken JSON-LD is common; other sources follow
    }
    for (const o of jsonLdObjects(data)) {
      const v = o.datePublished ?? o.dateCreated ?? o.uploadDate;
      if (typeof v === 'string' && v.trim()) return v.trim();
    }
  }
  return null;
}

function fromMeta(doc: Document): string | null {
  let best: { rank: number; value: string } | null = null;
  for (const m of Array.from(doc.querySelectorAll('meta[content]'))) {
    const key = (m.getAttribute('property') ?? m.getAttribute('name') ?? m.getAttribute('itemprop') ?? m.getAttribute('http-equiv') ?? '').trim().toLowerCase();
    const rank = META_RANK.get(key);
    const value = (m.getAttribute('content') ?? '').trim();
    if (rank !== undefined && value && (!best || rank < best.rank)) best = { rank, value };
  }
  return best?.value ?? null;
}

function fromTimeElement(doc: Document): string | null {
  const times = Array.from(doc.querySelectorAll('time[datetime], [itemprop="datePublished"]'));
  const pick = times.find((t) => t.hasAttribute('pubdate') || t.getAttribute('itemprop') === 'datePublished') ?? times[0];
  if (!pick) return null;
  return (pick.getAttribute('datetime') ?? pick.getAttribute('content') ?? pick.textContent ?? '').trim() || null;
}

/** Date-shaped substrings: numeric with a year, Chinese forms, relative forms, English month names. */
export const DATE_IN_TEXT = new RegExp([
  String.raw`(?<!\d)(?:19|20)\d\d\s*(?:[-/.]|年)\s*\d{1,2}\s*(?:[-/.]|月)\s*\d{1,2}(?!\d)\s*日?(?:\s*(?:[T ]|上午|下午|晚上)?\s*\d{1,2}\s*[:：时]\s*\d{1,2}(?:\s*[:：分]\s*\d{1,2})?)?`,
  String.raw`(?<![\d月])\d{1,3}\s*(?:秒钟?|分钟|个?小时|天|周)\s*前`,
  String.raw`(?:今天|昨天|前天)\s*\d{1,2}[:：]\d{2}`,
  String.raw`刚刚`,
  String.raw`\b(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\.?\s+\d{1,2},?\s+(?:19|20)\d\d(?:,?\s+\d{1,2}:\d{2}\s*(?:[ap]\.?m\.?)?)?`,
  String.raw`\b\d{1,2}\s+(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\.?\s+(?:19|20)\d\d`,
  String.raw`\b\d+\s+(?:minutes?|hours?|days?)\s+ago`,
  String.raw`(?<![\d/])\d{1,2}/\d{1,2}/(?:19|20)\d\d(?:\s+\d{1,2}:\d{2}(?::\d{2})?\s*(?:[AP]M)?)?`,
].join('|'), 'gi');

const SKIP = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'SELECT', 'OPTION', 'TEXTAREA']);

function textNodes(root: Node): string[] {
  const out: string[] = [];
  const walk = (n: Node) => {
    for (let c = n.firstChild; c; c = c.nextSibling) {
      if (c.nodeType === 3) {
        const t = (c.nodeValue ?? '').replace(/[\s\u00a0\u3000]+/g, ' ').trim();
        if (t) out.push(t);
      } else if (c.nodeType === 1 && !SKIP.has((c as Element).tagName.toUpperCase())) walk(c);
    }
  };
  walk(root);
  return out;
}

interface Found { raw: string; date: Date; pos: number; hasTime: boolean; labelled: boolean }

const LABEL = /(发布|发表|时间|日期|更新|published|posted|updated|date)/i;
const YEAR_MONTH = /(?<!\d)((?:19|20)\d\d)年(\d{1,2})月(?!\d{1,2}日)/g;

/**
 * A visible date: the first one within ~1500 characters after the headline; failing that, the
 * first stamp with a time of day (a publish stamp, unlike archive lists and calendars), preferring
 * a labelled one (`发布时间：`); then any labelled date, any date, and last a bare `1998年3月`
 * (magazine issues).
 */
function fromVisibleText(doc: Document, headline: string | undefined, ref: Date, tz: string): { raw: string; date: Date } | null {
  const body = doc.body;
  if (!body) return null;
  const texts = textNodes(body);
  const found: Found[] = [];
  let pos = 0;
  let headPos = -1;
  // A very short title (`海姑娘`, a blog's name) says nothing about where the article starts.
  const key = headline && headline.replace(/\s/g, '').length >= 6 ? headline.slice(0, 12) : '';
  for (let i = 0; i < texts.length; i++) {
    const t = texts[i]!;
    if (key && headPos < 0 && t.includes(key)) headPos = pos;
    // Join a label split from its value (`发布时间：` `<span>2008-05-12</span>`).
    const labelled = LABEL.test((texts[i - 1] ?? '').slice(-12) + ' ' + t);
    for (const m of t.matchAll(DATE_IN_TEXT)) {
      // Relative forms (`3天前`, `刚刚`) count only as a short label, not inside running text.
      if (!/\d{4}/.test(m[0]) && !/[A-Za-z]{3}/.test(m[0]) && t.length > 40) continue;
      const d = parseDateText(m[0], ref, tz);
      // A future date is an event date or an ad, not a publish time.
      if (!d || d.getTime() > ref.getTime() + 86_400_000) continue;
      found.push({ raw: m[0], date: d, pos: pos + (m.index ?? 0), hasTime: /\d[:：时]\d|前|刚刚|ago/i.test(m[0]), labelled });
    }
    pos += t.length + 1;
  }
  const pick = (f: Found | undefined) => (f ? { raw: f.raw, date: f.date } : null);
  if (headPos >= 0) {
    // Within the window a stamp with a time of day beats a bare date (sidebars: `建立于:2004年10月6日`).
    const win = found.filter((f) => f.pos >= headPos && f.pos - headPos <= 1500);
    const near = win.find((f) => f.hasTime) ?? win[0];
    if (near) return pick(near);
  }
  const timed = found.filter((f) => f.hasTime);
  const r = pick(timed.find((f) => f.labelled) ?? timed[0] ?? found.find((f) => f.labelled) ?? found[0]);
  if (r) return r;
  for (const t of texts) {
    for (const m of t.matchAll(YEAR_MONTH)) {
      const [y, mo] = [Number(m[1]), Number(m[2])];
      if (mo >= 1 && mo <= 12) return { raw: m[0], date: zonedTimeToUtc(y, mo, 1, 0, 0, 0, tz) };
    }
  }
  return null;
}

/** Parse a machine-readable date (ISO or near it); wall times without an offset are in `tz`. */
function parseMachineDate(v: string, ref: Date, tz: string): Date | null {
  const t = v.trim();
  if (/^\d{10}(\d{3})?$/.test(t)) return new Date(t.length === 10 ? Number(t) * 1000 : Number(t));
  return parseDateText(t, ref, tz);
}

/**
 * Publish time from the page, or undefined. `fetchedAt` resolves relative dates; `tz` is the zone
 * for wall times without an offset. `headline` (the clean title) locates the visible date.
 */
export function extractPublishTime(doc: Document, url: string, fetchedAt: Date, tz: string, headline?: string): PublishTime | undefined {
  const sources: [PublishTime['source'], () => string | null][] = [
    ['json-ld', () => fromJsonLd(doc)],
    ['meta', () => fromMeta(doc)],
    ['time-element', () => fromTimeElement(doc)],
  ];
  for (const [source, get] of sources) {
    const raw = get();
    if (!raw) continue;
    const d = parseMachineDate(raw, fetchedAt, tz);
    if (d) return { iso: toZonedIso(d, tz), source, raw };
  }
  const h = headline ?? doc.querySelector('h1')?.textContent?.trim();
  const vis = fromVisibleText(doc, h, fetchedAt, tz);
  if (vis) return { iso: toZonedIso(vis.date, tz), source: 'text', raw: vis.raw };
  const u = urlDate(url);
  if (u) return { iso: toZonedIso(zonedTimeToUtc(u.year, u.month, u.day, 0, 0, 0, tz), tz), source: 'url', raw: url };
  return undefined;
}
