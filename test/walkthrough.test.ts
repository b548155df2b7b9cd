/**
 * What a new user reads must be true: the summary, --json, --explain, traces, the resume and
 * Ctrl-C hints, and the one-line errors of a first session with the crawler.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { explainUrl } from '../src/crawl/explain.js';
import { formatSummary, printedResult } from '../src/cli/main.js';
import { crawlExitCode } from '../src/cli/demo.js';
import { buildConfig, checkSeedsReachable, loadConfigFile } from '../src/cli/options.js';
import { parseConfig } from '../src/config/schema.js';
import type { CrawlResult } from '../src/crawl/types.js';
import { Frontier, uniqueKeyOf } from '../src/frontier/frontier.js';
import { FrontierJournal } from '../src/frontier/journal.js';
import { failureReason } from '../src/store/counts.js';
import { formatProgress } from '../src/report/progress.js';
import { CrawlLog } from '../src/store/crawl-log.js';
import { TracePlugin } from '../src/plugins/trace.js';
import { commandName } from '../src/util/command-name.js';

const tmp = mkdtempSync(join(tmpdir(), 'walkthrough-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function result(over: Partial<CrawlResult> = {}): CrawlResult {
  return {
    runId: 'r1',
    runDir: join(tmp, 'runs', 'r1'),
    datasetDir: join(tmp, 'datasets', 'run-r1'),
    logPath: join(tmp, 'runs', 'r1', 'crawl-log.jsonl'),
    fetched: 60,
    relevant: 20,
    failed: 0,
    counts: { fetched: 60, relevant: 20, failed: 0, failedByReason: {}, threadsFound: 3, hotThreads: 1, revisits: 2, newReplies: 7 },
    harvestRate: 20 / 60,
    harvestEstimate: { mean: 0.3, low: 0.2, high: 0.4, pages: 60, sampled: 34 } as CrawlResult['harvestEstimate'],
    elapsedMs: 20_000,
    fetchedThisRun: 60,
    pagesPerSecond: 3,
    frontierSize: 10,
    stopReason: 'page budget reached (60 pages)',
    summaryLines: ['  reply threads     3 found, 1 hot (H > 15), 2 revisits, 7 new replies', '  report            storage/report/index.html'],
    ...over,
  };
}

describe('--json holds what the summary says', () => {
  it('counts include revisits, new replies and the estimate\'s sample size; summaryLines are all the summary\'s lines', () => {
    const r = result();
    const json = JSON.parse(printedResult(r, true, 'Demo', 'storage', [])) as { counts: Record<string, unknown>; summaryLines: string[] };
    expect(json.counts).toMatchObject({ revisits: 2, newReplies: 7, estimateSample: 34, fetched: 60, relevant: 20 });
    const summary = formatSummary(r, 'Demo', 'storage', []).split('\n');
    expect(json.summaryLines).toEqual(summary);
    expect(json.summaryLines.some((l) => /pages fetched\s+60/.test(l))).toBe(true);
    expect(json.summaryLines.some((l) => /harvest estimate/.test(l))).toBe(true);
  });
});

describe('failure reasons name the address', () => {
  it('keeps IPv4 and IPv6 addresses, groups other numbers', () => {
    expect(failureReason({ decision: 'failed', status: 0, reason: 'private-address: 10.0.0.7 resolves to loopback address 127.0.0.1 after 3 tries' })).toBe(
      'private-address: 10.0.0.7 resolves to loopback address 127.0.0.1 after N tries',
    );
    expect(failureReason({ decision: 'failed', status: 0, reason: 'private-address: ::1 is loopback' })).toBe('private-address: ::1 is loopback');
  });
});

describe('a resumed run: pages/s is its own pages over its own time, and says so', () => {
  it('summary and progress line agree', () => {
    const r = result({ fetchedThisRun: 41, elapsedMs: 20_500, pagesPerSecond: 2 });
    const line = formatSummary(r, 'Resumed', 'storage', []).split('\n')[1];
    expect(line).toMatch(/pages fetched\s+60, 41 of them in this run: 20\.5 s \(2\.00 pages\/s, this run's pages over this run's time\)/);
    const progress = formatProgress({ fetched: 60, relevant: 20, failed: 0, failedByReason: {}, frontierSize: 5, budget: 100, elapsedMs: 20_500, fetchedBefore: 19 });
    expect(progress).toMatch(/2\.0 pages\/s this run/);
  });
});

describe('Ctrl-C says how to go on', () => {
  it('names the run to --resume (and --storage, --watch as given)', () => {
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const code = crawlExitCode(result({ stopReason: 'interrupted (Ctrl-C)' }), { storage: '/tmp/s', ceilingWasSet: false, watch: true });
      expect(code).toBe(0);
      const said = err.mock.calls.map((c) => String(c[0])).join('');
      expect(said).toContain(`Continue it with:  ${commandName()} --resume r1 --storage /tmp/s --watch`);
    } finally {
      err.mockRestore();
    }
  });
});

describe('NOT LEARNABLE names the topic as the summary does', () => {
  it('by its keywords, not its internal id', () => {
    const config = parseConfig({ topics: [{ keywords: ['汶川地震', '救援'], seeds: ['http://127.0.0.1:9/'] }] });
    const r = result({
      harvestEstimate: { mean: 0.3, low: 0.2, high: 0.4, pages: 60, unlearnable: [{ topicId: 'topic1', seedStanding: 0.5 }] } as unknown as CrawlResult['harvestEstimate'],
    });
    const s = formatSummary(r, 'Demo', 'storage', config.topics);
    expect(s).toContain('NOT LEARNABLE     topic "汶川地震 救援"');
    expect(s).not.toContain('topic1');
  });
});

describe('--trace on each fetcher tells the truth', () => {
  const ctx = (fetcher: string, logs: string[]) =>
    ({ config: { fetcher, storageDir: join(tmp, 'st') }, storageDir: join(tmp, 'st'), progress: { log: (l: string) => logs.push(l) } }) as never;
  it('HTTP fetcher: says no traces are recorded, and the summary says none', () => {
    const logs: string[] = [];
    const p = new TracePlugin({ mode: { kind: 'sample', every: 5 } });
    p.beforeRun(ctx('http', logs));
    expect(logs.join('\n')).toMatch(/HTTP fetcher renders no page, so no traces are recorded/);
    expect(p.summary().join('\n')).toMatch(/traces\s+none: the HTTP fetcher renders no page/);
  });
  it('adaptive fetcher: says only the pages it renders are traced (it does trace them), and never "no traces recorded"', () => {
    const logs: string[] = [];
    const p = new TracePlugin({ mode: { kind: 'sample', every: 5 } });
    p.beforeRun(ctx('adaptive', logs));
    expect(logs.join('\n')).toMatch(/traces only the pages it renders in the browser/);
    expect(logs.join('\n')).not.toMatch(/no traces recorded/);
    (p as unknown as { kept: string[] }).kept.push(join(tmp, 'st', 'traces', 'a.zip'));
    expect(p.summary().join('\n')).toMatch(/traces\s+1 of pages rendered in the browser in .* open one with: /);
  });
});

describe('--explain', () => {
  it('finds the latest run in DIR/runs even when it fetched nothing, and says so grammatically', () => {
    const storage = join(tmp, 'explain');
    const runDir = join(storage, 'runs', '20260101-000000-000');
    const j = new FrontierJournal(runDir);
    const f = new Frontier({ journal: j });
    f.offer({ url: 'http://no-such-host.invalid/', depth: 0, score: 1000 });
    f.drop(uniqueKeyOf('http://no-such-host.invalid/'), 'robots.txt');
    j.close();
    writeFileSync(join(runDir, 'crawl-log.jsonl'), '');
    expect(explainUrl(storage, 'http://no-such-host.invalid/')).toMatch(/dropped\s+robots\.txt/);
    expect(explainUrl(storage, 'http://no-such-host.invalid/other')).toMatch(/not queued +the crawl never found a link to it/);
  });

  it('names the topic by its keywords, as the summary and exports do', () => {
    const storage = join(tmp, 'explain-topic');
    const runDir = join(storage, 'runs', 'r1');
    mkdirSync(runDir, { recursive: true });
    const log = new CrawlLog(join(runDir, 'crawl-log.jsonl'));
    log.append({ time: '2026-01-01T00:00:00Z', url: 'http://a.test/x', status: 200, depth: 0, score: 1, decision: 'saved', relevance: 0.3, relevant: true, topic: 'topic1' });
    log.close();
    const config = parseConfig({ topics: [{ keywords: ['汶川地震', '救援'], seeds: ['http://a.test/'] }] });
    writeFileSync(join(runDir, 'state.json'), JSON.stringify({ runId: 'r1', startedAt: '2026-01-01T00:00:00Z', config }));
    const out = explainUrl(storage, 'http://a.test/x');
    expect(out).toMatch(/judged relevant, topic "汶川地震 救援"/);
    expect(out).not.toContain('topic1');
  });
});

describe('config and seed errors end cleanly', () => {
  it('a YAML error ends with its position, not a dangling colon', async () => {
    const file = join(tmp, 'bad.yaml');
    writeFileSync(file, 'keywords: [a\n  b: c');
    const e = await loadConfigFile(file).catch((x: Error) => x);
    expect((e as Error).message).toMatch(/not valid YAML: .* at line 1, column \d+$/);
  });

  it('seeds whose host has no address: "no seed is reachable", each with host not found', async () => {
    const config = buildConfig({ topic: '地震', seeds: ['http://no-such-host.invalid/', 'http://also-missing.invalid/'] }, {});
    // The resolver's answer for a name with no address, given here: a unit test asks no DNS server
    // (one that is slow or unreachable answers EAI_AGAIN, not ENOTFOUND).
    const resolve = async (host: string): Promise<string[]> => {
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    };
    await expect(checkSeedsReachable(config, { resolve })).rejects.toThrow(/no seed is reachable: http:\/\/(no-such-host|also-missing)\.invalid\/ \(host not found: ENOTFOUND\), http:\/\/.*\.invalid\/ \(host not found: ENOTFOUND\)/);
  });
});
