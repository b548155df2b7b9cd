/** The fetch gate's decisions (src/fetch/gate/gate.ts) and the gate proxy's enforcement (src/fetch/gate/gate-proxy.ts). */
import http from 'node:http';
import zlib from 'node:zlib';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FetchGate, addressProblem } from '../src/fetch/gate/gate.js';
import { startGateProxy, gateFailure, type GateProxy } from '../src/fetch/gate/gate-proxy.js';
import { startGateProxyProcess } from '../src/fetch/gate/gate-proxy-process.js';
import { gatedRequest } from '../src/fetch/gate/gated-request.js';

describe('FetchGate', () => {
  const gate = new FetchGate({ seedUrls: ['http://127.0.0.2:8080/'] });

  it('refuses private, loopback, link-local and metadata addresses in every spelling', () => {
    for (const url of [
      'http://169.254.169.254/latest/meta-data/',
      'http://[::ffff:a9fe:a9fe]/',
      'http://[::ffff:169.254.169.254]/',
      'http://2852039166/',
      'http://0xa9fea9fe/',
      'http://0x7f000001/admin',
      'http://0177.0.0.1/',
      'http://127.1/',
      'http://[::1]/',
      'http://10.0.0.1/',
      'http://192.168.1.1/',
      'http://172.16.0.1/',
      'http://100.64.0.1/',
      'http://0.0.0.0/',
      'http://[fe80::1]/',
      'http://[fd00::1]/',
      'http://[64:ff9b::a9fe:a9fe]/',
      'http://localhost:9999/admin',
      'http://127.0.0.1:9999/admin',
      'http://127.0.0.2:9999/',
      'http://metadata.google.internal/',
    ]) {
      const v = gate.checkSync(url);
      expect(v.ok, url).toBe(false);
      if (!v.ok) expect(v.reason, url).toMatch(/^private-address/);
    }
  });

  it('allows public addresses and the seeds\' exact origins only', () => {
    expect(gate.checkSync('http://93.184.216.34/').ok).toBe(true);
    expect(gate.checkSync('http://[2606:4700::1]/').ok).toBe(true);
    expect(gate.checkSync('http://127.0.0.2:8080/any/page').ok).toBe(true);
    expect(gate.checkSync('http://127.0.0.2:8081/').ok).toBe(false);
    expect(gate.checkSync('https://127.0.0.2:8080/').ok).toBe(false);
  });

  it('refuses other schemes, credentials and over-long URLs', () => {
    for (const url of ['file:///etc/passwd', 'data:text/html,<p>x', 'javascript:alert(1)', 'ftp://example.com/', 'http://user:pw@example.com/']) {
      expect(gate.checkSync(url).ok, url).toBe(false);
    }
    expect(gate.checkSync(`http://example.com/${'a'.repeat(10_000)}`)).toMatchObject({ ok: false, reason: expect.stringMatching(/^url-too-long/) });
  });

  it('allowPrivate: true opens private ranges but never metadata; a list opens exact origins', () => {
    const all = new FetchGate({ allowPrivate: true });
    expect(all.checkSync('http://10.1.2.3/').ok).toBe(true);
    expect(all.checkSync('http://127.0.0.1:9999/').ok).toBe(true);
    expect(all.checkSync('http://169.254.169.254/').ok).toBe(false);
    expect(all.checkSync('http://[::ffff:a9fe:a9fe]/').ok).toBe(false);
    const some = new FetchGate({ allowPrivate: ['http://127.0.0.1:7000'] });
    expect(some.checkSync('http://127.0.0.1:7000/x').ok).toBe(true);
    expect(some.checkSync('http://127.0.0.1:7001/x').ok).toBe(false);
  });

  it('allow and deny lists (host:port exact, names with subdomains)', () => {
    const g = new FetchGate({ allowDomains: ['example.com'], denyDomains: ['bad.example.com'] });
    expect(g.checkSync('http://news.example.com/').ok).toBe(true);
    expect(g.checkSync('http://bad.example.com/').ok).toBe(false);
    expect(g.checkSync('http://example.org/').ok).toBe(false);
    expect(g.checkSync('http://notexample.com/').ok).toBe(false);
  });

  it('checks every address a name resolves to, and pins the connection to them', async () => {
    const dns: Record<string, string[]> = { 'rebind.test': ['93.184.216.34', '127.0.0.1'], 'meta.test': ['169.254.169.254'], 'ok.test': ['93.184.216.34'] };
    const g = new FetchGate({ resolve: async (h) => dns[h] ?? [] });
    expect(await g.check('http://rebind.test/')).toMatchObject({ ok: false, reason: expect.stringContaining('loopback') });
    expect(await g.check('http://meta.test/')).toMatchObject({ ok: false, reason: expect.stringContaining('metadata') });
    expect(await g.check('http://nowhere.test/')).toMatchObject({ ok: false, reason: expect.stringMatching(/^dns/) });
    const v = await g.check('http://ok.test/');
    expect(v).toEqual({ ok: true, addresses: ['93.184.216.34'] });
    const lookup = g.pinnedLookup(['93.184.216.34']);
    const got = await new Promise<string>((ok) => (lookup as unknown as (h: string, o: object, cb: (e: unknown, a: string) => void) => void)('ok.test', {}, (_e, a) => ok(a)));
    expect(got).toBe('93.184.216.34');
  });

  it('classifies addresses with ipaddr.js', () => {
    expect(addressProblem('8.8.8.8')).toBeUndefined();
    expect(addressProblem('::ffff:7f00:1')).toMatch(/loopback/);
    expect(addressProblem('169.254.169.254')).toMatch(/metadata/);
  });
});

