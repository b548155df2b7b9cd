/**
 * The page judge's state across `--resume`: a resumed crawl judges the pages after
 * the stop with the IDF, seed sets, term models, classifiers and harvest sample it had, as an
 * uninterrupted crawl would (rebuilding the judge from scratch changed every later verdict).
 *
 * Files in the run folder, like the frontier's (src/frontier/journal.ts):
 *   judge-snapshot.json   the judge's whole learned state (PageJudge.state()) after input `seq`
 *                         (temp file + rename: atomic)
 *   judge-inputs.jsonl    every input after the snapshot (a page's TF, a never-relevant page, a
 *                         user's negative page or label), numbered, written synchronously before the judge
 *                         learns from it: after kill -9 nothing judged is lost.
 * A snapshot is written once the inputs since the last one outweigh it (so writing costs at
 * most twice the inputs, and a resume replays at most a snapshot's worth), then the inputs file
 * starts again; a crash between the two leaves inputs the snapshot covers, skipped by `seq`.
 */
import { closeSync, existsSync, ftruncateSync, openSync, readFileSync, renameSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { readJsonLines } from '../store/jsonl.js';
import type { JudgedPage, JudgeState, PageJudge } from './judge.js';

export const JUDGE_FILES = { snapshot: 'judge-snapshot.json', inputs: 'judge-inputs.jsonl' } as const;

/** Below this the inputs are never compacted (a snapshot's fixed cost is the IDF table). */
const MIN_COMPACT_BYTES = 1 << 20;

type Sparse = [string, number][];
type InputRecord = { seq: number } & (Omit<Extract<JudgedPage, { kind: 'page' | 'negative' | 'label' }>, 'tf'> & { tf: Sparse } | Extract<JudgedPage, { kind: 'never' }>);

interface SnapshotFile {
  version: 1;
  seq: number;
  state: JudgeState;
}

const toRecord = (input: JudgedPage, seq: number): InputRecord =>
  input.kind === 'never' ? { ...input, seq } : ({ ...input, tf: [...input.tf], seq } as InputRecord);
const fromRecord = (r: InputRecord): JudgedPage => {
  const { seq: _seq, ...rest } = r;
  return rest.kind === 'never' ? rest : ({ ...rest, tf: new Map(rest.tf) } as JudgedPage);
};

export class JudgeJournal {
  private fd: number;
  private seq: number;
  private bytes = 0;
  private snapshotBytes = 0;

  /**
   * Opens the inputs file and logs every input `judge` learns from from now on; `minCompactBytes`:
   * inputs below this size are never compacted into a snapshot (default 1 MiB).
   */
  constructor(readonly dir: string, private readonly judge: PageJudge, seq = 0, private readonly minCompactBytes = MIN_COMPACT_BYTES) {
    this.seq = seq;
    const path = join(dir, JUDGE_FILES.inputs);
    this.fd = openSync(path, 'a');
    this.bytes = statSync(path).size;
    const sp = join(dir, JUDGE_FILES.snapshot);
    this.snapshotBytes = existsSync(sp) ? statSync(sp).size : 0;
    judge.onInput = (input) => this.append(input);
  }

  /**
   * `--resume`: the judge as it was at the stop: the snapshot, then the inputs after it, in the
   * order judged; an input whose page is not in the crawl log (`fetched` says no) was lost with
   * the crash and is fetched, and judged, again. Returns the journal to continue with (a fresh
   * snapshot is written at once, so those lost inputs never come back), or undefined when the
   * run has no judge state (a run from before the journal: the judge starts afresh).
   */
  static resume(dir: string, judge: PageJudge, fetched: (key: string) => boolean): JudgeJournal | undefined {
    const sp = join(dir, JUDGE_FILES.snapshot);
    const snapshot = existsSync(sp) ? (JSON.parse(readFileSync(sp, 'utf8')) as SnapshotFile) : undefined;
    const records = readJsonLines<InputRecord>(join(dir, JUDGE_FILES.inputs));
    if (!snapshot && records.length === 0) return undefined;
    if (snapshot) judge.restore(snapshot.state);
    let seq = snapshot?.seq ?? 0;
    for (const r of records) {
      if (r.seq <= seq) continue; // covered by the snapshot (a crash right after it)
      seq = r.seq;
      if ('key' in r && r.key !== undefined && !fetched(r.key)) continue;
      judge.replay(fromRecord(r));
    }
    const journal = new JudgeJournal(dir, judge, seq);
    journal.snapshot();
    return journal;
  }

  private append(input: JudgedPage): void {
    // The judge has learned from every input so far: a snapshot now covers exactly 1..seq.
    if (this.bytes >= Math.max(this.minCompactBytes, this.snapshotBytes)) this.snapshot();
    const line = JSON.stringify(toRecord(input, ++this.seq)) + '\n';
    writeSync(this.fd, line);
    this.bytes += Buffer.byteLength(line);
  }

  /** Write the judge's state atomically, then empty the inputs file. */
  snapshot(): void {
    const path = join(this.dir, JUDGE_FILES.snapshot);
    const tmp = `${path}.tmp`;
    const fd = openSync(tmp, 'w');
    const file: SnapshotFile = { version: 1, seq: this.seq, state: this.judge.state() };
    writeSync(fd, JSON.stringify(file));
    closeSync(fd);
    renameSync(tmp, path);
    this.snapshotBytes = statSync(path).size;
    ftruncateSync(this.fd, 0);
    this.bytes = 0;
  }

  close(): void {
    if (this.fd >= 0) closeSync(this.fd);
    this.fd = -1;
    this.judge.onInput = undefined;
  }
}
