/**
 * The dashboard of a crawl shared through Redis (real redis-server, two CLI workers on the test
 * web): one worker's dashboard shows the other worker's pages too, and `--dashboard --frontier
 * URL --crawl-id NAME` without a topic watches every worker's pages from outside, steers nothing,
 * and says so in one line when the crawl does not exist.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CrawlLog } from '../src/store/crawl-log.js';
import { readTimeline } from '../src/report/timeline.js';
import { redisMissing, startRedis, type LocalRedis } from '../src/testweb/redis-server.js';
import { startTestWeb, type TestWeb } from '../src/testweb/index.js';

const missing = redisMissing();
if (missing) console.warn(missing);

const root = join(import.meta.dirname, '..');
let redis: LocalRedis;
let web: TestWeb;
let storage: string;
let configFile: string;
const children: ChildProcess[] = [];

function cli(args: string[]): { child: ChildProcess; out: () => string; err: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'src/cli/main.ts'), ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, CI: '1' } });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += String(d)));
  child.stderr!.on('data', (d) => (err += String(d)));
  return { child, out: () => out, err: () => err, exited: new Promise((ok) => child.once('exit', (code) => ok(code))) };
}

async function until<T>(what: string, check: () => T | undefined | Promise<T | undefined>, explain: () => string = () => '', ms = 240_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const got = await check();
    if (got !== undefined) return got;
    if (Date.now() > end) throw new Error(`waited ${ms / 1000} s for ${what}, in vain: ${explain()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The latest view a dashboard sent: read its event stream until `want` holds (or the limit). */
async function viewUntil(url: string, want: (v: { fetched: number; sections: Record<string, string> }) => boolean): Promise<{ fetched: number; sections: Record<string, string> }> {
  const events = new URL(url);
  events.pathname = '/events';
  const stop = new AbortController();
  const res = await fetch(events, { signal: stop.signal });
  const reader = res.body!.getReader();
  const dec = new TextDecoder();
  let buf = '';
  let last: { fetched: number; sections: Record<string, string> } | undefined;
  try {
    return await until('a view that holds', async () => {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the dashboard closed its events; last view fetched ${last?.fetched}`);
      buf += dec.decode(value, { stream: true });
      for (const m of buf.matchAll(/^data: (.*)$/gm)) last = JSON.parse(m[1]) as typeof last;
      buf = buf.slice(buf.lastIndexOf('\n') + 1);
      return last && want(last) ? last : undefined;
    }, () => `last view fetched ${last?.fetched}`);
  } finally {
    stop.abort();
  }
}

const logsOf = (crawlId: string) =>
  readdirSync(join(storage, 'runs'))
    .filter((d) => d.startsWith(`${crawlId}.w`))
    .map((d) => ({ run: d, log: existsSync(join(storage, 'runs', d, 'crawl-log.jsonl')) ? CrawlLog.read(join(storage, 'runs', d, 'crawl-log.jsonl')) : [] }));

describe.skipIf(!!missing)('the dashboard of a crawl shared through Redis', () => {
  beforeAll(async () => {
    redis = await startRedis({});
    web = await startTestWeb({ slowPageMs: 300 });
    storage = mkdtempSync(join(tmpdir(), 'e2e-redis-dash-'));
    configFile = join(storage, 'crawl.json');
    writeFileSync(configFile, JSON.stringify({ topics: [{ keywords: web.demo.keywords }], allowPrivate: web.sites.map((s) => s.origin) }));
  }, 60_000);
  afterAll(async () => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    await web?.close();
    await redis?.stop();
    if (storage) rmSync(storage, { recursive: true, force: true });
  });

  it("a worker's dashboard and a watcher from outside show every worker's pages; the watcher steers nothing", async () => {
    const id = 'watched';
    const common = ['--config', configFile, '--topic', web.demo.keywords.join(' '), '--frontier', redis.url, '--crawl-id', id, '--fetcher', 'http', '--max-pages', '40', '--delay', '300', '--concurrency', '2', '--storage', storage];
    const first = cli([...common, '--seeds', ...web.demo.seeds, '--dashboard']);
    const firstUrl = await until('the first worker to create the crawl', () => /Dashboard: (http\S+)/.exec(first.err())?.[1], () => first.err());
    // On a loaded machine the second worker's start-up can outlast the whole crawl: the first one
    // waits (paused from its own dashboard) until the second has fetched a page, so both take part.
    const firstAction = new URL(firstUrl);
    firstAction.pathname = '/action';
    const steer = (action: string) => fetch(firstAction, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ action }) });
    expect((await steer('pause')).status).toBe(200);
    const second = cli([...common, '--worker']);
    await until('the second worker to fetch a page', () => (logsOf(id).some((l) => l.run === `${id}.w2` && l.log.length > 0) ? true : undefined), () => second.err());
    expect((await steer('resume')).status).toBe(200);
    const watcher = cli(['--dashboard', '--frontier', redis.url, '--crawl-id', id]);
    const watchUrl = await until('the watcher to listen', () => /Watching crawl "watched".*: (http\S+)/.exec(watcher.out())?.[1], () => watcher.out() + watcher.err());
    expect(new URL(watchUrl).hostname).toBe('127.0.0.1');

    // The watcher refuses to steer, in one line.
    const action = new URL(watchUrl);
    action.pathname = '/action';
    const refused = await fetch(action, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ action: 'pause' }) });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: string }).error).toMatch(/watching from outside steers nothing/);

    expect(await first.exited, first.err()).toBe(0);
    expect(await second.exited, second.err()).toBe(0);
    const logs = logsOf(id);
    expect(logs.map((l) => l.run).sort()).toEqual([`${id}.w1`, `${id}.w2`]);
    const total = logs.reduce((n, l) => n + l.log.length, 0);
    expect(total).toBe(40);
    for (const l of logs) expect(l.log.length, l.run).toBeGreaterThan(0);

    // From outside: every worker's pages, counted as the logs count them.
    const view = await viewUntil(watchUrl, (v) => v.fetched === total);
    expect(view.sections.stats).toContain(`data-stat="fetched">${total}<`);
    const mix = [...view.sections.system.matchAll(/data-fetcher="[^"]+">(\d+)</g)].reduce((n, m) => n + Number(m[1]), 0);
    expect(mix).toBe(total);

    // The first worker's dashboard took in the second worker's pages too: its last sample counts more than its own log.
    const own = logs.find((l) => l.run === `${id}.w1`)!.log.length;
    const samples = readTimeline(join(storage, 'runs', `${id}.w1`))!.samples;
    expect(samples[samples.length - 1].fetched).toBeGreaterThan(own);
    expect(samples[samples.length - 1].fetched).toBeLessThanOrEqual(total);

    watcher.child.kill('SIGINT');
    expect(await watcher.exited).toBe(0);
  }, 400_000);

  it('watching a crawl that is not in Redis is one line and exit 2', () => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'src/cli/main.ts'), '--dashboard', '--frontier', redis.url, '--crawl-id', 'no-such-crawl'], { cwd: root, encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/no crawl "no-such-crawl" in Redis/);
    const noFrontier = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'src/cli/main.ts'), '--dashboard', '--crawl-id', 'x'], { cwd: root, encoding: 'utf8' });
    expect(noFrontier.status).toBe(2);
    expect(noFrontier.stderr).toMatch(/give its --frontier redis:\/\/HOST:PORT\/DB too/);
  }, 120_000);
});
