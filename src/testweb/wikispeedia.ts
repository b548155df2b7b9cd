/**
 * Wikispeedia as a website on loopback: each of the 4,598 Wikipedia-for-Schools articles is a
 * server-rendered page built from its plain text, carrying its real hyperlinks (links.tsv);
 * the article categories (categories.tsv) are the ground truth, exposed only through this API.
 * Data: SNAP Wikispeedia (West & Leskovec, WWW 2012; West, Pineau & Precup, IJCAI 2009),
 * read at run time from the shared data folder, never copied into the repository.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Rng } from '../util/rng.js';
import { categorySizes, freshWikiTopics } from './wikispeedia-fresh.js';

/** One benchmark topic: a category prefix (the truth) and keywords derived from its name only. */
export interface WikiTopic {
  id: string;
  label: string;
  /** Category prefix, e.g. `subject.Science.Biology.Birds`: an article belongs when any of its categories starts with it. */
  category: string;
  /**
   * The topic as a user would type it: two or three words, written from the category name
   * alone (without looking at the member articles), before any crawl was run on it. The
   * benchmarks' crawler keywords.
   */
  query: string[];
  /**
   * Held out from tuning: every third topic in list order (fixed before any measurement on the
   * new topics). Tuning looks at the other topics only; held-out means are reported apart.
   */
  holdout?: boolean;
  /** Drawn by rule from categories.tsv, never tuned on (src/testweb/wikispeedia-fresh.ts). */
  fresh?: boolean;
}

/** The seven original topics, then ten more of the category table's larger subjects (chosen, and their queries written, before any crawl on them). */
const TOPICS: Omit<WikiTopic, 'holdout'>[] = [
  { id: 'birds', label: 'Birds', category: 'subject.Science.Biology.Birds', query: ['bird', 'species', 'feathers'] },
  { id: 'music', label: 'Music', category: 'subject.Music', query: ['music', 'song', 'album'] },
  { id: 'space', label: 'Space (astronomy)', category: 'subject.Science.Physics.Space_Astronomy', query: ['astronomy', 'planet', 'star'] },
  { id: 'british-history', label: 'British history', category: 'subject.History.British_History', query: ['british', 'history', 'king'] },
  { id: 'elements', label: 'Chemical elements', category: 'subject.Science.Chemistry.Chemical_elements', query: ['chemical', 'element', 'atomic'] },
  { id: 'countries', label: 'Countries', category: 'subject.Countries', query: ['country', 'capital', 'population'] },
  { id: 'geography', label: 'Geography', category: 'subject.Geography', query: ['geography', 'river', 'mountain'] },
  { id: 'mammals', label: 'Mammals', category: 'subject.Science.Biology.Mammals', query: ['mammal', 'animal', 'species'] },
  { id: 'medicine', label: 'Health and medicine', category: 'subject.Science.Biology.Health_and_medicine', query: ['disease', 'medicine', 'health'] },
  { id: 'plants', label: 'Plants', category: 'subject.Science.Biology.Plants', query: ['plant', 'flower', 'leaves'] },
  { id: 'food', label: 'Food and agriculture', category: 'subject.Everyday_life.Food_and_agriculture', query: ['food', 'agriculture', 'crop'] },
  { id: 'politics', label: 'Politics and government', category: 'subject.Citizenship.Politics_and_government', query: ['politics', 'government', 'election'] },
  { id: 'railways', label: 'Railway transport', category: 'subject.Design_and_Technology.Railway_transport', query: ['railway', 'train', 'locomotive'] },
  { id: 'dinosaurs', label: 'Dinosaurs', category: 'subject.Science.Biology.Dinosaurs', query: ['dinosaur', 'fossil'] },
  { id: 'military', label: 'Military history and war', category: 'subject.History.Military_History_and_War', query: ['war', 'battle', 'army'] },
  { id: 'religion', label: 'Religion', category: 'subject.Religion', query: ['religion', 'god', 'church'] },
  { id: 'computing', label: 'IT (computing)', category: 'subject.IT', query: ['computer', 'software', 'internet'] },
];

export const WIKI_TOPICS: WikiTopic[] = TOPICS.map((t, i) => (i % 3 === 2 ? { ...t, holdout: true } : t));

