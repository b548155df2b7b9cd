/** Test helper: one real redis-server on loopback for a describe block, and connections to it closed after. */
import { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { startRedis, type LocalRedis } from '../../src/testweb/redis-server.js';

export function useLocalRedis(): { client(): Redis } {
  let redis: LocalRedis;
  const clients: Redis[] = [];
  beforeAll(async () => {
    redis = await startRedis({});
  }, 60_000);
  afterAll(async () => {
    for (const c of clients) c.disconnect();
    await redis?.stop();
  });
  return {
    client() {
      const r = new Redis(redis.url);
      clients.push(r);
      return r;
    },
  };
}
