/**
 * Extraction benchmark (not a test): main-text F1 on the Zyte article-extraction-benchmark and on
 * the Chinese zh-content-extraction set, publish-date accuracy and title suffixes on the latter,
 * with stage timings. Data is read from ../shared/data (env SHARED_DATA overrides).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { decodeHtml } from '../src/extract/encoding.js';
import { analyzePage } from '../src/extract/page.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DATA = process.env.SHARED_DATA ?? resolve(root, '../shared/data');

type Counts = [number, number, number];

/** Zyte evaluate.py: multiset of 4-token shingles, tp/fp/fn normalised per page. */
export function shingleMatch(truth: string, pred: string, tokenize: (s: string) => string[], n = 4): Counts {
  const grams = (s: string) => {
    const tok = tokenize(s);
    const m = new Map<string, number>();
    for (let i = 0; i < Math.max(1, tok.length - n + 1); i++) {
      const g = tok.slice(i, i + n);
      if (g.length === 0) continue;
      const k = g.join('\u0001');
      m.set(k, (m.get(k) ?? 0) + 1);
    }
    return m;
  };
  const a = grams(truth);
  const b = grams(pred);
  let tp = 0, fp = 0, fn = 0;
  for (const k of new Set([...a.keys(), ...b.keys()])) {
    const x = a.get(k) ?? 0, y = b.get(k) ?? 0;
    tp += Math.min(x, y); fp += Math.max(0, y - x); fn += Math.max(0, x - y);
  }
  const s = tp + fp + fn;
  return s > 0 ? [tp / s, fp / s, fn / s] : [0, 0, 0];
}
const prec = ([tp, fp, fn]: Counts) => (fp === 0 && fn === 0 ? 1 : tp === 0 && fp === 0 ? 0 : tp / (tp + fp));
const rec = ([tp, fp, fn]: Counts) => (fp === 0 && fn === 0 ? 1 : tp === 0 && fn === 0 ? 0 : tp / (tp + fn));
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
/** P and R averaged over pages (pages with no predicted / no gold shingles skipped), F1 of those. */
export function aggregate(cs: Counts[]) {
  const p = mean(cs.filter(([tp, fp]) => tp + fp > 0).map(prec));
  const r = mean(cs.filter(([tp, , fn]) => tp + fn > 0).map(rec));
  return { precision: p, recall: r, f1: (2 * p * r) / (p + r) };
}
const wordTokens = (s: string) => s.match(/[\p{L}\p{N}\p{M}_]+/gu) ?? [];
/** CJK-aware: each Han character a token, other runs of word characters as in \w+. */
const cjkTokens = (s: string) => s.match(/[\u3400-\u9fff\uf900-\ufaff]|[\p{L}\p{N}\p{M}_]+?(?=[\u3400-\u9fff]|[^\p{L}\p{N}\p{M}_]|$)/gu) ?? [];

const timings: Record<string, number> = {};
const FETCHED = new Date('2026-01-01T00:00:00Z');

function aeb() {
  const dir = join(DATA, 'article-extraction-benchmark');
  if (!existsSync(join(dir, 'ground-truth.json'))) {
    console.log(`skip article-extraction-benchmark: ${dir} not found`);
    return null;
  }
  const gt = JSON.parse(readFileSync(join(dir, 'ground-truth.json'), 'utf8')) as Record<string, { articleBody: string; url: string }>;
  const rows: { id: string; f1: number; counts: Counts; url: string }[] = [];
  for (const [id, g] of Object.entries(gt)) {
    const bytes = gunzipSync(readFileSync(join(dir, 'html', `${id}.html.gz`)));
    let t0 = performance.now();
    const html = decodeHtml(bytes);
    timings.decode = (timings.decode ?? 0) + performance.now() - t0;
    const a = analyzePage({ html, url: g.url, fetchedAt: FETCHED }, { timings });
    const c = shingleMatch(g.articleBody, a.text, wordTokens);
    const p = prec(c), r = rec(c);
    rows.push({ id, url: g.url, counts: c, f1: p + r > 0 ? (2 * p * r) / (p + r) : 0 });
  }
  const agg = aggregate(rows.map((r) => r.counts));
  console.log(`\narticle-extraction-benchmark (${rows.length} pages): F1 ${agg.f1.toFixed(3)} (P ${agg.precision.toFixed(3)}, R ${agg.recall.toFixed(3)})  published: Readability.js 0.947, trafilatura 0.958; goal >= 0.95`);
  const worst = rows.slice().sort((a, b) => a.f1 - b.f1).slice(0, 8);
  for (const w of worst) console.log(`  low F1 ${w.f1.toFixed(3)}  ${w.url}`);
  return { pages: rows.length, ...agg, worst: worst.map((w) => ({ url: w.url, f1: w.f1 })) };
}