export interface WikispeediaWeb {
  origin: string;
  topics: WikiTopic[];
  /** A fresh held-out set drawn by rule from the categories (FRESH_TOPIC_RULE), apart from `topics`. */
  freshTopics: WikiTopic[];
  /** Number of articles (pages) on the web. */
  size: number;
  urlOf(article: string): string;
  isRelevant(url: string, topicId: string): boolean;
  relevantTotal(topicId: string): number;
  /** `n` distinct on-topic article URLs, drawn reproducibly from `rng` (an Rng or an integer seed). */
  seeds(topicId: string, n: number, rng: Rng | number): string[];
  /** Milliseconds spent rendering pages in this process (so a benchmark can subtract it from its CPU time). */
  serverMs(): number;
  close(): Promise<void>;
}

export interface WikispeediaOptions {
  /** Folder holding articles.tsv, links.tsv, categories.tsv, plaintext/. */
  dir?: string;
}

/** The shared data folder: $SHARED_DATA, else ../shared/data from the repository root. */
export function sharedDataDir(): string {
  if (process.env.SHARED_DATA) return resolve(process.env.SHARED_DATA);
  const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
  return resolve(repoRoot, '..', 'shared', 'data');
}

export function wikispeediaDir(): string {
  return join(sharedDataDir(), 'wikispeedia');
}

/** Why the data set cannot be used, or undefined when it is there. */
export function wikispeediaMissing(dir = wikispeediaDir()): string | undefined {
  for (const f of ['articles.tsv', 'links.tsv', 'categories.tsv', 'plaintext']) {
    if (!existsSync(join(dir, f))) return `Wikispeedia data not found (${join(dir, f)} missing); set SHARED_DATA to the shared data folder`;
  }
  return undefined;
}

/** Rows of a Wikispeedia TSV file (comment lines and blank lines skipped). */
export const readTsv = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => l.split('\t'));

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** Human title of an article name: `Mercury_%28planet%29` → `Mercury (planet)`. */
export function articleTitle(name: string): string {
  return decodeURIComponent(name).replace(/_/g, ' ');
}

/**
 * The readable body of a plain-text article: drops the "#copyright" and "Related subjects: …"
 * header (the latter names the category, i.e. the ground truth) and the licence footer.
 */
