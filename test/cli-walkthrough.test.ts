/**
 * The CLI as a new user meets it (`npm start -- …` run the way a user does): bad storage paths
 * fail at once, whole-number flags say what they want, the subcommands answer, the demo gives the
 * same crawl twice, a Ctrl-C passed on twice still stops cleanly and names --resume, and a storage
 * folder in use is said before the demo starts its test web.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { lockStorage } from '../src/store/storage-lock.js';

const root = join(import.meta.dirname, '..');
const tmp = mkdtempSync(join(tmpdir(), 'cli-walkthrough-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/**
 * `npm start -- ARGS` (tsx on the CLI entry), resolved when the process exits. The kill timer is
 * only a hang guard, far above what a command needs: on a loaded 2-core machine four of these
 * starting at once took 100 s to print one line each, so the guard and the tests' limits leave
 * several times that.
 */
const GUARD = 840_000;
const LIMIT = 900_000;
function cli(args: string[], timeoutMs = GUARD): Promise<{ code: number | string; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', join(root, 'src/cli/main.ts'), ...args], { cwd: root, timeout: timeoutMs, killSignal: 'SIGKILL' }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? (err as { signal?: string }).signal ?? 1) : 0, stdout, stderr }),
    );
  });
}

function oneLine(r: { code: number | string; stderr: string }, pattern: RegExp) {
  expect(r.code, r.stderr).toBe(2);
  expect(r.stderr).toMatch(pattern);
  expect(r.stderr.trim().split('\n')).toHaveLength(1);
}

describe('a storage folder that cannot be made fails at once, in one line', () => {
  it('--storage under /proc: the demo, --report and --json', async () => {
    const [demo, report, json] = await Promise.all([
      cli(['--storage', '/proc/forbidden']),
      cli(['--storage', '/proc/forbidden', '--report']),
      cli(['--storage', '/proc/forbidden', '--json']),
    ]);
    for (const r of [demo, report, json]) oneLine(r, /--storage \/proc\/forbidden: cannot write there/);
  }, LIMIT);
});

describe('whole-number flags say what they accept', () => {
  it('--max-pages -5 must be a positive whole number; --delay -1 a whole number, 0 or more', async () => {
    const [pages, delay] = await Promise.all([cli(['--max-pages', '-5']), cli(['--delay', '-1'])]);
    oneLine(pages, /--max-pages must be a positive whole number, got "-5"/);
    oneLine(delay, /--delay must be a whole number, 0 or more, got "-1"/);
  }, LIMIT);
});

describe('subcommands: extract, debug-extract, trace, report', () => {
  it('--help names them; extract FILE and report run through the main command', async () => {
    const page = join(tmp, 'page.html');
    writeFileSync(page, '<html><head><title>地震救援</title></head><body><article><h1>地震救援</h1><p>救援队伍抵达灾区。</p></article></body></html>');
    const [help, extract, report, debugHelp] = await Promise.all([
      cli(['--help']),
      cli(['extract', page, '--json']),
      cli(['report', '--storage', join(tmp, 'empty')]),
      cli(['debug-extract', '--help']),
    ]);
    expect(help.code).toBe(0);
    for (const sub of ['extract URL|FILE…', 'debug-extract URL', 'trace FILE', 'report [RUN_ID]']) expect(help.stdout).toContain(`npm start -- ${sub}`);
    expect(help.stdout).toContain('npm start -s -- --json');
    expect(extract.code, extract.stderr).toBe(0);
    expect((JSON.parse(extract.stdout) as { analysis: { title: string } }[])[0].analysis.title).toBe('地震救援');
    oneLine(report, /no crawl runs in .*empty\/runs yet/);
    expect(debugHelp.code).toBe(0);
    expect(debugHelp.stdout).toContain('Usage: npm run debug:extract --');
  }, LIMIT);

  it('the built bin names itself: focused-crawler SUB in help and printed commands', async () => {
    const { commandName } = await import('../src/util/command-name.js');
    expect(commandName('extract', true)).toBe('focused-crawler extract');
    expect(commandName('trace', true)).toBe('focused-crawler trace');
    expect(commandName(undefined, true)).toBe('focused-crawler');
    expect(commandName('debug-extract', false)).toBe('npm run debug:extract --');
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { bin: Record<string, string>; scripts: Record<string, string> };
    expect(pkg.bin['focused-crawler']).toBe('dist/cli/main.js');
    for (const s of ['extract', 'debug:extract', 'trace']) expect(pkg.scripts[s]).toBeDefined();
  });
});

