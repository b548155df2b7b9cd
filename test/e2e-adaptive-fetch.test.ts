/**
 * The adaptive fetcher's own document requests (fetchDocument, src/fetch/adaptive/adaptive.ts) go through
 * the crawl's fetch gate like every other fetch: names checked after DNS and the connection made
 * to the checked address, private and metadata addresses refused on every hop, robots.txt and
 * the host's delay applied to redirect hops, decompressed-size limits. Judged by what reached a
 * real server on loopback.
 */
import http from 'node:http';
import zlib from 'node:zlib';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DocumentFetchError, fetchDocument, DEFAULT_DOCUMENT_FETCH, type DocumentFetchOptions } from '../src/fetch/adaptive/adaptive.js';
import { FetchGate } from '../src/fetch/gate/gate.js';
import { HostPoliteness } from '../src/frontier/politeness.js';

let server: http.Server;
let port = 0;
const hits: { at: number; path: string; host: string; ua: string }[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    hits.push({ at: Date.now(), path: req.url ?? '', host: String(req.headers.host), ua: String(req.headers['user-agent']) });
    const path = req.url ?? '/';
    const hop = /^\/hop\/(\d+)$/.exec(path);
    if (hop && Number(hop[1]) < 3) return res.writeHead(302, { location: `/hop/${Number(hop[1]) + 1}` }).end();
    if (path === '/to-evil') return res.writeHead(302, { location: `http://evil.test:${port}/secret` }).end();
    if (path === '/to-metadata') return res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
    if (path === '/to-private') return res.writeHead(301, { location: '/private/x.html' }).end();
    if (path === '/bomb') return res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' }).end(zlib.gzipSync(Buffer.alloc(8 * 1024 * 1024)));
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<html><body><p>${path}</p></body></html>`);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((ok) => server.close(() => ok())));

/** A gate whose DNS answers good.test with the test server's address and evil.test with a private one. */
function gateFor(): FetchGate {
  return new FetchGate({
    seedUrls: [`http://good.test:${port}/`],
    resolve: async (host) => (host === 'good.test' ? ['127.0.0.1'] : host === 'evil.test' ? ['10.0.0.7'] : []),
  });
}

function opts(extra: Partial<DocumentFetchOptions> = {}): DocumentFetchOptions {
  return { ...DEFAULT_DOCUMENT_FETCH, gate: gateFor(), timeoutMs: 20_000, ...extra };
}

async function failure(p: Promise<unknown>): Promise<DocumentFetchError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(DocumentFetchError);
  return e as DocumentFetchError;
}

describe('fetchDocument goes through the fetch gate', () => {
  it('connects to the address the gate checked (a name resolved by the gate, not by the system)', async () => {
    const doc = await fetchDocument(`http://good.test:${port}/page.html`, opts());
    expect(doc.status).toBe(200);
    expect(doc.body.toString()).toContain('/page.html');
    const hit = hits.find((h) => h.path === '/page.html')!;
    expect(hit.host).toBe(`good.test:${port}`);
    expect(hit.ua).toContain('focused-crawler'); // robots rules are matched by this token
  });

  it('refuses a redirect to a name resolving to a private address, and to cloud metadata, before any request there', async () => {
    const decisions: { url: string; outcome: string }[] = [];
    const evil = await failure(fetchDocument(`http://good.test:${port}/to-evil`, opts({ onDecision: (d) => decisions.push(d) })));
    expect(evil.message).toMatch(/^refused: private-address: evil\.test resolves to private address 10\.0\.0\.7/);
    expect(decisions.at(-1)).toMatchObject({ url: `http://evil.test:${port}/secret`, outcome: 'refused' });
    expect(hits.some((h) => h.path === '/secret')).toBe(false);
    expect((await failure(fetchDocument(`http://good.test:${port}/to-metadata`, opts()))).message).toMatch(/metadata/);
  });

  it('checks redirect hops against robots.txt', async () => {
    const e = await failure(fetchDocument(`http://good.test:${port}/to-private`, opts({ robotsBlock: async (u) => (u.includes('/private/') ? 'robots: disallowed by robots.txt' : undefined) })));
    expect(e.message).toMatch(/robots/);
    expect(hits.some((h) => h.path.startsWith('/private/'))).toBe(false);
  });

  it('paces redirect hops by the crawl\'s per-host schedule', async () => {
    const schedule = new HostPoliteness({ perHostDelayMs: 300 });
    const host = `good.test:${port}`;
    schedule.started(host); // the frontier handed out /hop/0
    const doc = await fetchDocument(`http://${host}/hop/0`, opts({ hostSchedule: schedule }));
    schedule.ended(host);
    expect(doc.chain.map((h) => new URL(h.url).pathname)).toEqual(['/hop/0', '/hop/1', '/hop/2', '/hop/3']);
    const at = hits.filter((h) => h.path.startsWith('/hop/')).map((h) => h.at);
    expect(at).toHaveLength(4);
    for (let i = 1; i < at.length; i++) expect(at[i] - at[i - 1]).toBeGreaterThanOrEqual(300);
    // and the next hand-out to the host waits for the delay from the last hop
    expect(schedule.wait(host)).toBeGreaterThan(0);
  });

  it('abandons a body over the limit once decompressed', async () => {
    const e = await failure(fetchDocument(`http://good.test:${port}/bomb`, opts({ maxBytes: 1024 * 1024 })));
    expect(e.code).toBe('too-large');
  });
});
