/**
 * The near-duplicate index across `--resume`: a resumed crawl still knows the texts
 * of the pages fetched before the stop, so an "only this author" view of a thread saved before
 * a crash is a near-duplicate after it, as in an uninterrupted crawl.
 *
 * File in the run folder: `near-duplicates.jsonl`, one sketch per remembered page
 * (src/text/near-duplicate.ts `encodeSketch`: its id, URL and bottom-k sample, ~1.4 KB),
 * appended synchronously when the index remembers the page, i.e. before the page's crawl-log
 * line: after kill -9 nothing remembered is lost. A sketch whose page is not in the crawl log
 * (remembered, then the crash) is skipped on resume: that page is fetched and checked again.
 * The file is bounded like the index: once it holds twice the index's page limit, it is
 * rewritten with the pages the index still remembers (temp file + rename: atomic).
 */
import { closeSync, existsSync, openSync, readdirSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { uniqueKeyOf } from '../frontier/url-key.js';
import { decodeSketch, encodeSketch, type NearDuplicateIndex, type PageSketch } from '../text/near-duplicate.js';

export const NEAR_DUPLICATE_FILE = 'near-duplicates.jsonl';

export class NearDuplicateJournal {
  private fd: number;
  private readonly path: string;

  /** Logs every page `index` remembers from now on; `lines`: sketches the file holds already. */
  constructor(dir: string, private readonly index: NearDuplicateIndex, private lines = 0) {
    this.path = join(dir, NEAR_DUPLICATE_FILE);
    this.fd = openSync(this.path, 'a');
    index.onRemember = (s) => this.append(s);
  }

  /**
   * `--resume`: the index as it was at the stop, from the file's sketches whose pages the crawl
   * log holds (`fetched(id)`), oldest first. A run from before this file: from the texts of the
   * pages it saved (`datasetDir`; the pages it only recorded are not known).
   */
  static resume(dir: string, index: NearDuplicateIndex, fetched: (id: string) => boolean, datasetDir?: string): NearDuplicateJournal {
    const path = join(dir, NEAR_DUPLICATE_FILE);
    let lines = 0;
    if (!existsSync(path) && datasetDir) for (const item of savedPages(datasetDir)) index.check(item.url, item.text, uniqueKeyOf(item.url));
    if (existsSync(path)) {
      for (const line of readFileSync(path, 'utf8').split('\n')) {
        if (!line) continue;
        let s: PageSketch;
        try {
          s = decodeSketch(line);
        } catch {
          continue; // a line torn by the crash
        }
        lines++;
        if (fetched(s.id)) index.add(s);
      }
    }
    const journal = new NearDuplicateJournal(dir, index, lines);
    // A torn last line would glue onto the next one: start the file again from what was read.
    journal.compact();
    return journal;
  }

  private append(s: PageSketch): void {
    // The index holds this page already: the rewrite includes it.
    if (this.lines >= 2 * Math.max(this.index.maxPages, 1)) return this.compact();
    writeSync(this.fd, `${encodeSketch(s)}\n`);
    this.lines++;
  }

  /** Rewrite the file with the pages the index remembers now. */
  compact(): void {
    const tmp = `${this.path}.tmp`;
    const fd = openSync(tmp, 'w');
    let lines = 0;
    for (const s of this.index.sketches()) {
      writeSync(fd, `${encodeSketch(s)}\n`);
      lines++;
    }
    closeSync(fd);
    renameSync(tmp, this.path);
    closeSync(this.fd);
    this.fd = openSync(this.path, 'a');
    this.lines = lines;
  }

  close(): void {
    if (this.fd >= 0) closeSync(this.fd);
    this.fd = -1;
    this.index.onRemember = undefined;
  }
}

/** A run's dataset items (one JSON file each, named in the order saved): URL and main text. */
function* savedPages(datasetDir: string): Generator<{ url: string; text: string }> {
  if (!existsSync(datasetDir)) return;
  for (const f of readdirSync(datasetDir).filter((f) => f.endsWith('.json')).sort()) {
    try {
      const item = JSON.parse(readFileSync(join(datasetDir, f), 'utf8')) as { url?: unknown; text?: unknown };
      if (typeof item.url === 'string' && typeof item.text === 'string') yield { url: item.url, text: item.text };
    } catch {
      // a file torn by the crash
    }
  }
}
