/**
 * Lease renewal for the Redis frontier, in a worker thread with its own connection. Why a
 * thread: the engine analyses and scores a page synchronously, and on a loaded machine one big
 * page kept a worker's main thread busy for longer than a lease; a timer on that thread could
 * not renew, and the URL went to another worker while the first still fetched it. The thread
 * renews while the main thread is busy, and stops (so the leases expire) only when the process
 * dies. The thread's code is plain CommonJS given as a string: it runs the same under tsx and
 * from a build, and loads ioredis by the absolute path the main thread resolved.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

const THREAD = `
const { parentPort, workerData: d } = require('node:worker_threads');
const { Redis } = require(d.ioredis);
const redis = new Redis(d.url, { maxRetriesPerRequest: null, retryStrategy: (t) => Math.min(250 * t, 2000), connectionName: d.connectionName });
redis.on('error', () => {});
redis.once('ready', () => parentPort.postMessage({ ready: true }));
redis.defineCommand('fcRenew', { numberOfKeys: 0, lua: d.lua });
const keys = new Set();
const timer = setInterval(async () => {
  if (keys.size === 0) return;
  try {
    const lost = await redis.fcRenew(d.prefix, d.workerId, d.leaseMs, ...keys);
    if (lost.length) parentPort.postMessage({ lost });
  } catch {}
}, Math.max(200, Math.floor(d.leaseMs / 3)));
parentPort.on('message', (m) => {
  if (m.add) keys.add(m.add);
  if (m.del) keys.delete(m.del);
  if (m.close) {
    clearInterval(timer);
    redis.quit().catch(() => redis.disconnect()).finally(() => parentPort.close());
  }
});
`;

export interface LeaseHeartbeat {
  /** Resolves once the thread is connected and renewing. */
  ready: Promise<void>;
  add(key: string): void;
  remove(key: string): void;
  close(): Promise<void>;
}

export function startLeaseHeartbeat(o: {
  url: string;
  prefix: string;
  workerId: string;
  leaseMs: number;
  lua: string;
  onLost: (keys: string[]) => void;
}): LeaseHeartbeat {
  const ioredis = createRequire(import.meta.url).resolve('ioredis');
  const thread = new Worker(THREAD, {
    eval: true,
    workerData: { ioredis, url: o.url, prefix: o.prefix, workerId: o.workerId, leaseMs: o.leaseMs, lua: o.lua, connectionName: `focused-crawler-leases:${o.workerId}` },
  });
  thread.unref();
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((ok) => (markReady = ok));
  thread.on('message', (m: { lost?: string[]; ready?: boolean }) => {
    if (m.ready) markReady();
    if (m.lost) o.onLost(m.lost);
  });
  thread.on('error', () => undefined);
  const exited = new Promise<void>((ok) => thread.once('exit', () => ok()));
  return {
    ready,
    add: (key) => thread.postMessage({ add: key }),
    remove: (key) => thread.postMessage({ del: key }),
    close: async () => {
      thread.postMessage({ close: true });
      await Promise.race([exited, new Promise((r) => setTimeout(r, 2000).unref())]);
      await thread.terminate();
    },
  };
}