function goldDay(s: string): { y: number; m?: number; d?: number } | null {
  const m = /^(\d{4})(?:-(\d{1,2})(?:-(\d{1,2}))?)?/.exec(s.trim());
  if (!m) return null;
  return { y: Number(m[1]), m: m[2] ? Number(m[2]) : undefined, d: m[3] ? Number(m[3]) : undefined };
}

// A separator left in the title, or a title ending in a site/channel word (`…-搜狐财经`, `…[麻辣社区]`).
const SUFFIX = /[_|｜>]|\s[-–—]\s|——|(网|新闻|频道|论坛|社区|财经|娱乐|体育)\]?$/;

function zh() {
  const dir = join(DATA, 'zh-content-extraction');
  if (!existsSync(join(dir, 'original'))) {
    console.log(`skip zh-content-extraction: ${dir} not found`);
    return null;
  }
  const ids = readdirSync(join(dir, 'original')).filter((f) => f.endsWith('.html')).map((f) => f.slice(0, -5)).sort();
  const counts: Counts[] = [];
  const rows: { id: string; f1: number; title: string; date: string; gold: string; ok: boolean | null }[] = [];
  let dateOk = 0, dateTotal = 0, unknownGold = 0, unknownOk = 0, suffixed = 0;
  for (const id of ids) {
    const bytes = readFileSync(join(dir, 'original', `${id}.html`));
    let t0 = performance.now();
    const html = decodeHtml(bytes);
    timings.decode = (timings.decode ?? 0) + performance.now() - t0;
    const gold = readFileSync(join(dir, 'cleaned', `${id}.txt`), 'utf8');
    const goldDate = existsSync(join(dir, 'date', `${id}.txt`)) ? readFileSync(join(dir, 'date', `${id}.txt`), 'utf8').trim() : 'UNKNOWN';
    // The saved pages carry their URL in a `<text id="URL">` wrapper; else a placeholder.
    const url = /^\s*<text id="(https?:[^"]+)"/.exec(html)?.[1] ?? `http://zh.example/${id}.html`;
    const a = analyzePage({ html, url, fetchedAt: FETCHED, timeZone: 'Asia/Shanghai' }, { timings });
    const c = shingleMatch(gold, a.text, cjkTokens);
    counts.push(c);
    const p = prec(c), r = rec(c);
    const found = a.publishTime?.iso ?? '';
    const g = goldDay(goldDate);
    let ok: boolean | null = null;
    if (!g) {
      unknownGold++;
      if (!found) unknownOk++;
    } else {
      dateTotal++;
      const f = found ? { y: Number(found.slice(0, 4)), m: Number(found.slice(5, 7)), d: Number(found.slice(8, 10)) } : null;
      ok = !!f && f.y === g.y && (g.m === undefined || f.m === g.m) && (g.d === undefined || f.d === g.d);
      if (ok) dateOk++;
    }
    if (SUFFIX.test(a.title)) suffixed++;
    rows.push({ id, f1: p + r > 0 ? (2 * p * r) / (p + r) : 0, title: a.title, date: found, gold: goldDate, ok });
  }
  const agg = aggregate(counts);
  console.log(`\nzh-content-extraction (${ids.length} pages): content F1 ${agg.f1.toFixed(3)} (P ${agg.precision.toFixed(3)}, R ${agg.recall.toFixed(3)}), Han-character 4-gram shingles; goal >= 0.93`);
  console.log(`  publish date: ${dateOk}/${dateTotal} = ${(100 * dateOk / dateTotal).toFixed(1)}% same day (gold at year or month precision compared at that precision; ${unknownGold} UNKNOWN/unparsable gold excluded, of which we also found none on ${unknownOk}); goal >= 90%`);
  console.log(`  titles with a separator/site suffix left: ${suffixed}/${ids.length}; goal 0`);
  for (const w of rows.slice().sort((a, b) => a.f1 - b.f1).slice(0, 8)) console.log(`  low F1 ${w.f1.toFixed(3)}  ${w.id}  ${w.title.slice(0, 40)}`);
  for (const w of rows.filter((r) => r.ok === false)) console.log(`  wrong date ${w.id}  gold ${w.gold}  found ${w.date || '(none)'}`);
  for (const w of rows.filter((r) => SUFFIX.test(r.title))) console.log(`  suffix ${w.id}  ${w.title}`);
  return {
    pages: ids.length, ...agg,
    dateAccuracy: dateOk / dateTotal, dateCorrect: dateOk, dateTotal, unknownGold, unknownAlsoNone: unknownOk,
    titlesWithSuffix: suffixed,
    titles: rows.map((r) => ({ id: r.id, title: r.title })),
  };
}

