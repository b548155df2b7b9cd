import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');

/** Run `npm start -- ARGS` the way a user does (tsx on the CLI entry), capturing everything. */
function cli(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', join(root, 'src/cli/main.ts'), ...args],
      { cwd: root, env: { ...process.env, ...env }, timeout: 60_000 },
      (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

function expectOneCleanError(r: { code: number; stderr: string }, pattern: RegExp) {
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(pattern);
  expect(r.stderr).not.toMatch(/\n\s+at .+\(.+:\d+:\d+\)/); // no stack trace
  expect(r.stderr.trim().split('\n').length).toBeLessThanOrEqual(2);
}

describe('CLI: user mistakes get one clear line, not a stack trace', () => {
  it('unknown flag', async () => {
    expectOneCleanError(await cli(['--frobnicate']), /unknown option '--frobnicate'/);
  });

  it('malformed seed URL', async () => {
    expectOneCleanError(await cli(['--topic', '地震', '--seeds', 'htp:/nope']), /seed "htp:\/nope" is not (a valid|an http)/);
  });

  it('malformed negative page URL', async () => {
    expectOneCleanError(await cli(['--topic', '地震', '--seeds', 'http://127.0.0.1:9/', '--negative', 'ftp://x/']), /negative page "ftp:\/\/x\/" is not an http\(s\) URL/);
  });

  it('empty topic', async () => {
    expectOneCleanError(await cli(['--topic', '  ', '--seeds', 'http://127.0.0.1:9/']), /topic is empty/);
  });

  it('unreachable seed', async () => {
    // A loopback port that was just free: connection refused, and no traffic leaves the machine.
    const port = await freePort();
    const r = await cli(['--topic', '地震', '--seeds', `http://127.0.0.1:${port}/`]);
    expectOneCleanError(r, new RegExp(`no seed is reachable: http://127\\.0\\.0\\.1:${port}/ \\(ECONNREFUSED\\)`));
  });

  it('bad numeric flag value', async () => {
    expectOneCleanError(await cli(['--topic', 'x', '--max-pages', 'many']), /--max-pages must be a positive whole number, got "many"/);
  });

  it('unknown strategy', async () => {
    expectOneCleanError(await cli(['--topic', 'x', '--seeds', 'http://127.0.0.1:9/', '--strategy', 'psychic']), /strategy/);
  });

  it('config file: unreadable, invalid YAML, schema violation', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fc-cli-'));
    expectOneCleanError(await cli(['--config', join(dir, 'missing.yaml')]), /cannot read config file .*missing\.yaml: ENOENT/);
    writeFileSync(join(dir, 'bad.yaml'), 'keywords: [a\n  b: c');
    expectOneCleanError(await cli(['--config', join(dir, 'bad.yaml')]), /bad\.yaml: not valid YAML/);
    writeFileSync(join(dir, 'schema.json'), JSON.stringify({ topics: [{ keywords: [], seeds: ['http://127.0.0.1:9/'] }] }));
    expectOneCleanError(await cli(['--config', join(dir, 'schema.json')]), /schema\.json: topics\.0\.keywords: a topic needs at least one keyword/);
  });

  it('missing browser says how to install one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fc-cli-'));
    const r = await cli(['--topic', 'x', '--seeds', 'http://127.0.0.1:9/', '--browser', join(dir, 'no-chromium')]);
    expectOneCleanError(r, /--browser .*no-chromium: no such file\. No Chromium found: install one with `apt-get install chromium`/);
    const env = await cli(['--topic', 'x', '--seeds', 'http://127.0.0.1:9/'], { CHROMIUM_PATH: join(dir, 'nope') });
    expectOneCleanError(env, /CHROMIUM_PATH=.*nope: no such file/);
  });

  it('an unknown --strategy in the demo fails before the test web starts', async () => {
    const r = await cli(['--strategy', 'psychic']);
    expectOneCleanError(r, /strategy: unknown strategy "psychic" \(bfs, best-first/);
    expect(r.stderr).not.toContain('Started the local test web');
  });

  it('--worker without a topic is one line, and no demo test web is started for it', async () => {
    const r = await cli(['--frontier', 'redis://127.0.0.1:1/0', '--crawl-id', 'x', '--worker']);
    expectOneCleanError(r, /--worker need the crawl's topic: give --topic/);
    expect(r.stdout + r.stderr).not.toContain('Started the local test web');
  });

  it('a bad --export format is one line', async () => {
    expectOneCleanError(await cli(['--export', 'xml']), /--export "xml": expected jsonl or csv/);
  });
});

describe('CLI: --help and --version', () => {
  it('--version prints the package version', async () => {
    const r = await cli(['--version']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version);
  });

  it('--help shows the defaults of the schema', async () => {
    const r = await cli(['--help']);
    expect(r.code).toBe(0);
    const help = r.stdout.replace(/\s+/g, ' ');
    expect(help).toContain('page budget (the frontier itself is never capped) (default 200)');
    expect(help).toContain('relevance threshold θ_page (0–1) (default 0.05)');
    expect(help).toMatch(/combined \(default combined\)/);
    expect(help).toContain('pages rendered at once (default 4)');
    expect(help).toContain('npm start -- trace FILE');
  });
});
