/** Test helper: the CLI in a detached child process (its own process group, so a kill reaches Chromium too). */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = join(import.meta.dirname, '..', '..');

export function cliChild(cwd: string, args: string[], env?: Record<string, string>): ChildProcess {
  return spawn(process.execPath, ['--import', pathToFileURL(join(root, 'node_modules/tsx/dist/loader.mjs')).href, join(root, 'src/cli/main.ts'), ...args], { cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
}

/** Its exit code (null: killed by a signal) and everything it wrote. */
export function exited(p: ChildProcess): Promise<{ code: number | null; out: string }> {
  let out = '';
  p.stdout!.on('data', (d) => (out += d));
  p.stderr!.on('data', (d) => (out += d));
  return new Promise((r) => p.on('exit', (code) => r({ code, out })));
}

/** The folder of the first run under a storage folder (`storage/runs/ID`), once there is one. */
export function firstRunDir(storage: string): string | undefined {
  const runs = join(storage, 'runs');
  const ids = existsSync(runs) ? readdirSync(runs) : [];
  return ids.length ? join(runs, ids[0]) : undefined;
}

/** Lines in that run's crawl log so far (0 before it exists). */
export function crawlLogLines(storage: string): number {
  const d = firstRunDir(storage);
  const p = d && join(d, 'crawl-log.jsonl');
  return p && existsSync(p) ? readFileSync(p, 'utf8').split('\n').filter(Boolean).length : 0;
}
