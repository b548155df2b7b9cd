/**
 * Several workers, each a real `npm start` process (tsx on the CLI), crawl the local test web
 * together through a real redis-server on a loopback port (HTTP fetcher: the test is about the
 * shared frontier, not the browser). Judged by the crawl logs and by what the test web's servers
 * saw: nothing fetched twice, nothing lost against the budget, the per-host delay kept across
 * workers, a worker killed with -9 and a Redis restart survived.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueKeyOf } from '../src/frontier/url-key.js';
import { crawlPrefix } from '../src/cluster/redis-frontier.js';
import { CrawlLog, type CrawlLogEntry } from '../src/store/crawl-log.js';
import { redisMissing, startRedis, type LocalRedis } from '../src/testweb/redis-server.js';
import { startTestWeb, type TestWeb } from '../src/testweb/index.js';

const missing = redisMissing();
if (missing) console.warn(missing);

const root = join(import.meta.dirname, '..');
const DELAY = 250;
let redis: LocalRedis;
let web: TestWeb;
let storage: string;
let configFile: string;

interface Worker {
  child: ChildProcess;
  stderr: string;
  exited: Promise<number | null>;
}

function startWorker(crawlId: string, opts: { join?: boolean; budget: number; seeds?: string[]; extra?: string[] }): Worker {
  const args = [
    '--import', 'tsx', join(root, 'src/cli/main.ts'),
    '--config', configFile,
    '--topic', web.demo.keywords.join(' '),
    ...(opts.join ? ['--worker'] : ['--seeds', ...(opts.seeds ?? web.demo.seeds)]),
    '--frontier', redis.url, '--crawl-id', crawlId,
    '--fetcher', 'http', '--max-pages', String(opts.budget), '--delay', String(DELAY), '--concurrency', '3',
    '--storage', storage, '--json',
    ...(opts.extra ?? []),
  ];
  // Its own process group, so kill -9 reaches everything it started (the gate proxy process).
  const child = spawn(process.execPath, args, { cwd: root, detached: true, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, CI: '1' } });
  const w: Worker = { child, stderr: '', exited: new Promise((ok) => child.once('exit', (code) => ok(code))) };
  child.stderr!.on('data', (d) => (w.stderr += String(d)));
  return w;
}

/** The crawl logs of every worker of a crawl, by run folder. */
function workerLogs(crawlId: string): Map<string, CrawlLogEntry[]> {
  const runs = join(storage, 'runs');
  const out = new Map<string, CrawlLogEntry[]>();
  if (!existsSync(runs)) return out; // no worker has made its run folder yet
  for (const d of readdirSync(runs)) {
    if (!d.startsWith(`${crawlId}.w`)) continue;
    const p = join(runs, d, 'crawl-log.jsonl');
    out.set(d, existsSync(p) ? CrawlLog.read(p) : []);
  }
  return out;
}

function fetchedTwice(logs: Map<string, CrawlLogEntry[]>): string[] {
  const seen = new Map<string, number>();
  for (const entries of logs.values()) for (const e of entries) seen.set(uniqueKeyOf(e.url), (seen.get(uniqueKeyOf(e.url)) ?? 0) + 1);
  return [...seen].filter(([, n]) => n > 1).map(([k]) => k);
}

function distinct(logs: Map<string, CrawlLogEntry[]>): number {
  return new Set([...logs.values()].flat().map((e) => uniqueKeyOf(e.url))).size;
}

async function sharedMeta(crawlId: string): Promise<Record<string, string>> {
  const r = new Redis(redis.url);
  try {
    const meta = await r.hgetall(`${crawlPrefix(crawlId)}meta`);
    return { ...meta, leases: String(await r.zcard(`${crawlPrefix(crawlId)}lease`)) };
  } finally {
    r.disconnect();
  }
}

async function until(cond: () => boolean, what: string, ms = 240_000): Promise<void> {
  await waitFor(what, async () => (cond() ? true : undefined), () => '', ms);
}

