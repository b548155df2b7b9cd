/**
 * The package as its users get it: `npm pack` (which builds dist/ first, the prepack script),
 * the tarball installed into a copy of examples/testweb-crawl, the example run with plain Node
 * (no tsx) crawling the local test web through the API in Chromium (its stdout only its own
 * lines: the library prints nothing unasked), its types checked against
 * the tarball's declarations, and the `focused-crawler` bin: --help naming only its own
 * subcommands, and `focused-crawler extract FILE`.
 *
 * The install takes the tarball's dependencies from npm's cache where it can (`--prefer-offline`:
 * the cache is warm after `npm ci`), from the registry otherwise.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const repo = join(import.meta.dirname, '..');
const exampleSrc = join(repo, 'examples', 'testweb-crawl');
const tmp = mkdtempSync(join(tmpdir(), 'fc-package-'));
const example = join(tmp, 'example');
const storage = join(tmp, 'storage');
const env = { ...process.env, PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1', CRAWLEE_STORAGE_DIR: storage, npm_config_update_notifier: 'false' };
const LONG = 15 * 60_000;

describe('the packed package, installed into the example project', () => {
  let tarball: string;

  beforeAll(async () => {
    const packed = await run('npm', ['pack', '--pack-destination', tmp, '--json'], { cwd: repo, env, maxBuffer: 64 << 20, timeout: LONG });
    tarball = join(tmp, (JSON.parse(packed.stdout) as { filename: string }[])[0].filename);
    await run('mkdir', [example]);
    for (const f of readdirSync(exampleSrc)) if (f !== 'node_modules' && f !== 'storage') copyFileSync(join(exampleSrc, f), join(example, f));
    await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball], { cwd: example, env, maxBuffer: 64 << 20, timeout: LONG });
  }, LONG);

  // The example's install is a quarter of a gigabyte: not left in the temp folder after each run.
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it('ships the build and its declarations, not the sources or tests', () => {
    const installed = join(example, 'node_modules', 'focused-crawler');
    expect(existsSync(join(installed, 'dist', 'index.js'))).toBe(true);
    expect(existsSync(join(installed, 'dist', 'index.d.ts'))).toBe(true);
    expect(existsSync(join(installed, 'src'))).toBe(false);
    expect(existsSync(join(installed, 'test'))).toBe(false);
    // The test web ships (startTestWeb is public API); its test fixtures do not.
    expect(existsSync(join(installed, 'dist', 'testweb', 'index.js'))).toBe(true);
    for (const fixture of ['hostile', 'redis-server', 'wikispeedia', 'wikispeedia-fresh', 'university']) expect(existsSync(join(installed, 'dist', 'testweb', `${fixture}.js`)), fixture).toBe(false);
  });

  it('runs the example with plain Node: a crawl of the test web through the API, relevant pages iterated', async () => {
    const { stdout } = await run(process.execPath, ['crawl-testweb.js', '20'], { cwd: example, env, maxBuffer: 64 << 20, timeout: LONG });
    const ok = /^OK (\{.*\})$/m.exec(stdout);
    expect(ok, stdout).not.toBeNull();
    const summary = JSON.parse(ok![1]) as { fetched: number; relevant: number; trulyRelevant: number; runDir: string };
    expect(summary.fetched).toBe(20);
    expect(summary.relevant).toBeGreaterThan(0);
    expect(summary.trulyRelevant).toBeGreaterThanOrEqual(summary.relevant / 3);
    expect(stdout.match(/^relevant /gm)?.length).toBe(summary.relevant);
    // The library prints nothing of its own (no Crawlee log lines): stdout is the example's lines alone.
    const foreign = stdout.split('\n').filter((l) => l !== '' && !/^(relevant |fetched \d|OK \{)/.test(l));
    expect(foreign).toEqual([]);
    // CRAWLEE_STORAGE_DIR, as any Crawlee program honours it.
    expect(summary.runDir.startsWith(join(storage, 'runs'))).toBe(true);
  }, LONG);

  it('type-checks the example against the tarball\'s declarations', async () => {
    await run(process.execPath, [join(repo, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'jsconfig.json'], { cwd: example, env, timeout: LONG });
  }, LONG);

  it('installs the focused-crawler command: --help and --version', async () => {
    const help = await run('npx', ['--no', '--', 'focused-crawler', '--help'], { cwd: example, env, timeout: LONG });
    expect(help.stdout).toContain('Usage: focused-crawler [options]');
    expect(help.stdout).toContain('--max-pages');
    const version = await run('npx', ['--no', '--', 'focused-crawler', '--version'], { cwd: example, env, timeout: LONG });
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  }, LONG);

  it('the installed command names only what it has: its help says focused-crawler SUB, never an npm script of a clone', async () => {
    const help = await run('npx', ['--no', '--', 'focused-crawler', '--help'], { cwd: example, env, timeout: LONG });
    for (const sub of ['extract URL|FILE…', 'debug-extract URL', 'trace FILE', 'report [RUN_ID]']) expect(help.stdout).toContain(`focused-crawler ${sub}`);
    expect(help.stdout).toContain('xvfb-run -a focused-crawler --headed');
    expect(help.stdout).not.toMatch(/npm (run|start)/);
    for (const sub of ['extract', 'debug-extract', 'trace', 'report']) {
      const h = await run('npx', ['--no', '--', 'focused-crawler', sub, '--help'], { cwd: example, env, timeout: LONG });
      expect(h.stdout, sub).toContain(`Usage: focused-crawler ${sub}`);
      expect(h.stdout, sub).not.toMatch(/npm (run|start)/);
    }
  }, LONG);

  it('focused-crawler extract FILE reads a saved page', async () => {
    const page = join(tmp, 'saved.html');
    writeFileSync(page, '<html><head><title>地震救援</title></head><body><article><h1>地震救援</h1><p>救援队伍抵达灾区，搜救工作持续进行。</p></article></body></html>');
    const r = await run('npx', ['--no', '--', 'focused-crawler', 'extract', page, '--json'], { cwd: example, env, timeout: LONG, maxBuffer: 64 << 20 });
    expect((JSON.parse(r.stdout) as { analysis: { title: string } }[])[0].analysis.title).toBe('地震救援');
  }, LONG);
});
