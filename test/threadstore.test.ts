import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Post, ThreadExtract } from '../src/extract/replies/types.js';
import { ThreadStore } from '../src/store/threads.js';

const dir = mkdtempSync(join(tmpdir(), 'threadstore-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const DAY = 86_400_000;
const at = new Date('2020-06-10T00:00:00Z');
const ago = (days: number) => new Date(at.getTime() - days * DAY).toISOString();
const post = (floor: number, time: string, text = `post ${floor}`): Post => ({ author: `u${floor}`, time, text, floor });
const thread = (id: string, replyCount: number, posts: Post[]): ThreadExtract => ({ matcher: 'discuz', confidence: 0.95, evidence: { structure: 'test', signals: ['template'] }, threadId: id, posts, replyCount, pageUrls: [] });

describe('ThreadStore', () => {
  it('keeps what was flushed before a crash, loses only the unflushed tail', () => {
    const file = join(dir, 'crash.json');
    const s1 = new ThreadStore(file, { flushEvery: 2 });
    s1.recordVisit(thread('a', 1, [post(1, ago(1)), post(2, ago(1))]), at, 'https://f.example/thread-a');
    s1.recordVisit(thread('b', 1, [post(1, ago(2)), post(2, ago(2))]), at); // 2nd visit: batch written
    s1.recordVisit(thread('c', 1, [post(1, ago(1)), post(2, ago(1))]), at); // pending, never flushed
    // "Crash": no close(); a new instance reads the same file.
    const s2 = new ThreadStore(file, { flushEvery: 2 });
    expect(s2.size).toBe(2);
    expect(s2.get('a')?.url).toBe('https://f.example/thread-a');
    expect(s2.get('a')?.posts).toHaveLength(2);
    expect(s2.get('c')).toBeUndefined();
    expect(JSON.parse(readFileSync(file, 'utf8')).threads.b.replyTimes).toEqual([ago(2)]);
  });

  it('dedups posts by floor (or author+time+text), tracks t̄ and hotness per visit', () => {
    const s = new ThreadStore(join(dir, 'dedup.json'));
    const first = s.recordVisit(thread('t', 2, [post(1, ago(4)), post(2, ago(3)), post(3, ago(1))]), at);
    expect(first.newPosts.map((p) => p.floor)).toEqual([1, 2, 3]);
    // replies at -3 d and -1 d → t̄ = -2 d; H = √3 · e^{-2/3}
    expect(s.get('t')?.tBar).toBe(ago(2));
    expect(first.hotness).toBeCloseTo(Math.sqrt(3) * Math.exp(-2 / 3), 12);
    const later = new Date(at.getTime() + DAY);
    const second = s.recordVisit(thread('t', 3, [post(2, ago(3)), post(3, ago(1)), post(4, later.toISOString())]), later);
    expect(second.newPosts.map((p) => p.floor)).toEqual([4]);
    // replies at -3, -1, +1 d → t̄ = -1 d, seen from +1 d: H = 2 · e^{-2/3}
    expect(second.hotness).toBeCloseTo(2 * Math.exp(-2 / 3), 12);
    expect(s.get('t')?.visits.map((v) => v.replyCount)).toEqual([2, 3]);
    const noFloor = (text: string): Post => ({ author: 'x', time: ago(1), text });
    s.recordVisit({ matcher: 'xhr-comments', confidence: 0.9, evidence: { structure: 'test', signals: ['comment-api'] }, threadId: 'n', posts: [noFloor('a'), noFloor('b')], replyCount: 2, pageUrls: [] }, at);
    const r = s.recordVisit({ matcher: 'xhr-comments', confidence: 0.9, evidence: { structure: 'test', signals: ['comment-api'] }, threadId: 'n', posts: [noFloor('b'), noFloor('c')], replyCount: 3, pageUrls: [] }, at);
    expect(r.newPosts.map((p) => p.text)).toEqual(['c']);
  });

  it('orders revisits by hotness and drops threads below the floor', () => {
    const s = new ThreadStore(join(dir, 'order.json'));
    const now = at.toISOString();
    // H = √225 = 15 → revisit after 1 day
    s.recordVisit(thread('hot', 224, [post(1, ago(5)), post(2, now)]), at);
    // H = √9 = 3 → revisit after 5 days
    s.recordVisit(thread('mid', 8, [post(1, ago(5)), post(2, now)]), at);
    // H = √4 · e^{-1} ≈ 0.74 < floor 1 → never revisited
    const cold = s.recordVisit(thread('cold', 3, [post(1, ago(5)), post(2, ago(3))]), at);
    expect(cold.nextVisit).toBeNull();
    const inDays = (d: number) => new Date(at.getTime() + d * DAY);
    expect(s.dueRevisits(inDays(0.5), 10).map((r) => r.id)).toEqual([]);
    expect(s.dueRevisits(inDays(2), 10).map((r) => r.id)).toEqual(['hot']);
    expect(s.dueRevisits(inDays(6), 10).map((r) => r.id)).toEqual(['hot', 'mid']);
    expect(s.dueRevisits(inDays(6), 1).map((r) => r.id)).toEqual(['hot']);
    expect(s.hottest(3, at).map((r) => r.id)).toEqual(['hot', 'mid', 'cold']);
    s.close();
    expect(new ThreadStore(join(dir, 'order.json')).size).toBe(3);
  });
});
