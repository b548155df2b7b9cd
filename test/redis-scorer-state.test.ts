/**
 * The shared scorer's snapshot in Redis (src/cluster/redis-scorer-state.ts), against a real
 * redis-server on a loopback port: a worker joining after the inputs were cut behind a snapshot
 * restores it, replays only the tail and scores as a worker that took in every page; the inputs
 * kept stay bounded over a long run; a worker that fell behind the cut restores too; an old or
 * corrupt snapshot is refused with one line and the worker replays the archive when it can.
 */
import { serialize } from 'node:v8';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { SNAPSHOT_FORMAT, SharedScorerState, scorerFingerprint } from '../src/cluster/redis-scorer-state.js';
import { createScorer } from '../src/score/index.js';
import type { FetchedPage, Scorer, ScoreUpdate } from '../src/score/types.js';
import { redisMissing } from '../src/testweb/redis-server.js';
import { useLocalRedis } from './helpers/local-redis.js';
import { stateDigest, syntheticPages } from './helpers/synthetic-pages.js';

const missing = redisMissing();
if (missing) console.warn(missing);

const make = (): Scorer => createScorer('combined', { iprEvery: 25 }, { randomSeed: 3 });
const revive = (p: FetchedPage): FetchedPage => ({ ...p, publishTime: p.publishTime && new Date(p.publishTime), links: p.links.map((l) => ({ ...l, urlTime: l.urlTime && new Date(l.urlTime) })) });
const CHUNK = 10;
/** At most this many inputs between two snapshots (the crawl's default: 20 chunks). */
const MAX_PAGES = 60;

