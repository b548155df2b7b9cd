/** The report as a pure function of a run's files: counts, curve, groupings, empty states, escaping. */
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { failuresByReason, harvestCurve, renderReport, reportCounts, topSites, type ReportInput } from '../src/report/html.js';
import { listRuns, writeReport } from '../src/report/write.js';
import type { CrawlLogEntry } from '../src/store/crawl-log.js';

const e = (url: string, decision: CrawlLogEntry['decision'], extra: Partial<CrawlLogEntry> = {}): CrawlLogEntry => ({ time: '2024-01-01T00:00:00Z', url, status: 200, depth: 1, decision, ...extra });
const log: CrawlLogEntry[] = [
  e('http://a.test/', 'saved', { relevance: 0.8, score: 1, components: { seed: 1 }, truth: true, title: '首页 <b>' }),
  e('http://a.test/x', 'recorded', { relevance: 0.1, score: 0.5, components: { contextSim: 0.3 }, truth: false }),
  e('http://b.test/1', 'saved', { relevance: 0.6, score: 0.7, truth: true }),
  e('http://b.test/2', 'failed', { status: 0, reason: 'net::ERR_CONNECTION_REFUSED at http://b.test/2', truth: false }),
  e('http://b.test/3', 'recorded', { status: 404, relevance: 0, truth: false }),
  e('http://c.test/3', 'failed', { status: 0, reason: 'net::ERR_CONNECTION_REFUSED at http://c.test/3', truth: false }),
];
const input: ReportInput = { runId: 'r1', log, dataset: [], generatedAt: new Date('2024-01-02T00:00:00Z') };

describe('report data', () => {
  it('counts pages, relevant, failed, harvest rates', () => {
    expect(reportCounts(input)).toEqual({ fetched: 6, relevant: 2, failed: 2, harvestRate: 2 / 6, truthHarvestRate: 2 / 6, sites: 3, threads: 0 });
  });
  it('harvest curve: relevant so far / fetched so far', () => {
    expect(harvestCurve(log, (x) => x.decision === 'saved')).toEqual([1, 1 / 2, 2 / 3, 2 / 4, 2 / 5, 2 / 6]);
  });
  it('top sites by relevant pages, then fetched', () => {
    const s = topSites(log);
    // a.test and b.test tie on relevant pages (1 each); b.test fetched more.
    expect(s.map((r) => r.host)).toEqual(['b.test', 'a.test', 'c.test']);
    expect(s[1].meanRelevance).toBeCloseTo(0.45, 10);
    expect(s[0]).toMatchObject({ fetched: 3, relevant: 1 });
  });
  it('groups failures with URLs blanked, HTTP errors by status', () => {
    expect(failuresByReason(log)).toEqual([
      { reason: 'net::ERR_CONNECTION_REFUSED at URL', count: 2, examples: ['http://b.test/2', 'http://c.test/3'] },
      { reason: 'HTTP 404', count: 1, examples: ['http://b.test/3'] },
    ]);
  });
});

describe('renderReport', () => {
  const html = renderReport(input);
  it('is self-contained: no external scripts, styles or images', () => {
    expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+stylesheet|<img /);
    expect(html).toContain('<svg class="chart"');
  });
  it('shows the counts and escapes page text', () => {
    expect(html).toContain('data-stat="fetched">6<');
    expect(html).toContain('data-stat="failed">2<');
    expect(html).toContain('首页 &lt;b&gt;');
    expect(html).not.toContain('首页 <b>');
  });
  it('has an empty state for runs without a thread store', () => {
    expect(html).toContain('id="threads-empty"');
  });
  it('lists hot threads hottest first when the run has them', () => {
    const t = (id: string, h: number[]) => ({ id, url: `http://f.test/${id}`, matcher: 'discuz', firstSeen: '', visits: h.map(() => ({ at: '', replyCount: 3 })), posts: [], postKeys: [], openingKey: null, replyTimes: [], tBar: null, hotness: h.map((x) => ({ at: '', h: x })), nextVisit: null });
    const out = renderReport({ ...input, threads: [t('cold', [1, 0.5]), t('hot', [2, 3])] });
    expect(out.indexOf('http://f.test/hot')).toBeLessThan(out.indexOf('http://f.test/cold'));
    expect(out).toContain('data-stat="threads">2<');
  });
});

describe('writeReport', () => {
  const root = mkdtempSync(join(tmpdir(), 'fc-report-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  it('reads a run folder and writes both copies; unknown runs are a user error', () => {
    mkdirSync(join(root, 'runs', 'r1'), { recursive: true });
    writeFileSync(join(root, 'runs', 'r1', 'crawl-log.jsonl'), log.map((x) => JSON.stringify(x)).join('\n') + '\n{"torn');
    mkdirSync(join(root, 'datasets', 'run-r1'), { recursive: true });
    writeFileSync(join(root, 'datasets', 'run-r1', '000000001.json'), JSON.stringify({ url: 'http://b.test/1', title: '数据集标题', topic: 'topic1', relevance: 0.6 }));
    expect(listRuns(root)).toEqual(['r1']);
    const [latest, own] = writeReport(root, 'r1');
    const html = readFileSync(latest, 'utf8');
    expect(readFileSync(own, 'utf8')).toBe(html);
    expect(html).toContain('数据集标题');
    expect(html).toContain('data-stat="fetched">6<');
    expect(() => writeReport(root, 'nope')).toThrow(/no run "nope".*recent runs: r1/);
  });
});

describe('progress line', () => {
  it('formats counts, harvest, rate; hot threads only when a thread plugin reports them', async () => {
    const { formatProgress } = await import('../src/report/progress.js');
    const s = { fetched: 10, relevant: 4, failed: 1, frontierSize: 50, budget: 100, elapsedMs: 5000 };
    expect(formatProgress(s)).toBe('10/100 pages, 90 left · 4 relevant (harvest 40.0%) · frontier 50 · 2.0 pages/s · 1 failed · 5s');
    expect(formatProgress({ ...s, hotThreads: 3 })).toContain('· 3 hot threads ·');
  });
});
