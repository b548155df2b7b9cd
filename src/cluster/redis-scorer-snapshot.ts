/**
 * The shared scorer's `pages` stream (./redis-scorer-pages.ts), trimmed: its older entries are
 * moved, compressed, into an archive, and the stream keeps the newest ones. Scoring is a pure
 * function of the ordered inputs, and the scorer has no state of its own to save (no
 * state()/restore() in src/score), so the "snapshot" is the inputs themselves, gzipped in chunks
 * of CHUNK entries: a worker that joins late (or is restarted) reads the chunks after its last
 * id, then the stream after them, and gets every other worker's page in the same order as one
 * that read the whole stream, so its scorer ends in the same state.
 *
 * Keys: `<stream>:archive` (list of gzipped JSON chunks: [id, worker, input] entries),
 * `<stream>:archive:ends` (list: each chunk's last stream id), `<stream>:archived` (the last
 * archived id). Any worker that reads a stream longer than 2 × CHUNK archives its oldest CHUNK
 * entries: the script appends the chunk only if `archived` is still the id the worker read it
 * after (two workers archiving at once: one wins, the other's chunk is dropped), then XTRIMs the
 * stream to after the chunk (MINID). A read is one script too (chunks after the reader's id and
 * the stream entries after them), so a trim between two round trips cannot skip entries.
 *
 * What it saves (bench/scorer-archive-bytes.ts on two real crawls' inputs): an archived page
 * costs Redis ~1.6 KB against ~18 KB as a stream entry (gzip of JSON full of similar URLs), and
 * the stream holds at most 2 × CHUNK entries. The archive itself is cut behind the scorer's
 * snapshot (./redis-scorer-state.ts): a read records its worker's position (`<stream>:cursors`),
 * and what every live worker has read and the snapshot covers is deleted (`<stream>:trimmed`:
 * the last id gone); a reader behind that id gets `TrimmedPastError` and restores the snapshot.
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import type { Redis } from 'ioredis';
import { SharedInputStream } from './redis-input-stream.js';

/** Entries per archived chunk. */
export const CHUNK = 500;
/** Stream entries, and archived chunks (~1 MB each), read per round trip: a late worker's replies stay small. */
const BATCH = 500;
const CHUNKS_PER_READ = 4;

const ID_CMP = `
local function parse(id) local ms, seq = string.match(id, '^(%d+)-(%d+)$'); if ms then return tonumber(ms), tonumber(seq) end; return tonumber(id) or 0, 0 end
local function after(a, b) local am, as = parse(a); local bm, bs = parse(b); return am > bm or (am == bm and as > bs) end
`;

/**
 * KEYS: stream, archive, ends, archived, cursors, cursors' times, trimmed, snapshot.
 * ARGV: reader's last id, count, most chunks, reader.
 * → [archived-or-0, chunks after the id, entries after them (none when the chunks were cut at the most), stream length,
 *    trimmed-or-0 (the reader is behind it: nothing else returned), [snapshot id, its bytes]].
 */
const READ = `${ID_CMP}
local from = ARGV[1]
local t = redis.call('TIME')
redis.call('HSET', KEYS[5], ARGV[4], from)
redis.call('HSET', KEYS[6], ARGV[4], tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000))
local trimmed = redis.call('GET', KEYS[7]) or '0'
local snap = redis.call('HMGET', KEYS[8], 'id', 'bytes')
if after(trimmed, from) then return { '0', {}, {}, 0, trimmed, snap } end
local ends = redis.call('LRANGE', KEYS[3], 0, -1)
local chunks = {}
local most = tonumber(ARGV[3])
for i = 1, #ends do
  if #chunks < most and after(ends[i], from) then table.insert(chunks, redis.call('LINDEX', KEYS[2], i - 1)) end
end
if #chunks == most then return { redis.call('GET', KEYS[4]) or '0', chunks, {}, redis.call('XLEN', KEYS[1]), trimmed, snap } end
if #ends > 0 and after(ends[#ends], from) then from = ends[#ends] end
local entries = redis.call('XRANGE', KEYS[1], '(' .. from, '+', 'COUNT', tonumber(ARGV[2]))
return { redis.call('GET', KEYS[4]) or '0', chunks, entries, redis.call('XLEN', KEYS[1]), trimmed, snap }
`;

/** KEYS: stream, archive, ends, archived. ARGV: archived id the chunk follows, chunk's last id, chunk. → 1 appended, 0 someone else did. */
const ARCHIVE = `
if (redis.call('GET', KEYS[4]) or '0') ~= ARGV[1] then return 0 end
redis.call('RPUSH', KEYS[2], ARGV[3])
redis.call('RPUSH', KEYS[3], ARGV[2])
redis.call('SET', KEYS[4], ARGV[2])
local ms, seq = string.match(ARGV[2], '^(%d+)-(%d+)$')
redis.call('XTRIM', KEYS[1], 'MINID', ms .. '-' .. (tonumber(seq) + 1))
return 1
`;

type Entry = [id: string, fields: string[]];
type Commands = {
  fcPagesReadBuffer(...keysAndArgs: (string | number)[]): Promise<[Buffer, Buffer[], [Buffer, Buffer[]][], number, Buffer, [Buffer | null, Buffer | null]]>;
  fcPagesArchive(stream: string, archive: string, ends: string, archived: string, prev: string, last: string, chunk: Buffer): Promise<number>;
};

