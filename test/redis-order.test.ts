/**
 * The reference order of the Redis benches (bench/redis-order.ts): one process's queue, a URL's
 * latest score wins, handed-out and dropped URLs never come back; a URL's rank is how many queued
 * URLs score higher.
 */
import { describe, expect, it } from 'vitest';
import { OneQueue, rankStats } from '../bench/redis-order.js';

describe('one scorer\'s reference queue', () => {
  it('ranks by the latest score and forgets URLs handed out or dropped', () => {
    const q = new OneQueue();
    q.offer('a', 0.5);
    q.offer('b', 0.9);
    q.offer('c', 0.7);
    expect([q.rank('b'), q.rank('c'), q.rank('a')]).toEqual([0, 1, 2]);
    q.offer('b', 0.1); // re-scored lower: the latest score wins
    expect([q.rank('c'), q.rank('a'), q.rank('b')]).toEqual([0, 1, 2]);
    q.take('c');
    q.drop('a');
    q.offer('c', 5); // handed out: an offer does not queue it again
    q.offer('a', 5); // dropped: neither
    expect(q.rank('c')).toBeUndefined();
    expect(q.rank('a')).toBeUndefined();
    expect(q.rank('b')).toBe(0);
    expect(q.rank('never')).toBeUndefined();
  });

  it('summarises ranks: mean, median, share at the top and in the top 5, unknown apart', () => {
    const s = rankStats([0, 0, 3, 9, undefined]);
    expect(s).toEqual({ n: 4, mean: 3, median: 3, best: 0.5, top5: 0.75, unknown: 1 });
    expect(rankStats([]).n).toBe(0);
  });
});
