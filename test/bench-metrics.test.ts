import { describe, expect, it } from 'vitest';
import { bestPossible, budgetTable, distinctHarvestCurve, harvestCurve, meanSd, rateAt, ratioTo, reportBudgets } from '../bench/metrics.js';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeBenchSection } from '../bench/bench-page.js';
import { curveSvg, summaryMd, type BenchResults, type CurveRun } from '../bench/report.js';
import { pairedInterval, tQuantile975 } from '../bench/paired-interval.js';

describe('harvest-rate metrics', () => {
  it('computes the curve after each page of a known run', () => {
    expect(harvestCurve([true, false, true, true])).toEqual([1, 0.5, 2 / 3, 0.75]);
    expect(harvestCurve([false, false])).toEqual([0, 0]);
    expect(harvestCurve([])).toEqual([]);
  });

  it('reads the rate at a budget, at the last page when the crawl stopped early', () => {
    const c = harvestCurve([true, false, true, true]);
    expect(rateAt(c, 2)).toBe(0.5);
    expect(rateAt(c, 4)).toBe(0.75);
    expect(rateAt(c, 100)).toBe(0.75);
    expect(rateAt([], 5)).toBeUndefined();
  });

  it('counts a relevant page once: a later view of a page already fetched is a fetch, not a find', () => {
    const T = '/thread-7-1-1.html';
    const fetches = [
      { url: T, truth: true, page: T },
      { url: '/forum.php?mod=viewthread&tid=7&page=1&authorid=1', truth: true, page: T },
      { url: '/a.html', truth: false, page: '/a.html' },
      { url: '/forum.php?mod=viewthread&tid=8&page=1&authorid=2', truth: true, page: '/thread-8-1-1.html' },
      { url: '/thread-8-1-1.html', truth: true, page: '/thread-8-1-1.html' },
      { url: '/b.html', truth: true },
      { url: '/b.html', truth: true },
    ];
    expect(harvestCurve(fetches.map((f) => f.truth)).at(-1)).toBe(6 / 7);
    // The first view of a page counts, whichever URL form it came by; without `page`, the URL is the page.
    expect(distinctHarvestCurve(fetches)).toEqual([1, 1 / 2, 1 / 3, 2 / 4, 2 / 5, 3 / 6, 3 / 7]);
    // The view's truth decides nothing once its page was fetched, even as an irrelevant fetch.
    expect(distinctHarvestCurve([{ url: 'x', truth: false, page: 'p' }, { url: 'y', truth: true, page: 'p' }])).toEqual([0, 0]);
  });

  it('gives the best possible rate from the relevant pages available', () => {
    expect(bestPossible(100, 40)).toBe(0.4);
    expect(bestPossible(10, 40)).toBe(1);
    expect(bestPossible(1000, 161)).toBe(0.161);
  });

  it('builds the budget table with ratios to BFS', () => {
    const bfs = harvestCurve([false, true, false, false]); // 0, .5, 1/3, .25
    const ours = harvestCurve([true, true, false, true]); // 1, 1, 2/3, .75
    const t = budgetTable({ bfs, ours }, [2, 4], 3);
    expect(t.best).toEqual([1, 0.75]);
    const o = t.rows.find((r) => r.strategy === 'ours')!;
    expect(o.rates).toEqual([1, 0.75]);
    expect(o.ratioToBfs[0]).toBeCloseTo(2, 12);
    expect(o.ratioToBfs[1]).toBeCloseTo(3, 12);
    expect(t.rows.find((r) => r.strategy === 'bfs')!.ratioToBfs).toEqual([1, 1]);
  });

  it('leaves the ratio undefined when BFS found nothing or is missing', () => {
    expect(ratioTo(0.5, 0)).toBeUndefined();
    expect(ratioTo(undefined, 0.5)).toBeUndefined();
    const t = budgetTable({ ours: [1, 1] }, [2], 5);
    expect(t.rows[0].ratioToBfs).toEqual([undefined]);
  });

  it('chooses the budgets to report below the run limit', () => {
    expect(reportBudgets(1000)).toEqual([100, 500, 1000]);
    expect(reportBudgets(150)).toEqual([100, 150]);
    expect(reportBudgets(4598)).toEqual([100, 500, 1000, 4598]);
    expect(reportBudgets(40)).toEqual([40]);
  });

  it('computes mean and sample standard deviation', () => {
    const { mean, sd } = meanSd([2, 4, 4, 4, 5, 5, 7, 9]);
    expect(mean).toBe(5);
    expect(sd).toBeCloseTo(Math.sqrt(32 / 7), 12);
  });
});

