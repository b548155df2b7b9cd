/**
 * The shared scorer of a Redis crawl, kept in step across workers: the other workers' pages fed
 * into this worker's scorer (./redis-scorer-pages.ts's stream, archived by
 * ./redis-scorer-snapshot.ts), and a SNAPSHOT of a scorer's state in Redis so that a worker
 * joining late restores it and replays only the pages after it, instead of every page of the
 * crawl, and the inputs behind it can be deleted.
 *
 * The snapshot (`<stream>:snapshot`, one hash): `data` = gzip(v8.serialize(Scorer.state())), the
 * stream id it covers (`id`: every input up to it is in the state, plus some of the writer's
 * own later pages, which a reader's scorer skips as already fetched), the writer's count of
 * inputs taken in (`pages`: the stale-score rule's evidence, ./redis-scripts.ts), a `format`
 * version of this envelope and a `fingerprint` of the scorer's strategy and options. v8's
 * serialiser rather than JSON: the state's parts share objects (a queued URL's dead-link keys,
 * its in-links' link-ranker features), which JSON would copy apart, and it holds Maps, typed
 * arrays, NaN and Dates. A snapshot of another format, fingerprint or part version, or one that
 * does not deserialise, is refused with one line on stderr, and the worker replays the archive
 * from the start if nothing was cut yet (else the inputs after the cut: its scores then count
 * as less informed under the stale-score rule, so they cannot undo better-informed ones).
 *
 * When: a worker writes one once the inputs it took in since the latest snapshot are at least
 * one archive chunk of pages (`minPages`) and either as many characters of input as the latest
 * snapshot's bytes (the writes then cost at most what the inputs did: they amortise, however
 * large the state grows) or `maxPages` pages (default 20 chunks, 10,000 pages, ~16 MB archived:
 * the inputs Redis keeps stay bounded however long the crawl). One writer at a time (a lock key). The script then cuts the archive (and the stream) up to the lowest of the
 * snapshot's id and every live worker's read position: a worker that has not read for
 * CURSOR_STALE_MS no longer holds the cut back; if it reads again behind the cut, it restores the
 * snapshot and takes in every input after it, its own included.
 */
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { deserialize, serialize } from 'node:v8';
import { gunzip, gzip } from 'node:zlib';
import type { Redis } from 'ioredis';
import type { FetchedPage, Scorer, ScoreUpdate } from '../score/types.js';
import { ArchivedInputStream, CHUNK, TrimmedPastError } from './redis-scorer-snapshot.js';

const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

/** This envelope's version (gzip of v8.serialize of a ScorerState); the state's parts carry their own. */
export const SNAPSHOT_FORMAT = '1';
/** A worker whose read position is older than this no longer holds the archive's cut back (it restores the snapshot if it reads again behind it). */
export const CURSOR_STALE_MS = 10 * 60_000;
const LOCK_MS = 120_000;

const ID_CMP = `
local function parse(id) local ms, seq = string.match(id, '^(%d+)-(%d+)$'); if ms then return tonumber(ms), tonumber(seq) end; return tonumber(id) or 0, 0 end
local function after(a, b) local am, as = parse(a); local bm, bs = parse(b); return am > bm or (am == bm and as > bs) end
`;

/**
 * KEYS: snapshot, cursors, cursors' times, archive, ends, archived, stream, trimmed, lock.
 * ARGV: id, data, format, fingerprint, pages, writer, stale ms.
 * → [1 written | 0 an as new one is there, trimmed id, stream length, chunks left].
 */
const WRITE = `${ID_CMP}
redis.call('DEL', KEYS[9])
local cur = redis.call('HGET', KEYS[1], 'id')
if cur and not after(ARGV[1], cur) then return { 0, redis.call('GET', KEYS[8]) or '0', redis.call('XLEN', KEYS[7]), redis.call('LLEN', KEYS[5]) } end
redis.call('HSET', KEYS[1], 'id', ARGV[1], 'data', ARGV[2], 'format', ARGV[3], 'fingerprint', ARGV[4], 'pages', ARGV[5], 'by', ARGV[6], 'bytes', string.len(ARGV[2]))
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local floor = ARGV[1]
local at = redis.call('HGETALL', KEYS[3])
for i = 1, #at, 2 do
  if now - tonumber(at[i + 1]) > tonumber(ARGV[7]) then
    redis.call('HDEL', KEYS[2], at[i]); redis.call('HDEL', KEYS[3], at[i])
  else
    local c = redis.call('HGET', KEYS[2], at[i])
    if c and after(floor, c) then floor = c end
  end
end
local trimmed = redis.call('GET', KEYS[8]) or '0'
while true do
  local e = redis.call('LINDEX', KEYS[5], 0)
  if not e or after(e, floor) then break end
  redis.call('LPOP', KEYS[4]); redis.call('LPOP', KEYS[5])
  if after(e, trimmed) then trimmed = e end
end
local archived = redis.call('GET', KEYS[6]) or '0'
if after(floor, archived) and redis.call('LLEN', KEYS[5]) == 0 then
  local ms, seq = string.match(floor, '^(%d+)-(%d+)$')
  if ms then
    redis.call('XTRIM', KEYS[7], 'MINID', ms .. '-' .. (tonumber(seq) + 1))
    redis.call('SET', KEYS[6], floor)
    if after(floor, trimmed) then trimmed = floor end
  end
end
redis.call('SET', KEYS[8], trimmed)
return { 1, trimmed, redis.call('XLEN', KEYS[7]), redis.call('LLEN', KEYS[5]) }
`;

