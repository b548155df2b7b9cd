/**
 * `npm run trace -- FILE` / `npm start -- trace FILE`: Playwright's trace viewer served on
 * loopback and shown in the crawler's own browser (never Playwright's download). A real trace of
 * a loopback page is opened in the viewer in headless Chromium; the window path is checked with a
 * stand-in browser that records how it was started.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_ARGS } from '../src/fetch/browser.js';

const root = join(import.meta.dirname, '..');
const dir = mkdtempSync(join(tmpdir(), 'fc-trace-cli-'));
const trace = join(dir, 'page.zip');
const children: ChildProcess[] = [];

beforeAll(async () => {
  const srv = http.createServer((_q, res) => res.end('<html><head><title>追踪页面</title></head><body><h1>trace me</h1></body></html>'));
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
  const context = await browser.newContext();
  await context.tracing.start({ screenshots: true, snapshots: true });
  const page = await context.newPage();
  await page.goto(`http://127.0.0.1:${(srv.address() as { port: number }).port}/traced-page.html`);
  await context.tracing.stop({ path: trace });
  await browser.close();
  srv.close();
}, 120_000);

afterAll(() => {
  for (const c of children) c.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
});

/** Start the trace command; resolves with its output once it printed the viewer's address. */
function startTrace(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<{ url: string; out: () => string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'src/cli/main.ts'), 'trace', ...args], { cwd: root, env });
  children.push(child);
  let out = '';
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /Trace viewer: (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m && /\n.*\n/.test(out.slice(out.indexOf('Trace viewer')))) resolve({ url: m[1], out: () => out, child });
    });
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('exit', (code) => reject(new Error(`trace exited ${code}: ${out}`)));
  });
}

describe('npm run trace', () => {
  it('serves the viewer on loopback; the trace opens in Chromium', async () => {
    const env = { ...process.env };
    delete env.DISPLAY;
    const { url, out } = await startTrace([trace], env);
    expect(out()).toMatch(/No display \(\$DISPLAY is not set\): open the address above in a browser/);
    const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
    try {
      const page = await browser.newPage();
      await page.goto(url);
      // The viewer lists the trace's navigation to the traced page.
      await page.getByText(/traced-page\.html/).first().waitFor({ timeout: 90_000 });
    } finally {
      await browser.close();
    }
  }, 180_000);

  it("opens the address in the crawler's browser when there is a display", async () => {
    const fake = join(dir, 'fake-chromium.sh');
    const record = join(dir, 'args.txt');
    // written aside and renamed: the test waits for the file, which must appear whole (clean-clone
    // CI: the shell's redirect created it empty and the test read it before printf wrote)
    writeFileSync(fake, `#!/bin/sh\nprintf '%s\\n' "$@" > ${record}.part && mv ${record}.part ${record}\nsleep 30\n`);
    chmodSync(fake, 0o755);
    const { url, child } = await startTrace([trace, '--browser', fake], { ...process.env, DISPLAY: ':99' });
    for (let i = 0; i < 600 && !existsSync(record); i++) await new Promise((r) => setTimeout(r, 100));
    const args = readFileSync(record, 'utf8').trim().split('\n');
    expect(args).toContain(`--app=${url}`);
    expect(args).toContain('--no-sandbox');
    child.kill('SIGINT');
  }, 120_000);

  it('a missing or non-zip file is one line', async () => {
    const run = (f: string) =>
      new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const c = spawn(process.execPath, ['--import', 'tsx', join(root, 'src/cli/trace.ts'), f], { cwd: root });
        let stderr = '';
        c.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        c.on('exit', (code) => resolve({ code, stderr }));
      });
    const missing = await run(join(dir, 'nope.zip'));
    expect(missing.code).toBe(2);
    expect(missing.stderr.trim()).toMatch(/^error: trace file .*nope\.zip: no such file/);
    writeFileSync(join(dir, 'text.zip'), 'not a zip');
    const bad = await run(join(dir, 'text.zip'));
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim()).toMatch(/^error: trace file .*text\.zip: not a Playwright trace/);
  }, 60_000);
});
