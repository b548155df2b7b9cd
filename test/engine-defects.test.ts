/**
 * Defects seen crawling an old university web, reproduced on small hand-made webs
 * served on loopback and crawled with the HTTP fetcher: dead and error pages, odd comment
 * syntax, text/plain, and why a crawl ended.
 */
import { createServer, type Server } from 'node:http';
import { mkdtempSync, readdirSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig, type CrawlConfigInput } from '../src/config/schema.js';
import { runCrawl } from '../src/crawl/engine.js';
import { ProgressReporter } from '../src/report/progress.js';
import { CrawlLog } from '../src/store/crawl-log.js';

const quake = '汶川地震发生后，救援队伍迅速赶赴灾区，展开搜救工作，救援物资陆续运抵。';
const para = (body: string, n = 6) => Array.from({ length: n }, () => `<p>${body}</p>`).join('');
const page = (title: string, body: string, links: [string, string][] = []) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body><h1>${title}</h1><article>${body}</article><ul>${links.map(([h, t]) => `<li><a href="${h}">${t}</a></li>`).join('')}</ul></body></html>`;
const nav = '<div>首页 | 新闻 | 地震 | 救援 | 专题</div>';

interface Resp { status?: number; type?: string; body: string }
type Web = Record<string, Resp>;

function serve(web: Web): Promise<{ server: Server; origin: string; hits: Map<string, number> }> {
  const hits = new Map<string, number>();
  return new Promise((resolve) => {
    const server = createServer((req, res) => {
      const path = req.url ?? '/';
      hits.set(path, (hits.get(path) ?? 0) + 1);
      const r = web[path];
      if (!r) {
        res.writeHead(404, { 'content-type': 'text/html; charset=utf-8' }).end('<html><body>not here</body></html>');
        return;
      }
      res.writeHead(r.status ?? 200, { 'content-type': r.type ?? 'text/html; charset=utf-8' }).end(r.body);
    });
    server.listen(0, '127.0.0.1', () => resolve({ server, origin: `http://127.0.0.1:${(server.address() as { port: number }).port}`, hits }));
  });
}

const servers: Server[] = [];
afterAll(() => {
  for (const s of servers) s.close();
});

async function crawl(origin: string, extra: Partial<CrawlConfigInput> = {}) {
  const config = parseConfig({
    topics: [{ keywords: ['汶川地震', '救援'], seeds: [`${origin}/`] }],
    fetcher: 'http',
    maxPages: 30,
    respectRobotsTxt: false,
    storageDir: mkdtempSync(join(tmpdir(), 'fc-defects-')),
    ...extra,
  });
  const result = await runCrawl({ config, progress: new ProgressReporter({ quiet: true }) });
  const log = CrawlLog.read(result.logPath);
  const saved = existsSync(result.datasetDir)
    ? readdirSync(result.datasetDir).filter((f) => f.endsWith('.json')).map((f) => (JSON.parse(readFileSync(join(result.datasetDir, f), 'utf8')) as { url: string }).url)
    : [];
  return { result, log, saved, byUrl: (p: string) => log.filter((e) => e.url === `${origin}${p}`) };
}

describe('never relevant: dead, error, boilerplate-only and login-wall pages', () => {
  let origin = '';
  beforeAll(async () => {
    // Every bad page carries the topic's words (the link to it says 汶川地震救援 too).
    const web: Web = {
      '/': { body: page('汶川地震救援专题', para(quake), [
        ['/quake-1.html', '汶川地震救援进展'], ['/gone.html', '汶川地震救援日记'], ['/broken.html', '汶川地震救援名单'],
        ['/soft.html', '汶川地震救援专题旧版'], ['/footer.html', '汶川地震救援网'], ['/members.html', '汶川地震救援内部资料'],
      ]) },
      '/quake-1.html': { body: page('汶川地震救援进展', para(quake)) },
      '/gone.html': { status: 404, body: page('404 汶川地震救援日记', `<p>您访问的 汶川地震救援日记 不存在。</p>${para(quake, 2)}`) },
      '/broken.html': { status: 500, body: page('汶川地震救援名单', para(quake)) },
      '/soft.html': { body: page('汶川地震救援 - 提示', `${nav}<p>抱歉，您访问的页面不存在或已被删除。</p><p>汶川地震 救援</p>`) },
      '/footer.html': { body: page('汶川地震救援网', `${nav}<p>Copyright © 2008 汶川地震救援网 版权所有</p><p>京ICP备05001234号</p>`) },
      '/members.html': { body: page('汶川地震救援内部资料', '<p>抱歉，您尚未登录，没有权限访问该版块</p><form><input name="u"><input type="password" name="p"></form>') },
    };
    const s = await serve(web);
    servers.push(s.server);
    origin = s.origin;
  });

  it('saves the real article and none of the others; non-2xx is logged failed with its status', async () => {
    const { saved, byUrl, log } = await crawl(origin);
    expect(saved).toContain(`${origin}/quake-1.html`);
    for (const p of ['/gone.html', '/broken.html', '/soft.html', '/footer.html', '/members.html']) {
      expect(saved, p).not.toContain(`${origin}${p}`);
      expect(byUrl(p).length, p).toBe(1);
      expect(byUrl(p)[0]!.relevant, p).not.toBe(true);
    }
    expect(byUrl('/gone.html')[0]).toMatchObject({ status: 404, decision: 'failed', reason: 'HTTP 404' });
    expect(byUrl('/broken.html')[0]).toMatchObject({ status: 500, decision: 'failed' });
    expect(byUrl('/soft.html')[0]!.reason).toMatch(/^error-page/);
    expect(byUrl('/footer.html')[0]!.reason).toMatch(/^boilerplate-only/);
    expect(byUrl('/members.html')[0]!.reason).toMatch(/^login-wall/);
    expect(log.filter((e) => e.decision === 'saved').map((e) => e.url).sort()).toEqual([`${origin}/`, `${origin}/quake-1.html`]);
  });
});