type Commands = { fcScorerSnapshot(...keysAndArgs: (string | Buffer | number)[]): Promise<[number, string, number, number]> };

/** What a scorer snapshot must match: the strategy and every score option. */
export function scorerFingerprint(scorer: Pick<Scorer, 'strategy' | 'options'>): string {
  return createHash('sha256').update(JSON.stringify({ strategy: scorer.strategy, options: scorer.options })).digest('hex').slice(0, 32);
}

/** The scorer as this module uses it (tests pass a bare `onPageFetched`: no snapshots then). */
export type SyncedScorer = Pick<Scorer, 'onPageFetched'> & Partial<Pick<Scorer, 'state' | 'restore' | 'graph' | 'strategy' | 'options'>>;

export interface SnapshotPolicy {
  /** Fewest inputs taken in since the latest snapshot before another is written (default: one archive chunk). */
  minPages?: number;
  /** Most inputs taken in since the latest snapshot before another is written, whatever its size (default: 20 chunks). */
  maxPages?: number;
}

export class SharedScorerState {
  readonly stream: ArchivedInputStream<FetchedPage>;
  /** Scorer inputs taken in (own and others'): the stale-score rule's evidence (./redis-scripts.ts fcOffer). */
  evidence = 0;
  /** Snapshots this worker wrote, restored, and the last write's numbers (tests, stats). */
  written = 0;
  restored = 0;
  lastWrite?: { bytes: number; stateBytes: number; serialiseMs: number; trimmed: string; streamLength: number; chunksLeft: number };
  private joined?: Promise<void>;
  /** Inputs (count, characters) taken in since the latest snapshot this worker knows of. */
  private since = { snapshot: '', evidence: 0, chars: 0 };
  /** 'locked': this worker holds the writer's lock and captures on its next call; 'busy': a lock request or a write is under way. */
  private writing: 'busy' | 'locked' | undefined;
  private snapshotsOff = false;
  private background: Promise<void> = Promise.resolve();
  private readonly minPages: number;
  private readonly maxPages: number;
  private readonly keys: { snapshot: string; lock: string; write: string[] };

  constructor(
    private readonly redis: Redis,
    key: string,
    private readonly workerId: string,
    revive: (p: FetchedPage) => FetchedPage,
    private readonly log: (line: string) => void,
    o: SnapshotPolicy & { chunk?: number } = {},
  ) {
    this.stream = new ArchivedInputStream<FetchedPage>(redis, key, workerId, (raw) => revive(raw as FetchedPage), o.chunk ?? CHUNK);
    this.minPages = o.minPages ?? o.chunk ?? CHUNK;
    this.maxPages = Math.max(this.minPages, o.maxPages ?? 20 * (o.chunk ?? CHUNK));
    const r = redis as Redis & Partial<Commands>;
    if (!r.fcScorerSnapshot) redis.defineCommand('fcScorerSnapshot', { numberOfKeys: 9, lua: WRITE });
    this.keys = {
      snapshot: `${key}:snapshot`,
      lock: `${key}:snapshot:lock`,
      write: [`${key}:snapshot`, `${key}:cursors`, `${key}:cursors:at`, `${key}:archive`, `${key}:archive:ends`, `${key}:archived`, key, `${key}:trimmed`, `${key}:snapshot:lock`],
    };
  }

  /** This worker's own page went to its scorer: publish it. */
  publish(page: FetchedPage): Promise<unknown> {
    this.evidence++;
    return this.stream.publish(page);
  }

  /**
   * Feed the other workers' inputs since the last call into the scorer (on the first call, a
   * fresh scorer restores the crawl's snapshot first), hand each page's updates to `onUpdates`,
   * and write a snapshot when one is due.
   */
  async catchUp(scorer: SyncedScorer, onUpdates: (page: FetchedPage, updates: ScoreUpdate[]) => void): Promise<void> {
    // Pages routed at once wait for the first one's restore (else they would replay from the start meanwhile).
    this.joined ??= scorer.restore && scorer.graph?.fetchedCount === 0 ? this.restore(scorer, 'join').then(
      () => undefined,
      (e: Error) => {
        this.joined = undefined; // tried again on the next page
        throw e;
      },
    ) : Promise.resolve();
    await this.joined;
    let pages: FetchedPage[];
    for (;;) {
      try {
        pages = await this.stream.pull();
        break;
      } catch (e) {
        if (!(e instanceof TrimmedPastError)) throw e;
        this.log(`warning: this worker's scorer fell behind the inputs trimmed at ${e.trimmed} (it read none for ${CURSOR_STALE_MS / 60_000} minutes): restoring the crawl's scorer snapshot`);
        if (!(await this.restore(scorer, 'behind'))) this.stream.position = e.trimmed;
        this.stream.includeOwn = true;
      }
    }
    // Every input counts, as before snapshots (a revisit too, though the scorer skips it): after a
    // restore, the writer's own pages past the snapshot's id count twice (its pages in flight, a few).
    for (const page of pages) {
      this.evidence++;
      onUpdates(page, scorer.onPageFetched(page));
    }
    this.maybeWrite(scorer);
  }

