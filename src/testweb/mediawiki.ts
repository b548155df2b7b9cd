/**
 * Long because: install, import and serve of one wiki are one lifecycle with one cache folder.
 *
 * The Wikispeedia articles served by real wiki software: Debian's MediaWiki on a SQLite database,
 * behind PHP's built-in server on a loopback address, with the default skin (sidebar, footer,
 * category links, edit / history / talk tabs) and its URL layout (`/wiki/Title` article URLs,
 * `/index.php?title=…&action=…` for everything else). Each article's text, its real links
 * (links.tsv, as [[links]] on the first mention) and its categories ([[Category:…]], the ground
 * truth, which a wiki shows on the page) are imported once, through an XML dump and
 * maintenance/importDump.php, into a cache folder keyed by the page set; later starts reuse it.
 * Nothing outside that folder is written: our own LocalSettings.php, found through MW_CONFIG_FILE.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, Socket } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Rng } from '../util/rng.js';
import { articleBody, articleTitle, WIKI_TOPICS, wikispeediaDir, wikispeediaMissing, readTsv, type WikiTopic } from './wikispeedia.js';

/** Debian's MediaWiki (package `mediawiki`). */
export const MEDIAWIKI_DIR = process.env.MEDIAWIKI_DIR ?? '/usr/share/mediawiki';
/** Bumped when what is imported changes, so an old cache is not reused. */
const IMPORT_VERSION = 1;

/**
 * What a public wiki's robots.txt says (as Wikipedia's does): article URLs are open; the script
 * URLs (edit, history, diff, old revisions, printable, raw) and Special: pages are not.
 */
export const MEDIAWIKI_ROBOTS = ['User-agent: *', 'Disallow: /index.php?', 'Disallow: /api.php', 'Disallow: /rest.php', 'Disallow: /wiki/Special:', 'Disallow: /wiki/Special%3A', 'Allow: /', ''].join('\n');

/** Why the test bed cannot run here, or undefined when it can. */
export function mediawikiMissing(dir = wikispeediaDir()): string | undefined {
  const data = wikispeediaMissing(dir);
  if (data) return data;
  if (!existsSync(join(MEDIAWIKI_DIR, 'maintenance', 'install.php')))
    return `MediaWiki not found (${MEDIAWIKI_DIR}); install it with: apt-get install --no-install-recommends mediawiki php-cli php-sqlite3`;
  const php = spawnSync('php', ['-m'], { encoding: 'utf8' });
  if (php.error || php.status !== 0) return 'php not found; install it with: apt-get install --no-install-recommends php-cli php-sqlite3';
  if (!/^pdo_sqlite$/m.test(php.stdout)) return "PHP's SQLite driver not found; install it with: apt-get install --no-install-recommends php-sqlite3";
  return undefined;
}

/** The Wikispeedia data, read once: articles, their links and categories. */
export interface WikispeediaData {
  articles: string[];
  links: Map<string, string[]>;
  categories: Map<string, string[]>;
}

export function readWikispeedia(dir = wikispeediaDir()): WikispeediaData {
  const articles = readTsv(join(dir, 'articles.tsv')).map((r) => r[0]);
  const links = new Map<string, string[]>(articles.map((a) => [a, []]));
  for (const [s, t] of readTsv(join(dir, 'links.tsv'))) if (links.has(s) && links.has(t)) links.get(s)!.push(t);
  const categories = new Map<string, string[]>();
  for (const [a, c] of readTsv(join(dir, 'categories.tsv'))) {
    if (!c) continue;
    const l = categories.get(a) ?? [];
    l.push(c);
    categories.set(a, l);
  }
  return { articles, links, categories };
}

const inCategory = (cats: string[] | undefined, prefix: string) => (cats ?? []).some((c) => c === prefix || c.startsWith(prefix + '.'));

/**
 * A small page set around a category: up to `members` of its articles (in file order), then the
 * articles they link to, until `size` pages. Links leaving the set are dropped at import.
 */
export function pagesAround(data: WikispeediaData, category: string, size: number, members = Math.floor(size / 3)): string[] {
  const inside = data.articles.filter((a) => inCategory(data.categories.get(a), category)).slice(0, members);
  const set = new Set(inside);
  for (const a of inside) for (const t of data.links.get(a) ?? []) if (set.size < size) set.add(t);
  return [...set];
}