describe.skipIf(!!missing)('the scorer snapshot in Redis (real redis-server)', () => {
  const { client } = useLocalRedis();

  /** A worker's end: its scorer, its SharedScorerState, the lines it logged, every update its scorer made on others' pages. */
  const worker = (key: string, id: string, minPages = 20) => {
    const lines: string[] = [];
    const scorer = make();
    const sync = new SharedScorerState(client(), key, id, revive, (l) => lines.push(l), { chunk: CHUNK, minPages, maxPages: MAX_PAGES });
    const updates: ScoreUpdate[][] = [];
    const catchUp = async () => {
      await sync.catchUp(scorer, (_p, u) => updates.push(u));
      await sync.idle();
    };
    return { scorer, sync, lines, updates, catchUp };
  };
  const stored = async (key: string) => (await client().xlen(key)) + CHUNK * (await client().llen(`${key}:archive:ends`));

  it('a late joiner restores the snapshot, replays only the tail and scores as the worker that saw every page; stored inputs stay bounded; a reader left behind the cut restores too', async () => {
    const key = 'fc:{s1}:pages';
    const pages = syntheticPages(600, 21);
    const publishers = [0, 1, 2].map((w) => new SharedScorerState(client(), key, `p${w}`, revive, () => undefined, { chunk: CHUNK, minPages: 1e9 }));
    const full = worker(key, 'full'); // reads every round, writes the snapshots
    const slow = worker(key, 'slow', 1e9); // reads every 7th round: the cut must wait for it
    const storedAt: number[] = [];
    let i = 0;
    let slowReads = true;
    const round = async () => {
      await publishers[i % 3].publish(pages[i]);
      await full.catchUp();
      if (slowReads && i % 7 === 0) await slow.catchUp();
      storedAt.push(await stored(key));
      i++;
    };
    while (i < 400) await round();
    expect(full.sync.written).toBeGreaterThan(3);
    expect(full.sync.lastWrite!.bytes).toBeGreaterThan(0);
    expect(slow.lines).toEqual([]); // never behind: its position held the cut back
    // Bounded: Redis keeps at most the inputs since the snapshot before last (≤ MAX_PAGES each),
    // the stream's two unarchived chunks and the slow reader's lag (7), however long the run.
    expect(Math.max(...storedAt)).toBeLessThanOrEqual(2 * MAX_PAGES + 2 * CHUNK + 7);
    expect(Math.max(...storedAt.slice(300))).toBeLessThanOrEqual(2 * MAX_PAGES + 2 * CHUNK + 7);
    expect(await client().get(`${key}:trimmed`)).not.toBe('0');

    // The slow reader stops reading (a stalled worker): once its position is stale, the cut passes it.
    slowReads = false;
    await client().hset(`${key}:cursors:at`, 'slow', 0);
    const slowAt = slow.sync.stream.position;
    const idAfter = (a: string, b: string) => { const [am, as] = a.split('-').map(Number); const [bm, bs] = b.split('-').map(Number); return am > bm || (am === bm && as > bs); };
    while (!idAfter((await client().get(`${key}:trimmed`)) ?? '0', slowAt)) {
      expect(i).toBeLessThan(pages.length - 1); // the cut must come within the synthetic run
      await round();
    }

    // A worker joining now: the snapshot, then the tail (two pages routed at once: both wait for the restore).
    const late = worker(key, 'late', 1e9);
    await Promise.all([late.catchUp(), late.catchUp()]);
    expect(late.sync.restored).toBe(1);
    expect(late.sync.stream.replayed).toBeLessThan(i - 200);
    // The one left behind restores the snapshot (with a line saying so) and takes in every input after it.
    await slow.catchUp();
    expect(slow.lines.join('\n')).toMatch(/fell behind the inputs trimmed at .*restoring the crawl's scorer snapshot/);
    expect(slow.sync.restored).toBe(1);
    // Same state as the worker that took in every page, value for value; the same scores for what comes next.
    expect(stateDigest(late.scorer.state())).toBe(stateDigest(full.scorer.state()));
    expect(stateDigest(slow.scorer.state())).toBe(stateDigest(full.scorer.state()));
    expect(late.sync.evidence).toBe(full.sync.evidence);
    for (const p of pages.slice(i, i + 30)) {
      const want = full.scorer.onPageFetched(p);
      expect(want.length).toBeGreaterThan(0);
      expect(late.scorer.onPageFetched(p)).toEqual(want);
      expect(slow.scorer.onPageFetched(p)).toEqual(want);
    }
  });

  it('an old or corrupt snapshot is refused with one line: the joiner replays the whole archive while nothing was cut, else the inputs after the cut', async () => {
    const key = 'fc:{s2}:pages';
    const pages = syntheticPages(60, 9);
    const pub = new SharedScorerState(client(), key, 'p', revive, () => undefined, { chunk: CHUNK, minPages: 1e9 });
    for (const p of pages) await pub.publish(p);
    const reference = make();
    for (const p of pages) reference.onPageFetched(p);
    const last = (await client().xrevrange(key, '+', '-', 'COUNT', 1))[0][0];
    const fingerprint = scorerFingerprint(reference);
    const snapshot = (fields: Record<string, string | Buffer>) => client().hset(`${key}:snapshot`, { id: last, pages: 60, by: 'x', format: SNAPSHOT_FORMAT, fingerprint, ...fields });
    const old = reference.state() as unknown as { book: { v: number } };
    old.book.v = 2;
    const badVersion = gzipSync(serialize(old));
    old.book.v = 1;
    const cases: [Record<string, string | Buffer>, RegExp][] = [
      [{ format: '0', data: 'x' }, /refused: format 0, this code reads 1; replaying every input of the crawl instead/],
      [{ fingerprint: 'other', data: 'x' }, /refused: written by a scorer of another strategy or other score options; replaying every input/],
      [{ data: Buffer.from('not gzip at all') }, /refused: .*(header|gzip).*; replaying every input/i],
      [{ data: badVersion }, /refused: scorer snapshot: link book state version 2 is not this code's 1; replaying every input/],
    ];
    for (const [fields, message] of cases) {
      await snapshot(fields);
      const joiner = worker(key, `j-${String(message).length}`, 1e9);
      await joiner.catchUp();
      expect(joiner.lines).toHaveLength(1);
      expect(joiner.lines[0]).toMatch(message);
      expect(joiner.sync.restored).toBe(0);
      expect(joiner.sync.stream.replayed).toBe(60);
      expect(stateDigest(joiner.scorer.state())).toBe(stateDigest(reference.state()));
    }
    // The inputs before some id were cut: a refused snapshot leaves only those after it.
    const cutAt = await client().lindex(`${key}:archive:ends`, 0); // the joiners' reads archived chunks of 10
    expect(cutAt).toBeTruthy();
    await client().lpop(`${key}:archive`);
    await client().lpop(`${key}:archive:ends`);
    await client().set(`${key}:trimmed`, cutAt!);
    await snapshot({ format: '0', data: 'x' });
    const joiner = worker(key, 'after-cut', 1e9);
    await joiner.catchUp();
    expect(joiner.lines[0]).toMatch(new RegExp(`refused: format 0.*the inputs up to ${cutAt} are trimmed, so this worker's scorer starts from those after it`));
    expect(joiner.sync.stream.replayed).toBe(50);
  });
});
