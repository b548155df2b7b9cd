/**
 * The page sets bench:threads measures precision and recall on, besides WEB-FORUM-52: pages that
 * are not reply threads (articles, Chinese news, htmldate's pages, the test web's listings) and
 * pages whose posts are known (the test web's forum threads and comment widgets). Each loader
 * returns [] when its data is absent.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { join } from 'node:path';
import { decodeHtml } from '../src/extract/encoding.js';
import { generateModel } from '../src/testweb/model.js';
import { walk } from '../src/testweb/index.js';
import { resolve as route, type PageTruth } from '../src/testweb/render.js';
import type { XhrCapture } from '../src/extract/replies/index.js';

export interface BenchPage {
  id: string;
  url: string;
  html: string;
  /** When the page was saved (relative times resolve against it). */
  fetchedAt: Date;
  xhr?: XhrCapture[];
  /** The posts the page shows, when known (recall sets). */
  posts?: number;
}

export function articlePages(dir: string): BenchPage[] {
  if (!existsSync(join(dir, 'html'))) return [];
  const truth = JSON.parse(readFileSync(join(dir, 'ground-truth.json'), 'utf8')) as Record<string, { url: string }>;
  return readdirSync(join(dir, 'html'))
    .filter((n) => n.endsWith('.html.gz'))
    .sort()
    .map((f) => {
      const id = f.replace(/\.html\.gz$/, '');
      return { id, html: gunzipSync(readFileSync(join(dir, 'html', f))).toString('utf8'), url: truth[id]?.url ?? `https://example.invalid/${id}`, fetchedAt: new Date('2020-01-01T00:00:00Z') };
    });
}

/** zh-content-extraction: Chinese news pages, many GBK; the saved pages wrap the HTML in `<text id="URL">`. */
export function zhNewsPages(dir: string): BenchPage[] {
  if (!existsSync(join(dir, 'original'))) return [];
  return readdirSync(join(dir, 'original'))
    .filter((f) => f.endsWith('.html'))
    .sort()
    .map((f) => {
      const raw = decodeHtml(readFileSync(join(dir, 'original', f)));
      const url = /^\s*<text id="(https?:[^"]+)"/.exec(raw)?.[1] ?? `http://zh.example/${f}`;
      const html = raw.replace(/^\s*<text\s[^>]*>/, '').replace(/<\/text>\s*$/, '');
      return { id: f.slice(0, -5), url, html, fetchedAt: new Date('2018-01-01T00:00:00Z') };
    });
}

/** htmldate's evaluation pages (news, blogs, shops; many languages). */
export function htmldatePages(dir: string): BenchPage[] {
  const out: BenchPage[] = [];
  const seen = new Set<string>();
  for (const list of ['eval_default.json', 'eval_mediacloud_2020.json']) {
    const p = join(dir, list);
    if (!existsSync(p)) continue;
    const entries = JSON.parse(readFileSync(p, 'utf8')) as Record<string, { file: string }>;
    for (const [url, { file }] of Object.entries(entries)) {
      const path = join(dir, 'cache', file);
      if (seen.has(file) || !existsSync(path)) continue;
      seen.add(file);
      out.push({ id: file.replace(/\.html$/, ''), url, html: decodeHtml(readFileSync(path)), fetchedAt: new Date('2020-06-15T12:00:00Z') });
    }
  }
  return out.sort((a, b) => a.id.localeCompare(b.id));
}

/** Test-web page kinds that list other pages: a portal's or the forum's home, a channel, a board, search results, the archive calendar. */
export const LISTING_KINDS: ReadonlySet<PageTruth['kind']> = new Set(['home', 'list', 'board', 'search', 'trap']);

export interface TestWebSets {
  /** Every reachable page whose truth is a listing kind, with its kind. */
  listings: (BenchPage & { kind: string })[];
  /** Forum thread pages, with the posts the generator printed on each. */
  threads: BenchPage[];
  /** Articles whose comments load by XHR, with page 1 of their comment API as the capture a browser makes. */
  comments: BenchPage[];
}

/**
 * The default test web (the demo's), rendered without HTTP at its start time: the generator's
 * own routing and truth (src/testweb), every page reachable from the demo's seeds.
 */
export function testWebSets(): TestWebSets {
  const model = generateModel({ seed: 42, articlesPerChannel: 40, portals: 2, thucnews: false, start: new Date('2008-06-01T12:00:00+08:00'), mixed: false });
  const origins = new Map(model.sites.map((s, i) => [s.key, `http://127.0.0.${i + 2}:8000`]));
  const byOrigin = new Map([...origins].map(([k, v]) => [v, k]));
  const ctx = { model, origin: (s: string) => origins.get(s)!, now: model.start };
  const locate = (url: string) => {
    const u = new URL(url);
    const site = byOrigin.get(u.origin);
    return site ? { site, path: u.pathname + u.search } : undefined;
  };
  const opts = { slowPageMs: 0 };
  const fetchedAt = new Date(model.start);
  const body = (site: string, path: string): string | undefined => {
    const b = route(model, site, path, model.start, opts)?.respond(ctx).body;
    return typeof b === 'string' ? b : undefined;
  };
  const sets: TestWebSets = { listings: [], threads: [], comments: [] };
  const seeds = model.portals.map((p) => origins.get(p.site)! + '/');
  for (const [id, v] of walk(model, ctx, seeds, locate, opts, false)) {
    if (v.status !== 200 || !v.html || !v.truth) continue;
    const loc = locate(v.url)!;
    const kind = v.truth.kind;
    if (LISTING_KINDS.has(kind)) {
      const html = body(loc.site, loc.path);
      if (html) sets.listings.push({ id, url: v.url, html, fetchedAt, kind });
    } else if (kind === 'thread') {
      const html = body(loc.site, loc.path);
      if (html) sets.threads.push({ id, url: v.url, html, fetchedAt, posts: (html.match(/id="postmessage_/g) ?? []).length });
    } else if (kind === 'article') {
      const html = body(loc.site, loc.path);
      const aid = html && /id="comment-list" data-aid="([^"]+)"/.exec(html)?.[1];
      if (!html || !aid) continue;
      const apiPath = `/api/comments?aid=${encodeURIComponent(aid)}&page=1`;
      const json = JSON.parse(body(loc.site, apiPath) ?? '{"comments":[]}') as { comments: unknown[] };
      if (!json.comments.length) continue;
      sets.comments.push({ id, url: v.url, html, fetchedAt, xhr: [{ url: origins.get(loc.site)! + apiPath, json }], posts: json.comments.length });
    }
  }
  return sets;
}