describe('gate proxy', () => {
  let site: http.Server;
  let honeypot: http.Server;
  let proxy: GateProxy;
  let siteOrigin = '';
  let honeypotOrigin = '';
  const honeypotHits: string[] = [];
  const gzBomb = Buffer.concat(Array.from({ length: 8 }, () => zlib.gzipSync(Buffer.alloc(8 * 1024 * 1024)))); // 64 MB inflated

  const listen = (s: http.Server) => new Promise<string>((ok) => s.listen(0, '127.0.0.1', () => ok(`http://127.0.0.1:${(s.address() as AddressInfo).port}`)));
  /** GET through the proxy the way Chromium and got do: an absolute URI with proxy credentials. */
  const viaProxy = (url: string, auth = true) =>
    new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>((ok, fail) => {
      const p = new URL(proxy.server);
      const req = http.request({ host: p.hostname, port: p.port, path: url, headers: auth ? { 'proxy-authorization': `Basic ${Buffer.from(`${proxy.username}:${proxy.password}`).toString('base64')}` } : {} }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => ok({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }));
      });
      req.on('error', fail);
      req.end();
    });

  beforeAll(async () => {
    honeypot = http.createServer((req, res) => {
      honeypotHits.push(req.url ?? '');
      res.end('secret');
    });
    honeypotOrigin = await listen(honeypot);
    site = http.createServer((req, res) => {
      if (req.url === '/to-admin') return res.writeHead(302, { location: `${honeypotOrigin}/admin` }).end();
      if (req.url === '/to-metadata') return res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
      if (req.url?.startsWith('/loop')) return res.writeHead(302, { location: req.url === '/loop-a' ? '/loop-b' : '/loop-a' }).end();
      if (req.url === '/bomb') return res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' }).end(gzBomb);
      if (req.url === '/ua') return res.end(String(req.headers['user-agent']));
      res.writeHead(200, { 'content-type': 'text/html' }).end('<p>ok</p>');
    });
    siteOrigin = await listen(site);
    proxy = await startGateProxy({ gate: new FetchGate({ seedUrls: [siteOrigin] }), maxBodyBytes: 1024 * 1024, maxRedirects: 5, timeoutMs: 20_000 });
  });
  afterAll(async () => {
    await proxy?.close();
    site?.close();
    honeypot?.close();
  });

  it('listens on loopback and wants its credentials', async () => {
    expect(new URL(proxy.server).hostname).toBe('127.0.0.1');
    expect((await viaProxy(`${siteOrigin}/`, false)).status).toBe(407);
    expect((await viaProxy(`${siteOrigin}/`)).body).toBe('<p>ok</p>');
  });

  it('refuses redirect hops and links to other loopback ports and to metadata; the honeypot is never hit', async () => {
    const first = await viaProxy(`${siteOrigin}/to-admin`);
    expect(first.status).toBe(302);
    const hop = await viaProxy(String(first.headers.location));
    expect(hop.status).toBe(403);
    expect(gateFailure(hop.headers)).toMatch(/private-address/);
    expect(gateFailure((await viaProxy(`${honeypotOrigin}/admin`)).headers)).toMatch(/refused/);
    const meta = await viaProxy(String((await viaProxy(`${siteOrigin}/to-metadata`)).headers.location));
    expect(gateFailure(meta.headers)).toMatch(/metadata/);
    expect(honeypotHits).toEqual([]);
  });

  it('caps a redirect chain', async () => {
    let url = `${siteOrigin}/loop-a`;
    let last: Awaited<ReturnType<typeof viaProxy>> | undefined;
    for (let i = 0; i < 10; i++) {
      last = await viaProxy(url);
      if (last.status !== 302) break;
      url = new URL(String(last.headers.location), url).href;
    }
    expect(gateFailure(last!.headers)).toMatch(/redirect-chain/);
  });

  it('abandons a gzip bomb at the decompressed limit', async () => {
    const r = await viaProxy(`${siteOrigin}/bomb`);
    expect(r.status).toBe(502);
    expect(gateFailure(r.headers)).toMatch(/too-large/);
    await expect(gatedRequest(new FetchGate({ allowPrivate: true }), `${siteOrigin}/bomb`, { maxBodyBytes: 1024 * 1024 })).rejects.toThrow(/limit/);
  });

  it('puts the robots token in the user agent', async () => {
    expect((await viaProxy(`${siteOrigin}/ua`)).body).toMatch(/focused-crawler/);
  });

  it('takes notes for a proxy process that was killed with the process group without failing the crawl', async () => {
    const p = await startGateProxyProcess({ gate: { seedUrls: ['http://127.0.0.2:8080/'] }, timeoutMs: 20_000 });
    const errors: unknown[] = [];
    const onError = (e: unknown) => errors.push(e);
    process.on('uncaughtException', onError);
    try {
      // Ctrl-C reaches the child first; the crawl hands out URLs before it has seen the channel
      // close. Wait (without yielding, so the parent has not seen it either) until the child is dead.
      process.kill(p.pid, 'SIGKILL');
      // Dead means every thread has exited (the leader turns zombie before the others let go of the channel).
      const dead = () => {
        const tasks = `/proc/${p.pid}/task`;
        if (!existsSync(tasks)) return true;
        return readdirSync(tasks).every((t) => {
          try {
            return /\) [ZX] /.test(readFileSync(`${tasks}/${t}/stat`, 'utf8'));
          } catch {
            return true;
          }
        });
      };
      for (let i = 0; i < 1e8 && !dead(); i++);
      expect(dead()).toBe(true);
      for (let i = 0; i < 50; i++) p.noteNavigation(`http://127.0.0.2:8080/${i}`);
      for (let i = 0; i < 20; i++) await new Promise((ok) => setImmediate(ok));
      await p.close();
    } finally {
      process.off('uncaughtException', onError);
    }
    expect(errors).toEqual([]);
  });

  it('refuses a host blocked while the crawl runs, in the proxy process as in the proxy, redirect hops included', async () => {
    const other = http.createServer((req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<p>other</p>'));
    const otherOrigin = await listen(other);
    const hop = http.createServer((req, res) => res.writeHead(302, { location: `${otherOrigin}/landing` }).end());
    const hopOrigin = await listen(hop);
    const gateOptions = { seedUrls: [otherOrigin, hopOrigin] };
    const inProcess = await startGateProxy({ gate: new FetchGate(gateOptions), timeoutMs: 20_000 });
    const ownProcess = await startGateProxyProcess({ gate: gateOptions, timeoutMs: 20_000 });
    const saved = proxy;
    try {
      for (const p of [inProcess, ownProcess]) {
        proxy = p;
        p.noteNavigation(`${hopOrigin}/`);
        expect((await viaProxy(`${otherOrigin}/before`)).body).toBe('<p>other</p>');
        p.block(new URL(otherOrigin).host);
        // The block crosses to the process by message: ask until it holds (generous; no fixed sleep).
        let refused: string | undefined;
        for (let i = 0; i < 200 && !refused; i++) refused = gateFailure((await viaProxy(`${otherOrigin}/after`)).headers);
        expect(refused).toBe(`refused: blocked: ${new URL(otherOrigin).host}`);
        const first = await viaProxy(`${hopOrigin}/`);
        expect(first.status).toBe(302);
        expect(gateFailure((await viaProxy(String(first.headers.location))).headers)).toMatch(/blocked/);
      }
    } finally {
      proxy = saved;
      await inProcess.close();
      await ownProcess.close();
      other.close();
      hop.close();
    }
  });
});
