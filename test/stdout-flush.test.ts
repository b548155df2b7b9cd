/**
 * Commands that print results flush stdout before they exit: through a pipe whose reader is
 * slow, multi-megabyte `--json` output arrives whole (Node writes to pipes asynchronously, and
 * exiting early cut it off mid-string with exit code 0).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = new URL('..', import.meta.url).pathname;

/** Run a CLI with stdout on a pipe that is not read until the process exits (or 30 s pass). */
async function runSlowReader(args: string[]): Promise<{ code: number | null; stdout: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], { cwd: root, stdio: ['ignore', 'pipe', 'ignore'] });
  child.stdout.pause();
  const exited = new Promise<number | null>((ok) => child.on('exit', (c) => ok(c)));
  // Reading starts only when the process has exited, or (when it waits for the pipe, as it
  // should) after a while: either way what it wrote must all arrive.
  await Promise.race([exited, new Promise((ok) => setTimeout(ok, 30_000))]);
  const chunks: Buffer[] = [];
  child.stdout.on('data', (c: Buffer) => chunks.push(c));
  child.stdout.resume();
  await new Promise((ok) => child.stdout.on('close', ok));
  return { code: await exited, stdout: Buffer.concat(chunks).toString('utf8') };
}

describe('stdout through a pipe', () => {
  it('extract --json prints every byte of a multi-megabyte result before exiting', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fc-flush-'));
    // 2,000 links: the analysis takes no more from one page (src/extract/limits.ts), so each carries more text.
    const links = Array.from({ length: 2000 }, (_, i) => `<li><a href="http://news.example.cn/news/2008/05/${i}.html">第${i}条 汶川地震救援最新消息 ${'详'.repeat(200)}</a></li>`).join('');
    const file = join(dir, 'big.html');
    writeFileSync(file, `<!doctype html><html><head><meta charset="utf-8"><title>大页面</title></head><body><article><p>${'救援队伍迅速赶赴灾区。'.repeat(20_000)}</p></article><ul>${links}</ul></body></html>`);
    const r = await runSlowReader(['src/cli/extract.ts', '--json', file, file, file]);
    expect(r.stdout.length).toBeGreaterThan(3_000_000);
    const parsed = JSON.parse(r.stdout) as unknown[];
    expect(parsed).toHaveLength(3);
    expect(r.code).toBe(0);
  });

  it('a reader that stops early (| head -1) ends the command quietly, exit 0, no stack trace', async () => {
    const r = spawnSync('bash', ['-c', `set -o pipefail; "${process.execPath}" --import tsx src/cli/main.ts --help | head -1`], { cwd: root, encoding: 'utf8' });
    expect(r.stdout).toMatch(/^Usage: /);
    expect(r.stderr).not.toMatch(/EPIPE|at .*\.js:\d+/);
    expect(r.status).toBe(0);
  });
});
