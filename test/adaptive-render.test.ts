/**
 * The adaptive fetcher's renders on kept tabs (src/fetch/adaptive/adaptive-render.ts), in real Chromium
 * against a loopback server that logs every request: one tab renders document after document
 * from the fetched bytes (the document itself is never requested again), each rendering sees its
 * own XHR comments only, stylesheets/images/fonts never leave the browser, a `location` loop
 * makes no request and leaves the document in place, dialogs do not block, and a tab whose
 * render failed is replaced.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Page } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeptPages, type FetchedBytes, type KeptRendering } from '../src/fetch/adaptive/adaptive-render.js';
import { browserLaunchOptions } from '../src/fetch/browser.js';
import type { Request } from 'crawlee';

let server: Server;
let origin: string;
let browser: Browser;
const requested: string[] = [];

const article = (id: string) => `<!DOCTYPE html><html><head><title>文章${id}</title><link rel="stylesheet" href="/main.css">
<style>@font-face{font-family:x;src:url(/font.woff2)}body{font-family:x}</style></head>
<body><div id="a">正在加载...</div><img src="/pic.jpg"><div id="c"></div>
<script>document.getElementById('a').textContent='正文${id}：'+'地震'.repeat(20);
fetch('/api/comments?aid=${id}').then(function(r){return r.json();}).then(function(d){document.getElementById('c').textContent=d.comments.join(' ');});
alert('hello');</script></body></html>`;

beforeAll(async () => {
  server = createServer((req, res) => {
    requested.push(req.url ?? '');
    const aid = /aid=(\w+)/.exec(req.url ?? '')?.[1];
    if (req.url?.startsWith('/api/comments')) res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ comments: [`评论${aid}`] }));
    else if (req.url?.startsWith('/slow.js')) setTimeout(() => res.writeHead(200, { 'content-type': 'text/javascript' }).end(`document.getElementById('late').textContent='迟到的正文';`), 600);
    else if (req.url === '/main.css') res.writeHead(200, { 'content-type': 'text/css' }).end('body{color:red}');
    else res.writeHead(200, { 'content-type': 'text/html' }).end('<p>from the network</p>');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await chromium.launch((await browserLaunchOptions()).launchOptions);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((r) => server?.close(() => r()));
});

const doc = (path: string, html: string): FetchedBytes => ({ url: `${origin}${path}`, status: 200, contentType: 'text/html; charset=utf-8', headers: { 'content-type': 'text/html; charset=utf-8' }, body: Buffer.from(html) });
const request = (url: string) => ({ url, uniqueKey: url }) as unknown as Request;

describe('KeptPages', () => {
  it('renders document after document on one tab, from the fetched bytes, loading nothing analysis does not read', async () => {
    const opened: Page[] = [];
    const kept = new KeptPages({ newPage: async () => opened[opened.push(await browser.newPage()) - 1], navigationTimeoutMs: 30_000, settleTimeoutMs: 3000 });
    const seen: KeptRendering[] = [];
    try {
      for (const id of ['a1', 'a2', 'a3']) {
        const url = `${origin}/news/${id}.shtml`;
        await kept.render(request(url), doc(`/news/${id}.shtml`, article(id)), async (r) => void seen.push({ ...r }));
      }
    } finally {
      await kept.close();
    }
    expect(opened).toHaveLength(1);
    expect(seen.map((r) => r.status)).toEqual([200, 200, 200]);
    for (const [i, id] of ['a1', 'a2', 'a3'].entries()) {
      expect(seen[i].url).toBe(`${origin}/news/${id}.shtml`);
      // Script-built text and the XHR comment of this document, and no other document's.
      expect(seen[i].html).toContain(`正文${id}：`);
      expect(seen[i].html).toContain(`评论${id}`);
      expect(seen[i].xhrJson).toEqual([{ url: `${origin}/api/comments?aid=${id}`, json: { comments: [`评论${id}`] } }]);
      expect(seen[i].openRequests).toBe(0);
    }
    // The documents came from the bytes; style sheets, fonts and images never left the browser.
    expect(requested.filter((u) => u.startsWith('/news/'))).toEqual([]);
    expect(requested.filter((u) => /css|woff|jpg/.test(u))).toEqual([]);
    expect(requested.filter((u) => u.startsWith('/api/comments'))).toHaveLength(3);
    expect(opened[0].isClosed()).toBe(true);
  });

  it('keeps the document when its script navigates the tab away in a loop, with no request made', async () => {
    const kept = new KeptPages({ newPage: () => browser.newPage(), navigationTimeoutMs: 30_000, settleTimeoutMs: 3000 });
    const before = requested.length;
    let html = '';
    try {
      const loop = `<!DOCTYPE html><html><body><p>原文在此</p><script>var n=0;(function go(){if(n++<50){location.href='/elsewhere/'+n;setTimeout(go,5);}})();</script></body></html>`;
      await kept.render(request(`${origin}/loop.html`), doc('/loop.html', loop), async (r) => void (html = r.html ?? ''));
    } finally {
      await kept.close();
    }
    expect(html).toContain('原文在此');
    expect(requested.slice(before).filter((u) => u.startsWith('/elsewhere/'))).toEqual([]);
  });

  it('reads the DOM after `load` and as Chromium serialises it, whatever the page did to its own JavaScript interface', async () => {
    const kept = new KeptPages({ newPage: () => browser.newPage(), navigationTimeoutMs: 30_000, settleTimeoutMs: 3000 });
    let html = '';
    try {
      // A script that holds `load` back for 600 ms (it writes the text), and a page that stops
      // `load` listeners, replaces the serialisers and lies about readiness to the polling way.
      const odd = `<!DOCTYPE html><html><head><title>怪页</title><script>
addEventListener('load', function (e) { e.stopImmediatePropagation(); }, true);
Object.defineProperty(Element.prototype, 'outerHTML', { get: function () { return '<html>假的</html>'; } });
XMLSerializer.prototype.serializeToString = function () { return ''; };
</script></head><body><div id="late">正在加载...</div><script src="/slow.js?odd"></script></body></html>`;
      await kept.render(request(`${origin}/odd.html`), doc('/odd.html', odd), async (r) => void (html = r.html ?? ''));
    } finally {
      await kept.close();
    }
    expect(html).toMatch(/^<!DOCTYPE html><html>/);
    expect(html).toContain('<div id="late">迟到的正文</div>');
    expect(html).toContain('<title>怪页</title>');
  });

  it('a resting tab runs nothing of its last document: a ticker that fetched every 20 ms while shown makes no request', async () => {
    const kept = new KeptPages({ newPage: () => browser.newPage(), navigationTimeoutMs: 30_000, settleTimeoutMs: 3000 });
    const ticks = () => requested.filter((u) => u.startsWith('/tick')).length;
    let html = '';
    try {
      const ticker = `<!DOCTYPE html><html><body><p>行情</p><script>setInterval(function(){fetch('/tick?'+Date.now());},20);</script></body></html>`;
      await kept.render(request(`${origin}/ticker.html`), doc('/ticker.html', ticker), async () => {
        // it does run while shown
        while (ticks() < 2) await new Promise((r) => setTimeout(r, 20));
      });
      const resting = (kept as unknown as { idle: { resting: Promise<boolean>; net: { open: Map<unknown, number> } }[] }).idle[0];
      expect(await resting.resting).toBe(true);
      // fetches begun before it stopped are answered (so counted) first
      while (resting.net.open.size > 0) await new Promise((r) => setTimeout(r, 20));
      const atRest = ticks();
      // An absence: a window ten ticks long in which a running ticker would have fetched.
      await new Promise((r) => setTimeout(r, 200));
      expect(ticks()).toBe(atRest);
      // and the tab renders the next document as before
      await kept.render(request(`${origin}/after.html`), doc('/after.html', article('t2')), async (r) => void (html = r.html ?? ''));
    } finally {
      await kept.close();
    }
    expect(html).toContain('正文t2：');
    expect(html).not.toContain('行情');
  });

  it('replaces a tab whose render failed, and passes the failure on', async () => {
    const opened: Page[] = [];
    const kept = new KeptPages({ newPage: async () => opened[opened.push(await browser.newPage()) - 1], navigationTimeoutMs: 30_000, settleTimeoutMs: 3000 });
    try {
      await expect(kept.render(request(`${origin}/x1.html`), doc('/x1.html', article('x1')), async () => {
        throw new Error('analysis failed');
      })).rejects.toThrow('analysis failed');
      let text = '';
      await kept.render(request(`${origin}/x2.html`), doc('/x2.html', article('x2')), async (r) => void (text = r.html ?? ''));
      expect(text).toContain('正文x2：');
    } finally {
      await kept.close();
    }
    expect(opened).toHaveLength(2);
    expect(opened[0].isClosed()).toBe(true);
  });

  it('warm() opens the first tab ahead, and the first render uses it; a failed warm-up leaves rendering to open its own', async () => {
    /** Warm up, then render one article: the text read and how many tabs were asked for. */
    const warmThenRender = async (id: string, newPage: () => Promise<Page>) => {
      const kept = new KeptPages({ newPage, navigationTimeoutMs: 30_000, settleTimeoutMs: 3000 });
      let text = '';
      try {
        kept.warm();
        kept.warm(); // once
        await kept.render(request(`${origin}/${id}.html`), doc(`/${id}.html`, article(id)), async (r) => void (text = r.html ?? ''));
      } finally {
        await kept.close();
      }
      return text;
    };
    let opened = 0;
    expect(await warmThenRender('w1', async () => (opened++, browser.newPage()))).toContain('正文w1：');
    expect(opened).toBe(1);
    let attempts = 0;
    const failFirst = async () => {
      if (attempts++ === 0) throw new Error('browser not there yet');
      return browser.newPage();
    };
    expect(await warmThenRender('w2', failFirst)).toContain('正文w2：');
    expect(attempts).toBe(2);
  });
});
