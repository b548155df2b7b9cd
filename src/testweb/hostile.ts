/**
 * The hostile site: a web that attacks its crawler, served on loopback only. Each case is one
 * path linked from the home page, with the outcome the crawl log must show (`HOSTILE_CASES`).
 * Beside it run a "honeypot" (an admin page on another 127.0.0.1 port that the crawler must never
 * reach: it is not a seed origin) and origins whose robots.txt answers 500, 404, garbage or
 * 5 MB. Every server keeps its own access log, so tests judge the crawler by what actually
 * arrived, not by what the crawler says it did.
 */
import http from 'node:http';
import net, { type AddressInfo, type Socket } from 'node:net';
import zlib from 'node:zlib';
import iconv from 'iconv-lite';

export interface HostileAccess {
  at: number;
  origin: string;
  path: string;
  userAgent: string;
}

/** What the crawl log (or refused.jsonl, or the access logs) must show for one case. */
export interface HostileCase {
  path: string;
  what: string;
  /** Crawl-log decision(s) expected for the path; 'absent' = never fetched (refused before any request). */
  expect: { http: string[]; browser: string[] };
  /** The crawl log's reason must match (for failures). */
  reason?: RegExp;
}

export interface HostileWeb {
  /** The seed origin (the hostile site's main server). */
  origin: string;
  /** Origins the crawl may reach besides the seed (robots variants, the polite host): pass as allowPrivate. */
  allowedOrigins: string[];
  robotsOrigins: { status500: string; status404: string; garbage: string; huge: string };
  /** A host with Crawl-delay: 1 and a chain of redirects onto itself. */
  politeOrigin: string;
  /** A host that accepts connections and never answers, and one that resets every connection (allowed: in allowedOrigins). */
  silentOrigin: string;
  resetOrigin: string;
  /** Connections the silent and the resetting host accepted (a test can see they were tried). */
  stalled: { silent: number; reset: number };
  honeypot: { origin: string; hits: HostileAccess[] };
  accessLog: HostileAccess[];
  cases: HostileCase[];
  close(): Promise<void>;
}

const html = (title: string, body: string, head = '') => `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title>${head}</head><body><h1>${title}</h1>${body}</body></html>`;
const article = '<article><p>汶川地震发生后，救援队伍迅速赶赴灾区，展开搜救工作，救援物资陆续运抵。余震不断，救援仍在继续。</p></article>';