describe('the demo gives the same answer twice', () => {
  /** The crawl log as URL and decision, each test-web origin named by its address alone (its port is new every run). */
  const order = (logPath: string) =>
    readFileSync(logPath, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { url: string; decision: string })
      .map((e) => `${e.url.replace(/^http:\/\/(127\.\d+\.\d+\.\d+):\d+/, '$1')} ${e.decision}`);

  it('two runs of `npm start -- --max-pages 20`: the same pages in the same order, the same counts, truth and estimate', async () => {
    type Printed = { logPath: string; counts: Record<string, unknown>; truthHarvestRate: number; harvestEstimate: unknown; truthCurve: number[] };
    const runs: Printed[] = [];
    for (const i of [1, 2]) {
      const r = await cli(['--max-pages', '20', '--storage', join(tmp, `demo-${i}`), '--json']);
      expect(r.code, r.stderr).toBe(0);
      runs.push(JSON.parse(r.stdout) as Printed);
    }
    const [a, b] = runs;
    expect(order(a.logPath)).toHaveLength(20);
    expect(order(b.logPath)).toEqual(order(a.logPath));
    expect(b.counts).toEqual(a.counts);
    expect(b.truthHarvestRate).toBe(a.truthHarvestRate);
    expect(b.truthCurve).toEqual(a.truthCurve);
    expect(b.harvestEstimate).toEqual(a.harvestEstimate);
  }, 2 * LIMIT);
});

describe('Ctrl-C on `npm start`', () => {
  it('to the whole process group, and again while it stops: a clean stop, the summary, and the --resume command', async () => {
    const storage = join(tmp, 'ctrl-c');
    // `npm start` in a process group of its own; the group is signalled as a terminal's Ctrl-C does.
    const child = spawn('npm', ['start', '-s', '--', '--max-pages', '400', '--storage', storage], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const ctrlC = () => process.kill(-child.pid!, 'SIGINT');
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    let exitCode: number | null | undefined;
    const exited = new Promise<number | null>((res) => child.on('close', (code) => res((exitCode = code))));
    const logged = () => {
      const runs = existsSync(join(storage, 'runs')) ? readdirSync(join(storage, 'runs')) : [];
      const log = runs.length ? join(storage, 'runs', runs[0], 'crawl-log.jsonl') : '';
      return log && existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean).length : 0;
    };
    // The condition: a few pages crawled (or the process gone, which the expectations below report).
    while (exitCode === undefined && logged() < 3) await new Promise((r) => setTimeout(r, 200));
    expect(exitCode, err).toBeUndefined();
    ctrlC();
    // Taken (the crawl says it is stopping): now a copy, as a wrapper passes one on late.
    while (exitCode === undefined && !err.includes('Ctrl-C: stopping after the pages in flight')) await new Promise((r) => setTimeout(r, 100));
    ctrlC();
    // npm itself ends on the signal; the crawl (its child) finishes the stop and prints to the
    // pipes, which close when it exits.
    await exited;
    expect(out, err).toMatch(/stopped\s+interrupted \(Ctrl-C\)/);
    const runId = readdirSync(join(storage, 'runs'))[0];
    expect(err).toContain(`Continue it with:  npm start -- --resume ${runId} --storage ${storage}`);
    const state = JSON.parse(readFileSync(join(storage, 'runs', runId, 'state.json'), 'utf8')) as { status: string };
    expect(state.status).toBe('interrupted');
  }, LIMIT);
});

describe('a storage folder in use', () => {
  it('is said before the demo starts its test web', async () => {
    const storage = join(tmp, 'locked');
    const unlock = await lockStorage(storage, { runId: 'held' });
    try {
      const r = await cli(['--storage', storage, '--max-pages', '5']);
      oneLine(r, /storage folder .*locked is in use by process \d+/);
      expect(r.stderr).not.toContain('Started the local test web');
    } finally {
      await unlock();
    }
  }, LIMIT);
});
