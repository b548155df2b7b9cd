/**
 * Reply-thread benchmark on real pages (not a test): `npm run bench:threads`.
 * Data: WEB-FORUM-52 thread pages (shared/data/forum-threads) and, for false positives, the
 * Zyte article-extraction-benchmark pages. SHARED_DATA overrides ../shared/data.
 *   recognised      share of thread pages for which extractThread returns a thread
 *   post count      share of pages whose post count equals the gold count
 *   time recall     gold post times matched by an extracted time (same minute; same day when the
 *                   gold shows only a date; month and day when it shows no year; year and month
 *                   when it shows only those — see precisionOf). Pages print wall-clock times
 *                   in an unknown zone, so each page gets the one UTC offset that matches best.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { extractThread, resolveTimeText } from '../src/extract/replies/index.js';
import { pageDayFirst } from '../src/extract/replies/time.js';
import { parseDocument } from '../src/extract/replies/dom.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const shared = process.env.SHARED_DATA ?? resolve(root, '../shared/data');
const forumDir = join(shared, 'forum-threads');
const articleDir = join(shared, 'article-extraction-benchmark');
if (!existsSync(forumDir)) {
  console.error(`forum-threads data not found at ${forumDir} (set SHARED_DATA); nothing to benchmark.`);
  process.exit(0);
}

// The data set was collected in mid-2020; relative times ("20 hours ago") resolve against this.
const FETCHED_AT = new Date('2020-06-15T12:00:00Z');
const TZ = 'UTC';
const only = process.argv[2];

interface Gold {
  url: string;
  html: string;
  gold_standard_annotation: { datetime?: { surface_form: string }; user?: { surface_form: string } }[];
}

const HAS_CLOCK = /\d{1,2}\s*[:h]\s*\d\d|\b(hours?|minutes?|mins?) ago\b/i;
const RELATIVE = /\bago\b|yesterday|today|gestern|heute/i;
/**
 * How precisely a gold surface form pins its time, so ours is compared at that precision:
 * `March 27` (no year: forums omit the current year) is compared on month and day, `September
 * 2019` (month only) on year and month, a date without a clock on the day, else the minute.
 */