describe('never relevant on the test web (list pages)', () => {
  it('its 404, 500, soft-404 and login-wall pages and its portal home pages are never saved', async () => {
    const { startTestWeb } = await import('../src/testweb/index.js');
    const web = await startTestWeb();
    try {
      const misc = web.sites.find((s) => s.kind === 'misc' && s.name === '城市生活网')!.origin;
      const forum = web.sites.find((s) => s.kind === 'forum')!.origin;
      // Portal home pages too: their main text is a copyright line, their content the headlines.
      const bad = [`${misc}/missing.html`, `${misc}/error.html`, `${misc}/zhuanti/old.html`, `${forum}/member.php?mod=logging&action=login`, ...web.demo.seeds];
      expect(bad.map((u) => web.truth(u)?.kind)).toEqual(['fault', 'fault', 'fault', 'other', ...web.demo.seeds.map(() => 'home')]);
      const config = parseConfig({
        topics: [{ keywords: web.demo.keywords, seeds: bad }],
        fetcher: 'http',
        maxPages: 12,
        respectRobotsTxt: false,
        storageDir: mkdtempSync(join(tmpdir(), 'fc-defects-tw-')),
      });
      const result = await runCrawl({ config, progress: new ProgressReporter({ quiet: true }) });
      const log = CrawlLog.read(result.logPath);
      for (const u of bad) {
        const e = log.filter((x) => x.url === u);
        expect(e.length, u).toBe(1);
        expect(e[0]!.decision, u).not.toBe('saved');
      }
      expect(log.find((x) => x.url === `${misc}/zhuanti/old.html`)!.reason).toMatch(/^error-page/);
    } finally {
      await web.close();
    }
  });
});