describe('bench output', () => {
  it('gives one benchmark-page section per part measured, each with its table and machine line', () => {
    const curve = (strategy: string, c: number[]): CurveRun => ({ web: 'wikispeedia', topic: 'birds', strategy, fetched: c.length, relevantAvailable: 3, maxPages: 2, elapsedMs: 1, curve: c });
    const r: BenchResults = {
      startedAt: '2000-01-01T00:00:00Z',
      quick: true,
      command: 'npm run bench -- --quick',
      machine: { cpus: 2, node: 'v20.0.0', loadAvg: [1.5, 1, 1], loadAvgEnd: [3.25, 1, 1], memGb: 24 },
      curves: [curve('bfs', [0, 0.5]), curve('combined', [1, 1])],
      speed: [],
      notes: [],
    };
    const { sections } = summaryMd(r, new Map());
    expect(sections.map((s) => s.name)).toEqual(['harvest-wikispeedia']);
    expect(sections[0].body).toMatch(/\| combined \| 2 \| 100\.0% \|/);
    expect(sections[0].body).toContain('Machine: 2 cores, 24 GB, 1-minute load 1.5–3.3; Node v20.0.0.');
    // Written with its command into the page, between its own markers; a second write replaces it.
    const page = join(mkdtempSync(join(tmpdir(), 'bench-page-')), 'benchmarks.md');
    for (const s of sections) writeBenchSection({ ...s, command: r.command! }, page);
    for (const s of sections) writeBenchSection({ ...s, command: r.command! }, page);
    const text = readFileSync(page, 'utf8');
    expect(text.match(/<!-- bench:harvest-wikispeedia -->/g)).toHaveLength(1);
    expect(text).toContain('```\nnpm run bench -- --quick\n```');
    expect(text).not.toContain('2000-01-01');
  });

  it('draws one polyline per strategy plus the best-possible line', () => {
    const run = (strategy: string, curve: number[]): CurveRun => ({ web: 'wikispeedia', topic: 't', strategy, fetched: curve.length, relevantAvailable: 1, maxPages: 3, elapsedMs: 1, curve });
    const svg = curveSvg('T', [run('bfs', [0, 0.5, 1 / 3]), run('combined', [1, 1, 2 / 3])]);
    expect(svg.match(/<polyline/g)).toHaveLength(3);
    expect(svg).toContain('>combined<');
    expect(svg).toContain('>best possible<');
  });
});

describe('summary over topics', () => {
  it('means, best possible and first-or-tied counts at a budget', async () => {
    const { summarizeTopics } = await import('../bench/metrics.js');
    const runs = [
      { topic: 'a', relevantAvailable: 1, curves: { x: harvestCurve([true, false]), y: harvestCurve([false, true]) } },
      { topic: 'b', relevantAvailable: 5, curves: { x: harvestCurve([true, true]), y: harvestCurve([false, true]) } },
    ];
    const s = summarizeTopics(runs, 2);
    expect(s.mean.x).toBeCloseTo(0.75);
    expect(s.mean.y).toBeCloseTo(0.5);
    expect(s.best).toBeCloseTo((0.5 + 1) / 2);
    // a: tie (1 relevant each) → both count; b: x alone.
    expect(s.firstOrTied).toEqual({ x: 2, y: 1 });
  });
});

describe('pairedInterval (bench/paired-interval.ts)', () => {
  it("gives the mean difference with Student's t 95% bounds, and nothing from one pair", () => {
    // diffs 1, 2, 3: mean 2, sd 1, t(2) = 4.303, half = 4.303 / √3.
    const r = pairedInterval([1, 2, 3])!;
    expect(r.mean).toBe(2);
    expect(r.sd).toBeCloseTo(1, 12);
    expect(r.high - r.mean).toBeCloseTo(4.303 / Math.sqrt(3), 9);
    expect(r.mean - r.low).toBeCloseTo(r.high - r.mean, 12);
    expect(pairedInterval([5])).toBeUndefined();
    expect(tQuantile975(40)).toBe(1.96);
  });
});