type Precision = 'minute' | 'day' | 'month-day-minute' | 'month-day' | 'month';
function precisionOf(s: string): Precision {
  const clock = HAS_CLOCK.test(s);
  if (RELATIVE.test(s)) return clock ? 'minute' : 'day';
  const noClock = s.replace(/\d{1,2}\s*[:h]\s*\d\d(\s*[ap]\.?m\.?)?/gi, ' ');
  const hasYear = /\b(19|20)\d\d\b/.test(noClock) || /\b\d{1,2}[./-]\d{1,2}[./-]\d{2}\b/.test(noClock);
  if (!hasYear) return clock ? 'month-day-minute' : 'month-day';
  if (!/\d/.test(noClock.replace(/\b(19|20)\d\d\b/g, ' '))) return 'month';
  return clock ? 'minute' : 'day';
}
const pad = (n: number) => String(n).padStart(2, '0');
function wall(ms: number, p: Precision): string {
  const d = new Date(ms);
  const y = d.getUTCFullYear();
  const md = `${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
  const hm = `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}`;
  switch (p) {
    case 'minute': return `${y}-${md} ${hm}`;
    case 'day': return `${y}-${md}`;
    case 'month-day-minute': return `--${md} ${hm}`;
    case 'month-day': return `--${md}`;
    case 'month': return `${y}-${pad(d.getUTCMonth() + 1)}`;
  }
}
const PRECISIONS: Precision[] = ['minute', 'day', 'month-day-minute', 'month-day', 'month'];

let pages = 0, recognised = 0, countExact = 0, goldTimes = 0, timeHits = 0, parseableGold = 0;
let totalMs = 0;
const failures: string[] = [];
for (const f of readdirSync(forumDir).filter((n) => n.endsWith('.json')).sort()) {
  if (only && !f.includes(only)) continue;
  const g = JSON.parse(readFileSync(join(forumDir, f), 'utf8')) as Gold;
  pages++;
  const t0 = performance.now();
  const th = extractThread({ html: g.html, url: g.url, fetchedAt: FETCHED_AT, timeZone: TZ });
  totalMs += performance.now() - t0;
  const gold = g.gold_standard_annotation;
  goldTimes += gold.length;
  if (!th) {
    failures.push(`NOT RECOGNISED  ${f}`);
    continue;
  }
  recognised++;
  if (th.posts.length === gold.length) countExact++;
  else failures.push(`COUNT ${th.posts.length} vs gold ${gold.length} [${th.matcher}]  ${f}`);
  // Gold times, wall clock (parsed as if UTC); ours are instants: find the page's offset.
  // Gold `04/02/2005` is read in the order the page's own gold dates and language imply.
  const goldDayFirst = pageDayFirst(gold.map((p) => p.datetime?.surface_form ?? '').join('\n'), /<html[^>]*\slang=["']?([\w-]+)/i.exec(g.html)?.[1]);
  const goldParsed = gold.map((p) => {
    const s = p.datetime?.surface_form ?? '';
    const d = s ? resolveTimeText(s, FETCHED_AT, TZ, goldDayFirst) : null;
    return d ? { ms: d.getTime(), precision: precisionOf(s), raw: s } : null;
  });
  parseableGold += goldParsed.filter(Boolean).length;
  const ours = th.posts.map((p) => (p.time ? Date.parse(p.time) : NaN)).filter((x) => !Number.isNaN(x));
  let best = 0;
  for (let off = -12 * 60; off <= 14 * 60; off += 30) {
    const pool = new Map<string, number>();
    const add = (k: string) => pool.set(k, (pool.get(k) ?? 0) + 1);
    for (const o of ours) for (const p of PRECISIONS) add(wall(o + off * 60000, p));
    let hits = 0;
    for (const gp of goldParsed) {
      if (!gp) continue;
      const k = wall(gp.ms, gp.precision);
      const n = pool.get(k) ?? 0;
      if (n > 0) {
        hits++;
        pool.set(k, n - 1);
      }
    }
    best = Math.max(best, hits);
  }
  timeHits += best;
  if (best < gold.length) {
    const miss = goldParsed.filter((x) => !x).length;
    failures.push(`TIMES ${best}/${gold.length} (gold unparsed ${miss}, ours with time ${ours.length}/${th.posts.length}) e.g. gold "${gold[0]?.datetime?.surface_form}" ours ${th.posts[0]?.time}  ${f}`);
  }
}

const pct = (a: number, b: number) => (b ? ((100 * a) / b).toFixed(1) : 'n/a') + '%';
console.log(`forum-threads: ${pages} pages`);
console.log(`  recognised as threads : ${pct(recognised, pages)} (${recognised}/${pages})  goal 100%`);
console.log(`  post count exact      : ${pct(countExact, pages)} (${countExact}/${pages})  goal ≥ 90%`);
console.log(`  post-time recall      : ${pct(timeHits, goldTimes)} (${timeHits}/${goldTimes}; gold times our parser reads: ${parseableGold})  goal ≥ 90%`);
console.log(`  mean extract time     : ${(totalMs / Math.max(1, pages)).toFixed(0)} ms/page`);
for (const l of failures) console.log('  - ' + l);

if (!only && existsSync(join(articleDir, 'html'))) {
  const truth = JSON.parse(readFileSync(join(articleDir, 'ground-truth.json'), 'utf8')) as Record<string, { url: string }>;
  const files = readdirSync(join(articleDir, 'html')).filter((n) => n.endsWith('.html.gz')).sort();
  // METHODS §4 counts blog and news comment sections as threads, so a hit is "real comments"
  // when the page has a comment container and every extracted post's text lies inside it;
  // anything else taken for a thread is spurious.
  const real: string[] = [];
  const spurious: string[] = [];
  for (const f of files) {
    const id = f.replace(/\.html\.gz$/, '');
    const html = gunzipSync(readFileSync(join(articleDir, 'html', f))).toString('utf8');
    const url = truth[id]?.url ?? `https://example.invalid/${id}`;
    const th = extractThread({ html, url, fetchedAt: FETCHED_AT, timeZone: TZ });
    if (!th) continue;
    const line = `${th.matcher} ${th.posts.length} posts  ${id.slice(0, 12)} ${url}`;
    const doc = parseDocument(html);
    const box = Array.from(doc.querySelectorAll('#comments, .comments, .comment-list, .commentlist, #disqus_thread, .comments-area'))
      .map((e) => (e.textContent ?? '').replace(/\s+/g, ' '))
      .join('\n');
    const inside = th.posts.every((p) => box.includes(p.text.replace(/\s+/g, ' ').slice(0, 40)));
    (box && inside ? real : spurious).push(line);
  }
  console.log(`article pages with real comment sections taken as threads: ${real.length}/${files.length}  (correct under METHODS §4)`);
  for (const l of real) console.log('  - ' + l);
  console.log(`article pages taken for threads spuriously: ${pct(spurious.length, files.length)} (${spurious.length}/${files.length})  goal ~0`);
  for (const l of spurious) console.log('  - ' + l);
} else if (!only) {
  console.log(`article-extraction-benchmark not found under ${articleDir}: false-positive check skipped.`);
}
