/**
 * The dashboard's steering and state pieces, without a server: block rules, the steering
 * journal and what --resume re-applies, CrawlControl on a real frontier and fetch gate (pause
 * holds the hand-out, the budget moves, a block drops queued URLs and the gate refuses new ones),
 * and the dashboard's state (samples, speeds, sections).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { UserError } from '../src/config/errors.js';
import { parseConfig } from '../src/config/schema.js';
import { CrawlControl } from '../src/crawl/steering.js';
import { appendSteering, parseBlock, readSteering, steeringToReapply } from '../src/store/steering-journal.js';
import { DashboardState, MAX_SAMPLES } from '../src/dashboard/state.js';
import { FetchGate } from '../src/fetch/gate/gate.js';
import { Frontier } from '../src/frontier/frontier.js';
import type { CrawlLogEntry } from '../src/store/crawl-log.js';

const dirs: string[] = [];
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), 'fc-steer-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('block rules', () => {
  it('a host blocks itself and its subdomains, not a host that merely ends alike', () => {
    const r = parseBlock('Forum.Example.cn');
    expect(r.kind).toBe('host');
    expect(r.matches(new URL('http://forum.example.cn/a'))).toBe(true);
    expect(r.matches(new URL('http://bbs.forum.example.cn/a'))).toBe(true);
    expect(r.matches(new URL('http://myforum.example.cn/a'))).toBe(false);
    expect(parseBlock('127.0.0.6:45745').matches(new URL('http://127.0.0.6:45745/x'))).toBe(true);
    expect(parseBlock('127.0.0.6:45745').matches(new URL('http://127.0.0.6:1/x'))).toBe(false);
  });
  it('URL patterns: * is any run of characters; without it, a prefix', () => {
    const g = parseBlock('https://news.example.cn/photo/*.shtml');
    expect(g.matches(new URL('https://news.example.cn/photo/2008/1.shtml'))).toBe(true);
    expect(g.matches(new URL('https://news.example.cn/news/1.shtml'))).toBe(false);
    const p = parseBlock('https://news.example.cn/ad/');
    expect(p.matches(new URL('https://news.example.cn/ad/106.shtml'))).toBe(true);
    expect(p.matches(new URL('https://news.example.cn/adv.shtml'))).toBe(false);
    expect(parseBlock('*.example.cn').matches(new URL('http://a.example.cn/'))).toBe(true);
  });
  it('bad input is a one-line user error', () => {
    expect(() => parseBlock('  ')).toThrow(UserError);
    expect(() => parseBlock('a b')).toThrow(/space/);
    expect(() => parseBlock('http//x/')).toThrow(/not a URL/);
    expect(() => parseBlock('bad host!')).toThrow(UserError);
  });
});

describe('steering journal', () => {
  it('keeps every action in order; --resume re-applies the last budget and every block once', () => {
    const d = tmp();
    appendSteering(d, { action: 'budget', maxPages: 50 });
    appendSteering(d, { action: 'block', pattern: 'a.test' });
    appendSteering(d, { action: 'pause' });
    appendSteering(d, { action: 'label', url: 'http://b.test/1', relevant: true });
    appendSteering(d, { action: 'budget', maxPages: 80 });
    appendSteering(d, { action: 'block', pattern: 'a.test' });
    appendSteering(d, { action: 'block', pattern: 'https://c.test/x/*' });
    const r = readSteering(d);
    expect(r.map((x) => x.action)).toEqual(['budget', 'block', 'pause', 'label', 'budget', 'block', 'block']);
    expect(r.every((x) => !Number.isNaN(Date.parse(x.time)))).toBe(true);
    expect(steeringToReapply(r)).toEqual({ budget: 80, blocks: ['a.test', 'https://c.test/x/*'] });
    expect(steeringToReapply([])).toEqual({ budget: undefined, blocks: [] });
  });
});

function setup(runDir: string, maxPages = 2) {
  const config = parseConfig({ topics: [{ keywords: ['x'], seeds: ['http://a.test/'] }], maxPages });
  const frontier = new Frontier({ maxPages, perHostDelayMs: 0, perHostConcurrency: 10 });
  const gate = new FetchGate({});
  const control = new CrawlControl({ runDir, config, frontier, gate });
  const stops: string[] = [];
  for (const [i, u] of ['http://a.test/1', 'http://a.test/2', 'http://b.test/1', 'http://b.test/2', 'http://c.test/1'].entries()) frontier.offer({ url: u, depth: 1, score: 1 - i / 10 });
  return { config, frontier, gate, control, stops, attach: () => control.attach((r) => stops.push(r)) };
}

describe('CrawlControl', () => {
  it('pause holds the hand-out without finishing the crawl; resume lets it go on', async () => {
    const { frontier, control, attach } = setup(tmp());
    attach();
    control.pause();
    expect(control.state().paused).toBe(true);
    expect(await frontier.requestManager.fetchNextRequest()).toBeNull();
    expect(await frontier.requestManager.isEmpty()).toBe(true);
    expect(await frontier.requestManager.isFinished()).toBe(false);
    control.resume();
    expect((await frontier.requestManager.fetchNextRequest())?.url).toBe('http://a.test/1');
  });

  it('a raised budget hands out more; a budget not above the pages handed out is refused', async () => {
    const { frontier, control, config, attach } = setup(tmp(), 2);
    attach();
    const rm = frontier.requestManager;
    expect(await rm.fetchNextRequest()).not.toBeNull();
    expect(await rm.fetchNextRequest()).not.toBeNull();
    expect(await rm.fetchNextRequest()).toBeNull(); // budget 2 spent
    expect(() => control.setBudget(2)).toThrow(/not above the 2 pages/);
    expect(() => control.setBudget(-1)).toThrow(UserError);
    control.setBudget(3);
    expect(config.maxPages).toBe(3);
    expect(await rm.fetchNextRequest()).not.toBeNull();
    expect(await rm.fetchNextRequest()).toBeNull();
  });

  it('a block drops the queued URLs it matches and the gate refuses new ones; other hosts go on', () => {
    const { frontier, gate, control, attach } = setup(tmp(), 5);
    attach();
    const r = control.block('b.test');
    expect(r).toEqual({ pattern: 'b.test', dropped: 2 });
    expect([...frontier.queued()].map((e) => e.url).sort()).toEqual(['http://a.test/1', 'http://a.test/2', 'http://c.test/1']);
    expect(gate.checkSync('http://b.test/3')).toEqual({ ok: false, reason: 'blocked: b.test' });
    expect(gate.checkSync('http://c.test/3').ok).toBe(true);
    expect(control.isBlocked('http://www.b.test/')).toBe(true);
    expect(control.state().blocks).toEqual(['b.test']);
  });

  it('tells a gate outside the process every block: those in force when it listens and each new one', () => {
    const d = tmp();
    appendSteering(d, { action: 'block', pattern: 'a.test' });
    const { control, attach } = setup(d, 5);
    attach(); // re-applies a.test from the journal
    const told: string[] = [];
    control.onBlock((p) => told.push(p));
    expect(told).toEqual(['a.test']);
    control.block('https://c.test/x/*');
    control.block('https://c.test/x/*'); // already in force: not told twice
    expect(told).toEqual(['a.test', 'https://c.test/x/*']);
  });

  it('stop ends the crawl once through the engine, and a paused crawl stops too', () => {
    const { frontier, control, stops, attach } = setup(tmp());
    expect(() => control.stop()).toThrow(/not started/);
    attach();
    control.pause();
    control.stop();
    control.stop();
    expect(stops).toEqual(['interrupted (stopped from the dashboard)']);
    expect(frontier.requestManager.paused).toBe(false);
    expect(control.state().stopping).toBe(true);
  });

  it('attach re-applies a journalled budget and blocks (a resumed run), with no new journal lines', async () => {
    const d = tmp();
    const first = setup(d, 2);
    first.attach();
    first.control.block('c.test');
    first.control.pause();
    first.control.setBudget(4);
    const lines = readSteering(d).length;
    const again = setup(d, 2);
    again.attach();
    expect(readSteering(d)).toHaveLength(lines);
    expect(again.config.maxPages).toBe(4);
    expect(again.control.state()).toMatchObject({ paused: false, budget: 4, blocks: ['c.test'] });
    const urls: string[] = [];
    for (let r = await again.frontier.requestManager.fetchNextRequest(); r; r = await again.frontier.requestManager.fetchNextRequest()) urls.push(r.url);
    expect(urls).toHaveLength(4);
    expect(urls).not.toContain('http://c.test/1');
  });
});

const entry = (i: number, over: Partial<CrawlLogEntry> = {}): CrawlLogEntry => ({
  time: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
  url: `http://h${i % 3}.test/${i}`,
  status: 200,
  depth: 1,
  decision: i % 2 ? 'saved' : 'recorded',
  relevance: i % 2 ? 0.5 : 0.01,
  fetchedWith: 'http',
  truth: i % 4 === 1,
  ...over,
});

describe('DashboardState', () => {
  it('samples the crawl: pages/s over a window, and long runs thinned to a bounded number of samples', () => {
    let now = 0;
    const s = new DashboardState(() => now);
    for (let t = 1; t <= 20; t++) {
      now = t * 1000;
      s.add(entry(2 * t));
      s.add(entry(2 * t + 1));
      s.sample(100);
    }
    expect(s.pagesPerSecond(10)).toBeCloseTo(2, 5);
    expect(s.speedSeries().slice(1).every((v) => Math.abs(v - 2) < 1e-9)).toBe(true);
    // A view between ticks does not add a short sample.
    now += 100;
    s.sample(100);
    expect(s.samples).toHaveLength(20);
    for (let t = 21; t < 21 + MAX_SAMPLES * 2; t++) {
      now = t * 1000;
      s.add(entry(t));
      s.sample(100);
    }
    expect(s.samples.length).toBeLessThanOrEqual(MAX_SAMPLES);
    expect(s.samples[0].t).toBe(1);
    expect(s.samples.at(-1)!.fetched).toBe(s.log.length);
  });

  it('renders each section from its inputs: counts, truth and estimate series, frontier rows, label buttons only for kept pages', () => {
    let now = 0;
    const s = new DashboardState(() => now);
    for (let i = 0; i < 6; i++) {
      now = i * 1000;
      s.add(entry(i));
      s.sample(50, i > 2 ? { mean: 0.4, low: 0.2, high: 0.6, pages: i, sampled: i } : undefined);
    }
    s.add(entry(6, { decision: 'failed', reason: 'HTTP 500', fetchedWith: undefined }));
    s.keepLabelable('http://h1.test/1', {});
    const v = s.view({
      labels: [],
      steering: [{ time: new Date().toISOString(), action: 'block', pattern: 'x.test' }],
      control: { paused: true, stopping: false, budget: 70, blocks: ['x.test'] },
      frontierTop: [{ url: 'http://q.test/1', uniqueKey: 'http://q.test/1', depth: 2, score: 0.77, components: { parent: 0.5, anchor: 0 }, queuedAt: 0 } as never],
      frontierSize: 12,
      inFlight: 0,
      memory: { rssMb: 120, heapMb: 60 },
    });
    expect(v).toMatchObject({ fetched: 7, status: 'paused', paused: true, budget: 70 });
    expect(v.sections.stats).toContain('data-stat="fetched">7<');
    expect(v.sections.stats).toContain('data-stat="frontier">12<');
    expect(v.sections['harvest-time']).toContain('data-series="ground truth"');
    expect(v.sections['harvest-time']).toContain('data-series="estimate, 90% low"');
    expect(v.sections.frontier).toContain('http://q.test/1');
    expect(v.sections.frontier).toContain('parent=0.500');
    expect(v.sections.frontier).not.toContain('anchor=');
    expect((v.sections.recent.match(/data-action="label"/g) ?? []).length).toBe(2);
    expect(v.sections.failures).toContain('data-failure-count');
    expect(v.sections.system).toContain('data-fetcher="http">6<');
    expect(v.sections.steering).toContain('x.test');
    const paused = { paused: true, stopping: false, budget: 0, blocks: [] };
    expect(s.view({ labels: [], steering: [], frontierTop: [], frontierSize: 0, inFlight: 2, fetching: 2, memory: { rssMb: 1, heapMb: 1 }, control: paused }).status).toBe('pausing (2 in flight)');
    // A URL the fetch order chose ahead is handed out but not started: the pause does not wait for it.
    expect(s.view({ labels: [], steering: [], frontierTop: [], frontierSize: 0, inFlight: 1, fetching: 0, memory: { rssMb: 1, heapMb: 1 }, control: paused }).status).toBe('paused');
  });
});