export function articleBody(text: string): string {
  const lines = text.split('\n');
  const rel = lines.findIndex((l) => l.includes('Related subjects:'));
  const start = rel >= 0 ? rel + 1 : 0;
  let end = lines.findIndex((l, i) => i >= start && /^\s*Retrieved from "/.test(l));
  if (end < 0) end = lines.length;
  return lines.slice(start, end).join('\n');
}

/**
 * Render an article: paragraphs from the plain text (blank-line separated); each link is placed
 * on the first mention of the target's title (without its parenthetical), so it has a real text
 * context like on Wikipedia; links whose title never appears go in a "See also" list.
 */
export function renderArticle(name: string, text: string, targets: string[], href: (name: string) => string, site: { site: string; home: string } = { site: 'Wikispeedia', home: '/' }): string {
  const title = articleTitle(name);
  const paras = articleBody(text)
    .split(/\n\s*\n/)
    .map((p) => p.replace(/\s+/g, ' ').trim())
    .filter((p) => p && p !== title);
  const htmlParas = paras.map(escapeHtml);
  const lower = htmlParas.map((p) => p.toLowerCase());
  const unplaced: string[] = [];
  for (const t of targets) {
    const label = escapeHtml(articleTitle(t).replace(/\s*\(.*\)$/, ''));
    const needle = label.toLowerCase();
    let placed = false;
    if (needle.length >= 3) {
      for (let i = 0; i < htmlParas.length && !placed; i++) {
        let at = lower[i].indexOf(needle);
        // whole-word match only, and never inside an anchor placed earlier
        while (at >= 0) {
          const before = lower[i][at - 1];
          const after = lower[i][at + needle.length];
          const inside = lower[i].lastIndexOf('<a ', at) > lower[i].lastIndexOf('</a>', at);
          if (!/[a-z0-9]/.test(before ?? '') && !/[a-z0-9]/.test(after ?? '') && !inside) break;
          at = lower[i].indexOf(needle, at + 1);
        }
        if (at >= 0) {
          const a = `<a href="${href(t)}">${htmlParas[i].slice(at, at + label.length)}</a>`;
          htmlParas[i] = htmlParas[i].slice(0, at) + a + htmlParas[i].slice(at + label.length);
          lower[i] = htmlParas[i].toLowerCase();
          placed = true;
        }
      }
    }
    if (!placed) unplaced.push(t);
  }
  const seeAlso = unplaced.length
    ? `<h2>See also</h2><ul>${unplaced.map((t) => `<li><a href="${href(t)}">${escapeHtml(articleTitle(t))}</a></li>`).join('')}</ul>`
    : '';
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)} - ${escapeHtml(site.site)}</title></head><body><nav><a href="${site.home}">${escapeHtml(site.site)}</a></nav><article><h1>${escapeHtml(title)}</h1>${htmlParas.map((p) => `<p>${p}</p>`).join('\n')}${seeAlso}</article></body></html>`;
}

export async function startWikispeediaWeb(opts: WikispeediaOptions = {}): Promise<WikispeediaWeb> {
  const dir = opts.dir ?? wikispeediaDir();
  const missing = wikispeediaMissing(dir);
  if (missing) throw new Error(missing);
  // Keys are decoded names, so a URL's path decodes straight to a key however it was encoded.
  const articles = readTsv(join(dir, 'articles.tsv')).map((r) => r[0]);
  const byDecoded = new Map(articles.map((a) => [decodeURIComponent(a), a]));
  const out = new Map<string, string[]>(articles.map((a) => [a, []]));
  for (const [s, t] of readTsv(join(dir, 'links.tsv'))) if (out.has(s) && out.has(t)) out.get(s)!.push(t);
  const cats = new Map<string, string[]>();
  const categoryRows = readTsv(join(dir, 'categories.tsv'));
  for (const [a, c] of categoryRows) {
    if (!c) continue;
    const l = cats.get(a) ?? [];
    l.push(c);
    cats.set(a, l);
  }
  const inTopic = (article: string, t: WikiTopic) => (cats.get(article) ?? []).some((c) => c === t.category || c.startsWith(t.category + '.'));
  const freshTopics: WikiTopic[] = freshWikiTopics(
    categorySizes(categoryRows.filter((r) => r[1]).map(([a, c]) => [a, c])),
    WIKI_TOPICS.map((t) => t.category),
  );
  const allTopics = [...WIKI_TOPICS, ...freshTopics];
  const members = new Map(allTopics.map((t) => [t.id, articles.filter((a) => inTopic(a, t))]));
  const topicOf = (id: string) => {
    const t = allTopics.find((x) => x.id === id);
    if (!t) throw new Error(`wikispeedia: unknown topic "${id}" (known: ${allTopics.map((x) => x.id).join(', ')})`);
    return t;
  };

  let renderNs = 0n;
  const server: Server = createServer((req, res) => {
    const t0 = process.hrtime.bigint();
    const path = (req.url ?? '/').split('?')[0];
    let status = 200;
    let body: string;
    let type = 'text/html; charset=utf-8';
    if (path === '/robots.txt') {
      type = 'text/plain';
      body = 'User-agent: *\nAllow: /\n';
    } else if (path === '/') {
      body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Wikispeedia</title></head><body><h1>Wikispeedia</h1><p>${articles.length} articles.</p></body></html>`;
    } else {
      let key: string | undefined;
      try {
        key = path.startsWith('/wiki/') ? byDecoded.get(decodeURIComponent(path.slice(6))) : undefined;
      } catch {
        key = undefined;
      }
      if (key === undefined) {
        status = 404;
        body = '<!doctype html><title>Not found</title><p>No such article.</p>';
      } else {
        const text = readFileSync(join(dir, 'plaintext', `${key}.txt`), 'utf8');
        body = renderArticle(key, text, out.get(key)!, (n) => `/wiki/${n}`);
      }
    }
    res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
    res.end(body);
    renderNs += process.hrtime.bigint() - t0;
  });
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => ok());
  });
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const articleOf = (url: string): string | undefined => {
    try {
      const u = new URL(url);
      if (u.origin !== origin || !u.pathname.startsWith('/wiki/')) return undefined;
      return byDecoded.get(decodeURIComponent(u.pathname.slice(6)));
    } catch {
      return undefined;
    }
  };

  return {
    origin,
    topics: WIKI_TOPICS,
    freshTopics,
    size: articles.length,
    urlOf: (a) => `${origin}/wiki/${a}`,
    isRelevant(url, topicId) {
      const t = topicOf(topicId);
      const a = articleOf(url);
      return a !== undefined && inTopic(a, t);
    },
    relevantTotal: (topicId) => members.get(topicOf(topicId).id)!.length,
    seeds(topicId, n, rng) {
      const r = typeof rng === 'number' ? new Rng(rng) : rng;
      return r.sample(members.get(topicOf(topicId).id)!, n).map((a) => `${origin}/wiki/${a}`);
    },
    serverMs: () => Number(renderNs) / 1e6,
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}
