/**
 * One crawl per storage folder at a time. Two crawls (or a crawl and a `--resume` of it) on one
 * folder interleave their logs, journals and numbered dataset files; the second one now stops
 * with one line naming the first. The lock is `proper-lockfile`'s (an mkdir lock refreshed while
 * held); inside it a small JSON file says who holds it (inside, so it can never describe an
 * older lock). A holder killed with -9 leaves a lock
 * whose process is gone: that one is taken over at once (same host), so `--resume` right after a
 * crash works; a live holder is never overridden.
 */
import { accessSync, constants, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import lockfile from 'proper-lockfile';
import { UserError } from '../config/errors.js';

export interface LockHolder {
  pid: number;
  host: string;
  startedAt: string;
  runId?: string;
  command: string;
}

/** A one-line UserError when the folder cannot be a storage folder (a file, read-only, …). */
export function checkStorageWritable(dir: string, what = '--storage'): void {
  if (existsSync(dir) && !statSync(dir).isDirectory()) throw new UserError(`${what} ${dir}: is a file, not a folder`);
  try {
    makeFolders(dir);
    accessSync(dir, constants.W_OK);
    const probe = join(dir, `.write-test-${process.pid}`);
    writeFileSync(probe, '');
    rmSync(probe);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === 'EROFS' ? 'read-only file system' : code === 'EACCES' || code === 'EPERM' ? 'not writable' : code === 'ENOTDIR' ? 'a path through a file' : code === 'ENOENT' ? 'no folder can be made there' : (code ?? (e as Error).message);
    throw new UserError(`${what} ${dir}: cannot write there (${why}); choose another folder with --storage DIR`);
  }
}

/**
 * `mkdir -p`, one level at a time: Node 20's recursive mkdirSync never returns under /proc
 * (`--storage /proc/x` hung with no output), and a level-by-level walk fails with the real
 * error at the first level that cannot be made.
 */
function makeFolders(dir: string): void {
  const missing: string[] = [];
  for (let d = resolve(dir); !existsSync(d); d = dirname(d)) {
    missing.unshift(d);
    if (dirname(d) === d) break;
  }
  for (const d of missing) {
    try {
      mkdirSync(d);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function describe(h: LockHolder | undefined): string {
  if (!h) return 'another process';
  return `process ${h.pid}${h.host !== hostname() ? ` on ${h.host}` : ''}${h.runId ? ` (run ${h.runId})` : ''}, started ${h.startedAt}: ${h.command}`;
}

/**
 * Throw the "in use" UserError now when a live crawl holds the folder (what lockStorage would
 * say later): the demo asks before it starts its test web. Taking the lock stays lockStorage's.
 */
export function checkStorageFree(dir: string): void {
  const lockPath = join(dir, 'crawl.lock');
  if (!existsSync(lockPath)) return;
  let h: LockHolder | undefined;
  try {
    h = JSON.parse(readFileSync(join(lockPath, 'holder.json'), 'utf8')) as LockHolder;
  } catch {
    return; // being taken or released right now: lockStorage decides
  }
  if (h.host === hostname() && !alive(h.pid)) return; // a crashed holder: lockStorage takes it over
  throw new UserError(`storage folder ${dir} is in use by ${describe(h)}; wait for it to finish, stop it, or use another --storage`);
}

/**
 * Take the storage folder's lock or throw a UserError naming the holder. Returns the release
 * function (also run on process exit).
 */
export async function lockStorage(dir: string, info: { runId?: string } = {}): Promise<() => Promise<void>> {
  checkStorageWritable(dir);
  const lockPath = join(dir, 'crawl.lock');
  const holderPath = join(lockPath, 'holder.json');
  const readHolder = (): LockHolder | undefined => {
    try {
      return JSON.parse(readFileSync(holderPath, 'utf8')) as LockHolder;
    } catch {
      return undefined;
    }
  };
  // stale: never let proper-lockfile remove a lock by age itself (it cannot remove a non-empty
  // lock folder); the holder check below decides.
  const take = () => lockfile.lock(dir, { lockfilePath: lockPath, stale: 60_000, update: 5_000, realpath: false, onCompromised: () => undefined });
  let release: () => Promise<void>;
  try {
    release = await take();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ELOCKED') throw e;
    const h = readHolder();
    // A holder killed with -9 on this machine, or a lock nobody refreshed for a minute: ours to take.
    let age = 0;
    try {
      age = Date.now() - statSync(lockPath).mtimeMs;
    } catch {
      // gone meanwhile
    }
    if ((h && h.host === hostname() && !alive(h.pid)) || age > 60_000) {
      rmSync(lockPath, { recursive: true, force: true });
      release = await take();
    } else {
      throw new UserError(`storage folder ${dir} is in use by ${describe(h)}; wait for it to finish, stop it, or use another --storage`);
    }
  }
  const holder: LockHolder = { pid: process.pid, host: hostname(), startedAt: new Date().toISOString(), runId: info.runId, command: process.argv.slice(1).join(' ').slice(0, 300) };
  writeFileSync(holderPath, JSON.stringify(holder));
  let released = false;
  const onExit = () => {
    if (!released) rmSync(lockPath, { recursive: true, force: true });
  };
  process.once('exit', onExit);
  return async () => {
    if (released) return;
    released = true;
    process.off('exit', onExit);
    rmSync(holderPath, { force: true });
    await release().catch(() => rmSync(lockPath, { recursive: true, force: true }));
  };
}