describe('odd comments and text/plain', () => {
  let origin = '';
  beforeAll(async () => {
    const odd = (title: string, links: [string, string][]) => `<!-- saved from a 1997 editor --!>\n${page(title, para(quake), links)}`;
    const web: Web = {
      '/': { body: page('汶川地震救援专题', para(quake), [['/odd.html', '汶川地震救援'], ['/notes', '救援笔记'], ['/bare.html', '救援']]) },
      // `--!>` ends a comment in HTML (an "incorrectly closed comment"); a parser that misses it sees one long comment.
      '/odd.html': { body: odd('汶川地震救援日记', [['/odd-child.html', '汶川地震余震救援']]) },
      '/odd-child.html': { body: page('汶川地震余震救援', para(quake)) },
      // Nothing but a comment that never ends: no document at all.
      '/bare.html': { body: '<!-- unfinished' },
      '/notes': { type: 'text/plain; charset=utf-8', body: `汶川地震救援笔记\n${quake}` },
    };
    const s = await serve(web);
    servers.push(s.server);
    origin = s.origin;
  });

  it('a page that begins with <!-- … --!> is read as a browser reads it, once, with its links', async () => {
    const { threadsPlugin } = await import('../src/plugins/threads.js');
    const storageDir = mkdtempSync(join(tmpdir(), 'fc-defects-odd-'));
    const { byUrl, log, saved } = await crawl(origin, { maxPages: 5, storageDir });
    expect(byUrl('/odd.html')).toHaveLength(1);
    expect(byUrl('/odd.html')[0]).toMatchObject({ decision: 'saved', title: '汶川地震救援日记' });
    expect(saved).toContain(`${origin}/odd-child.html`);
    expect(log.length).toBeLessThanOrEqual(5);
    // With the reply-thread plugin too (it parses every page again): still one line per page.
    const config = parseConfig({
      topics: [{ keywords: ['汶川地震', '救援'], seeds: [`${origin}/`] }],
      fetcher: 'http', maxPages: 5, respectRobotsTxt: false, storageDir: mkdtempSync(join(tmpdir(), 'fc-defects-odd2-')),
    });
    const result = await runCrawl({ config, progress: new ProgressReporter({ quiet: true }), plugins: [threadsPlugin()] });
    const log2 = CrawlLog.read(result.logPath);
    expect(log2.length).toBeLessThanOrEqual(5);
    expect(new Set(log2.map((e) => e.url)).size).toBe(log2.length);
    expect(log2.find((e) => e.url === `${origin}/odd.html`)?.decision).toBe('saved');
  });

  it('a response that parses to no document is recorded once with a reason, not retried', async () => {
    const { byUrl } = await crawl(origin, { maxPages: 5 });
    const e = byUrl('/bare.html');
    expect(e).toHaveLength(1);
    expect(e[0]!.decision).toBe('failed');
    expect(e[0]!.reason).toMatch(/no document/);
  });

  it('text/plain is logged not-html by the HTTP fetcher, not failed', async () => {
    const { byUrl } = await crawl(origin, { maxPages: 5 });
    const e = byUrl('/notes');
    expect(e).toHaveLength(1);
    expect(e[0]).toMatchObject({ decision: 'not-html', status: 200 });
    expect(e[0]!.contentType).toMatch(/^text\/plain/);
  });
});

describe('failures of the HTTP fetcher, by what the server answered', () => {
  let origin = '';
  let hits = new Map<string, number>();
  beforeAll(async () => {
    const web: Web = {
      '/': { body: page('汶川地震救援专题', para(quake), [['/map', '救援地图'], ['/api/quake', '救援数据'], ['/a.html', '汶川地震救援']]) },
      '/a.html': { body: page('汶川地震救援进展', para(quake)) },
      '/map': { type: 'image/png; name="map"', body: 'not really a png' },
      '/api/quake': { status: 503, type: 'application/json', body: JSON.stringify({ message: 'rescue data unavailable' }) },
    };
    const s = await serve(web);
    servers.push(s.server);
    origin = s.origin;
    hits = s.hits;
  });

  it('a type the fetcher does not read is not-html with its media type, fetched once; a 5xx answer is failed with its status', async () => {
    const { byUrl } = await crawl(origin, { maxPages: 5 });
    expect(byUrl('/map')).toHaveLength(1);
    expect(byUrl('/map')[0]).toMatchObject({ decision: 'not-html', status: 0, contentType: 'image/png' });
    expect(hits.get('/map')).toBe(1);
    expect(byUrl('/api/quake')).toHaveLength(1);
    expect(byUrl('/api/quake')[0]).toMatchObject({ decision: 'failed', status: 503 });
    expect(byUrl('/api/quake')[0]!.reason).toContain('rescue data unavailable');
    expect(byUrl('/a.html')[0]).toMatchObject({ decision: 'saved', status: 200 });
  });
});

describe('why a crawl ended', () => {
  let origin = '';
  beforeAll(async () => {
    const web: Web = {
      '/': { body: page('汶川地震救援专题', para(quake), [['/a.html', '汶川地震救援'], ['/about.html', '关于'], ['/report.pdf', '救援报告'], ['/s?q=救援', '搜索救援']]) },
      '/a.html': { body: page('汶川地震救援进展', para(quake), [['/b.html', '余震救援']]) },
      '/b.html': { body: page('余震救援', para(quake)) },
    };
    const s = await serve(web);
    servers.push(s.server);
    origin = s.origin;
  });

  it('a crawl that runs dry says so, with what it did not follow; the summary shows it', async () => {
    const { result } = await crawl(origin, { maxPages: 30 });
    expect(result.stopReason).toMatch(/^frontier empty after 3 of 30 pages/);
    expect(result.stopReason).toMatch(/1 extension/);
    expect(result.stopReason).toMatch(/1 path-end/);
    expect(result.stopReason).toMatch(/1 search-results/);
    const { formatSummary } = await import('../src/cli/main.js');
    expect(formatSummary(result, 'crawl')).toMatch(/stopped +frontier empty after 3 of 30 pages/);
  });

  it('a crawl that spends its budget says that', async () => {
    const { result } = await crawl(origin, { maxPages: 2 });
    expect(result.stopReason).toBe('page budget reached (2 pages)');
  });
});
