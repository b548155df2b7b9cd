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
 * the stream holds at most 2 × CHUNK entries. What it does not: a late worker still replays every
 * page (a snapshot of the scorer's state would need state()/restore() across src/score), and the
 * archive grows with the crawl.
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
 * KEYS: stream, archive, ends, archived. ARGV: reader's last id, count, most chunks.
 * → [archived-or-0, chunks after the id, entries after them (none when the chunks were cut at the most), stream length].
 */
const READ = `${ID_CMP}
local from = ARGV[1]
local ends = redis.call('LRANGE', KEYS[3], 0, -1)
local chunks = {}
local most = tonumber(ARGV[3])
for i = 1, #ends do
  if #chunks < most and after(ends[i], from) then table.insert(chunks, redis.call('LINDEX', KEYS[2], i - 1)) end
end
if #chunks == most then return { redis.call('GET', KEYS[4]) or '0', chunks, {}, redis.call('XLEN', KEYS[1]) } end
if #ends > 0 and after(ends[#ends], from) then from = ends[#ends] end
local entries = redis.call('XRANGE', KEYS[1], '(' .. from, '+', 'COUNT', tonumber(ARGV[2]))
return { redis.call('GET', KEYS[4]) or '0', chunks, entries, redis.call('XLEN', KEYS[1]) }
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
  fcPagesReadBuffer(stream: string, archive: string, ends: string, archived: string, from: string, count: number, most: number): Promise<[Buffer, Buffer[], [Buffer, Buffer[]][], number]>;
  fcPagesArchive(stream: string, archive: string, ends: string, archived: string, prev: string, last: string, chunk: Buffer): Promise<number>;
};

function commands(redis: Redis): Redis & Commands {
  const r = redis as Redis & Commands & { fcPagesArchive?: unknown };
  if (!r.fcPagesArchive) {
    redis.defineCommand('fcPagesRead', { numberOfKeys: 4, lua: READ });
    redis.defineCommand('fcPagesArchive', { numberOfKeys: 4, lua: ARCHIVE });
  }
  return r;
}

/** Stream ids compared as Redis does (ms, then sequence). */
function idAfter(a: string, b: string): boolean {
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
  private readonly scripts: Redis & Commands;
  private readonly keys: [string, string, string, string];

  constructor(redis: Redis, key: string, workerId: string, revive: (raw: unknown) => T, private readonly chunk = CHUNK) {
    super(redis, key, workerId, revive);
    this.scripts = commands(redis);
    this.keys = [key, `${key}:archive`, `${key}:archive:ends`, `${key}:archived`];
  }

  private take(out: T[], id: string, worker: string, input: string): void {
    if (!idAfter(id, this.lastId)) return;
    this.lastId = id;
    if (worker !== this.workerId) out.push(this.revive(JSON.parse(input)));
  }

  protected override async read(): Promise<T[]> {
    const out: T[] = [];
    let length = 0;
    let archived = '0';
    for (;;) {
      const [arch, chunks, entries, len] = await this.scripts.fcPagesReadBuffer(...this.keys, this.lastId, BATCH, CHUNKS_PER_READ);
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
    if (await this.scripts.fcPagesArchive(...this.keys, archived, last, gzipSync(JSON.stringify(rows)))) this.archivedChunks++;
  }
}
