/**
 * Publish times keep the calendar date and offset the page states: pages dated east and west of
 * UTC near midnight and date-only pages, served from loopback and read by `npm run extract` in
 * Chromium; the strings it writes go into the export columns unchanged, and the topic's time
 * window (--since/--until) decides on the page's own calendar date.
 */
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TopicSchema } from '../src/config/schema.js';
import { compareStamps } from '../src/extract/dates.js';
import { exportRecords, formatExport } from '../src/report/export.js';
import { TopicModel } from '../src/topic/model.js';
import { TimeIntent } from '../src/topic/time.js';

const run = promisify(execFile);
const body = '<p>The council met on the harbour plan and voted to widen the quay before the winter storms arrive.</p>'.repeat(6);
const page = (head: string, main: string, title: string) =>
  `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>${title}</title>${head}</head><body><article><h1>${title}</h1>${main}${body}</article></body></html>`;

/** path → [html, the publishTime extract must write, its source] */
const PAGES: Record<string, [string, string, string]> = {
  // 00:30 in Tokyo is 15:30 UTC the day before: the page's day is 2 November.
  '/east.html': [page('<meta property="article:published_time" content="2023-11-02T00:30:00+09:00">', '', 'Harbour plan east'), '2023-11-02T00:30:00+09:00', 'meta'],
  // 22:00 in New York is 03:00 UTC the next day: the page's day is 1 November.
  '/west.html': [page('<script type="application/ld+json">{"@type":"NewsArticle","datePublished":"2023-11-01T22:00:00-05:00"}</script>', '', 'Harbour plan west'), '2023-11-01T22:00:00-05:00', 'json-ld'],
  // A byline with a date and no time: a date, no invented midnight or zone.
  '/date-only.html': [page('', '<p class="byline">By A. Reporter, 2 November 2023</p>', 'Harbour plan dated'), '2023-11-02', 'text'],
  // A German dateline with a wall time and no zone: the time as written, without an offset.
  '/wall.html': [page('', '<p class="meta">Veröffentlicht am 01.11.2023, 23:45</p>', 'Hafenplan beschlossen'), '2023-11-01T23:45:00', 'text'],
  // Only the URL dates the page.
  '/2023/11/02/url-only.html': [page('', '', 'Harbour plan from the URL'), '2023-11-02', 'url'],
};

let server: Server;
let base = '';
const analyses = new Map<string, { publishTime?: string; publishTimeSource?: string; title: string }>();

beforeAll(async () => {
  server = createServer((req, res) => {
    const p = PAGES[req.url ?? ''];
    res.writeHead(p ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
    res.end(p ? p[0] : 'not found');
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const urls = Object.keys(PAGES).map((p) => base + p);
  const r = await run(process.execPath, ['--import', 'tsx', 'src/cli/extract.ts', '--json', ...urls], { cwd: new URL('..', import.meta.url).pathname, timeout: 240_000 });
  for (const o of JSON.parse(r.stdout) as { input: string; analysis: { publishTime?: string; publishTimeSource?: string; title: string } }[]) {
    analyses.set(new URL(o.input).pathname, o.analysis);
  }
}, 300_000);

afterAll(() => new Promise<void>((ok) => server.close(() => ok())));

describe('publish times keep the page\'s calendar date and offset (served pages, extract in Chromium)', () => {
  it('writes each page\'s own offset, its wall time, or its date alone', () => {
    for (const [path, [, want, source]] of Object.entries(PAGES)) {
      expect(analyses.get(path)?.publishTime, path).toBe(want);
      expect(analyses.get(path)?.publishTimeSource, path).toBe(source);
    }
  });

  it('puts the same strings in the export columns, and orders by instant where both have one', () => {
    const dataset = Object.keys(PAGES).map((p) => ({ url: base + p, title: analyses.get(p)!.title, publishTime: analyses.get(p)!.publishTime, topic: 'harbour', relevance: 0.8, text: 'x' }));
    const records = exportRecords({ dataset, log: [] });
    expect(records.map((r) => r.publishTime)).toEqual(Object.values(PAGES).map(([, want]) => want));
    const csv = formatExport(records, 'csv').split('\n');
    expect(csv[0]).toBe('\uFEFFtitle,url,publishTime,topic,relevance,text');
    expect(csv[1]).toContain(',2023-11-02T00:30:00+09:00,');
    expect(csv[2]).toContain(',2023-11-01T22:00:00-05:00,');
    expect(csv[3]).toContain(',2023-11-02,');
    const jsonl = formatExport(records, 'jsonl').trim().split('\n').map((l) => JSON.parse(l) as { publishTime: string });
    expect(jsonl.map((r) => r.publishTime)).toEqual(Object.values(PAGES).map(([, want]) => want));
    // The east page (15:30 UTC on 1 Nov) was published before the west one (03:00 UTC on 2 Nov).
    expect(compareStamps('2023-11-02T00:30:00+09:00', '2023-11-01T22:00:00-05:00')).toBeLessThan(0);
    expect(compareStamps('2023-11-01', '2023-11-02T00:30:00+09:00')).toBeLessThan(0);
  });

  it('--since/--until decide on the calendar date the page states, whatever its offset', () => {
    const time = (start?: string, end?: string) => TimeIntent.fromConfig({ start, end });
    const inWindow = (t: TimeIntent) => Object.keys(PAGES).filter((p) => t.timeRelevance(analyses.get(p)!.publishTime) === 1);
    // Only 2 November: the east page (1 Nov in UTC) is in, the west page (2 Nov in UTC) is out.
    expect(inWindow(time('2023-11-02', '2023-11-02'))).toEqual(['/east.html', '/date-only.html', '/2023/11/02/url-only.html']);
    // Only 1 November: the west page and the wall-time page, nothing dated the 2nd.
    expect(inWindow(time('2023-11-01', '2023-11-01'))).toEqual(['/west.html', '/wall.html']);
    expect(inWindow(time(undefined, '2023-11-01'))).toEqual(['/west.html', '/wall.html']);
    expect(inWindow(time('2023-11-02'))).toEqual(['/east.html', '/date-only.html', '/2023/11/02/url-only.html']);
    // A bound with a time and zone compares instants with pages that have one.
    expect(time('2023-11-02T00:00:00Z').timeRelevance(analyses.get('/west.html')!.publishTime)).toBe(1);
    expect(time('2023-11-02T00:00:00Z').timeRelevance(analyses.get('/east.html')!.publishTime)).toBe(0);
  });

  it('the topic model marks pages outside the window from the publishTime string the judge passes', () => {
    const m = new TopicModel(TopicSchema.parse({ keywords: ['harbour'], time: { start: '2023-11-02', end: '2023-11-02' } }));
    const verdict = (p: string) => m.relevance({ body: 'harbour quay' }, { publishTime: analyses.get(p)!.publishTime });
    expect(verdict('/west.html').outOfWindow).toBe(true);
    expect(verdict('/east.html').outOfWindow).toBeUndefined();
    expect(verdict('/date-only.html').outOfWindow).toBeUndefined();
  });
});
