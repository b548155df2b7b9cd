/**
 * `npm run trace -- FILE` (also `npm start -- trace FILE`): open a Playwright trace of a crawled
 * page in Playwright's trace viewer, shown in the crawler's own browser. `npx playwright
 * show-trace FILE` alone launches Playwright's downloaded browser, which this project never
 * installs; so we serve the viewer on loopback (`show-trace -h 127.0.0.1 -p PORT`) and open its
 * address in the browser the crawler resolves (--browser, CHROMIUM_PATH, /usr/bin/chromium).
 * Without a display it prints the address to open elsewhere. Runs until Ctrl-C or the window closes.
 */
import { commandName } from '../util/command-name.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, openSync, readSync, closeSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { UserError } from '../config/errors.js';
import { CHROMIUM_ARGS, resolveBrowser } from '../fetch/browser.js';
import { parseCommandLine, reportUserErrors, runAsMain } from './run.js';

/** A trace zip: exists, and starts with the zip signature. */
export function checkTraceFile(file: string): string {
  const path = resolve(file);
  if (!existsSync(path) || !statSync(path).isFile()) throw new UserError(`trace file ${file}: no such file (traces are under storage/traces/ after a crawl with --trace)`);
  const fd = openSync(path, 'r');
  const head = Buffer.alloc(4);
  readSync(fd, head, 0, 4, 0);
  closeSync(fd);
  if (head.readUInt32LE(0) !== 0x04034b50) throw new UserError(`trace file ${file}: not a Playwright trace (expected a .zip)`);
  return path;
}

/** Start Playwright's trace viewer server on loopback; resolves with its address once it listens. */
export function serveTrace(path: string, port = 0): Promise<{ url: string; child: ChildProcess }> {
  // The package's bin (cli.js beside package.json; not an exported subpath).
  const cli = join(dirname(createRequire(import.meta.url).resolve('playwright/package.json')), 'cli.js');
  const child = spawn(process.execPath, [cli, 'show-trace', '-h', '127.0.0.1', '-p', String(port), path], { stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolveUrl, reject) => {
    let out = '';
    let err = '';
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /Listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        child.stdout?.off('data', onData);
        resolveUrl({ url: m[1], child });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
    child.on('exit', (code) => reject(new UserError(`the trace viewer stopped before it served (exit ${code}): ${err.trim().split('\n')[0] ?? ''}`)));
  });
}

function portArg(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError(`--port must be 0–65535, got "${v}"`);
  return n;
}

export async function main(argv: string[]): Promise<number> {
  const program = new Command()
    .name(commandName('trace'))
    .description("Open a Playwright trace (storage/traces/*.zip) in Playwright's trace viewer, shown in the crawler's browser.")
    .argument('<file>', 'trace zip')
    .option('-p, --port <n>', 'port of the viewer on 127.0.0.1 (0 = any free port)', portArg, 0)
    .option('--browser <path>', 'Chromium/Chrome executable (default: CHROMIUM_PATH, then /usr/bin/chromium)')
    .option('--no-open', 'only serve the viewer and print its address');
  const ended = parseCommandLine(program, argv);
  if (ended !== undefined) return ended;
  const opts = program.opts<{ port: number; browser?: string; open: boolean }>();
  return reportUserErrors(async () => {
    const path = checkTraceFile(program.args[0]);
    // Resolved before the server starts: a missing browser is one line, not a stray server.
    const loc = opts.open ? await resolveBrowser(opts.browser) : undefined;
    // Playwright's own download (source 'playwright') has no path of ours to start by hand.
    const browser = loc ? { path: loc.executablePath ?? (await import('playwright')).chromium.executablePath() } : undefined;
    const { url, child } = await serveTrace(path, opts.port);
    console.log(`Trace viewer: ${url}`);
    const stop = () => child.kill('SIGTERM');
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    let window: ChildProcess | undefined;
    if (browser && !process.env.DISPLAY && process.platform === 'linux') {
      console.log(`No display ($DISPLAY is not set): open the address above in a browser, or run under one (xvfb-run -a ${commandName('trace')} FILE). Ctrl-C stops the viewer.`);
    } else if (browser) {
      const profile = mkdtempSync(join(tmpdir(), 'fc-trace-viewer-'));
      window = spawn(browser.path, [...CHROMIUM_ARGS, `--user-data-dir=${profile}`, `--app=${url}`], { stdio: 'ignore' });
      window.on('exit', stop);
      window.on('error', (e) => {
        console.log(`could not start ${browser.path}: ${e.message}; open the address above in a browser`);
      });
      console.log(`Opened in ${browser.path}; close the window or press Ctrl-C to stop.`);
    } else {
      console.log('Open the address above in a browser; Ctrl-C stops the viewer.');
    }
    await new Promise((r) => child.on('exit', r));
    window?.kill('SIGTERM');
    return 0;
  });
}

runAsMain(import.meta.url, main);
