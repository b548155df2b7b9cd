/**
 * Fetch time limits measure the remote, not our own stalls (src/fetch/loop-clock.ts). The server
 * runs in this process, as the hostile site does in hostile.test.ts: when it holds the event loop
 * (standing in for our own synchronous work, such as a huge page's analysis), a plain timer came
 * due during the stall and fired before the answer already written to the socket was read.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FetchGate } from '../src/fetch/gate/gate.js';
import { gatedRequest, type GatedFetchError } from '../src/fetch/gate/gated-request.js';
import { loopStalledMs, loopTime, loopTimeout } from '../src/fetch/loop-clock.js';

/** Hold the event loop (and the whole process) for `ms`, as synchronous work does. */
const holdLoop = (ms: number) => {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // busy: nothing else in this process runs
  }
};

describe('loop clock', () => {
  it('leaves a stall of the event loop out of loop time, and a loop timer waits again after one', async () => {
    const wall0 = performance.now();
    const loop0 = loopTime();
    const stalled0 = loopStalledMs();
    let fired = false;
    const timer = loopTimeout(() => (fired = true), 2000);
    holdLoop(3000);
    // After the stall: wall time passed its 2 s, loop time did not.
    expect(performance.now() - wall0).toBeGreaterThanOrEqual(3000);
    expect(loopTime() - loop0).toBeLessThan(1500);
    expect(loopStalledMs() - stalled0).toBeGreaterThan(1500);
    await new Promise((ok) => setTimeout(ok, 0));
    expect(fired).toBe(false);
    // ... and it still fires once the loop time is owed.
    await expect.poll(() => fired, { timeout: 60_000, interval: 50 }).toBe(true);
    timer.clear();
  });
});

describe('gatedRequest time limit', () => {
  let server: http.Server;
  let origin: string;
  const held: http.ServerResponse[] = [];
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      if (req.url === '/stall-then-answer') {
        // The process stalls right after the request arrived, past the client's limit; the
        // answer is then written at once: the remote was quick, we were not.
        holdLoop(4000);
        res.writeHead(200, { 'content-type': 'text/plain' }).end('quick answer');
        return;
      }
      held.push(res); // /never: headers never come (a remote that is really slow)
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const r of held) r.destroy();
    server.closeAllConnections();
    await new Promise((ok) => server.close(ok));
  });

  it('is not run out by our own stall: an answer written during it is read', async () => {
    const gate = new FetchGate({ seedUrls: [origin] });
    const res = await gatedRequest(gate, `${origin}/stall-then-answer`, { timeoutMs: 2000 });
    expect(res.status).toBe(200);
    expect(res.body.toString()).toBe('quick answer');
  });

  it('still ends a request the remote never answers, with a timeout', async () => {
    const gate = new FetchGate({ seedUrls: [origin] });
    const err = await gatedRequest(gate, `${origin}/never`, { timeoutMs: 1500 }).then(
      () => undefined,
      (e: GatedFetchError) => e,
    );
    expect(err?.code).toBe('timeout');
    expect(err?.message).toMatch(/no complete answer within/);
  });
});
