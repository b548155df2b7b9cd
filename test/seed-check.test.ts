/**
 * The CLI's early check that a seed can be reached (src/cli/options.ts checkSeedsReachable): it
 * asks the crawl's own gate and opens a TCP connection, and sends no request of its own — every
 * fetch of a seed belongs to the crawl, behind robots and the per-host schedule.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config/schema.js';
import { checkSeedsReachable } from '../src/cli/options.js';
import { UserError } from '../src/config/errors.js';

let server: Server;
let origin: string;
let requests = 0;
let connections = 0;

beforeAll(async () => {
  server = createServer((_req, res) => {
    requests++;
    res.end('hello');
  });
  server.on('connection', () => connections++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((r) => server.close(() => r())));

/** A loopback port nothing listens on (a server opened and closed at once). */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

const configOf = (seeds: string[], extra: Record<string, unknown> = {}) => parseConfig({ topics: [{ keywords: ['地震'], seeds }], ...extra });

describe('seed reachability check', () => {
  it('connects to a listening seed without sending it a request', async () => {
    const before = { requests, connections };
    await checkSeedsReachable(configOf([`${origin}/news/a.html`, `${origin}/news/b.html`]));
    // wait until the server has seen the connections (they are counted asynchronously)
    for (let i = 0; i < 500 && connections < before.connections + 2; i++) await new Promise((r) => setImmediate(r));
    expect(connections - before.connections).toBe(2);
    expect(requests - before.requests).toBe(0);
  });

  it('one clear error when no seed accepts, naming each with its cause', async () => {
    const port = await closedPort();
    const err = await checkSeedsReachable(configOf([`http://127.0.0.1:${port}/`])).catch((e) => e);
    expect(err).toBeInstanceOf(UserError);
    expect(err.message).toBe(`no seed is reachable: http://127.0.0.1:${port}/ (ECONNREFUSED)`);
  });

  it('leaves a seed the gate refuses to the crawl (no connection, no error)', async () => {
    const before = connections;
    // a cloud metadata address is refused by the gate whatever allowPrivate says: never contacted
    await expect(checkSeedsReachable(configOf(['http://169.254.169.254/latest/meta-data/'], { allowPrivate: true }))).resolves.toBeUndefined();
    // a denied domain: the listening server is never connected to
    await expect(checkSeedsReachable(configOf([`${origin}/x`], { denyDomains: ['127.0.0.1'] }))).resolves.toBeUndefined();
    for (let i = 0; i < 50; i++) await new Promise((r) => setImmediate(r));
    expect(connections).toBe(before);
  });
});
