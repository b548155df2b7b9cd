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
    expect(stdout).toMatch(/reply thread discuz, id 88: 3 posts on this page, 23 replies in the thread \(times at UTC\+08:00\)/);
    expect(stdout).toMatch(/best \d+ by the crawl's own score \(strategy combined\)/);
    expect(existsSync(shot)).toBe(true);
    const doc = new JSDOM(readFileSync(panelFile, 'utf8')).window.document;
    const field = (n: string) => doc.querySelector(`[data-field="${n}"]`)?.textContent?.trim();
    expect(field('title')).toBe('求助：路由器设置');
    expect(field('publishTime')).toMatch(/^2008-05-13T10:22:00 \(text\)/);
    expect(field('matcher')).toBe('discuz');
    expect(field('replyCount')).toBe('23');
    expect(field('postCount')).toBe('3');
    expect(field('strategy')).toBe('combined');
    expect(field('linkCount')).toBe('11');
    expect([...doc.querySelectorAll('[data-post] [data-author]')].map((e) => e.textContent)).toEqual(['老张', '小李', '王工']);
    // Links listed best first: priorities never increase down the list.
    const prios = [...doc.querySelectorAll('[data-field="topLinks"] li span')].map((e) => Number(e.textContent));
    expect(prios.length).toBeGreaterThanOrEqual(5);
    expect(prios).toEqual([...prios].sort((a, b) => b - a));
    // A link whose context shares the topic's terms outranks pure navigation (论坛 has cos 0).
    expect(prios[0]).toBeGreaterThan(prios[prios.length - 1]);
  });
});

