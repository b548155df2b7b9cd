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
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUILTIN_MATCHERS, extractThread, resolveTimeText } from '../src/extract/replies/index.js';
import { sharedDataDir } from '../src/testweb/wikispeedia.js';
import { pageDayFirst } from '../src/extract/replies/time.js';
import { parseDocument } from '../src/extract/replies/dom.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const shared = sharedDataDir();
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

interface Page {
  file: string;
  /** The forum a page belongs to: its host (leave-one-forum-out holds out whole forums). */
  forum: string;
  g: Gold;
}
interface Score {
  pages: number;
  recognised: number;
  countExact: number;
  goldTimes: number;
  timeHits: number;
  parseableGold: number;
  ms: number;
  /** Which matcher decided, per page. */
  deciders: Map<string, string>;
  misses: string[];
}

function scorePages(list: Page[], disabledFor: (p: Page) => readonly string[]): Score {
  const s: Score = { pages: 0, recognised: 0, countExact: 0, goldTimes: 0, timeHits: 0, parseableGold: 0, ms: 0, deciders: new Map(), misses: [] };
  for (const page of list) {
    const { g, file: f } = page;
    s.pages++;
    const disabled = disabledFor(page);
    const t0 = performance.now();
    const th = extractThread({ html: g.html, url: g.url, fetchedAt: FETCHED_AT, timeZone: TZ, disabledMatchers: disabled });
    s.ms += performance.now() - t0;
    const gold = g.gold_standard_annotation;
    s.goldTimes += gold.length;
    const off = disabled.length ? ` (off: ${disabled.length === BUILTIN_MATCHERS.length ? 'all templates' : disabled.join(',')})` : '';
    if (!th) {
      s.misses.push(`NOT RECOGNISED (gold ${gold.length} posts)${off}  ${f}`);
      continue;
    }
    s.deciders.set(f, th.matcher);
    s.recognised++;
    if (th.posts.length === gold.length) s.countExact++;
    else s.misses.push(`COUNT ${th.posts.length} vs gold ${gold.length} [${th.matcher} ${th.confidence.toFixed(2)}]${off}  ${f}`);
    // Gold times, wall clock (parsed as if UTC); ours are instants: find the page's offset.
    // Gold `04/02/2005` is read in the order the page's own gold dates and language imply.
    const goldDayFirst = pageDayFirst(gold.map((p) => p.datetime?.surface_form ?? '').join('\n'), /<html[^>]*\slang=["']?([\w-]+)/i.exec(g.html)?.[1]);
    const goldParsed = gold.map((p) => {
      const str = p.datetime?.surface_form ?? '';
      const d = str ? resolveTimeText(str, FETCHED_AT, TZ, goldDayFirst) : null;
      return d ? { ms: d.getTime(), precision: precisionOf(str), raw: str } : null;
    });
    s.parseableGold += goldParsed.filter(Boolean).length;
    const ours = th.posts.map((p) => (p.time ? Date.parse(p.time) : NaN)).filter((x) => !Number.isNaN(x));
    let best = 0;
    for (let offset = -12 * 60; offset <= 14 * 60; offset += 30) {
      const pool = new Map<string, number>();
      const add = (k: string) => pool.set(k, (pool.get(k) ?? 0) + 1);
      for (const o of ours) for (const p of PRECISIONS) add(wall(o + offset * 60000, p));
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
    s.timeHits += best;
    if (best < gold.length) {
      const miss = goldParsed.filter((x) => !x).length;
      s.misses.push(`TIMES ${best}/${gold.length} [${th.matcher}] (gold unparsed ${miss}, ours with time ${ours.length}/${th.posts.length}) e.g. gold "${gold[0]?.datetime?.surface_form}" ours ${th.posts[0]?.time}${off}  ${f}`);
    }
  }
  return s;
}

const pct = (a: number, b: number) => (b ? ((100 * a) / b).toFixed(1) : 'n/a') + '%';
const list: Page[] = readdirSync(forumDir)
  .filter((n) => n.endsWith('.json') && (!only || n.includes(only)))
  .sort()
  .map((file) => {
    const g = JSON.parse(readFileSync(join(forumDir, file), 'utf8')) as Gold;
    return { file, forum: new URL(g.url).host, g };
  });
const forums = new Set(list.map((p) => p.forum));
const builtinNames = BUILTIN_MATCHERS.map((m) => m.name);

// In-sample: every template on. Which built-in template decides on a forum's pages is that
// forum's template; leave-one-forum-out scores each forum with its own template(s) off, the
// other forums' templates on (they may still fire: that is what unseen software gets).
const inSample = scorePages(list, () => []);
const ownTemplates = new Map<string, Set<string>>();
for (const p of list) {
  const m = inSample.deciders.get(p.file);
  if (!m || !builtinNames.includes(m)) continue;
  if (!ownTemplates.has(p.forum)) ownTemplates.set(p.forum, new Set());
  ownTemplates.get(p.forum)!.add(m);
}
const lofo = scorePages(list, (p) => [...(ownTemplates.get(p.forum) ?? [])]);
const genericAlone = scorePages(list, () => builtinNames);

const report: string[] = [];
const line = (l: string) => {
  console.log(l);
  report.push(l);
};
line(`forum-threads: ${list.length} pages from ${forums.size} forums`);
const byTemplate = new Map<string, string[]>();
for (const [forum, ms] of ownTemplates) for (const m of ms) byTemplate.set(m, [...(byTemplate.get(m) ?? []), forum]);
line(`  template -> forums it decides in-sample (left out for them below): ${[...byTemplate].map(([m, fs]) => `${m} ${fs.length}`).join(', ')}; no template: ${forums.size - ownTemplates.size}`);
const summary = (name: string, s: Score, goal: string) => {
  const deciders = new Map<string, number>();
  for (const m of s.deciders.values()) deciders.set(m, (deciders.get(m) ?? 0) + 1);
  line(`${name}`);
  line(`  recognised as threads : ${pct(s.recognised, s.pages)} (${s.recognised}/${s.pages})`);
  line(`  post count exact      : ${pct(s.countExact, s.pages)} (${s.countExact}/${s.pages})  ${goal}`);
  line(`  post-time recall      : ${pct(s.timeHits, s.goldTimes)} (${s.timeHits}/${s.goldTimes}; gold times our parser reads: ${s.parseableGold})  ${goal}`);
  line(`  decided by            : ${[...deciders].sort((a, b) => b[1] - a[1]).map(([m, n]) => `${m} ${n}`).join(', ')}`);
  line(`  mean extract time     : ${(s.ms / Math.max(1, s.pages)).toFixed(0)} ms/page`);
};
summary('in-sample (all templates on)', inSample, 'goal 100%');
summary("leave-one-forum-out (each forum's own template off)", lofo, 'goal ≥ 90%');
summary('generic detector alone (all templates off)', genericAlone, 'for reference');

const missesPath = join(root, 'bench/results/threads-misses.txt');
const missLines: string[] = [];
for (const [name, s] of [['in-sample', inSample], ['leave-one-forum-out', lofo], ['generic-alone', genericAlone]] as const) {
  missLines.push(`## ${name}: ${s.misses.length} misses`, ...s.misses.map((m) => '- ' + m), '');
}

if (!only && existsSync(join(articleDir, 'html'))) {
  const truth = JSON.parse(readFileSync(join(articleDir, 'ground-truth.json'), 'utf8')) as Record<string, { url: string }>;
  const files = readdirSync(join(articleDir, 'html')).filter((n) => n.endsWith('.html.gz')).sort();
  const articles = files.map((f) => {
    const id = f.replace(/\.html\.gz$/, '');
    return { id, html: gunzipSync(readFileSync(join(articleDir, 'html', f))).toString('utf8'), url: truth[id]?.url ?? `https://example.invalid/${id}` };
  });
  // METHODS §4 counts blog and news comment sections as threads, so a hit is "real comments"
  // when the page has a comment container and every extracted post's text lies inside it;
  // anything else taken for a thread is spurious.
  for (const [name, disabled] of [['all templates on', []], ['generic detector alone', builtinNames]] as const) {
    const real: string[] = [];
    const spurious: string[] = [];
    for (const { id, html, url } of articles) {
      const th = extractThread({ html, url, fetchedAt: FETCHED_AT, timeZone: TZ, disabledMatchers: disabled });
      if (!th) continue;
      const l = `${th.matcher} ${th.confidence.toFixed(2)} ${th.posts.length} posts  ${id.slice(0, 12)} ${url}`;
      const doc = parseDocument(html);
      const box = Array.from(doc.querySelectorAll('#comments, .comments, .comment-list, .commentlist, #disqus_thread, .comments-area'))
        .map((e) => (e.textContent ?? '').replace(/\s+/g, ' '))
        .join('\n');
      const inside = th.posts.every((p) => box.includes(p.text.replace(/\s+/g, ' ').slice(0, 40)));
      (box && inside ? real : spurious).push(l);
    }
    line(`article-extraction-benchmark, ${name}: ${articles.length} pages`);
    line(`  taken for threads spuriously            : ${spurious.length}/${articles.length}  goal 0`);
    line(`  real comment sections taken as threads  : ${real.length}/${articles.length}  (correct under METHODS §4)`);
    missLines.push(`## articles, ${name}: spurious ${spurious.length}`, ...spurious.map((m) => '- ' + m), `## articles, ${name}: real comment sections ${real.length}`, ...real.map((m) => '- ' + m), '');
  }
} else if (!only) {
  line(`article-extraction-benchmark not found under ${articleDir}: false-positive check skipped.`);
}

mkdirSync(dirname(missesPath), { recursive: true });
writeFileSync(missesPath, report.join('\n') + '\n\n' + missLines.join('\n'));
console.log(`per-page misses: ${missesPath} (in-sample ${inSample.misses.length}, leave-one-forum-out ${lofo.misses.length}, generic alone ${genericAlone.misses.length})`);