function commands(redis: Redis): Redis & Commands {
  const r = redis as Redis & Commands & { fcPagesArchive?: unknown };
  if (!r.fcPagesArchive) {
    redis.defineCommand('fcPagesRead', { numberOfKeys: 8, lua: READ });
    redis.defineCommand('fcPagesArchive', { numberOfKeys: 4, lua: ARCHIVE });
  }
  return r;
}

/** The inputs before `trimmed` are gone (./redis-scorer-state.ts cut them behind a snapshot) and this reader had not read them. */
export class TrimmedPastError extends Error {
  constructor(readonly trimmed: string) {
    super(`scorer inputs up to ${trimmed} were trimmed behind a snapshot before this worker read them`);
  }
}

/** Stream ids compared as Redis does (ms, then sequence). */
export function idAfter(a: string, b: string): boolean {
  const [am, as = 0] = a.split('-').map(Number);
  const [bm, bs = 0] = b.split('-').map(Number);
  return am > bm || (am === bm && as > bs);
}

/**
 * One worker's end of an archived input stream: `publish` its own inputs, `pull` the others'
 * since the last call (archived ones included), in stream order, each once; a SharedInputStream
 * whose reads take the archive first.
 */
export class ArchivedInputStream<T> extends SharedInputStream<T> {
  /** Chunks this worker archived (for tests and stats). */
  archivedChunks = 0;
  /** Its own inputs are returned too (after its scorer was restored from a snapshot that may lack some; the scorer skips pages it has). */
  includeOwn = false;
  /** Characters of input JSON read (others') or published (own): what a snapshot saves replaying. */
  inputChars = 0;
  /** The crawl's latest snapshot as of the last read: its id ('' none) and bytes. */
  snapshotSeen = { id: '', bytes: 0 };
  private readonly scripts: Redis & Commands;
  private readonly keys: string[];

  constructor(redis: Redis, key: string, workerId: string, revive: (raw: unknown) => T, private readonly chunk = CHUNK) {
    super(redis, key, workerId, revive);
    this.scripts = commands(redis);
    this.keys = [key, `${key}:archive`, `${key}:archive:ends`, `${key}:archived`, `${key}:cursors`, `${key}:cursors:at`, `${key}:trimmed`, `${key}:snapshot`];
  }

  /** The last stream id this worker has read (its scorer holds every input up to it); set after a snapshot is restored. */
  get position(): string {
    return this.lastId;
  }

  set position(id: string) {
    this.lastId = id;
  }

  override publish(input: T): Promise<unknown> {
    this.inputChars += JSON.stringify(input).length;
    return super.publish(input);
  }

  private take(out: T[], id: string, worker: string, input: string): void {
    if (!idAfter(id, this.lastId)) return;
    this.lastId = id;
    if (worker !== this.workerId || this.includeOwn) {
      out.push(this.revive(JSON.parse(input)));
      this.inputChars += input.length;
    }
  }

  protected override async read(): Promise<T[]> {
    const out: T[] = [];
    let length = 0;
    let archived = '0';
    for (;;) {
      const [arch, chunks, entries, len, trimmed, [snapId, snapBytes]] = await this.scripts.fcPagesReadBuffer(...this.keys, this.lastId, BATCH, CHUNKS_PER_READ, this.workerId);
      if (idAfter(trimmed.toString(), this.lastId)) throw new TrimmedPastError(trimmed.toString());
      this.snapshotSeen = { id: snapId?.toString() ?? '', bytes: Number(snapBytes ?? 0) };
      archived = arch.toString();
      length = Number(len);
      for (const c of chunks) for (const [id, w, p] of JSON.parse(gunzipSync(c).toString()) as [string, string, string][]) this.take(out, id, w, p);
      for (const [id, fields] of entries) {
        const f: Record<string, string> = {};
        for (let i = 0; i + 1 < fields.length; i += 2) f[fields[i].toString()] = fields[i + 1].toString();
        if (f.p) this.take(out, id.toString(), f.w, f.p);
      }
      if (entries.length < BATCH && chunks.length < CHUNKS_PER_READ) break;
    }
    this.replayed += out.length;
    if (length > 2 * this.chunk) await this.archive(archived);
    return out;
  }

  /** Move the oldest `chunk` entries after `archived` into the archive (unless another worker just did). */
  private async archive(archived: string): Promise<void> {
    const entries = (await this.redis.xrange(this.key, archived === '0' ? '-' : `(${archived}`, '+', 'COUNT', this.chunk)) as Entry[];
    if (entries.length < this.chunk) return;
    const rows = entries.map(([id, fields]) => {
      const f: Record<string, string> = {};
      for (let i = 0; i + 1 < fields.length; i += 2) f[fields[i]] = fields[i + 1];
      return [id, f.w, f.p];
    });
    const last = entries[entries.length - 1][0];
    if (await this.scripts.fcPagesArchive(...(this.keys.slice(0, 4) as [string, string, string, string]), archived, last, gzipSync(JSON.stringify(rows)))) this.archivedChunks++;
  }
}