/**
 * `--parsers`: why linkedom. Parse + Readability on jsdom vs linkedom over the first 30 benchmark
 * pages (jsdom also parses every stylesheet; its CSS errors surface as uncaught exceptions).
 */
async function compareParsers() {
  const dir = join(DATA, 'article-extraction-benchmark', 'html');
  if (!existsSync(dir)) return null;
  const { JSDOM, VirtualConsole } = await import('jsdom');
  const { Readability } = await import('@mozilla/readability');
  const { parseHtml } = await import('../src/extract/page.js');
  const swallow = () => undefined;
  process.on('uncaughtException', swallow);
  const pages = readdirSync(dir).sort().slice(0, 30).map((f) => decodeHtml(gunzipSync(readFileSync(join(dir, f)))));
  const r = { pages: pages.length, jsdomParse: 0, jsdomReadability: 0, linkedomParse: 0, linkedomReadability: 0 };
  for (const html of pages) {
    let t = performance.now();
    const a = new JSDOM(html, { virtualConsole: new VirtualConsole() }).window.document;
    r.jsdomParse += performance.now() - t; t = performance.now();
    try { new Readability(a).parse(); } catch { /* counted anyway */ }
    r.jsdomReadability += performance.now() - t; t = performance.now();
    const b = parseHtml(html);
    r.linkedomParse += performance.now() - t; t = performance.now();
    try { new Readability(b).parse(); } catch { /* counted anyway */ }
    r.linkedomReadability += performance.now() - t;
  }
  await new Promise((res) => setTimeout(res, 50));
  process.off('uncaughtException', swallow);
  const per = (x: number) => Math.round(x / pages.length);
  console.log(`\nparsers, ms/page over ${pages.length} pages: jsdom parse ${per(r.jsdomParse)} + Readability ${per(r.jsdomReadability)}; linkedom parse ${per(r.linkedomParse)} + Readability ${per(r.linkedomReadability)}`);
  return { ...r, perPageMs: { jsdomParse: per(r.jsdomParse), jsdomReadability: per(r.jsdomReadability), linkedomParse: per(r.linkedomParse), linkedomReadability: per(r.linkedomReadability) } };
}

const t0 = performance.now();
const aebResult = aeb();
const zhResult = zh();
const result = { aeb: aebResult, zh: zhResult, timingsMs: {} as Record<string, number>, perPageMs: {} as Record<string, number>, totalMs: 0, parsers: null as unknown };
result.totalMs = performance.now() - t0;
const nPages = (aebResult?.pages ?? 0) + (zhResult?.pages ?? 0);
for (const [k, v] of Object.entries(timings)) {
  result.timingsMs[k] = Math.round(v);
  result.perPageMs[k] = Math.round((10 * v) / Math.max(1, nPages)) / 10;
}
console.log(`\nstage time, ms/page over ${nPages} pages: ${Object.entries(result.perPageMs).map(([k, v]) => `${k} ${v}`).join(', ')} (total ${Math.round(result.totalMs)} ms)`);
if (process.argv.includes('--parsers')) result.parsers = await compareParsers();
mkdirSync(join(root, 'bench/results'), { recursive: true });
writeFileSync(join(root, 'bench/results/extract-latest.json'), JSON.stringify(result, null, 2));