export const HOSTILE_CASES: HostileCase[] = [
  { path: '/redirect/metadata', what: '302 to the cloud metadata address', expect: { http: ['failed'], browser: ['failed'] }, reason: /metadata/ },
  { path: '/redirect/admin', what: '302 to the honeypot on another loopback port', expect: { http: ['failed'], browser: ['failed'] }, reason: /private-address/ },
  { path: '/redirect/admin-hex', what: '302 to the honeypot spelled 0x7f000001', expect: { http: ['failed'], browser: ['failed'] }, reason: /private-address/ },
  { path: '/redirect/loop-a', what: 'a redirect loop', expect: { http: ['failed'], browser: ['failed'] }, reason: /redirect|ERR_TOO_MANY/i },
  { path: '/redirect/chain/0', what: '15 redirects (limit 10)', expect: { http: ['failed'], browser: ['failed'] }, reason: /redirect|ERR_TOO_MANY/i },
  { path: '/redirect/to-private', what: '302 into a robots-disallowed path', expect: { http: ['failed'], browser: ['failed'] }, reason: /robots/ },
  { path: '/redirect/to-file', what: '302 to file:///etc/passwd', expect: { http: ['failed'], browser: ['failed'] } },
  { path: '/big.html', what: 'a 50 MB page', expect: { http: ['failed'], browser: ['failed'] }, reason: /too-large/ },
  { path: '/bomb-gzip.html', what: 'a gzip bomb (1 GB inflated)', expect: { http: ['failed'], browser: ['failed'] }, reason: /too-large/ },
  { path: '/bomb-br.html', what: 'a brotli bomb (256 MB inflated)', expect: { http: ['failed'], browser: ['failed'] }, reason: /too-large/ },
  { path: '/slowloris.html', what: 'headers, then a byte every 2 s', expect: { http: ['failed'], browser: ['failed'] }, reason: /timeout|timed out|Timeout/ },
  { path: '/busy.html', what: 'while(true){} in a script', expect: { http: ['recorded', 'saved'], browser: ['failed', 'recorded', 'saved'] } },
  { path: '/dialogs.html', what: '100 alert/confirm/window.open', expect: { http: ['recorded', 'saved'], browser: ['recorded', 'saved'] } },
  { path: '/location-loop.html', what: 'a script changing location in a loop', expect: { http: ['recorded', 'saved'], browser: ['recorded', 'saved', 'failed'] } },
  { path: '/download.html', what: 'a download behind .html', expect: { http: ['not-html', 'failed'], browser: ['not-html', 'failed'] } },
  { path: '/many-links.html', what: '100,000 links', expect: { http: ['recorded', 'saved'], browser: ['recorded', 'saved'] } },
  { path: '/long-url.html', what: 'a link with a 10,000-character URL', expect: { http: ['recorded', 'saved'], browser: ['recorded', 'saved'] } },
  { path: '/idn.html', what: 'links to IDN hosts (no DNS here)', expect: { http: ['recorded', 'saved'], browser: ['recorded', 'saved'] } },
  { path: '/deep.html', what: '20,000 nested divs', expect: { http: ['recorded', 'saved', 'failed'], browser: ['recorded', 'saved', 'failed'] } },
  { path: '/encoding-gbk-as-utf8.html', what: 'GBK bytes declared UTF-8', expect: { http: ['recorded', 'saved'], browser: ['recorded', 'saved'] } },
  { path: '/encoding-unknown.html', what: 'an unknown charset', expect: { http: ['recorded', 'saved'], browser: ['recorded', 'saved'] } },
  { path: '/reset.html', what: 'connection reset mid-body', expect: { http: ['failed'], browser: ['failed'] } },
  { path: '/sub-resources.html', what: 'images, scripts, iframes and fetch() aimed at metadata and the honeypot', expect: { http: ['recorded', 'saved'], browser: ['recorded', 'saved'] } },
  { path: '/private/secret.html', what: 'a robots-disallowed page', expect: { http: ['absent'], browser: ['absent'] } },
  { path: '/hang/silent.html', what: 'scripts, styles and images on a host that accepts and never answers', expect: { http: ['recorded', 'saved'], browser: ['recorded', 'saved'] } },
  { path: '/hang/reset.html', what: 'scripts, styles and images on a host that resets', expect: { http: ['recorded', 'saved'], browser: ['recorded', 'saved'] } },
  { path: '/hang/unresolvable.html', what: 'scripts, styles and images on a host that cannot be resolved', expect: { http: ['recorded', 'saved'], browser: ['recorded', 'saved'] } },
  { path: '/script/to-https.html', what: 'a script sending the tab to https on the same host', expect: { http: ['recorded', 'saved'], browser: ['recorded', 'saved'] } },
  { path: '/script/swap.html', what: 'a script replacing the article with an error message after a failed request', expect: { http: ['recorded', 'saved'], browser: ['recorded', 'saved'] } },
  { path: '/script/to-other-host.html', what: 'a script sending the tab to the honeypot on another host', expect: { http: ['recorded', 'saved'], browser: ['recorded', 'saved'] } },
  { path: '/charset/undeclared.html', what: 'a UTF-8 page that declares no charset', expect: { http: ['recorded', 'saved'], browser: ['recorded', 'saved'] } },
  { path: '/charset/mislabelled.html', what: 'a UTF-8 page whose markup declares ISO-8859-1', expect: { http: ['recorded', 'saved'], browser: ['recorded', 'saved'] } },
];

/** The article of the pages whose scripts or sub-resources misbehave: what their analysis must hold. */
export const HOSTILE_ARTICLE = [
  '汶川地震发生后，救援队伍迅速赶赴灾区，展开搜救工作。',
  '来自各地的救援物资陆续运抵灾区，临时安置点已经搭建完成，受灾群众得到妥善安置。',
  '余震不断，救援仍在继续，医疗队在废墟旁设立了临时医院，为伤员提供救治。',
  '专家提醒，震后要注意防范次生灾害，山体滑坡和堰塞湖的风险仍然存在。',
];
/** The message the swapping page's script puts in the article's place. */
export const SWAPPED_MESSAGE = 'This page is not available right now. Please try again later.';

