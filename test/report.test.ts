/** The report as a pure function of a run's files: counts, curve, groupings, empty states, escaping. */
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { failuresByReason, harvestCurve, reportCounts, topSites, type ReportInput } from '../src/report/html.js';
import { renderReport, SECTIONS } from '../src/report/page.js';
import { samplesFromLog, speedSeries } from '../src/report/timeline.js';
import { DashboardState } from '../src/dashboard/state.js';
import { dashboardPage } from '../src/dashboard/page.js';
import type { QueuedUrl } from '../src/frontier/types.js';
import type { SteeringRecord } from '../src/store/steering-journal.js';
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
    // The 404 page counts as failed too: one definition (src/store/counts.ts) for the summary and the report.
    expect(reportCounts(input)).toEqual({ fetched: 6, relevant: 2, failed: 3, harvestRate: 2 / 6, truthHarvestRate: 2 / 6, sites: 3, threads: 0, hotThreads: 0, hotThreshold: 15, minConfidence: 0 });
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
    expect(html).toContain('data-stat="failed">3<');
    expect(html).toContain('首页 &lt;b&gt;');
    expect(html).not.toContain('首页 <b>');
  });
  it('has an empty state for runs without a thread store', () => {
    expect(html).toContain('id="threads-empty"');
  });
  const t = (id: string, h: number[]) => ({ id, url: `http://f.test/${id}`, matcher: 'discuz', firstSeen: '', visits: h.map(() => ({ at: '', replyCount: 3 })), posts: [], postKeys: [], openingKey: null, replyTimes: [], tBar: null, hotness: h.map((x) => ({ at: '', h: x })), nextVisit: null });
  it('lists only threads above the hot threshold, hottest first', () => {
    const out = renderReport({ ...input, threads: [t('cold', [1, 0.5]), t('hot', [2, 30]), t('hotter', [40, 50]), t('was-hot', [20, 3])] });
    expect(out.indexOf('http://f.test/hotter')).toBeLessThan(out.indexOf('http://f.test/hot"'));
    expect(out).not.toContain('http://f.test/cold');
    expect(out).not.toContain('http://f.test/was-hot');
    expect(out).toContain('data-stat="threads">4<');
    expect(out).toContain('data-stat="hot-threads">2<');
    expect(out).toMatch(/2 of 4 threads are hot/);
  });
  it('says what it lists when no thread is hot', () => {
    const out = renderReport({ ...input, threads: [t('a', [1]), t('b', [3])] });
    expect(out).toMatch(/None of the 2 threads is hot \(H &gt; 15\); listed instead: the 2 hottest/);
    expect(out).toContain('data-stat="hot-threads">0<');
    // The hotness chart: every thread's hotness against the threshold line, not one dot per thread.
    expect(out).toMatch(/<polyline class="series"[^>]*points="[\d.]+,[\d.]+ [\d.]+,[\d.]+"/);
    expect(out).toContain('hot: H &gt; 15');
  });
  it('sortable tables, snippets of relevant pages, download links', () => {
    const out = renderReport({ ...input, dataset: [{ url: 'http://a.test/', title: 'T', text: '汶川地震发生后，救援队伍迅速赶赴灾区。'.repeat(20), relevance: 0.5 }], exports: ['relevant-pages.csv'] });
    expect(out).toMatch(/<table id="relevant-1" class="sortable/);
    expect(out).toMatch(/<div class="snippet">汶川地震发生后，救援队伍迅速赶赴灾区。[^<]{10,}…<\/div>/);
    expect(out).toContain('<a href="relevant-pages.csv" download>');
  });
  it('draws earlier runs of the same topic on the harvest chart', () => {
    const out = renderReport({ ...input, earlierRuns: [{ runId: 'r0', strategy: 'bfs', curve: [1, 0.5, 0.3] }] });
    expect(out).toMatch(/data-series="r0 \(bfs\)"[^>]*stroke-dasharray/);
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
    // A run without a kept estimate (from before it was kept): the judged rate alone, labelled judged.
    expect(html).toContain('harvest rate (judged)');
    expect(html).not.toContain('harvest estimate');
  });
  it("shows the crawl's kept harvest estimate with its interval, and a topic it cannot learn, beside the judged rate", () => {
    writeFileSync(join(root, 'runs', 'r1', 'harvest-estimate.json'), JSON.stringify({ mean: 0.45, low: 0, high: 0.9, pages: 6, sampled: 6, unlearnable: [{ topicId: 'history', seedStanding: 0.3 }] }));
    const html = readFileSync(writeReport(root, 'r1')[1], 'utf8');
    expect(html).toContain('data-stat="harvest-estimate">45.0%<');
    expect(html).toContain('harvest estimate, 90% interval 0.0%–90.0% (an estimate, not the truth); NOT LEARNABLE from its seed pages: history');
    expect(html).toContain('harvest rate (judged)');
  });
});

