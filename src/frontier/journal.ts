/**
 * Crash safety for the frontier: an append-only journal (JSONL) of frontier operations plus
 * compact snapshots. Writes are synchronous (like src/store/crawl-log.ts), so after `kill -9`
 * the files hold every operation flushed before the crash, at worst with a torn last line.
 *
 * Files in the run folder:
 *   frontier-snapshot.json   the whole frontier at one moment (temp file + rename: atomic)
 *   frontier-<gen>.jsonl     operations since snapshot <gen>; a new generation starts at
 *                            each snapshot, and the previous journal is deleted after it.
 */
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readdirSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { FrontierLog, FrontierOp, FrontierSnapshot, FrontierState } from './types.js';

export type { FrontierSnapshot, JournalOp } from './types.js';

const SNAPSHOT = 'frontier-snapshot.json';
const journalName = (gen: number) => `frontier-${gen}.jsonl`;

export class FrontierJournal implements FrontierLog {
  private fd = -1;
  private buf: string[] = [];
  private bufBytes = 0;
  private gen: number;
  /** Operations written since the last snapshot (drives compaction). */
  opsSinceSnapshot = 0;

  constructor(readonly dir: string, gen = 0) {
    mkdirSync(dir, { recursive: true });
    this.gen = gen;
    this.fd = openSync(join(dir, journalName(gen)), 'a');
  }

  write(op: FrontierOp): void {
    const line = JSON.stringify(op) + '\n';
    this.buf.push(line);
    this.bufBytes += line.length;
    this.opsSinceSnapshot++;
    if (this.bufBytes > 1 << 16) this.flush();
  }

  /** Write buffered operations (one write call). Called before anything that depends on them. */
  flush(): void {
    if (this.buf.length === 0 || this.fd < 0) return;
    writeSync(this.fd, this.buf.join(''));
    this.buf = [];
    this.bufBytes = 0;
  }

  /**
   * Write a snapshot atomically, then continue in a fresh journal generation. A crash between
   * the two leaves the snapshot (gen n+1) and no journal n+1: replay finds nothing to add.
   */
  snapshot(s: FrontierState): void {
    this.flush();
    const next = this.gen + 1;
    const tmp = join(this.dir, `${SNAPSHOT}.tmp`);
    const fd = openSync(tmp, 'w');
    // Written piecewise: a million-entry frontier is too big for one JSON.stringify string.
    const head = { version: 1, gen: next, sequence: s.sequence, revisitCount: s.revisitCount, handedOut: s.handedOut };
    writeSync(fd, JSON.stringify(head).slice(0, -1));
    for (const [name, arr] of [['entries', s.entries], ['inFlight', s.inFlight], ['seen', s.seen], ['dropped', s.dropped]] as const) {
      writeSync(fd, `,"${name}":[`);
      let chunk: string[] = [];
      (arr as unknown[]).forEach((v, i) => {
        chunk.push((i ? ',' : '') + JSON.stringify(v));
        if (chunk.length >= 10_000) {
          writeSync(fd, chunk.join(''));
          chunk = [];
        }
      });
      writeSync(fd, chunk.join('') + ']');
    }
    writeSync(fd, '}');
    closeSync(fd);
    renameSync(tmp, join(this.dir, SNAPSHOT));
    closeSync(this.fd);
    const old = join(this.dir, journalName(this.gen));
    this.gen = next;
    this.fd = openSync(join(this.dir, journalName(next)), 'a');
    if (existsSync(old)) unlinkSync(old);
    this.opsSinceSnapshot = 0;
  }

  close(): void {
    this.flush();
    if (this.fd >= 0) closeSync(this.fd);
    this.fd = -1;
  }

  get generation(): number {
    return this.gen;
  }

  /** Read the snapshot (if any) and the journal of its generation; torn lines are skipped. */
  static read(dir: string): { snapshot?: FrontierSnapshot; ops: FrontierOp[]; gen: number } {
    let snapshot: FrontierSnapshot | undefined;
    const sp = join(dir, SNAPSHOT);
    if (existsSync(sp)) snapshot = JSON.parse(readFileSync(sp, 'utf8')) as FrontierSnapshot;
    let gen = snapshot?.gen ?? 0;
    if (!snapshot && existsSync(dir)) {
      // No snapshot yet: the first journal generation present.
      const gens = readdirSync(dir)
        .map((f) => /^frontier-(\d+)\.jsonl$/.exec(f)?.[1])
        .filter((g): g is string => g !== undefined)
        .map(Number);
      if (gens.length) gen = Math.min(...gens);
    }
    const ops: FrontierOp[] = [];
    const jp = join(dir, journalName(gen));
    if (existsSync(jp)) {
      for (const line of readFileSync(jp, 'utf8').split('\n')) {
        if (!line) continue;
        try {
          ops.push(JSON.parse(line) as FrontierOp);
        } catch {
          // torn last line from a crash
        }
      }
    }
    return { snapshot, ops, gen };
  }
}
