/**
 * One source of truth for the counts a user reads: a crawl of the local test web (forum threads,
 * a missing page, the news portals) through the CLI's own plugins, then the progress line, the
 * summary, `--json`, state.json, the report and the exports are read back and must agree.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseCsv } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawlPlugins, formatSummary } from '../src/cli/main.js';
import { parseConfig } from '../src/config/schema.js';
import { runCrawl, type CrawlResult } from '../src/crawl/engine.js';
import { countLog, formatFailures } from '../src/store/counts.js';
import { ProgressReporter } from '../src/report/progress.js';
import { CrawlLog } from '../src/store/crawl-log.js';
import { countSubRequests, SubRequestLog } from '../src/store/sub-requests.js';
import type { RunStateData } from '../src/store/run-state.js';
import { startTestWeb, type TestWeb } from '../src/testweb/index.js';

let web: TestWeb;
let dir: string;
let result: CrawlResult;
let summary: string;
let json: CrawlResult;
let progressLines: string[];
let report: string;

beforeAll(async () => {
  web = await startTestWeb({});
  dir = mkdtempSync(join(tmpdir(), 'fc-counts-'));
  const forum = web.sites.find((s) => s.kind === 'forum')!.origin;
  const news = web.sites.find((s) => s.kind === 'news')!.origin;
  // A few forum threads as seeds (read off the forum's home page), so threads are found early.
  const home = await (await fetch(`${forum}/`)).text();
  const threads = [...new Set([...home.matchAll(/tid=(\d+)/g)].map((m) => `${forum}/thread-${m[1]}-1-1.html`))].slice(0, 6);
  expect(threads.length).toBeGreaterThan(2);
  const config = parseConfig({
    topics: [{ keywords: web.demo.keywords, seeds: [`${news}/no-such-page.html`, ...threads, ...web.demo.seeds] }],
    allowPrivate: web.sites.map((s) => s.origin), // the test web's loopback sites (src/fetch/gate/gate.ts)
    storageDir: dir,
    maxPages: 45,
    maxDepth: 3,
    fetcher: 'http',
    // A low hot threshold so some forum threads are hot within a short crawl.
    threads: { hotThreshold: 3 },
  });
  const written: string[] = [];
  const stream = { isTTY: false, columns: 80, write: (s: string) => (written.push(s), true) } as unknown as NodeJS.WriteStream;
  const plugins = await crawlPlugins(config, false, () => web.clock.now(), ['jsonl', 'csv']);
  result = await runCrawl({ config, plugins, progress: new ProgressReporter({ stream, tty: false, intervalMs: 0 }) });
  summary = formatSummary(result, 'test', dir);
  json = JSON.parse(JSON.stringify(result)) as CrawlResult;
  progressLines = written.join('').split('\n').filter((l) => l.startsWith('[crawl]'));
  report = readFileSync(join(dir, 'report', 'index.html'), 'utf8');
}, 300_000);

afterAll(async () => {
  await web?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const stat = (key: string) => Number(new RegExp(`data-stat="${key}">(\\d+)<`).exec(report)?.[1]);
const summaryNumber = (label: string) => Number(new RegExp(`^  ${label}\\s+(\\d+)`, 'm').exec(summary)?.[1]);

describe('counts agree everywhere', () => {
  it('the crawl met every kind of count', () => {
    expect(result.counts.fetched).toBe(45);
    expect(result.counts.relevant).toBeGreaterThan(0);
    expect(result.counts.failed).toBeGreaterThanOrEqual(1);
    expect(result.counts.failedByReason['HTTP 404']).toBeGreaterThanOrEqual(1);
    expect(result.counts.threadsFound).toBeGreaterThan(0);
    expect(result.counts.hotThreads).toBeGreaterThan(0);
  });

  it('summary, --json, progress line, state.json and report say the same', () => {
    const c = result.counts;
    // --json
    expect(json.counts).toEqual(c);
    expect([json.fetched, json.relevant, json.failed]).toEqual([c.fetched, c.relevant, c.failed]);
    // summary
    expect(summaryNumber('pages fetched')).toBe(c.fetched);
    expect(summaryNumber('relevant \\(judged\\)')).toBe(c.relevant);
    expect(summaryNumber('failed')).toBe(c.failed);
    expect(summary).toContain(`(${formatFailures(c.failedByReason)})`);
    expect(summary).toMatch(new RegExp(`^  reply threads\\s+${c.threadsFound} found, ${c.hotThreads} hot \\(H > 3, confidence ≥ 0\\.6\\)`, 'm'));
    // the last progress line (forced at the end of the crawl)
    const last = progressLines[progressLines.length - 1];
    expect(last).toContain(`${c.fetched}/45 pages`);
    expect(last).toContain(`${c.relevant} relevant`);
    expect(last).toContain(`${c.failed} failed`);
    expect(last).toContain(`${c.threadsFound} threads, ${c.hotThreads} hot`);
    // state.json
    const state = JSON.parse(readFileSync(join(result.runDir, 'state.json'), 'utf8')) as RunStateData;
    expect(state.counters).toEqual(c);
    // the report written at the end of the same crawl
    expect(stat('fetched')).toBe(c.fetched);
    expect(stat('relevant')).toBe(c.relevant);
    expect(stat('failed')).toBe(c.failed);
    expect(stat('threads')).toBe(c.threadsFound);
    expect(stat('hot-threads')).toBe(c.hotThreads);
    const rows = [...report.matchAll(/<tr><td>([^<]+)<\/td><td class="num" data-failure-count data-sort="(\d+)">/g)].map((m) => [m[1], Number(m[2])]);
    expect(Object.fromEntries(rows)).toEqual(c.failedByReason);
    // The hot-threads table lists exactly the hot threads.
    const listed = /<table id="threads-table"[\s\S]*?<tbody>([\s\S]*?)<\/tbody>/.exec(report)![1].match(/<tr>/g)!.length;
    expect(listed).toBe(c.hotThreads);
    // the crawl log read back gives the same tally
    const { threadsFound: _t, hotThreads: _h, revisits: _r, newReplies: _n, subRequests, ...logCounts } = c;
    expect(countLog(CrawlLog.read(result.logPath))).toEqual(logCounts);
    // the sub-request log (comment-API requests) read back gives the same counts
    expect(countSubRequests(SubRequestLog.read(join(result.runDir, 'subrequests.jsonl')))).toEqual(subRequests);
  });

  it('state.json holds one page threshold', () => {
    const state = JSON.parse(readFileSync(join(result.runDir, 'state.json'), 'utf8')) as RunStateData;
    expect(state.config.score.pageThreshold).toBe(state.config.pageThreshold);
    expect(JSON.stringify(state.config).match(/"pageThreshold":([\d.]+)/g)!.map((m) => m.split(':')[1])).toEqual(['0.05', '0.05']);
  });

  it('dataset records and exports name the topic and hold one publishTime shape', () => {
    const files = readdirSync(result.datasetDir).filter((f) => f.endsWith('.json'));
    expect(files.length).toBe(result.counts.relevant);
    const records = files.map((f) => JSON.parse(readFileSync(join(result.datasetDir, f), 'utf8')) as { topic: string; publishTime?: unknown });
    for (const r of records) {
      expect(r.topic).toBe('汶川地震 救援');
      if (r.publishTime !== undefined) expect(r.publishTime).toMatch(/^\d{4}-\d\d-\d\d(T\d\d:\d\d:\d\d([+-]\d\d:\d\d)?)?$/);
    }
    const jsonl = readFileSync(join(dir, 'exports', `${result.runId}.jsonl`), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(jsonl.length).toBe(result.counts.relevant);
    for (const r of jsonl) {
      expect(Object.keys(r)).toEqual(['title', 'url', 'publishTime', 'topic', 'relevance', 'text']);
      expect(r.topic).toBe('汶川地震 救援');
      expect(typeof r.text).toBe('string');
      expect((r.text as string).length).toBeGreaterThan(0);
    }
    const csv = parseCsv(readFileSync(join(dir, 'exports', `${result.runId}.csv`), 'utf8'), { columns: true, bom: true }) as Record<string, string>[];
    expect(csv.map((r) => r.url)).toEqual(jsonl.map((r) => r.url));
    expect(csv.map((r) => r.text)).toEqual(jsonl.map((r) => r.text));
    // The report links the same exports, written beside it.
    expect(report).toContain('href="relevant-pages.csv" download');
    expect(readFileSync(join(dir, 'report', 'relevant-pages.jsonl'), 'utf8').trim().split('\n').length).toBe(result.counts.relevant);
  });
});
