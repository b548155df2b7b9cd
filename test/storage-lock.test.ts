/** One crawl per storage folder (src/store/storage-lock.ts), and storage mistakes as one line. */
import { execFile, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { UserError } from '../src/config/errors.js';
import { checkStorageWritable, lockStorage } from '../src/store/storage-lock.js';

const run = promisify(execFile);
const cli = (args: string[]) =>
  run(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { cwd: new URL('..', import.meta.url).pathname })
    .then((r) => ({ code: 0, ...r }))
    .catch((e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }));

describe('storage lock', () => {
  it('a second crawl on the folder stops with one line naming the first', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fc-lock-'));
    const release = await lockStorage(dir, { runId: 'first-run' });
    const err = await lockStorage(dir).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UserError);
    expect((err as Error).message).toContain(`process ${process.pid}`);
    expect((err as Error).message).toContain('first-run');
    expect((err as Error).message).not.toContain('\n');
    await release();
    const again = await lockStorage(dir);
    await again();
  });

  it('takes over the lock of a holder killed with -9', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fc-lock-'));
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString();
    mkdirSync(join(dir, 'crawl.lock'));
    writeFileSync(join(dir, 'crawl.lock', 'holder.json'), JSON.stringify({ pid: Number(dead), host: hostname(), startedAt: new Date().toISOString(), command: 'killed' }));
    const release = await lockStorage(dir);
    await release();
  });

  it('a file as the storage folder is one line', () => {
    const dir = mkdtempSync(join(tmpdir(), 'fc-lock-'));
    writeFileSync(join(dir, 'file'), 'x');
    expect(() => checkStorageWritable(join(dir, 'file'))).toThrow(/is a file, not a folder/);
    expect(() => checkStorageWritable(join(dir, 'file', 'below'))).toThrow(/cannot write there/);
  });

  it('the CLI answers a file --storage with one line and exit 2 for a crawl, --resume and --report', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fc-lock-'));
    const file = join(dir, 'file');
    writeFileSync(file, 'x');
    for (const args of [
      ['--topic', '地震', '--seeds', 'http://127.0.0.1:9/', '--storage', file],
      ['--resume', '--storage', file],
      ['--report', '--storage', file],
    ]) {
      const r = await cli(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
      expect(r.stderr).toMatch(/is a file, not a folder/);
    }
  });
});
