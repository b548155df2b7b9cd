import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { explainUrl } from '../src/crawl/explain.js';
import { Frontier, uniqueKeyOf } from '../src/frontier/frontier.js';
import { FrontierJournal } from '../src/frontier/journal.js';
import { CrawlLog } from '../src/store/crawl-log.js';

describe('--explain', () => {
  const storage = mkdtempSync(join(tmpdir(), 'explain-'));
  afterAll(() => rmSync(storage, { recursive: true, force: true }));

  it('explains a fetched URL, a queued one (with its rank), a dropped one and an unknown one', async () => {
    const runDir = join(storage, 'runs', 'r1');
    const j = new FrontierJournal(runDir);
    const f = new Frontier({ journal: j });
    f.offer({ url: 'http://a.test/seed', depth: 0, score: 1000, components: { seed: 1 } });
    f.offer({ url: 'http://a.test/q1', depth: 1, parentUrl: 'http://a.test/seed', score: 0.5, components: { parentPriority: 0.5 } });
    f.offer({ url: 'http://a.test/q2', depth: 1, parentUrl: 'http://a.test/seed', score: 0.7, components: { parentPriority: 0.7 } });
    f.offer({ url: 'http://a.test/x', depth: 1, score: 0.1 });
    f.drop(f.get(uniqueKeyOf('http://a.test/x'))!.uniqueKey, 'tunnel-spent');
    const r = await f.requestManager.fetchNextRequest();
    const log = new CrawlLog(join(runDir, 'crawl-log.jsonl'));
    log.append({ time: '2026-01-01T00:00:00Z', url: r!.url, status: 200, depth: 0, score: 1000, components: { seed: 1 }, decision: 'saved', relevance: 0.8, relevant: true });
    log.close();
    await f.requestManager.markRequestHandled(r!);
    j.close();
    writeFileSync(join(runDir, 'state.json'), JSON.stringify({ runId: 'r1', startedAt: '2026-01-01T00:00:00Z' }));

    const fetched = explainUrl(storage, 'http://a.test/seed');
    expect(fetched).toMatch(/fetched\s+#1 of 1/);
    expect(fetched).toMatch(/score\s+1000/);
    expect(fetched).toMatch(/parent\s+\(seed\)/);
    const queued = explainUrl(storage, 'http://a.test/q1');
    expect(queued).toMatch(/still queued rank 2 of 2/); // q2 (0.7) is ahead
    expect(queued).toMatch(/parentPriority\s+0\.5/);
    expect(queued).toMatch(/parent\s+http:\/\/a\.test\/seed/);
    expect(explainUrl(storage, 'http://a.test/x')).toMatch(/dropped\s+tunnel-spent/);
    expect(explainUrl(storage, 'http://a.test/never')).toMatch(/not queued +the crawl never found a link to it/);
    expect(() => explainUrl(storage, 'not a url')).toThrow(/not a valid URL/);
  });
});
