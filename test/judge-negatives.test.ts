/**
 * The user's negative pages (`negativeSeeds`, `--negative`): fetched once through the fetch gate
 * from a real loopback server, learned by the judge as negative examples; an unreachable one is
 * skipped with a notice.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config/schema.js';
import { PageJudge } from '../src/judge/judge.js';
import { learnNegativeSeeds } from '../src/judge/negative-seeds.js';
import { analyzePage } from '../src/extract/page.js';
import { FetchGate } from '../src/fetch/gate/gate.js';

let server: Server;
let origin: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/shop') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<html><head><title>Bird cage sale</title></head><body><h1>Bird cage sale</h1><p>Low prices on bird cages, pet toys and seed; free delivery this week at our pet shop.</p></body></html>');
    } else {
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end('<html><body>not here</body></html>');
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('negative pages', () => {
  it('are fetched through the gate and learned: a page like them gets negative evidence; a dead one is skipped with a notice', async () => {
    const config = parseConfig({ topics: [{ keywords: ['bird'], seeds: [`${origin}/seed`], negativeSeeds: [`${origin}/shop`, `${origin}/gone`] }] });
    const judge = await PageJudge.create(config);
    const notices: string[] = [];
    await learnNegativeSeeds(config, judge, new FetchGate({ seedUrls: [origin] }), undefined, (l) => notices.push(l));
    expect(notices).toContain(`negative example learned: ${origin}/shop`);
    expect(notices.some((l) => l.startsWith(`negative page skipped: ${origin}/gone (HTTP 404)`))).toBe(true);
    const page = (url: string, body: string) => analyzePage({ html: `<html><body><h1>${body.slice(0, 20)}</h1><p>${body}</p></body></html>`, url, fetchedAt: new Date() });
    const shopLike = judge.judge(page(`${origin}/a`, 'Bird cages and pet toys at low prices, free delivery from the pet shop.'), { isSeed: false });
    const wild = judge.judge(page(`${origin}/b`, 'The heron is a bird of rivers and lakes that hunts fish and nests in colonies.'), { isSeed: false });
    expect(shopLike.cosine).toBeGreaterThan(0);
    expect(wild.cosine).toBeGreaterThan(0);
    expect(shopLike.negativeEvidence!).toBeGreaterThan(wild.negativeEvidence!);
    expect(typeof shopLike.probability).toBe('number');
  });
});
