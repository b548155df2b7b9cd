/**
 * htmldate's date evaluation set, built into a cache folder OUTSIDE the repository (the pages are
 * third-party HTML; they are never committed). `npm run bench:extract` scores it when the cache
 * is there and says how to build it when not.
 *
 *   npx tsx bench/htmldate-set.ts --from PATH/htmldate     # a checkout of adbar/htmldate
 *
 * It reads tests/eval_mediacloud_2020.json and tests/eval_default.json (URL → {file, date}) and
 * looks each file up in tests/test_set/, tests/cache/, tests/eval/, in the order htmldate's own
 * tests/evaluation.py does, copying the pages and a gold.json into the cache
 * ($HTMLDATE_EVAL_DIR, else $XDG_CACHE_HOME or ~/.cache, /focused-crawler/htmldate-eval).
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface HtmldatePage { url: string; file: string; date: string | null; path: string }

const GOLD_FILES = ['eval_mediacloud_2020.json', 'eval_default.json'];
const PAGE_DIRS = ['test_set', 'cache', 'eval'];

export function htmldateCacheDir(): string {
  if (process.env.HTMLDATE_EVAL_DIR) return resolve(process.env.HTMLDATE_EVAL_DIR);
  return join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'focused-crawler', 'htmldate-eval');
}

/**
 * The set in htmldate's own `tests/` layout (eval_*.json + cache/), as the shared data folder
 * holds it (`htmldate-dev/`), or null when the folder is not there.
 */
export function readHtmldateTestsLayout(dir: string): { pages: HtmldatePage[] } | null {
  const entries: Record<string, { file: string; date: string | null }> = {};
  for (const f of GOLD_FILES) {
    const p = join(dir, f);
    if (existsSync(p)) Object.assign(entries, JSON.parse(readFileSync(p, 'utf8')) as typeof entries);
  }
  const pages: HtmldatePage[] = [];
  for (const [url, e] of Object.entries(entries)) {
    const file = basename(e.file);
    const path = PAGE_DIRS.map((d) => join(dir, d, file)).find((x) => existsSync(x));
    if (path) pages.push({ url, file, date: e.date, path });
  }
  return pages.length > 0 ? { pages } : null;
}

/** The cached set, or null when it has not been built. */
export function readHtmldateSet(dir = htmldateCacheDir()): { pages: HtmldatePage[] } | null {
  if (existsSync(join(dir, GOLD_FILES[1]!))) return readHtmldateTestsLayout(dir);
  const goldPath = join(dir, 'gold.json');
  if (!existsSync(goldPath)) return null;
  const gold = JSON.parse(readFileSync(goldPath, 'utf8')) as { url: string; file: string; date: string | null }[];
  const pages = gold.map((g) => ({ ...g, path: join(dir, 'pages', g.file) })).filter((p) => existsSync(p.path));
  return pages.length > 0 ? { pages } : null;
}

/** Copy the evaluation pages of an htmldate checkout into `to`; returns counts. */
export function buildHtmldateSet(from: string, to = htmldateCacheDir()): { pages: number; missing: string[] } {
  const tests = existsSync(join(from, 'tests')) ? join(from, 'tests') : from;
  const entries: Record<string, { file: string; date: string | null }> = {};
  let found = 0;
  for (const f of GOLD_FILES) {
    const p = join(tests, f);
    if (!existsSync(p)) continue;
    found++;
    Object.assign(entries, JSON.parse(readFileSync(p, 'utf8')) as Record<string, { file: string; date: string | null }>);
  }
  if (found === 0) throw new Error(`${tests}: neither ${GOLD_FILES.join(' nor ')} found; give the root of an adbar/htmldate checkout`);
  mkdirSync(join(to, 'pages'), { recursive: true });
  const gold: { url: string; file: string; date: string | null }[] = [];
  const missing: string[] = [];
  for (const [url, e] of Object.entries(entries)) {
    const file = basename(e.file);
    const src = PAGE_DIRS.map((d) => join(tests, d, file)).find((p) => existsSync(p));
    if (!src) {
      missing.push(file);
      continue;
    }
    copyFileSync(src, join(to, 'pages', file));
    gold.push({ url, file, date: e.date });
  }
  writeFileSync(join(to, 'gold.json'), JSON.stringify(gold, null, 1));
  return { pages: gold.length, missing };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const i = process.argv.indexOf('--from');
  const from = i > 0 ? process.argv[i + 1] : undefined;
  const j = process.argv.indexOf('--to');
  const to = j > 0 ? process.argv[j + 1] : undefined;
  if (!from) {
    process.stderr.write('usage: npx tsx bench/htmldate-set.ts --from PATH/htmldate [--to CACHE_DIR]\n');
    process.exit(2);
  }
  try {
    const r = buildHtmldateSet(resolve(from), to ? resolve(to) : undefined);
    console.log(`htmldate evaluation set: ${r.pages} pages in ${to ?? htmldateCacheDir()}${r.missing.length ? `; ${r.missing.length} listed pages not in the checkout` : ''}`);
  } catch (e) {
    process.stderr.write(`error: ${(e as Error).message}\n`);
    process.exit(2);
  }
}
