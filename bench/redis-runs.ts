/**
 * `npx tsx bench/redis-runs.ts DIR` — reads the runs `npm run bench:redis -- --keep` kept in DIR
 * and says, per crawl, what its harvest hinged on: the pages in fetch order over all workers, the
 * harvest (test web's truth) of each hundred, where the forum board came and how many threads
 * followed (how many a relevant sibling brought: src/plugins/sibling-threads.ts), which worker
 * fetched each seed, and each worker's pages and harvest; then what sat above the board: its
 * score when handed out (and the link ranker's evidence in it), the off-topic pages fetched
 * before it by kind, and the hosts each 50 pages came from.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { CrawlLog, type CrawlLogEntry } from '../src/store/crawl-log.js';
import { startTestWeb } from '../src/testweb/index.js';
import { rebaseOntoOrigins } from './rebase-origins.js';

const dir = process.argv[2];
if (!dir || !existsSync(join(dir, 'runs'))) {
  process.stderr.write('error: usage: npx tsx bench/redis-runs.ts DIR (a folder bench:redis --keep printed)\n');
  process.exit(2);
}
const web = await startTestWeb();
// The kept runs' test web had other ports: each site has its own 127.0.0.x address.
const here = rebaseOntoOrigins(web.sites.map((s) => s.origin));
const relevant = (url: string) => web.isRelevant(here(url), web.demo.topic);
const crawls = new Map<string, { worker: string; entries: CrawlLogEntry[] }[]>();
for (const d of readdirSync(join(dir, 'runs'))) {
  const f = join(dir, 'runs', d, 'crawl-log.jsonl');
  if (!existsSync(f)) continue;
  const id = d.replace(/\.w\d+$/, '');
  if (!crawls.has(id)) crawls.set(id, []);
  crawls.get(id)!.push({ worker: d.slice(id.length + 1) || 'one', entries: CrawlLog.read(f) });
}
for (const [id, ws] of [...crawls].sort()) {
  const all = ws.flatMap((w) => w.entries.map((e) => ({ ...e, w: w.worker }))).sort((a, b) => Date.parse(a.time) - Date.parse(b.time));
  const rel = all.map((e) => relevant(e.url));
  const h = (from: number, to: number) => `${((rel.slice(from, to).filter(Boolean).length / Math.max(1, rel.slice(from, to).length)) * 100).toFixed(0)}`;
  const board = all.findIndex((e) => /\/forum-\d+-1\.html$/.test(new URL(e.url).pathname) && relevantBoard(e.url));
  const threads = all.filter((e) => /thread/.test(new URL(e.url).pathname));
  const threadsAfter = board < 0 ? 0 : all.slice(board).filter((e) => /thread/.test(new URL(e.url).pathname)).length;
  const seeds = all.filter((e) => e.depth === 0).map((e) => e.w);
  const firstThread = all.findIndex((e) => /thread/.test(new URL(e.url).pathname) && relevant(e.url));
  // Each worker's judge against the truth: its verdicts are what the shared scorer learns from.
  const judged = (es: CrawlLogEntry[]) => {
    const tp = es.filter((e) => e.relevant && relevant(e.url)).length;
    const said = es.filter((e) => e.relevant).length;
    const truly = es.filter((e) => relevant(e.url)).length;
    return `judge P ${said ? ((tp / said) * 100).toFixed(0) : '–'} R ${truly ? ((tp / truly) * 100).toFixed(0) : '–'}`;
  };
  const perWorker = ws.map((w) => `${w.worker} ${w.entries.length}p ${((w.entries.filter((e) => relevant(e.url)).length / Math.max(1, w.entries.length)) * 100).toFixed(0)}% ${judged(w.entries)}`);
  console.log(
    `${id}: harvest ${h(0, all.length)}% (by 50: ${[0, 50, 100, 150].map((i) => h(i, i + 50)).join('/')}), board at ${board < 0 ? 'never' : board + 1}, threads ${threads.length} (${threadsAfter} after the board), relevant threads ${threads.filter((e) => relevant(e.url)).length} (${all.filter((e) => e.components?.siblingThread).length} brought by a relevant sibling), first relevant thread at ${firstThread < 0 ? 'never' : firstThread + 1}; seeds by ${seeds.join(',')}; ${perWorker.join(', ')}`,
  );
  const kind = (url: string) => (/\/ad\//.test(url) ? 'ads' : /\/photo\//.test(url) ? 'photos' : /forum|thread/.test(url) ? 'forum' : 'other');
  const offBefore = new Map<string, number>();
  for (const [i, e] of all.slice(0, board < 0 ? all.length : board).entries()) if (!rel[i]) offBefore.set(kind(e.url), (offBefore.get(kind(e.url)) ?? 0) + 1);
  const hostMix = [0, 50, 100, 150].map((from) => {
    const n = new Map<string, number>();
    for (const e of all.slice(from, from + 50)) n.set(new URL(here(e.url)).host, (n.get(new URL(here(e.url)).host) ?? 0) + 1);
    return [...n].sort((a, b) => b[1] - a[1]).map(([host, c]) => `${siteName(host)} ${c}`).join(' ');
  });
  const b = board < 0 ? undefined : all[board];
  console.log(
    `  board: ${b ? `score ${b.score?.toFixed(3)} (link ranker ${b.components?.linkRanker?.toFixed(2) ?? '–'}), handed out by ${b.w}` : 'never fetched'}; off-topic before it: ${[...offBefore].map(([k, c]) => `${k} ${c}`).join(', ')}; hosts by 50: ${hostMix.join(' | ')}`,
  );
}
await web.close();

/** A test-web site's key (or the host). */
function siteName(host: string): string {
  const site = web.sites.find((s) => new URL(s.origin).host === host);
  return site ? site.key : host;
}

/** The forum board the demo topic's threads hang off (the earthquake forum's first page). */
function relevantBoard(url: string): boolean {
  return /forum-2-1\.html$/.test(url);
}
