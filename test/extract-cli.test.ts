import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const cli = (args: string[]) =>
  run(process.execPath, ['--import', 'tsx', 'src/cli/extract.ts', ...args], { cwd: new URL('..', import.meta.url).pathname })
    .then((r) => ({ code: 0, ...r }))
    .catch((e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }));

describe('npm run extract (no browser needed for files and bad input)', () => {
  it('analyses a saved .html file', async () => {
    const r = await cli(['test/fixtures/extract/relative-date.html']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('title:     突发：某地发生地震');
    expect(r.stdout).toMatch(/published: \S+\+08:00 \(from text: 3小时前\)/);
  });

  it('prints one clear line per bad input and exits 2, without a stack trace', async () => {
    const r = await cli(['missing.html', 'not a url', 'ftp://x.example/a', '--json']);
    expect(r.code).toBe(2);
    const out = JSON.parse(r.stdout) as { input: string; error: string }[];
    expect(out.map((o) => o.error)).toEqual([
      'missing.html: no such file',
      'not a url: not a URL or a local .html file',
      'ftp://x.example/a: only http(s) URLs or local .html files',
    ]);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('--base-url gives a saved page its real URL: links, URL date and lang follow it', async () => {
    const r = await cli(['test/fixtures/extract/url-date.html', '--json', '--base-url', 'https://news.example.cn/2008/0512/a.html']);
    expect(r.code).toBe(0);
    const [out] = JSON.parse(r.stdout) as { analysis: { url: string; lang?: string; publishTime?: string; publishTimeSource?: string } }[];
    expect(out!.analysis.url).toBe('https://news.example.cn/2008/0512/a.html');
    expect(out!.analysis.publishTime).toBe('2008-05-12');
    expect(out!.analysis.publishTimeSource).toBe('url');
    expect(out!.analysis.lang).toBe('zh');
    const bad = await cli(['test/fixtures/extract/url-date.html', '--base-url', 'file:///tmp/a.html']);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim()).toBe('error: --base-url file:///tmp/a.html: expected an http(s) URL (e.g. https://news.example.com/2024/05/a.html)');
  });

  it('rejects a bad --time-zone in one line', async () => {
    const r = await cli(['test/fixtures/extract/url-date.html', '--time-zone', 'Mars/Base']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe('error: --time-zone Mars/Base: not an IANA time zone (e.g. Asia/Shanghai)');
  });

  it('--json: publishTime is one ISO string, as in the dataset; its source beside it', async () => {
    const r = await cli(['test/fixtures/extract/relative-date.html', '--json']);
    expect(r.code).toBe(0);
    const [out] = JSON.parse(r.stdout) as { analysis: Record<string, unknown> }[];
    expect(out.analysis.publishTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d)?(\.\d+)?\+08:00$/);
    expect(out.analysis.publishTimeSource).toBe('text');
    expect(out.analysis.publishTimeRaw).toBe('3小时前');
  });

});
