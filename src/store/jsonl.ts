/**
 * Append-only JSON Lines files written synchronously, one record per line: a crash (even
 * kill -9) loses at most the line being written, and reading skips that torn line.
 */
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

export class JsonLinesWriter<T> {
  private fd: number;
  constructor(readonly path: string) {
    mkdirSync(dirname(path), { recursive: true });
    this.fd = openSync(path, 'a');
  }

  append(record: T): void {
    writeSync(this.fd, JSON.stringify(record) + '\n');
  }

  close(): void {
    if (this.fd >= 0) closeSync(this.fd);
    this.fd = -1;
  }
}

/** Every complete record of a JSON Lines file (none when it does not exist). */
export function readJsonLines<T>(path: string, revive: (record: T) => T = (r) => r): T[] {
  if (!existsSync(path)) return [];
  const out: T[] = [];
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (!line) continue;
    try {
      out.push(revive(JSON.parse(line) as T));
    } catch {
      // torn line from a crash: ignore
    }
  }
  return out;
}
