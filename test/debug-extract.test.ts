/**
 * `npm run debug:extract` end to end: headed Chromium under xvfb-run on a Discuz thread served
 * from loopback; the injected side panel lists what the extractor found.
 */
import { execFile } from 'node:child_process';
import http from 'node:http';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { JSDOM } from 'jsdom';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const html = readFileSync(join(import.meta.dirname, 'fixtures/replies/discuz.html'), 'utf8');
let srv: http.Server;
let url = '';
const dir = mkdtempSync(join(tmpdir(), 'fc-debug-'));

beforeAll(async () => {
  srv = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(html);
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  url = `http://127.0.0.1:${(srv.address() as { port: number }).port}/thread-88-1-1.html`;
});
afterAll(async () => {
  await new Promise<void>((r) => srv.close(() => r()));
  rmSync(dir, { recursive: true, force: true });
});

describe('debug:extract', () => {
  it('without a display: one line saying how, exit 2', async () => {
    const env = { ...process.env };
    delete env.DISPLAY;
    const err = await run('npx', ['tsx', 'src/cli/debug-extract.ts', url], { env }).catch((e: { code: number; stderr: string }) => e);
    expect((err as { code: number }).code).toBe(2);
    const lines = (err as { stderr: string }).stderr.split('\n').filter((l) => l.startsWith('error:'));
    expect(lines).toEqual([`error: debug:extract shows a browser window and $DISPLAY is not set: run it under a virtual display, e.g. xvfb-run -a npm run debug:extract -- ${url}`]);
  });

  it.skipIf(!existsSync('/usr/bin/xvfb-run'))('headed under xvfb-run: the panel lists title, time, links by priority and the reply posts', async () => {
    const panelFile = join(dir, 'panel.html');
    const shot = join(dir, 'shot.png');
    const { stdout } = await run('xvfb-run', ['-a', 'npx', 'tsx', 'src/cli/debug-extract.ts', url, '--topic', '路由器 信道', '--no-wait', '--save-panel', panelFile, '--screenshot', shot], { timeout: 90_000 });
    expect(stdout).toMatch(/main-text block outlined/);
    expect(stdout).toMatch(/reply thread discuz, id 88, 23 replies, 3 posts on this page/);
    expect(existsSync(shot)).toBe(true);
    const doc = new JSDOM(readFileSync(panelFile, 'utf8')).window.document;
    const field = (n: string) => doc.querySelector(`[data-field="${n}"]`)?.textContent?.trim();
    expect(field('title')).toBe('求助：路由器设置');
    expect(field('publishTime')).toMatch(/^2008-05-13T10:22:00\+08:00/);
    expect(field('matcher')).toBe('discuz');
    expect(field('replyCount')).toBe('23');
    expect(field('linkCount')).toBe('11');
    expect([...doc.querySelectorAll('[data-post] [data-author]')].map((e) => e.textContent)).toEqual(['老张', '小李', '王工']);
    // Links listed best first: priorities never increase down the list.
    const prios = [...doc.querySelectorAll('[data-field="topLinks"] li span')].map((e) => Number(e.textContent));
    expect(prios.length).toBe(10);
    expect(prios).toEqual([...prios].sort((a, b) => b - a));
    // A link whose context shares the topic's terms outranks pure navigation (论坛 has cos 0).
    expect(prios[0]).toBeGreaterThan(prios[prios.length - 1]);
  });
});