describe('debug:extract view (no browser)', () => {
  const page = `<html lang="zh-CN"><head><title>汶川地震救援进展</title><meta property="article:published_time" content="2008-05-13T10:22:00+08:00"></head><body>
<div id="c"><p>${'汶川地震发生后，救援队伍迅速赶赴灾区，展开搜救工作。'.repeat(6)}</p>
<p>相关：<a href="/news/2008/0514/n1.shtml">汶川地震救援队抵达映秀</a> <a href="/news/2008/0515/n2.shtml">救援物资运抵灾区</a> <a href="/sports/n3.shtml">足球比赛结果</a> <a href="/news/2008/0514/n1.shtml">再看映秀</a></p>
<a href="/img/472803.jpg"><img src="/img/472803.jpg" alt="地震救援现场"></a> <a href="/ad/img/101.gif">汶川地震救援广告</a> <a href="/files/report.pdf">汶川地震救援报告</a></div></body></html>`;
  it('scores links with the crawl\'s own scorer and strategy; images, ads and filtered files are skipped, not ranked', async () => {
    const { analyzePage } = await import('../src/extract/page.js');
    const { buildDebugView, rankedLinks } = await import('../src/cli/debug-extract.js');
    const { buildConfig } = await import('../src/cli/options.js');
    const { PageJudge } = await import('../src/judge/judge.js');
    const url = 'http://127.0.0.1:9/news/2008/0513/n0.shtml';
    const analysis = analyzePage({ html: page, url, fetchedAt: new Date('2008-05-14T00:00:00Z') });
    const config = buildConfig({ topic: '汶川地震 救援', seeds: [url] }, {});
    const view = buildDebugView(analysis, null, await PageJudge.create(config, () => undefined), '汶川地震 救援', config);
    expect(view.strategy).toBe('combined');
    const ranked = rankedLinks(view).map((l) => new URL(l.url).pathname);
    for (const p of ['/img/472803.jpg', '/ad/img/101.gif', '/files/report.pdf']) expect(ranked).not.toContain(p);
    const skipped = view.links.filter((l) => l.skipped).map((l) => new URL(l.url).pathname);
    expect(skipped).toEqual(expect.arrayContaining(['/img/472803.jpg', '/files/report.pdf']));
    // The on-topic article links outrank the sports one; every ranked link carries the score's parts.
    expect(ranked.indexOf('/news/2008/0514/n1.shtml')).toBeLessThan(ranked.indexOf('/sports/n3.shtml'));
    for (const l of rankedLinks(view)) expect(Object.keys(l.components ?? {}).length).toBeGreaterThan(1);
    // Each URL once, however often the page links it.
    expect(new Set(ranked).size).toBe(ranked.length);
    // Another strategy gives other scores: the view follows --strategy.
    const bfs = buildConfig({ topic: '汶川地震 救援', seeds: [url], strategy: 'bfs' }, {});
    const bfsView = buildDebugView(analysis, null, await PageJudge.create(bfs, () => undefined), '汶川地震 救援', bfs);
    expect(bfsView.strategy).toBe('bfs');
    expect(rankedLinks(bfsView).map((l) => l.priority)).not.toEqual(rankedLinks(view).map((l) => l.priority));
  });

  it('shows times at the page\'s own UTC offset', async () => {
    const { pageZone, timeInZone } = await import('../src/cli/debug-extract.js');
    expect(pageZone({ publishTime: { iso: '2008-05-13T10:22:00+08:00', source: 'meta', raw: '' } })).toBe('+08:00');
    expect(pageZone({ lang: 'zh-CN' })).toBe('+08:00');
    expect(pageZone({ lang: 'en', publishTime: { iso: '2020-01-01T00:00:00-05:00', source: 'meta', raw: '' } })).toBe('-05:00');
    expect(timeInZone('2008-05-13T02:22:00.000Z', '+08:00')).toBe('2008-05-13 10:22');
    expect(timeInZone('2008-05-13T02:22:00.000Z', '-05:00')).toBe('2008-05-12 21:22');
  });

  it('the panel folds away and the page keeps room for it; links coloured by score (headless Chromium)', async () => {
    const { chromium } = await import('playwright');
    const { CHROMIUM_ARGS } = await import('../src/fetch/browser.js');
    const { INJECT, rankedLinks } = await import('../src/cli/debug-extract.js');
    const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
    try {
      const p = await browser.newPage({ viewport: { width: 1200, height: 800 } });
      await p.setContent('<html><body><p id="article">正文 text</p><a href="http://x.test/a">a</a><a href="http://x.test/b">b</a><a href="http://x.test/c.jpg">c</a></body></html>');
      const view = {
        url: 'http://x.test/', title: 'T', zone: '+08:00', text: '正文 text', thread: null, postTimes: [], topic: 't', strategy: 'combined', relevance: 0.5,
        links: [{ url: 'http://x.test/a', anchorText: 'a', priority: 0.9, components: { contextSim: 0.5 } }, { url: 'http://x.test/b', anchorText: 'b', priority: 0.1, components: { contextSim: 0.1 } }, { url: 'http://x.test/c.jpg', anchorText: 'c', skipped: 'an image' }],
      };
      await p.evaluate(`(${INJECT})(${JSON.stringify({ ...view, ranked: rankedLinks(view) })})`);
      expect(await p.getAttribute('a[href="http://x.test/a"]', 'data-fc-hue')).toBe('120');
      expect(await p.getAttribute('a[href="http://x.test/b"]', 'data-fc-hue')).toBe('0');
      expect(await p.getAttribute('a[href="http://x.test/c.jpg"]', 'data-fc-link')).toBe('skipped');
      const panel = p.locator('#fc-debug-panel');
      // Open: the article is not under the panel.
      const art = (await p.locator('#article').boundingBox())!;
      const open = (await panel.boundingBox())!;
      expect(art.x + art.width).toBeLessThanOrEqual(open.x + 1);
      await p.locator('#fc-debug-toggle').click();
      await expect.poll(async () => (await panel.boundingBox())!.width).toBeLessThan(160);
      expect(await panel.getAttribute('data-open')).toBe('false');
      await p.locator('#fc-debug-toggle').click();
      expect(await panel.getAttribute('data-open')).toBe('true');
    } finally {
      await browser.close();
    }
  }, 60_000);
});
