/**
 * The demo (`npm start` with no arguments) as a user runs it, through the CLI in a child process,
 * held against the test web's ground truth: no home, channel, board or other listing page is
 * taken for a reply thread, in threads.json, in the summary's hot list or in the report's thread
 * table; every thread keeps the evidence that made it one; the report's revisits count later
 * fetches only.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestWeb, type TestWeb } from '../src/testweb/index.js';
import type { ThreadRecord } from '../src/store/threads.js';
import { RUN_FILES } from '../src/store/run-dir.js';

const root = join(import.meta.dirname, '..');
const LISTINGS = new Set(['home', 'list', 'board', 'search', 'trap']);
const BUDGET = 120;

let dir: string;
let out = '';
let code: number | null = null;
let runDir: string;
let threads: ThreadRecord[];
let report: string;
let web: TestWeb;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'demo-threads-'));
  const p = spawn(process.execPath, ['--import', pathToFileURL(join(root, 'node_modules/tsx/dist/loader.mjs')).href, join(root, 'src/cli/main.ts'), '--max-pages', String(BUDGET)], {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, CI: '1' },
  });
  p.stdout.on('data', (d) => (out += d));
  p.stderr.on('data', () => {});
  code = await new Promise((r) => p.on('exit', (c) => r(c)));
  const runs = join(dir, 'storage', 'runs');
  runDir = join(runs, readdirSync(runs)[0]);
  threads = Object.values((JSON.parse(readFileSync(join(runDir, 'threads.json'), 'utf8')) as { threads: Record<string, ThreadRecord> }).threads);
  // The report the crawl wrote at its end (src/store/run-dir.ts: the run's report folder).
  const html = join(runDir, RUN_FILES.reportDir, 'index.html');
  report = existsSync(html) ? readFileSync(html, 'utf8') : '';
  // The demo's test web again, at the origins the run recorded: its truth for the URLs the run met.
  const origins = (JSON.parse(readFileSync(join(runDir, 'testweb.json'), 'utf8')) as { origins: Record<string, string> }).origins;
  web = await startTestWeb({ origins });
}, 900_000);

afterAll(async () => {
  await web?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const kindOf = (url: string) => web.truth(url)?.kind ?? 'unknown';

describe('the demo lists no listing page as a reply thread', () => {
  it('the crawl ran and found threads', () => {
    expect(code).toBe(0);
    expect(threads.length).toBeGreaterThan(0);
    // The portals' home pages (the seeds) were fetched: they are what was taken for threads before.
    const log = readFileSync(join(runDir, 'crawl-log.jsonl'), 'utf8');
    const homes = web.demo.seeds.filter((s) => log.includes(`"url":"${s}"`));
    expect(homes.length).toBe(web.demo.seeds.length);
  });

  it('threads.json: every thread is a forum thread or an article with comments, none a listing, each with its evidence', () => {
    for (const t of threads) {
      for (const page of [t.url, ...(t.pages ?? [])]) expect(LISTINGS.has(kindOf(page)), `${page} is a ${kindOf(page)} page`).toBe(false);
      expect(['thread', 'article']).toContain(kindOf(t.url));
      expect(t.confidence).toBeGreaterThan(0);
      expect(t.evidence?.structure).toBeTruthy();
      expect(t.evidence?.signals.length).toBeGreaterThan(0);
      // One thread however many pages: all its pages are pages of the same thread.
      const tids = new Set((t.pages ?? []).map((u) => /thread-(\d+)-|tid=(\d+)/.exec(u)?.slice(1).find(Boolean) ?? u));
      if (kindOf(t.url) === 'thread') expect(tids.size).toBe(1);
    }
  });

  it("the summary's hot list and the report's thread table name threads only", () => {
    const hotLines = out.split('\n').filter((l) => /^\s+H\s+[\d.]+\s+\d+ replies/.test(l));
    for (const l of hotLines) {
      const url = /(https?:\/\/\S+)\s*$/.exec(l)![1];
      expect(LISTINGS.has(kindOf(url)), l).toBe(false);
    }
    const table = /<table id="threads-table"[\s\S]*?<tbody>([\s\S]*?)<\/tbody>/.exec(report)?.[1] ?? '';
    const urls = [...table.matchAll(/<tr><td data-sort="([^"]+)"/g)].map((m) => m[1].replace(/&amp;/g, '&'));
    expect(urls.length).toBeGreaterThan(0);
    for (const u of urls) expect(LISTINGS.has(kindOf(u)), u).toBe(false);
  });

  it("the report's thread table explains every column and counts pages and revisits apart", () => {
    const head = /<table id="threads-table"[\s\S]*?<thead>([\s\S]*?)<\/thead>/.exec(report)![1];
    const ths = [...head.matchAll(/<th [^>]*>/g)].map((m) => m[0]);
    expect(ths.length).toBe(6);
    for (const th of ths) expect(th).toMatch(/title="[^"]{10,}"/);
    expect(head).toContain('>Pages<');
    expect(head).toContain('>Revisits<');
    // A thread's revisits are its visits flagged as later fetches, never its pages' first readings.
    const row = /<table id="threads-table"[\s\S]*?<tbody>(<tr>[\s\S]*?<\/tr>)/.exec(report)![1];
    const url = /<td data-sort="([^"]+)"/.exec(row)![1].replace(/&amp;/g, '&');
    const t = threads.find((x) => x.url === url)!;
    const nums = [...row.matchAll(/<td class="num" data-sort="([\d.]+)"/g)].map((m) => Number(m[1]));
    expect(nums[1]).toBe(t.pages?.length);
    expect(nums[2]).toBe(t.visits.filter((v) => v.revisit).length);
    // The relevant pages' Score column, next to Relevance, says what it is too.
    expect(report).toMatch(/<th [^>]*title="The frontier priority[^"]*"[^>]*>Score<\/th>/);
  });
});