describe('progress line', () => {
  const s = { fetched: 10, relevant: 4, failed: 1, failedByReason: { 'HTTP 404': 1 }, frontierSize: 50, budget: 100, elapsedMs: 5000 };
  it('formats counts, harvest, rate, elapsed and an ETA from the budget; threads only when a thread plugin counts them', async () => {
    const { formatProgress } = await import('../src/report/progress.js');
    expect(formatProgress(s)).toBe('10/100 pages · 4 relevant (judged harvest 40.0%) · frontier 50 · 2.0 pages/s · 1 failed · 5s · ETA 45s');
    expect(formatProgress({ ...s, threadsFound: 7, hotThreads: 3 })).toContain('· 7 threads, 3 hot ·');
    // A time limit that comes first wins.
    expect(formatProgress({ ...s, timeLimitSecs: 20 })).toMatch(/ETA 15s$/);
  });
  it('fits the terminal: drops the least important fields first, never cuts a word', async () => {
    const { fitProgress, formatProgress } = await import('../src/report/progress.js');
    const full = { ...s, fetched: 1234, budget: 5000, elapsedMs: 754_000, frontierSize: 98765, threadsFound: 117, hotThreads: 3 };
    const whole = formatProgress(full);
    expect(fitProgress(full, 200)).toBe(whole);
    const at80 = fitProgress(full, 80);
    expect(at80.length).toBeLessThanOrEqual(80);
    // Elapsed time, ETA and the failures survive at 80 columns; frontier size and speed go first.
    expect(at80).toMatch(/^1234\/5000 pages · \d+ relevant \(judged harvest [\d.]+%\) · /);
    expect(at80).toContain('12m34s');
    expect(at80).toMatch(/ETA \d+m\d\ds/);
    expect(at80).not.toContain('frontier');
    expect(at80).not.toContain('pages/s');
    for (const w of [20, 30, 45, 60]) {
      const line = fitProgress(full, w);
      expect(line.length).toBeLessThanOrEqual(w);
      // Every kept piece is a whole field (or whole words of the first one).
      for (const part of line.split(' · ')) expect(whole.split(' · ').some((f) => f.startsWith(part))).toBe(true);
    }
  });
});

describe('the report is the dashboard in its final state', () => {
  const timed: CrawlLogEntry[] = log.map((x, i) => ({ ...x, time: new Date(Date.UTC(2024, 0, 1, 0, 0, i * 10)).toISOString(), fetchedWith: i % 2 ? 'http' : 'browser' }));

  it('reads the charts over time back from the log times when the run kept no samples', () => {
    const s = samplesFromLog(timed, 240);
    expect(s[0]).toMatchObject({ t: 0, fetched: 1, relevant: 1, truthRelevant: 1 });
    expect(s[s.length - 1]).toMatchObject({ t: 50, fetched: 6, relevant: 2, truthRelevant: 2 });
    // One page every 10 s: 0.1 pages/s between samples.
    expect(speedSeries(s).slice(1).every((v) => Math.abs(v - 0.1) < 1e-9)).toBe(true);
    const html = renderReport({ ...input, log: timed });
    expect(html).toMatch(/<section id="speed"><h2>Pages per second<\/h2><svg class="chart"/);
    expect(html).toMatch(/<section id="harvest-time">[^]*data-series="ground truth"/);
    expect(html).toMatch(/<td class="num" data-fetcher="browser">3<\/td>/);
    // Nothing the run did not keep is drawn: no frontier, no memory chart, no steering.
    expect(html).not.toContain('id="frontier"');
    expect(html).not.toContain('Memory over time');
    expect(html).not.toContain('id="steering"');
  });

  it('draws the samples, the frontier at the end and the steering journal a dashboard kept', () => {
    const samples = [
      { t: 0, fetched: 0, relevant: 0, rssMb: 300 },
      { t: 1, fetched: 4, relevant: 1, rssMb: 320, estimate: { mean: 0.3, low: 0.1, high: 0.5 } },
      { t: 2, fetched: 6, relevant: 2, rssMb: 330, estimate: { mean: 0.3, low: 0.2, high: 0.4 } },
    ];
    const frontier = { top: [{ url: 'http://a.test/next', uniqueKey: 'http://a.test/next', queuedAt: 0, score: 0.9, depth: 2, components: { contextSim: 0.7 } }] as QueuedUrl[], size: 12 };
    const steering: SteeringRecord[] = [
      { time: '2024-01-01T00:00:03.000Z', action: 'block', pattern: 'c.test' },
      { time: '2024-01-01T00:00:04.000Z', action: 'budget', maxPages: 50 },
    ];
    const html = renderReport({ ...input, log: timed, timeline: { samples, frontier }, steering });
    expect(html).toContain('data-series="estimate, 90% low"');
    expect(html).toContain('aria-label="Memory over time"');
    expect(html).toMatch(/<section id="frontier" class="wide">[^]*The 1 best of 12 queued URLs when the crawl ended[^]*contextSim=0\.700/);
    expect(html).toMatch(/<p id="blocks">Blocked: <code>c\.test<\/code><\/p>/);
    expect(html).toMatch(/budget 50<\/li>/);
    // A final page has no live controls.
    expect(html).not.toContain('data-action=');
  });

  it('draws each section with the same function live and final: the dashboard and the report show the same tables', () => {
    const state = new DashboardState(() => Date.parse('2024-01-01T00:01:00Z'));
    for (const x of timed) state.add(x);
    const view = state.view({ labels: [], steering: [], frontierTop: [], frontierSize: 0, inFlight: 0, memory: { rssMb: 1, heapMb: 1 } });
    const report = renderReport({ ...input, log: timed });
    for (const id of ['sites', 'failures', 'harvest']) expect(report).toContain(`<section id="${id}"><h2>${SECTIONS.find((s) => s.id === id)!.title}</h2>${view.sections[id]}</section>`);
    // Live, the page holds every section, each in the holder its updates replace, and the controls.
    const live = dashboardPage({ runId: 'r1', topics: 't', view });
    expect(live).toContain(`<div id="s-sites">${view.sections.sites}</div>`);
    expect(live).toContain('id="pause"');
    expect(live).not.toContain('id="relevant"');
  });
});
