/**
 * Kept-alive sockets the server closed while our event loop was busy (src/fetch/gate/gated-request.ts):
 * a server closes idle keep-alive connections after its timeout (Node's 5 s, nginx's 75 s); when
 * the crawler's loop is held up past that moment (a long page analysis, a loaded machine) the
 * closings are not read yet, the pool still holds those sockets, and the next request is written
 * to one of them: "socket hang up". The request never reached the server, so it is sent again,
 * on a connection of its own (another pooled socket may be just as dead). The server runs in a
 * worker thread (its own event loop) while this thread is blocked; real sockets on 127.0.0.1.
 */
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FetchGate } from '../src/fetch/gate/gate.js';
import { gatedRequest } from '../src/fetch/gate/gated-request.js';

const SERVER = `
const http = require('node:http');
const { parentPort, workerData } = require('node:worker_threads');
const flag = new Int32Array(workerData.flag);
let requests = 0;
const server = http.createServer((req, res) => {
  requests++;
  res.writeHead(200, { 'content-type': 'text/plain' }).end('ok ' + req.url);
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }));
parentPort.on('message', (m) => {
  if (m === 'close-idle') {
    // what a server's keep-alive timeout does: every idle connection closed
    server.closeIdleConnections();
    setImmediate(() => {
      Atomics.store(flag, 0, 1);
      Atomics.notify(flag, 0);
    });
  }
  if (m === 'count') parentPort.postMessage({ requests });
  if (m === 'stop') server.close(() => process.exit(0));
});
`;

let worker: Worker;
let port = 0;
const flag = new Int32Array(new SharedArrayBuffer(4));

beforeAll(async () => {
  worker = new Worker(SERVER, { eval: true, workerData: { flag: flag.buffer } });
  port = await new Promise<number>((ok) => worker.once('message', (m: { port: number }) => ok(m.port)));
});
afterAll(async () => {
  worker.postMessage('stop');
  await new Promise((ok) => worker.once('exit', ok));
});

describe('gatedRequest and kept-alive sockets the server closed', () => {
  it('sends the request again on a fresh connection when every pooled socket is dead', async () => {
    const gate = new FetchGate({ seedUrls: [`http://127.0.0.1:${port}/`] });
    const url = (p: string) => `http://127.0.0.1:${port}${p}`;
    for (let round = 0; round < 3; round++) {
      // several sockets in the pool, all idle
      const warm = await Promise.all([1, 2, 3, 4, 5, 6].map((i) => gatedRequest(gate, url(`/warm/${round}/${i}`))));
      expect(warm.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
      // the server closes them all while this thread is busy (blocked until it has)
      Atomics.store(flag, 0, 0);
      worker.postMessage('close-idle');
      expect(Atomics.wait(flag, 0, 0, 60_000)).not.toBe('timed-out');
      // the next request, before this thread has read any of the closings
      const r = await gatedRequest(gate, url(`/after/${round}`));
      expect(r.status).toBe(200);
      expect(r.body.toString()).toBe(`ok /after/${round}`);
    }
    // each request reached the server once: the write to a dead socket never did
    worker.postMessage('count');
    const { requests } = await new Promise<{ requests: number }>((ok) => worker.once('message', ok));
    expect(requests).toBe(3 * 7);
  });
});