function listen(server: http.Server): Promise<string> {
  return new Promise((ok, fail) => {
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => ok(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
  });
}

let gzipBomb: Buffer | undefined;
let brotliBomb: Buffer | undefined;
/** 1 GB of zeros as 128 concatenated gzip members of 8 MB (a gunzip reads them as one stream). */
function gzipBombBody(): Buffer {
  gzipBomb ??= (() => {
    const member = zlib.gzipSync(Buffer.alloc(8 * 1024 * 1024), { level: 9 });
    return Buffer.concat(Array.from({ length: 128 }, () => member));
  })();
  return gzipBomb;
}
function brotliBombBody(): Buffer {
  brotliBomb ??= zlib.brotliCompressSync(Buffer.alloc(256 * 1024 * 1024), { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 1 } });
  return brotliBomb;
}

// Long because: one route per hostile behaviour, in one server.
export async function startHostileWeb(): Promise<HostileWeb> {
  // The bombs are built before the web answers: built on first request (256 MB compressed
  // synchronously) they held this process's event loop — the crawl's, in a test — for 15 s and
  // more on a loaded machine, and the crawl timed the bomb out instead of refusing it as too large.
  gzipBombBody();
  brotliBombBody();
  const accessLog: HostileAccess[] = [];
  const honeypotHits: HostileAccess[] = [];
  const servers: http.Server[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const origins: Record<string, string> = {};

  const serve = async (name: string, handler: (req: http.IncomingMessage, res: http.ServerResponse) => void, log = accessLog) => {
    const server = http.createServer((req, res) => {
      log.push({ at: Date.now(), origin: origins[name], path: req.url ?? '', userAgent: String(req.headers['user-agent'] ?? '') });
      try {
        handler(req, res);
      } catch (e) {
        res.writeHead(500).end(String(e));
      }
    });
    servers.push(server);
    origins[name] = await listen(server);
    return origins[name];
  };

  const honeypot = await serve('honeypot', (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(html('ADMIN', '<p>honeypot secret: the crawler must never see this</p>')), honeypotHits);
  const hpPort = new URL(honeypot).port;

  const robotsServer = (name: string, robots: (res: http.ServerResponse) => void) =>
    serve(name, (req, res) => {
      if (req.url === '/robots.txt') return robots(res);
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html(`${name} page`, article));
    });
  const status500 = await robotsServer('robots500', (res) => res.writeHead(500).end('oops'));
  const status404 = await robotsServer('robots404', (res) => res.writeHead(404).end());
  const garbage = await robotsServer('robotsGarbage', (res) => res.writeHead(200, { 'content-type': 'text/plain' }).end(Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 131) % 256))));
  const huge = await robotsServer('robotsHuge', (res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('User-agent: *\nDisallow: /blocked/\n' + '# padding\n'.repeat(500_000));
  });
  const polite = await serve('polite', (req, res) => {
    if (req.url === '/robots.txt') return res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nCrawl-delay: 1\n');
    const m = /^\/hop\/(\d+)$/.exec(req.url ?? '');
    if (m && Number(m[1]) < 5) return res.writeHead(302, { location: `/hop/${Number(m[1]) + 1}` }).end();
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html('polite page', article));
  });

  // A host that accepts connections and never answers (a black-holed CDN), and one that resets.
  const sockets = new Set<Socket>();
  const stalled = { silent: 0, reset: 0 };
  const tcp = (onSocket: (s: Socket) => void) =>
    new Promise<string>((ok, fail) => {
      const server = net.createServer((socket) => {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
        socket.on('error', () => undefined);
        onSocket(socket);
      });
      tcpServers.push(server);
      server.once('error', fail);
      server.listen(0, '127.0.0.1', () => ok(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
    });
  const tcpServers: net.Server[] = [];
  const silentOrigin = await tcp(() => void stalled.silent++);
  const resetOrigin = await tcp((s) => {
    stalled.reset++;
    s.resetAndDestroy();
  });
  /** A page whose scripts, style sheet and images are on `host`: its article must be analysed all the same. */
  const hangingPage = (title: string, host: string) =>
    html(
      title,
      `<article>${HOSTILE_ARTICLE.map((p) => `<p>${p}</p>`).join('')}<img src="${host}/photo.jpg"></article><script src="${host}/late.js"></script>`,
      `<script src="${host}/ads.js"></script><link rel="stylesheet" href="${host}/style.css"><script async src="${host}/tracker.js"></script>`,
    );
  const longArticle = `<article>${HOSTILE_ARTICLE.map((p) => `<p>${p}</p>`).join('')}</article>`;

  let origin = '';
  const links = [
    ...HOSTILE_CASES.map((c) => `<a href="${c.path}">${c.what}</a>`),
    // Direct links to forbidden places, in every spelling: refused before any request.
    ...[
      'http://169.254.169.254/latest/meta-data/',
      'http://[::ffff:a9fe:a9fe]/latest/meta-data/',
      'http://2852039166/latest/meta-data/',
      `http://0x7f000001:${hpPort}/admin`,
      `http://0177.0.0.1:${hpPort}/admin`,
      `http://127.1:${hpPort}/admin`,
      `http://[::1]:${hpPort}/admin`,
      `http://localhost:${hpPort}/admin`,
      `${honeypot}/admin`,
      'http://10.0.0.1/',
      'http://192.168.0.1/',
      'file:///etc/passwd',
      'data:text/html,<p>data</p>',
      'javascript:alert(1)',
      'ftp://127.0.0.1/',
    ].map((u) => `<a href="${u.replace(/"/g, '&quot;')}">forbidden</a>`),
    `<a href="${status500}/page.html">robots 500</a>`,
    `<a href="${status404}/page.html">robots 404</a>`,
    `<a href="${garbage}/page.html">robots garbage</a>`,
    `<a href="${huge}/blocked/page.html">robots 5 MB, disallowed</a>`,
    `<a href="${huge}/page.html">robots 5 MB, allowed</a>`,
    `<a href="${polite}/hop/0">polite chain</a>`,
  ];

  origin = await serve('main', (req, res) => {
    const path = req.url ?? '/';
    const page = (title: string, body: string, head = '') => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html(title, body, head));
    const redirect = (to: string) => res.writeHead(302, { location: to }).end();
    if (path === '/robots.txt') return res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nDisallow: /private/\n');
    if (path === '/') return page('汶川地震 救援 hostile', `${article}<ul>${links.map((l) => `<li>${l}</li>`).join('')}</ul>`);
    if (path === '/redirect/metadata') return redirect('http://169.254.169.254/latest/meta-data/iam/security-credentials/');
    if (path === '/redirect/admin') return redirect(`${honeypot}/admin`);
    if (path === '/redirect/admin-hex') return redirect(`http://0x7f000001:${hpPort}/admin`);
    if (path === '/redirect/loop-a') return redirect('/redirect/loop-b');
    if (path === '/redirect/loop-b') return redirect('/redirect/loop-a');
    const chain = /^\/redirect\/chain\/(\d+)$/.exec(path);
    if (chain) return Number(chain[1]) < 15 ? redirect(`/redirect/chain/${Number(chain[1]) + 1}`) : page('end of chain', article);
    if (path === '/redirect/to-private') return redirect('/private/secret.html');
    if (path === '/redirect/to-file') return redirect('file:///etc/passwd');
    if (path.startsWith('/private/')) return page('private', '<p>robots-disallowed secret</p>');
    if (path === '/hang/silent.html') return res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(hangingPage('silent host', silentOrigin));
    if (path === '/hang/reset.html') return res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(hangingPage('resetting host', resetOrigin));
    if (path === '/hang/unresolvable.html') return res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(hangingPage('unresolvable host', 'http://unresolvable.invalid'));
    if (path === '/script/to-https.html')
      return page('script to https', longArticle, `<script>location.href = 'https://' + location.host + location.pathname;</script>`);
    if (path === '/script/swap.html')
      return page(
        'swapped article',
        longArticle,
        `<script>addEventListener('DOMContentLoaded', function () { fetch('/api/missing.json').then(function (r) { if (!r.ok) throw new Error(String(r.status)); }).catch(function () { document.body.innerHTML = '<div class="error"><p>${SWAPPED_MESSAGE}</p></div>'; }); });</script>`,
      );
    if (path === '/script/to-other-host.html')
      return page('script to another host', longArticle, `<script>location.href = 'http://localhost:${hpPort}/admin';</script>`);
    // Served as many saved or minimal servers do: `text/html` and no charset anywhere (or a wrong
    // one in the markup), the bytes UTF-8. A browser left to itself renders these as windows-1252.
    const utf8Page = (title: string, head: string) =>
      res.writeHead(200, { 'content-type': 'text/html' }).end(Buffer.from(`<!doctype html><html><head>${head}<title>${title}</title></head><body><h1>${title}</h1>${longArticle}</body></html>`, 'utf8'));
    if (path === '/charset/undeclared.html') return utf8Page('no charset declared', '');
    if (path === '/charset/mislabelled.html') return utf8Page('charset mislabelled', '<meta charset="iso-8859-1">');
    if (path === '/big.html') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      const chunk = Buffer.from(`<p>${'汶川地震救援'.repeat(5000)}</p>\n`);
      let sent = 0;
      const pump = () => {
        while (sent < 50 * 1024 * 1024) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      res.on('close', () => (sent = Infinity));
      return pump();
    }
    if (path === '/bomb-gzip.html') return res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' }).end(gzipBombBody());
    if (path === '/bomb-br.html') return res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'br' }).end(brotliBombBody());
    if (path === '/slowloris.html') {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.write('<!doctype html><html><body>');
      const t = setInterval(() => (res.destroyed ? (clearInterval(t), timers.delete(t)) : res.write('x')), 2000);
      timers.add(t);
      return;
    }
    if (path === '/busy.html') return page('busy', `${article}<script>while(true){}</script>`);
    if (path === '/dialogs.html')
      return page('dialogs', `${article}<script>for(var i=0;i<100;i++){alert(i);confirm('ok?');window.open('/dialogs-popup-'+i+'.html');}</script>`);
    if (path.startsWith('/dialogs-popup-')) return page('popup', '<p>popup</p>');
    if (path.startsWith('/location-loop.html')) {
      const n = Number(new URL(path, origin).searchParams.get('n') ?? 0);
      return page('loop', `${article}<script>location.href='/location-loop.html?n=${n + 1}';</script>`);
    }
    if (path === '/download.html') return res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-disposition': 'attachment; filename="x.bin"' }).end(Buffer.alloc(100_000, 7));
    if (path === '/many-links.html') {
      const items = Array.from({ length: 100_000 }, (_, i) => `<a href="/l/${i}.html">l${i}</a>`).join(' ');
      return page('many links', `${article}<div>${items}</div>`);
    }
    if (path.startsWith('/l/')) return page('link target', '<p>one of many</p>');
    if (path === '/long-url.html') return page('long url', `${article}<a href="/long/${'a'.repeat(10_000)}.html">long</a>`);
    if (path.startsWith('/long/')) return page('long', '<p>should never be fetched</p>');
    if (path === '/idn.html') return page('idn', `${article}<a href="http://bücher.example/">idn</a><a href="http://xn--fsqu00a.xn--0zwm56d/">idn2</a>`);
    if (path === '/deep.html') return page('deep', `${article}${'<div>'.repeat(20_000)}deep${'</div>'.repeat(20_000)}`);
    if (path === '/encoding-gbk-as-utf8.html')
      return res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(Buffer.concat([Buffer.from('<!doctype html><html><head><meta charset="utf-8"><title>gbk</title></head><body>'), iconv.encode('<p>汶川地震发生后，救援队伍迅速赶赴灾区。</p>', 'gbk'), Buffer.from('</body></html>')]));
    if (path === '/encoding-unknown.html') return res.writeHead(200, { 'content-type': 'text/html; charset=x-no-such-charset' }).end(html('unknown charset', article));
    if (path === '/reset.html') {
      res.writeHead(200, { 'content-type': 'text/html', 'content-length': '100000' });
      res.write('<!doctype html><html><body><p>half');
      return void setImmediate(() => res.socket?.destroy());
    }
    if (path === '/sub-resources.html')
      return page(
        'sub-resources',
        `${article}<img src="http://169.254.169.254/latest/meta-data/x.png"><script src="${honeypot}/admin.js"></script><iframe src="http://[::1]:${hpPort}/admin"></iframe>` +
          `<script>fetch('${honeypot}/admin-fetch').catch(function(){});fetch('http://0x7f000001:${hpPort}/admin-hex').catch(function(){});</script>`,
      );
    res.writeHead(404, { 'content-type': 'text/html' }).end(html('not found', ''));
  });

  return {
    origin,
    allowedOrigins: [status500, status404, garbage, huge, polite, silentOrigin, resetOrigin],
    robotsOrigins: { status500, status404, garbage, huge },
    politeOrigin: polite,
    silentOrigin,
    resetOrigin,
    stalled,
    honeypot: { origin: honeypot, hits: honeypotHits },
    accessLog,
    cases: HOSTILE_CASES,
    async close() {
      for (const t of timers) clearInterval(t);
      for (const s of sockets) s.destroy();
      await Promise.all(tcpServers.map((s) => new Promise<void>((ok) => s.close(() => ok()))));
      await Promise.all(
        servers.map(
          (s) =>
            new Promise<void>((ok) => {
              s.close(() => ok());
              s.closeAllConnections();
            }),
        ),
      );
    },
  };
}