  /** Restore the crawl's snapshot into the scorer; false when there is none or it is refused (with a line saying why and what happens instead). */
  async restore(scorer: SyncedScorer, why: 'join' | 'behind'): Promise<boolean> {
    const h = await this.redis.hgetallBuffer(this.keys.snapshot);
    const id = h.id?.toString();
    if (!id || !scorer.restore || !scorer.strategy || !scorer.options) return false;
    let refused: string | undefined;
    if (h.format?.toString() !== SNAPSHOT_FORMAT) refused = `format ${h.format?.toString() ?? 'none'}, this code reads ${SNAPSHOT_FORMAT}`;
    else if (h.fingerprint?.toString() !== scorerFingerprint({ strategy: scorer.strategy, options: scorer.options })) refused = 'written by a scorer of another strategy or other score options';
    else {
      try {
        scorer.restore(deserialize(await gunzipAsync(h.data)));
      } catch (e) {
        refused = (e as Error).message.split('\n')[0];
      }
    }
    if (refused) {
      const trimmed = (await this.redis.get(this.keys.write[7])) ?? '0';
      const instead = trimmed === '0' ? `replaying every input of the crawl instead` : `the inputs up to ${trimmed} are trimmed, so this worker's scorer starts from those after it (its scores count as less informed)`;
      this.log(`warning: the crawl's scorer snapshot (${id}) refused: ${refused}; ${instead}`);
      if (why === 'join') this.stream.position = trimmed;
      return false;
    }
    this.stream.position = id;
    this.evidence = Number(h.pages?.toString() ?? 0);
    this.since = { snapshot: id, evidence: this.evidence, chars: this.stream.inputChars };
    this.restored++;
    return true;
  }

  /**
   * Write a snapshot when one is due: take the lock first (a round trip), then capture the state
   * on the next call, right after its inputs are fed in (synchronously, so the state holds exactly
   * the inputs up to the stream position, and this worker's own pages).
   */
  private maybeWrite(scorer: SyncedScorer): void {
    if (!scorer.state || !scorer.strategy || !scorer.options || this.writing === 'busy' || this.snapshotsOff) return;
    const seen = this.stream.snapshotSeen;
    if (seen.id !== this.since.snapshot) this.since = { snapshot: seen.id, evidence: this.evidence, chars: this.stream.inputChars };
    const pagesSince = this.evidence - this.since.evidence;
    if (pagesSince < this.minPages || (this.stream.inputChars - this.since.chars < seen.bytes && pagesSince < this.maxPages) || this.stream.position === '0') return;
    if (this.writing !== 'locked') {
      this.writing = 'busy';
      this.background = this.redis.set(this.keys.lock, this.workerId, 'PX', LOCK_MS, 'NX').then(
        (ok) => void (this.writing = ok ? 'locked' : undefined),
        () => void (this.writing = undefined),
      );
      return;
    }
    const t0 = performance.now();
    let raw: Buffer;
    try {
      raw = serialize(scorer.state());
    } catch (e) {
      this.snapshotsOff = true;
      this.log(`warning: this worker's scorer cannot be snapshotted (${(e as Error).message.split('\n')[0]}): late workers replay every input`);
      return;
    }
    const serialiseMs = performance.now() - t0;
    const [id, pages] = [this.stream.position, this.evidence];
    this.writing = 'busy';
    this.since = { snapshot: seen.id, evidence: this.evidence, chars: this.stream.inputChars };
    this.background = this.write(raw, id, pages, scorerFingerprint({ strategy: scorer.strategy, options: scorer.options }), serialiseMs)
      .catch((e: Error) => this.log(`warning: the scorer snapshot was not written: ${e.message}`))
      .finally(() => void (this.writing = undefined));
  }

  /** Resolves when no lock request or snapshot write of this worker is under way (tests; close). */
  async idle(): Promise<void> {
    while (this.writing === 'busy') await this.background;
  }

  private async write(raw: Buffer, id: string, pages: number, fingerprint: string, serialiseMs: number): Promise<void> {
    const data = await gzipAsync(raw);
    const [ok, trimmed, streamLength, chunksLeft] = await (this.redis as Redis & Commands).fcScorerSnapshot(...this.keys.write, id, data, SNAPSHOT_FORMAT, fingerprint, pages, this.workerId, CURSOR_STALE_MS);
    if (!Number(ok)) return;
    this.written++;
    this.lastWrite = { bytes: data.length, stateBytes: raw.length, serialiseMs, trimmed: String(trimmed), streamLength: Number(streamLength), chunksLeft: Number(chunksLeft) };
  }
}
