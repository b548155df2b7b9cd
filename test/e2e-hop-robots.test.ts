/**
 * One process, a host first met through a redirect hop (src/crawl/engine.ts robotsBlock): the
 * hop's robots.txt check fetches that host's robots.txt, itself a request to the host, so the hop
 * waits the host's Crawl-delay from it — as the server logs it. (Workers of a Redis crawl: the
 * shared schedule does the same, test/redis-gate-proxy.test.ts.)
 */
import { mkdtempSync } from 'node:fs';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config/schema.js';
import { runCrawl } from '../src/crawl/engine.js';
import { ProgressReporter } from '../src/report/progress.js';

const servers: Server[] = [];
async function serve(handler: RequestListener): Promise<string> {
  const s = createServer(handler);
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
}

afterAll(() => Promise.all(servers.map((s) => new Promise((r) => s.close(r)))));

describe('a redirect hop to a host first met through it (one process, HTTP fetcher)', () => {
  it("waits the host's Crawl-delay after that host's robots.txt", async () => {
    const hits: { at: number; path: string }[] = [];
    const delayed = await serve((req, res) => {
      hits.push({ at: Date.now(), path: req.url ?? '' });
      if (req.url === '/robots.txt') return res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nCrawl-delay: 1\n');
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<html><head><title>地震 救援</title></head><body><p>地震 救援 landed</p></body></html>');
    });
    const from = await serve((req, res) => {
      if (req.url === '/robots.txt') return res.writeHead(404).end();
      res.writeHead(302, { location: `${delayed}/landed${req.url}` }).end();
    });
    const config = parseConfig({
      topics: [{ keywords: ['地震', '救援'], seeds: [`${from}/hop-0`] }],
      allowPrivate: [from, delayed],
      maxPages: 1,
      maxConcurrency: 1,
      perHostDelayMs: 100,
      fetcher: 'http',
      threads: { enabled: false },
      storageDir: mkdtempSync(join(tmpdir(), 'fc-hop-robots-')),
    });
    const result = await runCrawl({ config, progress: new ProgressReporter({ quiet: true }) });
    expect(result.fetched).toBe(1);
    const paths = hits.map((h) => h.path);
    expect(paths).toEqual(['/robots.txt', '/landed/hop-0']);
    // (without the wait: 10-60 ms; the Crawl-delay is 1 s, a few ms of timer slack allowed)
    expect(hits[1].at - hits[0].at).toBeGreaterThanOrEqual(990);
  }, 120_000);
});
