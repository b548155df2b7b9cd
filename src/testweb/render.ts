/**
 * Routing and HTML rendering of the test web: a pure function of (model, site, path, clock).
 * The server (server.ts) and the ground-truth queries (index.ts) both go through resolve(),
 * so what is served and what is labelled can never disagree.
 *
 * Long because: one template per page kind of the test web (portal, channel, article, forum,
 * comments, search, traps, faults), kept together so the ground truth's routing is in one file.
 */
import iconv from 'iconv-lite';
import { Rng, hash32 } from '../util/rng.js';
import { sentence, lexiconOf, TOPIC_LEXICONS, type TopicId } from './lexicon.js';
import { cst, isoCst, key, replyText, type Article, type SiteModel, type Thread, type WebModel, type PageKind } from './model.js';

/** The ground truth of one test-web page: its kind and topic. */
export interface PageTruth {
  kind: PageKind;
  topic: string | null;
  publishTime?: string;
  title?: string;
}

export interface Ctx {
  model: WebModel;
  /** Origin (scheme://host:port) of a site key. */
  origin(site: string): string;
  now: number;
}

export interface Resp {
  status: number;
  headers: Record<string, string>;
  body: string | Buffer;
  /** Real-time delay before answering (the slow page). */
  delayMs?: number;
}

export interface Route {
  truth?: PageTruth;
  /** Identity of the content (aliases of one forum page share it). */
  canonical: string;
  respond(ctx: Ctx): Resp;
}

const PER_PAGE_LIST = 20;
const PER_PAGE_POSTS = 10;
const PER_PAGE_COMMENTS = 10;
const HTML = 'text/html; charset=utf-8';
const p2 = (n: number) => String(n).padStart(2, '0');