/** A wiki category's name from a Wikispeedia category path: its last part (`subject.Science.Biology.Birds` → `Birds`). */
export const categoryName = (path: string) => path.split('.').at(-1)!.replace(/_/g, ' ');

/** Text as wikitext that renders as itself: markup characters as entities, no line-start syntax. */
function wikiEscape(s: string): string {
  const e = s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/[[\]{}|'~]/g, (c) => `&#${c.charCodeAt(0)};`)
    .replace(/__/g, '_&#95;')
    .replace(/:\/\//g, '&#58;//');
  return /^[*#:;= -]/.test(e) ? `&#${e.charCodeAt(0)};${e.slice(1)}` : e;
}

/**
 * An article as wikitext: paragraphs of its text, each link on the first whole-word mention of
 * the target's title (as the plain Wikispeedia server places them), unplaced ones under "See
 * also", then its categories.
 */
export function articleWikitext(name: string, text: string, targets: string[], categories: string[]): string {
  const title = articleTitle(name);
  const paras = articleBody(text)
    .split(/\n\s*\n/)
    .map((p) => p.replace(/\s+/g, ' ').trim())
    .filter((p) => p && p !== title);
  // Placements as [start, end, target] per paragraph, on the raw text, escaped afterwards.
  const placed: [number, number, string][][] = paras.map(() => []);
  const lower = paras.map((p) => p.toLowerCase());
  const unplaced: string[] = [];
  for (const t of targets) {
    const label = articleTitle(t).replace(/\s*\(.*\)$/, '');
    const needle = label.toLowerCase();
    let done = false;
    if (needle.length >= 3) {
      for (let i = 0; i < paras.length && !done; i++) {
        for (let at = lower[i].indexOf(needle); at >= 0 && !done; at = lower[i].indexOf(needle, at + 1)) {
          const end = at + needle.length;
          if (/[a-z0-9]/.test(lower[i][at - 1] ?? '') || /[a-z0-9]/.test(lower[i][end] ?? '')) continue;
          if (placed[i].some(([s, e]) => at < e && end > s)) continue;
          placed[i].push([at, end, t]);
          done = true;
        }
      }
    }
    if (!done) unplaced.push(t);
  }
  const body = paras.map((p, i) => {
    let out = '';
    let from = 0;
    for (const [s, e, t] of placed[i].sort((a, b) => a[0] - b[0])) {
      out += wikiEscape(p.slice(from, s)) + `[[${articleTitle(t)}|${wikiEscape(p.slice(s, e))}]]`;
      from = e;
    }
    return out + wikiEscape(p.slice(from));
  });
  const seeAlso = unplaced.length ? `\n\n== See also ==\n${unplaced.map((t) => `* [[${articleTitle(t)}]]`).join('\n')}` : '';
  const cats = [...new Set(categories.map(categoryName))].map((c) => `[[Category:${c}]]`).join('\n');
  return body.join('\n\n') + seeAlso + (cats ? `\n\n${cats}` : '');
}

const xmlEscape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The page set as a MediaWiki XML export: the articles, and a page per category naming its parent. */
export function exportXml(data: WikispeediaData, pages: string[], dir = wikispeediaDir()): string {
  const set = new Set(pages);
  const page = (title: string, text: string) =>
    `<page><title>${xmlEscape(title)}</title><ns>${title.startsWith('Category:') ? 14 : 0}</ns><revision><timestamp>2008-06-01T00:00:00Z</timestamp><contributor><username>Wikispeedia</username></contributor><model>wikitext</model><format>text/x-wiki</format><text xml:space="preserve">${xmlEscape(text)}</text></revision></page>\n`;
  let xml = '<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.11/" version="0.11" xml:lang="en">\n';
  const categoryPages = new Map<string, string | undefined>();
  for (const a of pages) {
    const text = readFileSync(join(dir, 'plaintext', `${a}.txt`), 'utf8');
    const cats = data.categories.get(a) ?? [];
    for (const c of cats) {
      const parts = c.split('.');
      for (let i = 2; i <= parts.length; i++) {
        const name = categoryName(parts.slice(0, i).join('.'));
        if (!categoryPages.has(name)) categoryPages.set(name, i > 2 ? categoryName(parts.slice(0, i - 1).join('.')) : undefined);
      }
    }
    xml += page(articleTitle(a), articleWikitext(a, text, (data.links.get(a) ?? []).filter((t) => set.has(t)), cats));
  }
  for (const [name, parent] of categoryPages) xml += page(`Category:${name}`, `Articles about ${name.toLowerCase()}.${parent ? `\n\n[[Category:${parent}]]` : ''}`);
  return xml + '</mediawiki>\n';
}

/** Our LocalSettings.php: the installer's, then the test bed's settings (server from the environment, short URLs, fast SQLite). */
function localSettings(installed: string, dataDir: string): string {
  return `${installed.trimEnd()}

# --- test bed settings ---
$wgServer = getenv('MW_TESTBED_SERVER') ?: 'http://127.0.0.1';
$wgScriptPath = '';
$wgArticlePath = '/wiki/$1';
$wgUsePathInfo = true;
$wgEnableUploads = false;
$wgSQLiteDataDir = ${JSON.stringify(dataDir)};
$wgDBservers = [ [
  'host' => '', 'dbname' => $wgDBname, 'user' => '', 'password' => '', 'type' => 'sqlite',
  'dbDirectory' => $wgSQLiteDataDir, 'load' => 1, 'flags' => DBO_DEFAULT,
  'variables' => [ 'synchronous' => 'OFF' ],
] ];
$wgJobRunRate = 0;
$wgShowExceptionDetails = true;
$wgCacheDirectory = ${JSON.stringify(join(dataDir, 'cache'))};
`;
}

/** The router of `php -S`: our robots.txt, /wiki/ short URLs to index.php, files of MediaWiki's folder as they are. */
function routerPhp(): string {
  return `<?php
$path = parse_url($_SERVER['REQUEST_URI'], PHP_URL_PATH);
if ($path === '/robots.txt') {
  header('Content-Type: text/plain; charset=utf-8');
  echo ${JSON.stringify(MEDIAWIKI_ROBOTS)};
  return true;
}
if ($path === '/' || strncmp($path, '/wiki/', 6) === 0 || $path === '/wiki') {
  $_SERVER['SCRIPT_NAME'] = '/index.php';
  $_SERVER['SCRIPT_FILENAME'] = ${JSON.stringify(join(MEDIAWIKI_DIR, 'index.php'))};
  chdir(${JSON.stringify(MEDIAWIKI_DIR)});
  require ${JSON.stringify(join(MEDIAWIKI_DIR, 'index.php'))};
  return true;
}
return false;
`;
}

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv, cwd = MEDIAWIKI_DIR): Promise<string> {
  return new Promise((ok, fail) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('error', fail);
    child.on('close', (code) => (code === 0 ? ok(out) : fail(new Error(`${cmd} ${args.join(' ')} exited ${code}: ${out.slice(-2000)}`))));
  });
}

export interface MediaWikiOptions {
  /** Wikispeedia article names to import (default: all 4,604). */
  pages?: string[];
  /** The wiki's folder (default: storage/.cache/mediawiki-<hash of the page set>). */
  cacheDir?: string;
  /** Wikispeedia data folder. */
  dataDir?: string;
  /** Loopback address to bind (default: 127.0.0.1). */
  host?: string;
  /** Progress lines (import steps). */
  log?: (line: string) => void;
}

export interface MediaWikiWeb {
  /** The wiki's origin, e.g. http://127.0.0.1:41234 */
  url: string;
  origin: string;
  cacheDir: string;
  /** Imported Wikispeedia articles. */
  pages: string[];
  topics: WikiTopic[];
  /** The article's URL (its short URL, as the wiki links it). */
  urlOf(article: string): string;
  /** The Wikispeedia article a URL shows as an article view (`/wiki/Title`, or `/index.php?title=Title` without other parameters). */
  articleOf(url: string): string | undefined;
  isRelevant(url: string, topicId: string): boolean;
  relevantTotal(topicId: string): number;
  seeds(topicId: string, n: number, rng: Rng | number): string[];
  stop(): Promise<void>;
}

const repoRoot = () => resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Builds the wiki into `dir` (install, import, jobs); atomic: a half-built folder is never reused. */
async function buildWiki(dir: string, data: WikispeediaData, pages: string[], dataDir: string, log: (l: string) => void): Promise<void> {
  const tmp = `${dir}.building-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(join(tmp, 'data'), { recursive: true });
  mkdirSync(join(tmp, 'installed'), { recursive: true });
  const env = { ...process.env, MW_CONFIG_FILE: join(tmp, 'LocalSettings.php') };
  log(`mediawiki: installing a SQLite wiki in ${tmp}`);
  await run('php', [
    'maintenance/install.php', '--dbtype', 'sqlite', '--dbpath', join(tmp, 'data'), '--dbname', 'wikispeedia',
    '--confpath', join(tmp, 'installed'), '--server', 'http://127.0.0.1', '--scriptpath', '', '--lang', 'en',
    '--pass', randomBytes(18).toString('base64url'), '--skins', 'Vector', 'Wikispeedia', 'Admin',
  ], { ...env, MW_CONFIG_FILE: join(tmp, 'installed', 'LocalSettings.php') });
  const installed = readFileSync(join(tmp, 'installed', 'LocalSettings.php'), 'utf8');
  writeFileSync(join(tmp, 'LocalSettings.php'), localSettings(installed, join(tmp, 'data')));
  writeFileSync(join(tmp, 'import.xml'), exportXml(data, pages, dataDir));
  log(`mediawiki: importing ${pages.length} articles`);
  await run('php', ['maintenance/importDump.php', '--no-updates', join(tmp, 'import.xml')], env);
  await run('php', ['maintenance/rebuildrecentchanges.php'], env).catch(() => '');
  log('mediawiki: running the link jobs');
  await run('php', ['maintenance/refreshLinks.php'], env).catch(() => '');
  await run('php', ['maintenance/runJobs.php'], env);
  await run('php', ['maintenance/initSiteStats.php', '--update'], env).catch(() => '');
  rmSync(join(tmp, 'import.xml'));
  // The folder moves into place: its paths are written into LocalSettings.php, so rewrite them.
  rmSync(dir, { recursive: true, force: true });
  renameSync(tmp, dir);
  writeFileSync(join(dir, 'LocalSettings.php'), readFileSync(join(dir, 'LocalSettings.php'), 'utf8').split(tmp).join(dir));
  writeFileSync(join(dir, 'ready'), `${pages.length}\n`);
}

async function freePort(host: string): Promise<number> {
  return new Promise((ok, fail) => {
    const s = createServer();
    s.once('error', fail);
    s.listen(0, host, () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => ok(port));
    });
  });
}

/** Whether something accepts connections on host:port. */
export function portOpen(host: string, port: number): Promise<boolean> {
  return new Promise((ok) => {
    const s = new Socket();
    s.once('connect', () => (s.destroy(), ok(true)));
    s.once('error', () => (s.destroy(), ok(false)));
    s.connect(port, host);
  });
}

export async function startMediaWiki(opts: MediaWikiOptions = {}): Promise<MediaWikiWeb> {
  const dataDir = opts.dataDir ?? wikispeediaDir();
  const missing = mediawikiMissing(dataDir);
  if (missing) throw new Error(missing);
  const log = opts.log ?? (() => {});
  const data = readWikispeedia(dataDir);
  const pages = opts.pages ?? data.articles;
  const known = new Set(data.articles);
  for (const p of pages) if (!known.has(p)) throw new Error(`mediawiki: no Wikispeedia article "${p}"`);
  const key = createHash('sha256').update(`${IMPORT_VERSION}\n${[...pages].sort().join('\n')}`).digest('hex').slice(0, 16);
  const dir = resolve(opts.cacheDir ?? join(repoRoot(), 'storage', '.cache', `mediawiki-${key}`));
  if (!existsSync(join(dir, 'ready'))) await buildWiki(dir, data, pages, dataDir, log);

  const host = opts.host ?? '127.0.0.1';
  if (!/^127\.\d+\.\d+\.\d+$/.test(host)) throw new Error(`mediawiki: host must be a loopback address (127.x.y.z), not "${host}"`);
  writeFileSync(join(dir, 'router.php'), routerPhp());
  let child: ChildProcess | undefined;
  let origin = '';
  for (let attempt = 0; attempt < 5 && !child; attempt++) {
    const port = await freePort(host);
    origin = `http://${host}:${port}`;
    const c = spawn('php', ['-S', `${host}:${port}`, '-t', MEDIAWIKI_DIR, join(dir, 'router.php')], {
      cwd: MEDIAWIKI_DIR,
      env: { ...process.env, MW_CONFIG_FILE: join(dir, 'LocalSettings.php'), MW_TESTBED_SERVER: origin, PHP_CLI_SERVER_WORKERS: process.env.PHP_CLI_SERVER_WORKERS ?? '4' },
      stdio: ['ignore', 'ignore', 'pipe'],
      // its own process group: with PHP_CLI_SERVER_WORKERS the server forks, and stop() ends them all
      detached: true,
    });
    let stderr = '';
    c.stderr!.on('data', (d) => (stderr = (stderr + d).slice(-4000)));
    const exited = new Promise<void>((ok) => c.once('exit', () => ok()));
    let up = false;
    for (let i = 0; i < 600 && !up && c.exitCode === null; i++) {
      up = await portOpen(host, port);
      if (!up) await Promise.race([exited, new Promise((r) => setTimeout(r, 50))]);
    }
    if (up) child = c;
    else {
      c.kill('SIGKILL');
      await exited;
      if (attempt === 4) throw new Error(`mediawiki: php -S did not start: ${stderr.slice(-500)}`);
    }
  }
  const server = child!;
  const closed = new Promise<void>((ok) => (server.exitCode !== null ? ok() : server.once('exit', () => ok())));
  const killGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-server.pid!, signal);
    } catch {
      // already gone
    }
  };
  const onExit = () => killGroup('SIGKILL');
  process.once('exit', onExit);

  const byDecoded = new Map(pages.map((a) => [decodeURIComponent(a), a]));
  const articleOf = (url: string): string | undefined => {
    try {
      const u = new URL(url);
      if (u.origin !== origin) return undefined;
      let title: string | null = null;
      if (u.pathname.startsWith('/wiki/') && !u.search) title = decodeURIComponent(u.pathname.slice(6));
      else if (u.pathname === '/index.php' && [...u.searchParams.keys()].every((k) => k === 'title')) title = u.searchParams.get('title');
      return title === null ? undefined : byDecoded.get(title.replace(/ /g, '_'));
    } catch {
      return undefined;
    }
  };
  const topicOf = (id: string) => {
    const t = WIKI_TOPICS.find((x) => x.id === id);
    if (!t) throw new Error(`mediawiki: unknown topic "${id}" (known: ${WIKI_TOPICS.map((x) => x.id).join(', ')})`);
    return t;
  };
  const members = (id: string) => pages.filter((a) => inCategory(data.categories.get(a), topicOf(id).category));
  const urlOf = (a: string) => `${origin}/wiki/${encodeURI(decodeURIComponent(a)).replace(/\?/g, '%3F')}`;
  return {
    url: origin,
    origin,
    cacheDir: dir,
    pages,
    topics: WIKI_TOPICS,
    urlOf,
    articleOf,
    isRelevant: (url, topicId) => {
      const a = articleOf(url);
      return a !== undefined && inCategory(data.categories.get(a), topicOf(topicId).category);
    },
    relevantTotal: (topicId) => members(topicId).length,
    seeds(topicId, n, rng) {
      const r = typeof rng === 'number' ? new Rng(rng) : rng;
      return r.sample(members(topicId), n).map(urlOf);
    },
    async stop() {
      process.removeListener('exit', onExit);
      killGroup('SIGTERM');
      await closed;
      // the forked workers, should any outlive their parent
      killGroup('SIGKILL');
      // A signal is delivered, not waited for: stopped means the port no longer answers.
      const { hostname, port } = new URL(origin);
      for (let i = 0; i < 400 && (await portOpen(hostname, Number(port))); i++) await new Promise((r) => setTimeout(r, 50));
    },
  };
}