/**
 * Polls `check` until it gives a value, and returns it; after `ms` fails saying what was awaited
 * and the state `explain` describes (a generous limit: a machine twice as slow still passes).
 */
async function waitFor<T>(what: string, check: () => Promise<T | undefined>, explain: () => string, ms = 240_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const got = await check();
    if (got !== undefined) return got;
    if (Date.now() > end) throw new Error(`waited ${ms / 1000} s for ${what}, in vain: ${explain()}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Requests the crawler made for pages in the logs (and robots.txt), per host, in time order, between two times. */
/**
 * Every request the test web's servers logged during the crawl, by host: pages, robots.txt and
 * the requests that are not pages (comment APIs of threads), whichever worker sent them.
 */
function requestsByHost(from: number, to: number): Map<string, { at: number; path: string }[]> {
  const out = new Map<string, { at: number; path: string }[]>();
  for (const r of web.requestLog) {
    if (r.at < from || r.at > to) continue;
    if (!out.has(r.host)) out.set(r.host, []);
    out.get(r.host)!.push({ at: r.at, path: r.path });
  }
  for (const v of out.values()) v.sort((a, b) => a.at - b.at);
  return out;
}

/** Pairs of successive requests to one host closer than `minGapMs`, as "path → path: gap". */
function tooClose(reqs: { at: number; path: string }[], minGapMs: number): string[] {
  const out: string[] = [];
  for (let i = 1; i < reqs.length; i++) if (reqs[i].at - reqs[i - 1].at < minGapMs) out.push(`${reqs[i - 1].path} → ${reqs[i].path}: ${reqs[i].at - reqs[i - 1].at} ms`);
  return out;
}

/** The test web's host with robots.txt Crawl-delay: 1 and the redirect chains (/go/1…, the loop /loop/a ⇄ /loop/b). */
const crawlDelayHost = () => web.sites.find((s) => s.name === '城市生活网')!.origin;

async function crawlTogether(crawlId: string, workers: number, budget: number) {
  const from = Date.now();
  const ws = [startWorker(crawlId, { budget }), ...Array.from({ length: workers - 1 }, () => startWorker(crawlId, { join: true, budget }))];
  const codes = await Promise.all(ws.map((w) => w.exited));
  return { ws, codes, logs: workerLogs(crawlId), from, to: Date.now() };
}

describe.skipIf(!!missing)('several workers on one Redis frontier (real redis-server, CLI workers)', () => {
  beforeAll(async () => {
    redis = await startRedis({ appendonly: true });
    web = await startTestWeb({ slowPageMs: 500 });
    storage = mkdtempSync(join(tmpdir(), 'e2e-redis-'));
    configFile = join(storage, 'crawl.json');
    // Leases shorter than the default 30 s, so a killed worker's URLs come back sooner, and
    // longer than a live worker's worst stall on this loaded machine (a 4 s lease expired once
    // while a worker analysed the test web's huge page). Test web origins allowed.
    writeFileSync(configFile, JSON.stringify({ topics: [{ keywords: web.demo.keywords }], allowPrivate: web.sites.map((s) => s.origin), frontier: { leaseSecs: 15 } }));
  }, 60_000);
  afterAll(async () => {
    await web?.close();
    await redis?.stop();
    if (storage) rmSync(storage, { recursive: true, force: true });
  });

  for (const [workers, budget] of [[2, 40], [4, 60]] as const) {
    it(`${workers} workers: the budget exactly, nothing fetched twice, per-host delay and Crawl-delay kept across workers`, async () => {
      const id = `together-${workers}`;
      const { ws, codes, logs, from, to } = await crawlTogether(id, workers, budget);
      expect(codes, ws.map((w) => w.stderr).join('\n---\n')).toEqual(ws.map(() => 0));
      expect(logs.size).toBe(workers);
      // Every worker took part, and together they spent the budget: no page lost, none twice.
      for (const [run, entries] of logs) expect(entries.length, run).toBeGreaterThan(0);
      const meta = await sharedMeta(id);
      const why = `${JSON.stringify(meta)}\n${ws.map((w) => w.stderr).join('\n---\n')}`;
      expect(fetchedTwice(logs)).toEqual([]);
      expect([...logs.values()].flat().length, why).toBe(budget);
      expect(distinct(logs)).toBe(budget);
      expect(Number(meta.handed)).toBe(budget);
      expect(Number(meta.finished)).toBe(budget);
      expect(meta.leases).toBe('0');
      // What the servers saw: one robots.txt per host for the whole crawl, and gaps ≥ the delay
      // (≥ 1 s on the Crawl-delay: 1 host) between any two requests to one host (pages and
      // comment APIs alike), whichever worker sent them.
      const byHost = requestsByHost(from, to);
      let checked = 0;
      for (const [host, reqs] of byHost) {
        expect(reqs.filter((r) => r.path === '/robots.txt').length, host).toBeLessThanOrEqual(1);
        const crawlDelay = reqs.some((r) => r.path === '/robots.txt') && host === new URL(crawlDelayHost()).host;
        expect(tooClose(reqs, crawlDelay ? 1000 : DELAY), host).toEqual([]);
        if (reqs.length >= 3) checked++;
      }
      expect(checked).toBeGreaterThanOrEqual(2);
      const api = [...byHost.values()].flat().filter((r) => r.path.startsWith('/api/')).length;
      console.log(`${workers} workers: ${[...byHost.values()].flat().length} requests checked at the servers, ${api} of them comment-API requests`);
    }, 300_000);
  }

  // Clean-clone CI once saw /loop/a → /loop/b 4 ms apart on the Crawl-delay host: the loop ends
  // at the client's redirect limit, the page is retried, and the gate proxy paced the retry's
  // first hop from the previous attempt's last one (a retry was not noted as a page request).
  it('redirect hops keep the Crawl-delay across workers: a redirect loop, its retry and a chain on one host', async () => {
    const id = 'hops';
    const site = crawlDelayHost();
    const budget = 10;
    const from = Date.now();
    const ws = [startWorker(id, { budget, seeds: [`${site}/go/1`, `${site}/loop/a`, `${site}/`] }), startWorker(id, { join: true, budget }), startWorker(id, { join: true, budget })];
    const codes = await Promise.all(ws.map((w) => w.exited));
    expect(codes, ws.map((w) => w.stderr).join('\n---\n')).toEqual([0, 0, 0]);
    const all = requestsByHost(from, Date.now()).get(new URL(site).host) ?? [];
    // Every request the host saw is the crawl's own, robots.txt first: the CLI's check that the
    // seeds are reachable sends none (src/cli/options.ts checkSeedsReachable).
    const crawl = all;
    expect(crawl[0]?.path).toBe('/robots.txt');
    // Evidence the paths under test were taken: the loop to the client's redirect limit (five
    // /loop/b per attempt) and again on the retry, and the chain /go/1 → /go/2 → /go/3.
    const seen = crawl.map((r) => `${r.at - from} ${r.path}`).join('\n');
    expect(crawl.filter((r) => r.path === '/loop/b').length, seen).toBeGreaterThan(5);
    expect(crawl.some((r) => r.path === '/go/3'), seen).toBe(true);
    expect(tooClose(crawl, 1000)).toEqual([]);
  }, 300_000);

  // src/plugins/sibling-threads.ts: a board judged not relevant ranks its thread links low; once a
  // thread from it is judged relevant the board's next unfetched thread is offered in the
  // thread-page band, and so on. The board's links reach every worker through the shared scorer.
  it('a relevant thread from a forum board brings the board\'s next thread, across workers', async () => {
    const id = 'siblings';
    const forum = web.sites.find((s) => s.kind === 'forum')!.origin;
    const board = `${forum}/forum-2-1.html`;
    const budget = 16;
    const extra = ['--allow-domain', new URL(forum).host];
    const ws = [startWorker(id, { budget, seeds: [board], extra }), startWorker(id, { join: true, budget, extra })];
    const codes = await Promise.all(ws.map((w) => w.exited));
    expect(codes, ws.map((w) => w.stderr).join('\n---\n')).toEqual([0, 0]);
    const logs = workerLogs(id);
    const all = [...logs.values()].flat().sort((a, b) => Date.parse(a.time) - Date.parse(b.time));
    const seen = all.map((e) => `${e.url} ${e.relevant ? 'relevant' : '-'} ${JSON.stringify(e.components ?? {})}`).join('\n');
    expect(fetchedTwice(logs)).toEqual([]);
    const siblings = all.filter((e) => e.components?.siblingThread === 1);
    // The chain went on: more than one sibling, each a first page of another thread of the board,
    // each of the demo topic (the board's threads are), offered in the thread-page band.
    expect(siblings.length, seen).toBeGreaterThanOrEqual(2);
    for (const e of siblings) {
      expect(e.parent, seen).toBe(board);
      expect(e.url, seen).toMatch(/\/thread-\d+-1-1\.html$/);
      expect(web.isRelevant(e.url, web.demo.topic), e.url).toBe(true);
      expect(e.score!, seen).toBeGreaterThanOrEqual(1);
    }
    // Both workers fetched threads of the board: the sibling rule ran on either's pages.
    for (const [run, entries] of logs) expect(entries.some((e) => /\/thread-\d+-/.test(e.url)), `${run}\n${seen}`).toBe(true);
  }, 300_000);

  it('--report CRAWL_ID merges every worker\'s crawl log, counts, threads and dataset into one report', async () => {
    const id = 'together-2';
    const logs = workerLogs(id);
    expect(logs.size).toBe(2); // the crawl of the test above
    const out = await new Promise<{ code: number | null; stdout: string }>((ok) => {
      const c = spawn(process.execPath, ['--import', 'tsx', join(root, 'src/cli/main.ts'), '--report', id, '--storage', storage], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
      let stdout = '';
      c.stdout!.on('data', (d) => (stdout += String(d)));
      c.once('exit', (code) => ok({ code, stdout }));
    });
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/Report written/);
    const merged = CrawlLog.read(join(storage, 'runs', id, 'crawl-log.jsonl')) as (CrawlLogEntry & { worker?: string })[];
    const all = [...logs.values()].flat();
    expect(merged.length).toBe(all.length);
    expect(new Set(merged.map((e) => e.worker))).toEqual(new Set(logs.keys()));
    for (let i = 1; i < merged.length; i++) expect(merged[i].time >= merged[i - 1].time).toBe(true);
    const state = JSON.parse(readFileSync(join(storage, 'runs', id, 'state.json'), 'utf8')) as { counters: { fetched: number; relevant: number } };
    expect(state.counters.fetched).toBe(all.length);
    expect(state.counters.relevant).toBe(all.filter((e) => e.decision === 'saved').length);
    const dataset = readdirSync(join(storage, 'datasets', `run-${id}`)).filter((f) => f.endsWith('.json'));
    expect(dataset.length).toBe(state.counters.relevant);
    expect(existsSync(join(storage, 'runs', id, 'report', 'index.html'))).toBe(true);
  }, 120_000);

  it('a worker killed with -9 mid-crawl loses nothing: its leased URLs come back to the others', async () => {
    const id = 'killed';
    const budget = 40;
    const ws = [startWorker(id, { budget }), startWorker(id, { join: true, budget }), startWorker(id, { join: true, budget })];
    const victim = ws[2];
    // Kill it once it has fetched a few pages and holds a lease (its worker id names its pid).
    const r = new Redis(redis.url);
    const victimLeases = async () =>
      Object.entries(await r.hgetall(`${crawlPrefix(id)}owner`))
        .filter(([, w]) => w.includes(`:${victim.child.pid}:`))
        .map(([k]) => k);
    let victimRun = '';
    let victimExit: number | null | undefined;
    void victim.exited.then((code) => (victimExit = code));
    let leasesSeen = 0;
    const heldAtKill = await waitFor(
      'the victim worker to have logged 3 pages and to hold a lease',
      async () => {
        if (victimExit !== undefined) throw new Error(`the victim worker exited (code ${victimExit}) before it was killed, its run ${victimRun || 'not found'}:\n${victim.stderr.slice(-2000)}`);
        for (const [run, entries] of workerLogs(id)) if (entries.length >= 3 && victim.stderr.includes(`runs/${run}`)) victimRun = run;
        if (!victimRun || (leasesSeen = (await victimLeases()).length) === 0) return undefined;
        // Frozen first, so the leases read are those it holds when killed: a running worker can
        // finish its page between a read and the kill (clean-clone CI: 0 held at the kill).
        process.kill(-victim.child.pid!, 'SIGSTOP');
        const held = await victimLeases();
        if (held.length > 0) return held;
        process.kill(-victim.child.pid!, 'SIGCONT');
        return undefined;
      },
      () => `its run ${victimRun || 'not found (fewer than 3 pages logged)'}, ${leasesSeen} lease(s) seen at the last look; pages logged per worker run ${JSON.stringify(Object.fromEntries([...workerLogs(id)].map(([run, es]) => [run, es.length])))}\n${victim.stderr.slice(-2000)}`,
    );
    process.kill(-victim.child.pid!, 'SIGKILL');
    await victim.exited;
    const codes = await Promise.all(ws.slice(0, 2).map((w) => w.exited));
    expect(codes, ws.map((w) => w.stderr).join('\n---\n')).toEqual([0, 0]);
    const logs = workerLogs(id);
    const meta = await sharedMeta(id);
    // The budget was spent on pages fetched and finished; Redis holds no lease.
    expect(Number(meta.finished)).toBe(budget);
    expect(meta.leases).toBe('0');
    expect(heldAtKill.length).toBeGreaterThan(0);
    expect(Number(meta.reclaimed ?? 0)).toBeGreaterThanOrEqual(heldAtKill.length);
    // Nothing lost: every URL the killed worker held came back, and was fetched by another
    // worker or is queued still (the budget ran out first).
    const survivorKeys = new Set([...logs].filter(([run]) => run !== victimRun).flatMap(([, es]) => es.map((e) => uniqueKeyOf(e.url))));
    for (const k of heldAtKill) {
      const queued = (await r.hexists(`${crawlPrefix(id)}e`, k)) && !(await r.zscore(`${crawlPrefix(id)}lease`, k));
      expect(survivorKeys.has(k) || queued, k).toBe(true);
    }
    r.disconnect();
    // Fetched twice: only pages the killed worker fetched and never reported finished (at most
    // the leases it held); every other page once.
    const twice = fetchedTwice(logs);
    for (const k of twice) expect(heldAtKill, k).toContain(k);
    expect(distinct(logs)).toBeGreaterThanOrEqual(budget);
    expect(distinct(logs)).toBeLessThanOrEqual(budget + heldAtKill.length);
  }, 300_000);

  it('survives a Redis restart mid-crawl: the workers wait, say so, and carry on', async () => {
    const id = 'restart';
    const budget = 40;
    const ws = [startWorker(id, { budget }), startWorker(id, { join: true, budget })];
    await until(() => [...workerLogs(id).values()].flat().length >= 8, 'the workers to have logged 8 pages');
    await redis.kill();
    await until(() => ws.every((w) => /Redis at .* is unreachable/.test(w.stderr)), 'every worker to say Redis is unreachable');
    await redis.restart();
    const codes = await Promise.all(ws.map((w) => w.exited));
    expect(codes, ws.map((w) => w.stderr).join('\n---\n')).toEqual([0, 0]);
    for (const w of ws) expect(w.stderr).toMatch(/Redis at .* is back: carrying on/);
    const logs = workerLogs(id);
    expect(fetchedTwice(logs)).toEqual([]);
    expect(distinct(logs)).toBe(budget);
    const meta = await sharedMeta(id);
    expect(Number(meta.finished)).toBe(budget);
  }, 300_000);
});