export function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
/** JSON for an inline script: non-ASCII as \uXXXX so the article text is not in the raw HTML. */
function scriptJson(v: unknown): string {
  return JSON.stringify(v).replace(/[\u007f-\uffff<>&]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
}
const html = (body: string, status = 200): Resp => ({ status, headers: { 'content-type': HTML }, body });
const json = (v: unknown): Resp => ({ status: 200, headers: { 'content-type': 'application/json; charset=utf-8' }, body: JSON.stringify(v) });
const redirect = (status: number, location: string): Resp => ({ status, headers: { location, 'content-type': HTML }, body: `<a href="${esc(location)}">moved</a>` });
const notFound = (): Resp => html('<!DOCTYPE html><html><head><meta charset="utf-8"><title>404 Not Found</title></head><body><h1>404 页面不存在</h1><p>您访问的页面不存在或已被删除。</p><a href="/">返回首页</a></body></html>', 404);
// 1×1 transparent GIF: ads and photos need real image bytes so browsers do not log errors.
const GIF = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

/** Visible publish-time formats seen on Chinese portals. */
export function formatTime(ms: number, fmt: number): string {
  const t = cst(ms);
  switch (fmt) {
    case 0: return `${t.y}年${p2(t.mo)}月${p2(t.d)}日 ${p2(t.h)}:${p2(t.mi)}`;
    case 1: return `${t.y}-${p2(t.mo)}-${p2(t.d)} ${p2(t.h)}:${p2(t.mi)}:${p2(t.s)}`;
    case 2: return `${t.y}/${t.mo}/${t.d}`;
    default: return `${t.y}年${t.mo}月${t.d}日${p2(t.h)}:${p2(t.mi)}`;
  }
}
/** Discuz style: `2008-5-13 10:22`. */
export function discuzTime(ms: number): string {
  const t = cst(ms);
  return `${t.y}-${t.mo}-${t.d} ${p2(t.h)}:${p2(t.mi)}`;
}

function siteOf(model: WebModel, k: string) {
  const s = model.sites.find((x) => x.key === k);
  if (!s) throw new Error(`no site ${k}`);
  return s;
}
function link(ctx: Ctx, from: string, site: string, path: string): string {
  return esc(site === from ? path : ctx.origin(site) + path);
}
function portalOf(model: WebModel, site: string) {
  return model.portals.find((p) => p.site === site);
}
function listPath(style: SiteModel['style'], dir: string, page: number): string {
  if (page <= 1) return style === 'inline' ? `/${dir}/index.shtml` : `/${dir}/`;
  return `/${dir}/index_${page}.shtml`;
}

// ---------------------------------------------------------------- news portals

function newsLayout(ctx: Ctx, site: string, title: string, body: string, head = ''): string {
  const m = ctx.model;
  const s = siteOf(m, site);
  const portal = portalOf(m, site);
  const nav = portal
    ? portal.channels.map((c) => `<a href="${listPath(s.style, c.dir, 1)}">${c.name}</a>`).join(' ') +
      ` <a href="${esc(portal.hub.path)}">汶川地震专题</a>`
    : '';
  const others = m.sites.filter((x) => x.kind === 'news' && x.key !== site).map((x) => `<a href="${link(ctx, site, x.key, '/')}">${x.name}</a>`);
  const adN = 100 + (hash32(title) % 20);
  return `<!DOCTYPE html>
<html lang="zh-CN"><head><meta charset="utf-8"><title>${esc(title)}</title>${head}
<link rel="stylesheet" href="/css/main.css"></head>
<body>
<div id="top-bar"><a href="/">首页</a> | <a href="/member/login.shtml">登录</a> | <a href="/member/register.shtml">注册</a> | <a href="javascript:void(0)" onclick="this.style.behavior='url(#default#homepage)';">设为首页</a></div>
<div id="nav" class="nav"><a href="/">首页</a> ${nav} <a href="${link(ctx, site, 'forum', '/forum.php')}">社区</a> <a href="${link(ctx, site, 'search', '/')}">搜索</a></div>
<div class="ad-banner"><a href="/ad/${adN}.shtml" target="_blank"><img src="/ad/img/${adN}.gif" alt="广告" width="950" height="90"></a></div>
<div id="main">
${body}
</div>
<div id="footer"><a href="/about.shtml">关于我们</a> | <a href="/contact.shtml">联系方式</a> | <a href="/about.shtml#ads">广告服务</a> | <a href="javascript:void(0)" onclick="window.external.addFavorite(location.href)">加入收藏</a>
<p>友情链接：${others.join(' ')} <a href="${link(ctx, site, 'misc', '/')}">城市生活网</a></p>
<p>Copyright &copy; 2008 ${esc(s.name)} 版权所有</p></div>
</body></html>`;
}

function latest(model: WebModel, site: string, n: number): Article[] {
  const portal = portalOf(model, site);
  if (!portal) return [];
  const all = portal.channels.flatMap((c) => c.articles.map((id) => model.articles.get(id)!));
  return all.sort((a, b) => b.publish - a.publish || a.id.localeCompare(b.id)).slice(0, n);
}

function newsHome(ctx: Ctx, site: string): string {
  const m = ctx.model;
  const s = siteOf(m, site);
  const portal = portalOf(m, site)!;
  const blocks = portal.channels.map((c) => {
    const items = c.articles.slice(0, 5).map((id) => {
      const a = m.articles.get(id)!;
      return `<li><a href="${esc(a.path)}">${esc(a.title)}</a> <span class="date">${formatTime(a.publish, 2)}</span></li>`;
    });
    return `<div class="channel-block"><h2><a href="${listPath(s.style, c.dir, 1)}">${c.name}</a></h2><ul>${items.join('')}</ul><a class="more" href="${listPath(s.style, c.dir, 1)}">更多&gt;&gt;</a></div>`;
  });
  const photos = latest(m, site, 3).map((a) => `<a href="/photo/${a.id}.shtml"><img src="/img/${a.id}.jpg" alt="${esc(a.title)}"></a>`);
  const hotThreads = [...m.threads.values()].filter((t) => t.created <= ctx.now && t.heat === 'hot').slice(0, 4)
    .map((t) => `<li><a href="${link(ctx, site, 'forum', `/forum.php?mod=viewthread&tid=${t.tid}`)}">${esc(t.title)}</a></li>`);
  const calendar = s.style === 'inline' ? `<a href="/calendar?month=${monthOf(m.start)}">往期回顾</a>` : '';
  return newsLayout(ctx, site, `${s.name}_新闻中心`, `
<div class="headline"><h1><a href="${esc(portal.hub.path)}">${esc(portal.hub.title)}</a></h1></div>
${blocks.join('\n')}
<div class="photo-news">${photos.join(' ')}</div>
<div class="bbs-hot"><h2>社区热帖</h2><ul>${hotThreads.join('')}</ul></div>
<div class="archive">${calendar}</div>`, '<meta name="keywords" content="新闻,资讯,体育,财经,科技,娱乐">');
}

function channelList(ctx: Ctx, site: string, ci: number, page: number): string {
  const m = ctx.model;
  const s = siteOf(m, site);
  const c = portalOf(m, site)!.channels[ci];
  const pages = Math.max(1, Math.ceil(c.articles.length / PER_PAGE_LIST));
  const items = c.articles.slice((page - 1) * PER_PAGE_LIST, page * PER_PAGE_LIST).map((id) => {
    const a = m.articles.get(id)!;
    return `<li><a href="${esc(a.path)}">${esc(a.title)}</a><span class="time">(${formatTime(a.publish, 1).slice(5, 16)})</span></li>`;
  });
  const pager: string[] = [];
  if (page > 1) pager.push(`<a href="${listPath(s.style, c.dir, page - 1)}">上一页</a>`);
  for (let i = 1; i <= pages; i++) pager.push(i === page ? `<span class="cur">${i}</span>` : `<a href="${listPath(s.style, c.dir, i)}">${i}</a>`);
  if (page < pages) pager.push(`<a href="${listPath(s.style, c.dir, page + 1)}">下一页</a>`);
  return newsLayout(ctx, site, `${c.name}_${s.name}`, `
<div class="crumbs"><a href="/">首页</a> &gt; ${c.name}</div>
<ul class="news-list">${items.join('\n')}</ul>
<div class="pages">${pager.join(' ')}</div>`);
}

function hubPage(ctx: Ctx, site: string): string {
  const m = ctx.model;
  const portal = portalOf(m, site)!;
  const items = portal.hub.articles.map((id) => {
    const a = m.articles.get(id)!;
    return `<li><a href="${esc(a.path)}">${esc(a.title)}</a> ${formatTime(a.publish, 0)}</li>`;
  });
  const quakeBoard = m.boards.find((b) => b.topic === 'quake');
  const intro = new Rng(m.seed).fork(`hub:${site}`);
  return newsLayout(ctx, site, `${portal.hub.title}_${siteOf(m, site).name}`, `
<div class="zt-banner"><img src="/img/zt-wenchuan.jpg" alt="${esc(portal.hub.title)}"></div>
<p class="zt-intro">${esc(sentence(intro, lexiconOf('quake')) + sentence(intro, lexiconOf('quake')))}</p>
<h2>最新报道</h2><ul class="zt-list">${items.join('\n')}</ul>
${quakeBoard ? `<p><a href="${link(ctx, site, 'forum', `/forum-${quakeBoard.fid}-1.html`)}">网友讨论：${quakeBoard.name}</a></p>` : ''}`);
}

const BUILD_ARTICLE = `function buildArticle(d){var r=document.getElementById('article');r.innerHTML='';var h=document.createElement('h1');h.textContent=d.title;r.appendChild(h);var t=document.createElement('div');t.className='time-source';t.innerHTML='<span class="time"></span> <span class="source"></span>';t.firstChild.textContent=d.time;t.lastChild.textContent='来源：'+d.source;r.appendChild(t);var b=document.createElement('div');b.className='article-body';d.paras.forEach(function(p){var e=document.createElement('p');e.textContent=p;b.appendChild(e);});r.appendChild(b);}`;
const COMMENTS = `(function(){var box=document.getElementById('comment-list'),more=document.getElementById('comment-more'),page=1;function load(){var x=new XMLHttpRequest();x.open('GET','/api/comments?aid='+encodeURIComponent(box.getAttribute('data-aid'))+'&page='+page);x.onload=function(){var d=JSON.parse(x.responseText);document.getElementById('comment-count').textContent=d.total;d.comments.forEach(function(c){var e=document.createElement('div');e.className='comment-item';e.innerHTML='<span class="user"></span> <span class="time"></span><p class="content"></p>';e.querySelector('.user').textContent=c.user;e.querySelector('.time').textContent=c.time;e.querySelector('.content').textContent=c.content;box.appendChild(e);});more.style.display=page*${PER_PAGE_COMMENTS}<d.total?'':'none';};x.send();}more.onclick=function(){page++;load();return false;};load();})();`;

function articleData(a: Article) {
  return { title: a.title, time: formatTime(a.publish, a.timeFormat), source: a.source, paras: a.paras };
}

function articlePage(ctx: Ctx, a: Article): string {
  const m = ctx.model;
  const s = siteOf(m, a.site);
  const portal = portalOf(m, a.site)!;
  const ci = portal.channels.findIndex((c) => c.topic === a.topic);
  const ch = portal.channels[ci];
  const related = a.related.map((r) => `<li><a href="${link(ctx, a.site, r.site, r.path)}">${esc(r.text)}</a></li>`);
  const hot = latest(m, a.site, 6).filter((x) => x.id !== a.id).slice(0, 5).map((x) => `<li><a href="${esc(x.path)}">${esc(x.title)}</a></li>`);
  const head = a.metaPubdate ? `\n<meta name="pubdate" content="${isoCst(a.publish)}">` : '';
  const photo = hash32(a.id) % 3 === 0 ? `<div class="photo"><a href="/photo/${a.id}.shtml"><img src="/img/${a.id}.jpg" alt="${esc(a.title)}"></a></div>` : '';
  const loader = s.style === 'inline'
    ? `var ARTICLE_DATA=${scriptJson(articleData(a))};\n${BUILD_ARTICLE}\nbuildArticle(ARTICLE_DATA);`
    : `${BUILD_ARTICLE}\nfetch('/api/article/${a.id}.json').then(function(r){return r.json();}).then(buildArticle);`;
  return newsLayout(ctx, a.site, `${a.title}_${ch.name}_${s.name}`, `
<div class="crumbs"><a href="/">首页</a> &gt; <a href="${listPath(s.style, ch.dir, 1)}">${ch.name}</a> &gt; 正文</div>
<div id="article" class="article-content"><div class="loading">正在加载...</div></div>
${photo}
<div class="share">分享到：<a href="javascript:void(0)" onclick="share('weibo')">新浪微博</a> <a href="javascript:share('qzone')">QQ空间</a> <a href="/print/${a.id}.shtml" target="_blank">打印</a> <a href="javascript:window.close()">关闭</a></div>
${a.topic === 'quake' ? `<p class="zt-link"><a href="${esc(portal.hub.path)}">更多报道请进入：汶川地震专题</a></p>` : ''}
<div id="comments"><h3>网友评论（<span id="comment-count">0</span>条）</h3><div id="comment-list" data-aid="${a.id}"></div><a id="comment-more" href="#" style="display:none">查看更多评论</a></div>
<div class="related"><h3>相关新闻</h3><ul>${related.join('\n')}</ul></div>
<div class="hot"><h3>热点新闻</h3><ul>${hot.join('\n')}</ul></div>
<script>
${loader}
</script>
<script>${COMMENTS}</script>`, head);
}

/**
 * Articles of the mixed web's portals (Article.render): the same layout and links as the default
 * portals' pages, the text either in the HTML or built by an inline script, and a comment widget
 * loading by XHR on `xhr-comments` pages only. `render` may be overridden (a pattern turning
 * JavaScript-only mid-crawl, MiscOptions.staticTurnsJsAt).
 */
function mixedArticlePage(ctx: Ctx, a: Article, render: NonNullable<Article['render']>): string {
  const m = ctx.model;
  const s = siteOf(m, a.site);
  const portal = portalOf(m, a.site)!;
  const ch = portal.channels.find((c) => c.topic === a.topic)!;
  const related = a.related.map((r) => `<li><a href="${link(ctx, a.site, r.site, r.path)}">${esc(r.text)}</a></li>`);
  const hot = latest(m, a.site, 6).filter((x) => x.id !== a.id).slice(0, 5).map((x) => `<li><a href="${esc(x.path)}">${esc(x.title)}</a></li>`);
  const head = a.metaPubdate ? `\n<meta name="pubdate" content="${isoCst(a.publish)}">` : '';
  const d = articleData(a);
  const body = render === 'js'
    ? `<div id="article" class="article-content"><div class="loading">正在加载...</div></div>\n<script>\nvar ARTICLE_DATA=${scriptJson(d)};\n${BUILD_ARTICLE}\nbuildArticle(ARTICLE_DATA);\n</script>`
    : `<div id="article" class="article-content"><h1>${esc(d.title)}</h1><div class="time-source"><span class="time">${esc(d.time)}</span> <span class="source">来源：${esc(d.source)}</span></div><div class="article-body">${d.paras.map((p) => `<p>${esc(p)}</p>`).join('')}</div></div>`;
  // Server-rendered pages of real portals still carry scripts (a page-view counter here) that do
  // not change the text: the adaptive fetcher must learn them, not skip them as script-free.
  const counter = render === 'static' ? `\n<script>var _hmt=_hmt||[];_hmt.push(['_trackPageview','${esc(a.path)}']);</script>` : '';
  const comments = render === 'xhr-comments'
    ? `<div id="comments"><h3>网友评论（<span id="comment-count">0</span>条）</h3><div id="comment-list" data-aid="${a.id}"></div><a id="comment-more" href="#" style="display:none">查看更多评论</a></div>\n<script>${COMMENTS}</script>`
    : '';
  return newsLayout(ctx, a.site, `${a.title}_${ch.name}_${s.name}`, `
<div class="crumbs"><a href="/">首页</a> &gt; <a href="${listPath(s.style, ch.dir, 1)}">${ch.name}</a> &gt; 正文</div>
${body}
${a.topic === 'quake' ? `<p class="zt-link"><a href="${esc(portal.hub.path)}">更多报道请进入：抗震救灾专题</a></p>` : ''}
<div class="related"><h3>相关新闻</h3><ul>${related.join('\n')}</ul></div>
<div class="hot"><h3>热点新闻</h3><ul>${hot.join('\n')}</ul></div>
${comments}${counter}`, head);
}

function staticArticleHtml(ctx: Ctx, a: Article, opts: { charset?: string; broken?: boolean } = {}): string {
  const s = siteOf(ctx.model, a.site);
  const related = a.related.map((r) => `<li><a href="${link(ctx, a.site, r.site, r.path)}">${esc(r.text)}</a></li>`).join('\n');
  const paras = opts.broken
    ? a.paras.map((p, i) => (i % 2 ? `<p>${esc(p)}` : `<div class="para"><p>${esc(p)}</div>`)).join('\n') + '\n<table><tr><td><b>责任编辑：<i>小王'
    : a.paras.map((p) => `<p>${esc(p)}</p>`).join('\n');
  const home = a.site === 'charity' ? `<a href="/">爱心公益网</a>` : `<a href="/">${esc(s.name)}</a>`;
  return `<!DOCTYPE html>
<html><head><meta charset="${opts.charset ?? 'utf-8'}"><title>${esc(a.title)} - ${esc(s.name)}</title>${a.metaPubdate ? `<meta name="pubdate" content="${isoCst(a.publish)}">` : ''}</head>
<body>
<div class="header">${home} | <a href="${s.kind === 'news' ? '/about.shtml' : '/about.html'}">关于我们</a></div>
<div class="article"><h1>${esc(a.title)}</h1>
<div class="info">${formatTime(a.publish, a.timeFormat)} 来源：${esc(a.source)}</div>
${paras}
${opts.broken ? '' : '</div>'}
<div class="related"><h3>相关文章</h3><ul>${related}</ul></div>
<div class="footer">Copyright 2008 ${esc(s.name)}</div>
${opts.broken ? '' : '</body></html>'}`;
}

function photoPage(ctx: Ctx, a: Article): string {
  return newsLayout(ctx, a.site, `图片：${a.title}_${siteOf(ctx.model, a.site).name}`, `
<div class="photo-view"><img src="/img/${a.id}.jpg" alt="${esc(a.title)}"><p>${esc(a.title)}</p><a href="${esc(a.path)}">返回正文</a></div>`);
}

function plainPage(ctx: Ctx, site: string, title: string, text: string): string {
  return newsLayout(ctx, site, `${title}_${siteOf(ctx.model, site).name}`, `<div class="static"><h1>${esc(title)}</h1><p>${esc(text)}</p></div>`);
}

function monthOf(ms: number): string {
  const t = cst(ms);
  return `${t.y}-${p2(t.mo)}`;
}
function shiftMonth(month: string, by: number): string {
  const [y, m] = month.split('-').map(Number);
  const idx = y * 12 + (m - 1) + by;
  return `${Math.floor(idx / 12)}-${p2((idx % 12) + 1)}`;
}

/** The infinite calendar: every month links its neighbours, forever. */
function calendarPage(ctx: Ctx, site: string, month: string): string {
  const m = ctx.model;
  const [y, mo] = month.split('-').map(Number);
  const days = new Date(Date.UTC(y, mo, 0)).getUTCDate();
  const arts = latest(m, site, 100000).filter((a) => monthOf(a.publish) === month).slice(0, 30);
  const cells = Array.from({ length: days }, (_, i) => `<td>${i + 1}</td>`).join('');
  return newsLayout(ctx, site, `${y}年${mo}月新闻回顾_${siteOf(m, site).name}`, `
<div class="calendar"><a href="/calendar?month=${shiftMonth(month, -1)}">&lt;&lt; 上个月</a> <strong>${y}年${mo}月</strong> <a href="/calendar?month=${shiftMonth(month, 1)}">下个月 &gt;&gt;</a>
<table><tr>${cells}</tr></table></div>
<ul>${arts.map((a) => `<li><a href="${esc(a.path)}">${esc(a.title)}</a></li>`).join('')}</ul>`);
}

function commentsJson(ctx: Ctx, a: Article, page: number) {
  const shown = a.commentTimes.filter((t) => t <= ctx.now);
  const comments = shown.slice((page - 1) * PER_PAGE_COMMENTS, page * PER_PAGE_COMMENTS).map((t, k) => {
    const i = (page - 1) * PER_PAGE_COMMENTS + k;
    const u = hash32(`${a.id}:${i}`) % ctx.model.users.length;
    const c = cst(t);
    return {
      user: ctx.model.users[u],
      time: `${c.y}-${p2(c.mo)}-${p2(c.d)} ${p2(c.h)}:${p2(c.mi)}:${p2(c.s)}`,
      content: replyText(ctx.model, a.topic, `c:${a.id}:${i}`),
    };
  });
  return { total: shown.length, page, pageSize: PER_PAGE_COMMENTS, comments };
}

function newsRoute(m: WebModel, site: string, path: string, q: URLSearchParams, opts: MiscOptions): Route | undefined {
  const s = siteOf(m, site);
  const portal = portalOf(m, site)!;
  const c = key(site, path + (q.size ? '?' + q.toString() : ''));
  if (path === '/' || path === '/index.shtml') return { canonical: key(site, '/'), truth: { kind: 'home', topic: null, title: `${s.name}_新闻中心` }, respond: (ctx) => html(newsHome(ctx, site)) };
  const aid = m.articleByPath.get(key(site, path));
  if (aid) {
    const a = m.articles.get(aid)!;
    const page = (ctx: Ctx) => {
      if (!a.render) return articlePage(ctx, a);
      const turned = a.render === 'static' && s.style === 'mixed' && opts.staticTurnsJsAt !== undefined && ctx.now >= opts.staticTurnsJsAt;
      return mixedArticlePage(ctx, a, turned ? 'js' : a.render);
    };
    return { canonical: key(site, path), truth: { kind: 'article', topic: a.topic, publishTime: isoCst(a.publish), title: a.title }, respond: (ctx) => html(page(ctx)) };
  }
  for (let ci = 0; ci < portal.channels.length; ci++) {
    const ch = portal.channels[ci];
    const pages = Math.max(1, Math.ceil(ch.articles.length / PER_PAGE_LIST));
    for (let pg = 1; pg <= pages; pg++) {
      if (path === listPath(s.style, ch.dir, pg) || (pg === 1 && path === `/${ch.dir}/index.shtml`) || (pg === 1 && path === `/${ch.dir}/`)) {
        return { canonical: key(site, listPath(s.style, ch.dir, pg)), truth: { kind: 'list', topic: ch.topic, title: `${ch.name}_${s.name}` }, respond: (ctx) => html(channelList(ctx, site, ci, pg)) };
      }
    }
  }
  if (path === portal.hub.path) return { canonical: c, truth: { kind: 'list', topic: 'quake', title: portal.hub.title }, respond: (ctx) => html(hubPage(ctx, site)) };
  let mm: RegExpExecArray | null;
  if ((mm = /^\/api\/article\/(\d+)\.json$/.exec(path)) && s.style === 'api') {
    const a = m.articles.get(mm[1]);
    if (a && a.site === site) return { canonical: c, truth: { kind: 'other', topic: null }, respond: () => json(articleData(a)) };
  }
  if (path === '/api/comments') {
    const a = m.articles.get(q.get('aid') ?? '');
    const page = Math.max(1, Number(q.get('page') ?? '1') || 1);
    if (a && a.site === site) return { canonical: c, truth: { kind: 'other', topic: null }, respond: (ctx) => json(commentsJson(ctx, a, page)) };
  }
  if (path === '/calendar' && s.style === 'inline') {
    const month = q.get('month') ?? monthOf(m.start);
    if (/^\d{4}-(0[1-9]|1[0-2])$/.test(month)) return { canonical: c, truth: { kind: 'trap', topic: null, title: '新闻回顾' }, respond: (ctx) => html(calendarPage(ctx, site, month)) };
  }
  if ((mm = /^\/photo\/(\d+)\.shtml$/.exec(path))) {
    const a = m.articles.get(mm[1]);
    if (a && a.site === site) return { canonical: c, truth: { kind: 'other', topic: null, title: a.title }, respond: (ctx) => html(photoPage(ctx, a)) };
  }
  if ((mm = /^\/print\/(\d+)\.shtml$/.exec(path))) {
    const a = m.articles.get(mm[1]);
    // Disallowed by robots.txt; a print view is a duplicate, not a new relevant page.
    if (a && a.site === site) return { canonical: c, truth: { kind: 'other', topic: null, title: a.title }, respond: (ctx) => html(staticArticleHtml(ctx, a)) };
  }
  const simple: Record<string, [string, string]> = {
    '/about.shtml': ['关于我们', `${s.name}是综合性新闻门户网站，提供新闻、体育、财经、科技、娱乐等资讯服务。`],
    '/contact.shtml': ['联系方式', '地址：北京市海淀区 电话：010-12345678 邮编：100080'],
    '/member/login.shtml': ['用户登录', '请输入用户名和密码。'],
    '/member/register.shtml': ['用户注册', '注册成为会员，参与评论互动。'],
  };
  if (simple[path]) return { canonical: c, truth: { kind: 'other', topic: null, title: simple[path][0] }, respond: (ctx) => html(plainPage(ctx, site, ...simple[path])) };
  if ((mm = /^\/ad\/(\d+)\.shtml$/.exec(path))) return { canonical: c, truth: { kind: 'other', topic: null, title: '广告' }, respond: (ctx) => html(plainPage(ctx, site, '推广', `品牌特惠第${mm![1]}期，点击了解详情。`)) };
  return undefined;
}

// ---------------------------------------------------------------- forum

function forumLayout(ctx: Ctx, title: string, body: string): string {
  const m = ctx.model;
  const news = m.sites.filter((x) => x.kind === 'news').map((x) => `<a href="${esc(ctx.origin(x.key))}/">${x.name}</a>`).join(' ');
  return `<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>${esc(title)} - 九州社区 - Powered by Discuz!</title><meta name="generator" content="Discuz! X2.5"></head>
<body id="nv_forum" class="pg_forumdisplay">
<div id="toptb" class="cl"><a href="member.php?mod=register">注册</a> <a href="member.php?mod=logging&amp;action=login">登录</a> ${news}</div>
<div id="hd"><a href="forum.php">九州社区</a> <a href="search.php?mod=forum">搜索</a> <a href="misc.php?mod=faq">帮助</a></div>
<div id="wp" class="wp">
${body}
</div>
<div id="ft" class="wp cl"><p>Powered by <strong>Discuz!</strong> X2.5 &copy; 2001-2012 Comsenz Inc.</p></div>
</body></html>`;
}

export function repliesShown(t: Thread, now: number): number[] {
  let n = 0;
  while (n < t.replyTimes.length && t.replyTimes[n] <= now) n++;
  return t.replyTimes.slice(0, n);
}
export function threadPages(t: Thread, now: number): number {
  return Math.max(1, Math.ceil((repliesShown(t, now).length + 1) / PER_PAGE_POSTS));
}

function forumIndex(ctx: Ctx): string {
  const m = ctx.model;
  const rows = m.boards.map((b) => {
    const ts = b.threads.map((id) => m.threads.get(id)!).filter((t) => t.created <= ctx.now);
    const posts = ts.reduce((s, t) => s + 1 + repliesShown(t, ctx.now).length, 0);
    return `<tr><td class="fl_g"><h2><a href="forum-${b.fid}-1.html">${b.name}</a></h2></td><td class="fl_i"><span class="xi2">${ts.length}</span> / <em>${posts}</em></td></tr>`;
  });
  const newest = [...m.threads.values()].filter((t) => t.created <= ctx.now).sort((a, b) => b.created - a.created || a.tid - b.tid).slice(0, 6)
    .map((t) => `<li><a href="forum.php?mod=viewthread&amp;tid=${t.tid}">${esc(t.title)}</a></li>`);
  return forumLayout(ctx, '首页', `<div class="fl bm"><table class="fl_tb">${rows.join('\n')}</table></div>
<div class="bm"><h2>最新主题</h2><ul>${newest.join('')}</ul></div>`);
}

function lastPost(t: Thread, now: number): number {
  const r = repliesShown(t, now);
  return r.length ? r[r.length - 1] : t.created;
}

function boardPage(ctx: Ctx, fid: number, page: number): string {
  const m = ctx.model;
  const b = m.boards.find((x) => x.fid === fid)!;
  const ts = b.threads.map((id) => m.threads.get(id)!).filter((t) => t.created <= ctx.now)
    .sort((x, y) => lastPost(y, ctx.now) - lastPost(x, ctx.now) || x.tid - y.tid);
  const pages = Math.max(1, Math.ceil(ts.length / PER_PAGE_LIST));
  const rows = ts.slice((page - 1) * PER_PAGE_LIST, page * PER_PAGE_LIST).map((t) => {
    const n = repliesShown(t, ctx.now).length;
    return `<tbody id="normalthread_${t.tid}"><tr>
<th class="new"><a href="thread-${t.tid}-1-1.html" onclick="atarget(this)" class="s xst">${esc(t.title)}</a></th>
<td class="by"><cite><a href="home.php?mod=space&amp;uid=${t.uid}">${esc(t.author)}</a></cite><em><span>${discuzTime(t.created).split(' ')[0]}</span></em></td>
<td class="num"><a href="thread-${t.tid}-1-1.html" class="xi2">${n}</a><em>${n * 7 + 13}</em></td>
<td class="by"><em><a href="forum.php?mod=redirect&amp;tid=${t.tid}&amp;goto=lastpost#lastpost">${discuzTime(lastPost(t, ctx.now))}</a></em></td>
</tr></tbody>`;
  });
  const pg: string[] = [];
  for (let i = 1; i <= pages; i++) pg.push(i === page ? `<strong>${i}</strong>` : `<a href="forum-${fid}-${i}.html">${i}</a>`);
  if (page < pages) pg.push(`<a href="forum-${fid}-${page + 1}.html" class="nxt">下一页</a>`);
  return forumLayout(ctx, b.name, `<div id="pt" class="bm cl"><a href="forum.php">九州社区</a> <em>&rsaquo;</em> <a href="forum-${fid}-1.html">${b.name}</a></div>
<div id="threadlist" class="tl bm"><table summary="forum_${fid}" id="threadlisttableid">
${rows.join('\n')}
</table></div>
<div class="pg">${pg.join('')}</div>`);
}

const FLOOR_NAMES = ['楼主', '沙发', '板凳', '地板'];

function threadPage(ctx: Ctx, t: Thread, page: number): string {
  const m = ctx.model;
  const b = m.boards.find((x) => x.fid === t.fid)!;
  const replies = repliesShown(t, ctx.now);
  const pages = threadPages(t, ctx.now);
  const pgNo = Math.min(page, pages); // Discuz shows the last page for a page number past the end
  const posts: { floor: number; time: number; author: string; uid: number; text: string }[] = [];
  for (let f = (pgNo - 1) * PER_PAGE_POSTS + 1; f <= Math.min(pgNo * PER_PAGE_POSTS, replies.length + 1); f++) {
    if (f === 1) posts.push({ floor: 1, time: t.created, author: t.author, uid: t.uid, text: t.op.map((p) => esc(p)).join('<br />\n') });
    else {
      const u = hash32(`${t.tid}:${f}`) % m.users.length;
      const quote = f > 3 && hash32(`q${t.tid}:${f}`) % 7 === 0
        ? `<div class="quote"><blockquote>${esc(replyText(m, t.topic, `r:${t.tid}:${f - 2}`).slice(0, 30))}</blockquote></div>` : '';
      posts.push({ floor: f, time: replies[f - 2], author: m.users[u], uid: 10000 + u, text: quote + esc(replyText(m, t.topic, `r:${t.tid}:${f - 1}`)) });
    }
  }
  const html = posts.map((p) => {
    const pid = t.tid * 1000 + p.floor;
    const age = ctx.now - p.time;
    // Discuz prints recent posts relative with the absolute time in the title attribute.
    const when = age < 7 * 86400_000
      ? `发表于 <span title="${discuzTime(p.time)}">${age < 3600_000 ? `${Math.max(1, Math.floor(age / 60_000))}&nbsp;分钟前` : age < 86400_000 ? `${Math.floor(age / 3600_000)}&nbsp;小时前` : `${Math.floor(age / 86400_000)}&nbsp;天前`}</span>`
      : `发表于 ${discuzTime(p.time)}`;
    const floor = p.floor <= 4 ? FLOOR_NAMES[p.floor - 1] : `<em>${p.floor}</em><sup>#</sup>`;
    return `<div id="post_${pid}"><table id="pid${pid}" class="plhin" summary="pid${pid}" cellspacing="0" cellpadding="0">
<tr><td class="pls" rowspan="2"><div class="pi"><div class="authi"><a href="home.php?mod=space&amp;uid=${p.uid}" target="_blank" class="xw1">${esc(p.author)}</a></div></div></td>
<td class="plc"><div class="pi"><strong><a href="forum.php?mod=redirect&amp;goto=findpost&amp;ptid=${t.tid}&amp;pid=${pid}" id="postnum${pid}">${floor}</a></strong>
<div class="pti"><div class="authi"><em id="authorposton${pid}">${when}</em> | <a href="forum.php?mod=viewthread&amp;tid=${t.tid}&amp;page=${pgNo}&amp;authorid=${p.uid}">只看该作者</a></div></div></div>
<div class="pct"><div class="pcb"><div class="t_fsz"><table cellspacing="0" cellpadding="0"><tr><td class="t_f" id="postmessage_${pid}">
${p.text}
</td></tr></table></div></div></div></td></tr>
<tr><td class="plc plm"><a href="misc.php?mod=report&amp;pid=${pid}">举报</a> <a href="forum.php?mod=post&amp;action=reply&amp;tid=${t.tid}&amp;repquote=${pid}">回复</a></td></tr>
</table></div>`;
  });
  const pg: string[] = [];
  if (pgNo > 1) pg.push(`<a href="thread-${t.tid}-${pgNo - 1}-1.html" class="prev">上一页</a>`);
  for (let i = 1; i <= pages; i++) pg.push(i === pgNo ? `<strong>${i}</strong>` : `<a href="thread-${t.tid}-${i}-1.html">${i}</a>`);
  if (pgNo < pages) pg.push(`<a href="thread-${t.tid}-${pgNo + 1}-1.html" class="nxt">下一页</a>`);
  return forumLayout(ctx, `${t.title} - ${b.name}`, `<div id="pt" class="bm cl"><a href="forum.php">九州社区</a> <em>&rsaquo;</em> <a href="forum-${b.fid}-1.html">${b.name}</a> <em>&rsaquo;</em> ${esc(t.title)}</div>
<div id="postlist" class="pl bm">
<table cellspacing="0" cellpadding="0"><tr><td class="pls ptn pbn"><div class="hm ptn"><span class="xg1">查看:</span> <span class="xi1">${replies.length * 7 + 13}</span><span class="pipe">|</span><span class="xg1">回复:</span> <span class="xi1">${replies.length}</span></div></td>
<td class="plc ptm pbn vwthd"><h1 class="ts"><span id="thread_subject">${esc(t.title)}</span></h1></td></tr></table>
${html.join('\n')}
</div>
<div class="pgs mtm mbm cl"><div class="pg">${pg.join('')}</div></div>`);
}

function forumRoute(m: WebModel, path: string, q: URLSearchParams, now: number): Route | undefined {
  const site = 'forum';
  const c = key(site, path + (q.size ? '?' + q.toString() : ''));
  let mm: RegExpExecArray | null;
  const threadRoute = (tid: number, page: number): Route | undefined => {
    const t = m.threads.get(tid);
    if (!t || t.created > now) return undefined;
    const pg = Math.max(1, Math.min(page, threadPages(t, now)));
    return {
      canonical: key(site, `/thread-${tid}-${pg}-1.html`),
      truth: { kind: 'thread', topic: t.topic, publishTime: isoCst(t.created), title: t.title },
      respond: (ctx) => html(threadPage(ctx, t, pg)),
    };
  };
  const boardRoute = (fid: number, page: number): Route | undefined => {
    const b = m.boards.find((x) => x.fid === fid);
    if (!b) return undefined;
    return { canonical: key(site, `/forum-${fid}-${page}.html`), truth: { kind: 'board', topic: b.topic, title: b.name }, respond: (ctx) => html(boardPage(ctx, fid, page)) };
  };
  if ((mm = /^\/thread-(\d+)-(\d+)-\d+\.html$/.exec(path))) return threadRoute(Number(mm[1]), Number(mm[2]));
  if ((mm = /^\/forum-(\d+)-(\d+)\.html$/.exec(path))) return boardRoute(Number(mm[1]), Number(mm[2]));
  if (path === '/' || path === '/forum.php' || path === '/index.php') {
    const mod = q.get('mod');
    if (!mod) return { canonical: key(site, '/forum.php'), truth: { kind: 'home', topic: null, title: '九州社区' }, respond: (ctx) => html(forumIndex(ctx)) };
    if (mod === 'viewthread') return threadRoute(Number(q.get('tid')), Number(q.get('page') ?? '1') || 1);
    if (mod === 'forumdisplay') return boardRoute(Number(q.get('fid')), Number(q.get('page') ?? '1') || 1);
    if (mod === 'redirect') {
      const t = m.threads.get(Number(q.get('tid') ?? q.get('ptid')));
      if (t && t.created <= now) return { canonical: c, respond: () => redirect(302, `/thread-${t.tid}-${threadPages(t, now)}-1.html`) };
    }
  }
  // Login-gated Discuz scripts (disallowed by robots.txt): Discuz answers with a 提示信息 page.
  if (['/member.php', '/misc.php', '/search.php'].includes(path) || (path === '/forum.php' && q.get('mod') === 'post')) {
    return { canonical: c, truth: { kind: 'other', topic: null, title: '提示信息' }, respond: (ctx) => html(forumLayout(ctx, '提示信息', '<div id="messagetext" class="alert_error"><p>抱歉，您尚未登录，没有权限访问该版块</p></div>')) };
  }
  if (path === '/home.php' && q.get('uid')) return { canonical: c, truth: { kind: 'other', topic: null, title: '个人空间' }, respond: (ctx) => html(forumLayout(ctx, '个人空间', `<p>用户 ${esc(q.get('uid')!)} 的个人空间</p>`)) };
  return undefined;
}

// ---------------------------------------------------------------- search engine

interface Doc { site: string; path: string; title: string; text: string; created: number }
const indexCache = new WeakMap<WebModel, Doc[]>();
function searchIndex(m: WebModel): Doc[] {
  let docs = indexCache.get(m);
  if (!docs) {
    docs = [];
    for (const a of m.articles.values()) if (a.site !== m.charity.site) docs.push({ site: a.site, path: a.path, title: a.title, text: a.paras.join(''), created: a.publish });
    for (const t of m.threads.values()) docs.push({ site: 'forum', path: `/thread-${t.tid}-1-1.html`, title: t.title, text: t.op.join(''), created: t.created });
    indexCache.set(m, docs);
  }
  return docs;
}
function count(hay: string, needle: string): number {
  let n = 0;
  for (let i = hay.indexOf(needle); i >= 0; i = hay.indexOf(needle, i + needle.length)) n++;
  return n;
}
/**
 * Simple term-overlap ranking (substring counts, title ×3; long terms also by their
 * character bigrams at a low weight). Deliberately naive: it is a stand-in search engine.
 */
export function searchRank(m: WebModel, wd: string, now: number): Doc[] {
  const terms = wd.split(/[\s,，+]+/).filter(Boolean);
  if (!terms.length) return [];
  const scored: { d: Doc; s: number }[] = [];
  for (const d of searchIndex(m)) {
    if (d.created > now) continue;
    let s = 0;
    for (const t of terms) {
      s += 3 * count(d.title, t) + count(d.text, t);
      if (t.length > 2) for (let i = 0; i + 2 <= t.length; i++) { const b = t.slice(i, i + 2); s += 0.2 * (3 * count(d.title, b) + count(d.text, b)); }
    }
    if (s > 0) scored.push({ d, s });
  }
  scored.sort((a, b) => b.s - a.s || key(a.d.site, a.d.path).localeCompare(key(b.d.site, b.d.path)));
  return scored.map((x) => x.d);
}

function searchLayout(title: string, wd: string, body: string): string {
  return `<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>${esc(title)}</title></head>
<body><div id="head"><form name="f" action="/s"><input name="wd" id="kw" value="${esc(wd)}"><input type="submit" value="搜索一下"></form></div>
${body}
<div id="foot"><a href="/about.html">关于搜索</a> <a href="/ad/join.html">推广服务</a></div></body></html>`;
}

function searchResults(ctx: Ctx, wd: string, pn: number): string {
  const ranked = searchRank(ctx.model, wd, ctx.now);
  const page = ranked.slice(pn, pn + 10);
  const ad = (n: number) => `<div class="ad ec_pp" id="ad${n}"><h3><a href="/ad/${n}.html" target="_blank">${esc(wd)}${n === 1 ? '保险 专业保障 上平安' : ' 相关商品 特价促销'}</a> <span class="ec_tuiguang">推广</span></h3><p>${esc(wd)}，点击查看更多优惠。</p></div>`;
  const results = page.map((d, i) => {
    const url = ctx.origin(d.site) + d.path;
    const first = terms(wd)[0] ?? '';
    const at = Math.max(0, d.text.indexOf(first) - 20);
    const snippet = esc(d.text.slice(at, at + 80)).split(esc(first)).join(`<em>${esc(first)}</em>`);
    return `<div class="result c-container" id="${pn + i + 1}"><h3 class="t"><a href="${esc(url)}" target="_blank">${esc(d.title)}</a></h3><div class="c-abstract">${snippet}...</div><div class="f13"><span class="g">${esc(url.replace(/^https?:\/\//, '').slice(0, 50))}</span></div></div>`;
  });
  if (results.length > 5) results.splice(5, 0, ad(2)); else results.push(ad(2));
  const q = encodeURIComponent(wd);
  const pager = [pn > 0 ? `<a href="/s?wd=${q}&amp;pn=${pn - 10}">&lt;上一页</a>` : '', pn + 10 < ranked.length ? `<a href="/s?wd=${q}&amp;pn=${pn + 10}" class="n">下一页&gt;</a>` : ''].join(' ');
  return searchLayout(`${wd}_搜索结果`, wd, `<div id="content_left"><div class="nums">找到相关结果约${ranked.length}个</div>
${ad(1)}
${results.join('\n')}
</div>
<div id="page">${pager}</div>
<div id="rs"><table><tr><th>相关搜索</th><td><a href="/s?wd=${encodeURIComponent(wd + ' 最新消息')}">${esc(wd)} 最新消息</a></td><td><a href="/s?wd=${encodeURIComponent(wd + ' 图片')}">${esc(wd)} 图片</a></td></tr></table></div>`);
}
const terms = (wd: string) => wd.split(/[\s,，+]+/).filter(Boolean);

function searchRoute(m: WebModel, path: string, q: URLSearchParams): Route | undefined {
  const site = 'search';
  const c = key(site, path + (q.size ? '?' + q.toString() : ''));
  if (path === '/') return { canonical: c, truth: { kind: 'home', topic: null, title: '搜索' }, respond: () => html(searchLayout('搜索一下，你就知道', '', '<div id="hot">热门搜索：<a href="/s?wd=%E5%A5%A5%E8%BF%90">奥运</a></div>')) };
  if (path === '/s') {
    const wd = (q.get('wd') ?? '').trim();
    const pn = Math.max(0, Number(q.get('pn') ?? '0') || 0);
    return { canonical: c, truth: { kind: 'search', topic: null, title: wd }, respond: (ctx) => html(searchResults(ctx, wd, pn)) };
  }
  let mm: RegExpExecArray | null;
  if ((mm = /^\/ad\/(\w+)\.html$/.exec(path))) return { canonical: c, truth: { kind: 'other', topic: null, title: '推广' }, respond: () => html(searchLayout('推广', '', `<p>推广页面 ${esc(mm![1])}</p>`)) };
  if (path === '/about.html') return { canonical: c, truth: { kind: 'other', topic: null, title: '关于搜索' }, respond: () => html(searchLayout('关于搜索', '', '<p>测试用搜索引擎。</p>')) };
  return undefined;
}

// ---------------------------------------------------------------- charity (tunnel) and misc (traps)

function charityRoute(m: WebModel, path: string): Route | undefined {
  const site = m.charity.site;
  if (path === '/' || path === '/index.html') {
    return {
      canonical: key(site, '/'), truth: { kind: 'other', topic: null, title: '爱心公益网' },
      respond: (ctx) => {
        const items = m.charity.cluster.map((id) => { const a = m.articles.get(id)!; return `<li><a href="${esc(a.path)}">${esc(a.title)}</a></li>`; });
        return html(`<!DOCTYPE html><html><head><meta charset="utf-8"><title>爱心公益网 - 传递爱心 共建和谐</title></head><body>
<div class="header"><a href="/">爱心公益网</a> | <a href="/about.html">关于我们</a></div>
<div class="intro">${m.charity.homeText.map((p) => `<p>${esc(p)}</p>`).join('\n')}</div>
<div class="news"><h2>公益动态</h2><ul>${items.join('\n')}</ul></div>
<div class="footer">Copyright 2008 爱心公益网</div></body></html>`);
      },
    };
  }
  if (path === '/about.html') return { canonical: key(site, path), truth: { kind: 'other', topic: null, title: '关于我们' }, respond: () => html('<!DOCTYPE html><html><head><meta charset="utf-8"><title>关于我们</title></head><body><p>爱心公益网是一家民间公益信息平台。</p><a href="/">首页</a></body></html>') };
  const aid = m.articleByPath.get(key(site, path));
  if (aid) {
    const a = m.articles.get(aid)!;
    return { canonical: key(site, path), truth: { kind: 'article', topic: a.topic, publishTime: isoCst(a.publish), title: a.title }, respond: (ctx) => html(staticArticleHtml(ctx, a)) };
  }
  return undefined;
}

const hugeCache = new WeakMap<WebModel, string>();
function hugePage(m: WebModel): string {
  let s = hugeCache.get(m);
  if (!s) {
    const r = new Rng(m.seed).fork('huge');
    const parts: string[] = ['<!DOCTYPE html><html><head><meta charset="utf-8"><title>城市生活网 - 全部存档</title></head><body><h1>全部存档</h1>'];
    let bytes = 0;
    while (bytes < 3_000_000) {
      const p = `<p>${esc(sentence(r, lexiconOf(r.pick(TOPIC_LEXICONS).id)) + sentence(r, lexiconOf('ent')))}</p>\n`;
      parts.push(p);
      bytes += Buffer.byteLength(p);
    }
    parts.push('<a href="/">返回首页</a></body></html>');
    s = parts.join('');
    hugeCache.set(m, s);
  }
  return s;
}

function miscPage(title: string, body: string): string {
  return `<!DOCTYPE html><html><head><meta charset="utf-8"><title>${esc(title)} - 城市生活网</title></head><body>
<div class="header"><a href="/">城市生活网</a></div>
${body}
<div class="footer">Copyright 2008 城市生活网</div></body></html>`;
}

export interface MiscOptions {
  slowPageMs: number;
  /** Added to every response (ms): a far-away web. */
  latencyMs?: number;
  /** Mixed web: from this test-web time (ms) on, the mixed portal's server-rendered articles are built by JavaScript. */
  staticTurnsJsAt?: number;
  /**
   * Pages carry what real pages carry from other hosts (./server.ts): a stylesheet, a web font,
   * a photo and a tracking pixel from a "CDN" site that answers each after this many ms.
   */
  thirdPartyMs?: number;
}

function miscRoute(m: WebModel, path: string, q: URLSearchParams, opts: MiscOptions): Route | undefined {
  const site = m.misc.site;
  const c = key(site, path + (q.size ? '?' + q.toString() : ''));
  const r = (kind: PageTruth['kind'], title: string, respond: Route['respond'], topic: string | null = null): Route => ({ canonical: c, truth: { kind, topic, title }, respond });
  const gbk = m.articles.get(m.misc.gbkArticle)!;
  const broken = m.articles.get(m.misc.brokenArticle)!;
  switch (path) {
    case '/':
    case '/index.html':
      return r('home', '城市生活网', (ctx) => {
        const tips = new Rng(m.seed).fork('misc-home');
        return html(miscPage('首页', `<p>${esc(sentence(tips, lexiconOf('ent')))}</p>
<ul>
<li><a href="${esc(gbk.path)}">${esc(gbk.title)}</a></li>
<li><a href="/broken.html">${esc(broken.title)}</a></li>
<li><a href="/go/1">精彩活动（短链接）</a></li>
<li><a href="/loop/a">会员中心</a></li>
<li><a href="/missing.html">旧版专题</a></li>
<li><a href="/error.html">在线调查</a></li>
<li><a href="/slow.html">天气预报</a></li>
<li><a href="/archive/all.html">全部存档</a></li>
<li><a href="/files/report.html">年度报告下载</a></li>
<li><a href="/private/index.html">内部资料</a></li>
<li><a href="/landing.html">活动主页</a></li>
</ul>
<p>合作媒体：${m.sites.filter((x) => x.kind === 'news').map((x) => `<a href="${esc(ctx.origin(x.key))}/">${x.name}</a>`).join(' ')}</p>`));
      });
    case '/go/1': return { canonical: c, respond: () => redirect(301, '/go/2') };
    case '/go/2': return { canonical: c, respond: () => redirect(302, '/go/3') };
    case '/go/3': return { canonical: c, respond: () => redirect(307, '/landing.html') };
    case '/loop/a': return { canonical: c, respond: () => redirect(302, '/loop/b') };
    case '/loop/b': return { canonical: c, respond: () => redirect(302, '/loop/a') };
    case '/landing.html': return r('other', '活动主页', () => html(miscPage('活动主页', '<p>欢迎参加本站夏季活动。</p>')));
    case '/missing.html': return r('fault', '404', () => notFound());
    // A soft 404: the error answered with 200 and a list of headlines around it (linked from nowhere;
    // tests and users seed it to check that such pages are never judged relevant).
    case '/zhuanti/old.html': return r('fault', 'soft-404', (ctx) => {
      const hot = [...m.articles.values()].filter((a) => a.topic === 'quake').slice(0, 6);
      return html(miscPage('提示信息', `<h1>提示信息</h1><p>抱歉，您访问的页面不存在或已被删除。</p>
<h2>热点新闻</h2><ul>${hot.map((a) => `<li><a href="${esc(ctx.origin(a.site))}${esc(a.path)}">${esc(a.title)}</a></li>`).join('')}</ul>`));
    });
    case '/error.html': return r('fault', '500', () => html('<!DOCTYPE html><html><head><meta charset="utf-8"><title>500 Internal Server Error</title></head><body><h1>服务器内部错误</h1></body></html>', 500));
    case '/slow.html': return r('other', '天气预报', () => ({ ...html(miscPage('天气预报', '<p>今天晴转多云，气温18到26度。</p>')), delayMs: opts.slowPageMs }));
    case '/archive/all.html': return r('other', '全部存档', () => html(hugePage(m)));
    case '/files/report.html': return r('fault', '年度报告', () => {
      const rr = new Rng(m.seed).fork('binary');
      const buf = Buffer.alloc(65536);
      for (let i = 0; i < buf.length; i++) buf[i] = rr.int(0, 255);
      return { status: 200, headers: { 'content-type': 'application/octet-stream' }, body: buf };
    });
    case '/private/index.html': return r('other', '内部资料', () => html(miscPage('内部资料', '<p>仅限内部人员访问。</p>')));
    case '/broken.html': return { canonical: c, truth: { kind: 'article', topic: broken.topic, publishTime: isoCst(broken.publish), title: broken.title }, respond: (ctx) => html(staticArticleHtml(ctx, broken, { broken: true })) };
    case gbk.path: return {
      canonical: c, truth: { kind: 'article', topic: gbk.topic, publishTime: isoCst(gbk.publish), title: gbk.title },
      respond: (ctx) => ({ status: 200, headers: { 'content-type': 'text/html; charset=gbk' }, body: iconv.encode(staticArticleHtml(ctx, gbk, { charset: 'gbk' }), 'gbk') }),
    };
    case '/about.html': return r('other', '关于我们', () => html(miscPage('关于我们', '<p>城市生活网提供本地生活资讯。</p>')));
  }
  return undefined;
}

// ---------------------------------------------------------------- dispatch

const ROBOTS_ROUTE = (site: string, robots: string): Route => ({ canonical: key(site, '/robots.txt'), respond: () => ({ status: 200, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: robots }) });

/** Find what a site serves at a path (with its query string). undefined = 404. */
export function resolve(m: WebModel, site: string, pathAndQuery: string, now: number, opts: MiscOptions): Route | undefined {
  const s = m.sites.find((x) => x.key === site);
  if (!s) return undefined;
  const u = new URL(pathAndQuery, 'http://x');
  const path = u.pathname;
  const q = u.searchParams;
  if (path === '/robots.txt') return ROBOTS_ROUTE(site, s.robots);
  if (path === '/favicon.ico' || /^\/(ad\/)?img\/[\w-]+\.(gif|jpg)$/.test(path)) {
    return { canonical: key(site, path), respond: () => ({ status: 200, headers: { 'content-type': 'image/gif' }, body: GIF }) };
  }
  if (path === '/css/main.css') return { canonical: key(site, path), respond: () => ({ status: 200, headers: { 'content-type': 'text/css' }, body: 'body{font:14px/1.6 sans-serif}.ad-banner img{display:block}' }) };
  if (m.deadLinks.has(key(site, path))) return { canonical: key(site, path), truth: { kind: 'fault', topic: null }, respond: () => notFound() };
  if (s.kind === 'news') return newsRoute(m, site, path, q, opts);
  if (s.kind === 'forum') return forumRoute(m, path, q, now);
  if (s.kind === 'search') return searchRoute(m, path, q);
  if (site === m.charity.site) return charityRoute(m, path);
  if (site === m.misc.site) return miscRoute(m, path, q, opts);
  return undefined;
}

export { notFound };
export type { TopicId };
