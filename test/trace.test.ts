/**
 * End to end: a traced browser crawl of a tiny loopback site leaves valid Playwright trace zips;
 * `failures` mode keeps only the pages that failed or yielded no text.
 */
import http from 'node:http';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import AdmZip from 'adm-zip';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config/schema.js';
import { runCrawl } from '../src/crawl/engine.js';
import { ProgressReporter } from '../src/report/progress.js';
import { parseTraceMode, tracePlugin, urlSlug, isTraceFailure } from '../src/plugins/trace.js';
import { failureReason } from '../src/store/counts.js';
import { CrawlLog } from '../src/store/crawl-log.js';

const body = (t: string) => `<p>${'汶川地震发生后，救援队伍迅速赶赴灾区，展开搜救工作。'.repeat(8)}${t}</p>`;
const pages: Record<string, string> = {
  '/': `<html><head><title>首页</title></head><body>${body('')}<a href="/a.html">汶川地震救援</a> <a href="/empty.html">空页</a> <a href="/missing.html">不存在</a></body></html>`,
  '/a.html': `<html><head><title>汶川地震 救援</title></head><body>${body('a')}</body></html>`,
  '/empty.html': '<html><head><title></title></head><body></body></html>',
};

let srv: http.Server;
let origin = '';
const dirs: string[] = [];

beforeAll(async () => {
  srv = http.createServer((req, res) => {
    const p = pages[req.url ?? ''];
    if (!p) {
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end('<html><body>not found</body></html>');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(p);
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  origin = `http://127.0.0.1:${(srv.address() as { port: number }).port}`;
});
afterAll(async () => {
  await new Promise<void>((r) => srv.close(() => r()));
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function tracedCrawl(mode: string) {
  const storageDir = mkdtempSync(join(tmpdir(), 'fc-trace-'));
  dirs.push(storageDir);
  const config = parseConfig({ topics: [{ keywords: ['汶川地震', '救援'], seeds: [`${origin}/`] }], storageDir, maxPages: 10, maxConcurrency: 2, respectRobotsTxt: false, fetcher: 'browser' });
  const plugin = tracePlugin(mode);
  const result = await runCrawl({ config, plugins: [plugin], progress: new ProgressReporter({ quiet: true }) });
  const files = readdirSync(join(storageDir, 'traces')).sort();
  return { result, plugin, files, dir: join(storageDir, 'traces') };
}

describe('trace modes and names', () => {
  it('parses modes and rejects bad ones in one line', () => {
    expect(parseTraceMode('all')).toEqual({ kind: 'all' });
    expect(parseTraceMode('failures')).toEqual({ kind: 'failures' });
    expect(parseTraceMode('sample:5')).toEqual({ kind: 'sample', every: 5 });
    expect(() => parseTraceMode('sample:0')).toThrow(/expected all, failures or sample:N/);
    expect(() => parseTraceMode('some')).toThrow(/expected all, failures or sample:N/);
  });
  it('slugs URLs into file names', () => {
    expect(urlSlug('http://127.0.0.1:8080/news/a b.html?x=1')).toBe('127.0.0.1_8080_news_a_20b.html_x_1');
  });
  it('keeps what the run counts as failed: HTTP errors and failed requests, not pages without main text', () => {
    expect(isTraceFailure({ decision: 'recorded', status: 404 })).toBe(true);
    expect(isTraceFailure({ decision: 'not-html', status: 595 })).toBe(true);
    expect(isTraceFailure({ decision: 'failed', status: 0 })).toBe(true);
    expect(isTraceFailure({ decision: 'recorded', status: 200 })).toBe(false);
    expect(isTraceFailure({ decision: 'saved', status: 200 })).toBe(false);
  });
});

describe('traced crawl (browser)', () => {
  it('mode all: one valid trace zip per page, with trace and network entries', async () => {
    const { result, files, dir, plugin } = await tracedCrawl('all');
    expect(result.fetched).toBe(4);
    expect(files.length).toBeGreaterThanOrEqual(4);
    expect(files.some((f) => f.includes('_a.html'))).toBe(true);
    for (const f of files) {
      expect(f).toMatch(/^\d{8}-\d{6}-\d{4}-.+\.zip$/);
      const names = new AdmZip(join(dir, f)).getEntries().map((e) => e.entryName);
      expect(names).toContain('trace.trace');
      expect(names).toContain('trace.network');
    }
    // The article's trace carries screenshots (screencast frames) and DOM snapshots (resources).
    const article = new AdmZip(join(dir, files.find((f) => f.includes('_a.html'))!)).getEntries().map((e) => e.entryName);
    expect(article.some((n) => n.startsWith('screencast/'))).toBe(true);
    expect(article.some((n) => n.startsWith('resources/') && n.endsWith('.html'))).toBe(true);
    expect(plugin.summary().join('\n')).toMatch(/open one with: npm run trace -- \S+\.zip/);
  }, 90_000);

  it('mode failures: keeps a trace of exactly the fetches the counts call failed (the 404 among them), none of the good pages', async () => {
    const { files, result } = await tracedCrawl('failures');
    const kept = files.filter((f) => f.endsWith('.zip')).map((f) => f.replace(/^.*?-\d{4}-[^-]+-/, '')).sort();
    const failedUrls = CrawlLog.read(result.logPath).filter((e) => failureReason(e) !== undefined).map((e) => `${urlSlug(e.url)}.zip`).sort();
    expect(kept).toEqual(failedUrls);
    expect(kept).toContain(`${urlSlug(`${origin}/missing.html`)}.zip`);
    expect(kept).not.toContain(`${urlSlug(`${origin}/a.html`)}.zip`);
    expect(kept.length).toBe(result.counts.failed);
    expect(result.counts.failedByReason['HTTP 404']).toBe(1);
  }, 90_000);
});
