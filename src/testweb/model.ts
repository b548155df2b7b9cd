/**
 * The pure, seeded generator of the test web: sites, articles, forum threads, link structure
 * and ground truth as plain data. No HTML here (see render.ts) and no I/O except reading the
 * optional THUCNews headlines. Same options → identical model.
 *
 * Long because: one seeded generator, and the order of its random draws defines the web; split
 * across files, that order would be easy to change by accident, and every test web with it.
 */
import { Rng } from '../util/rng.js';
import {
  CHARITY, SOURCES, TOPIC_LEXICONS, headline, lexiconOf, loadThucHeadlines, paragraph, sentence,
  type TopicId,
} from './lexicon.js';

export type SiteKind = 'news' | 'forum' | 'search' | 'misc';
export type PageKind = 'home' | 'list' | 'article' | 'thread' | 'board' | 'search' | 'trap' | 'fault' | 'other';

export interface SiteModel {
  key: string;
  name: string;
  kind: SiteKind;
  /**
   * News portals only: how article text reaches the page. `inline`/`api`: JavaScript (the
   * default web's portals); `static`: server-rendered; `mixed`: per URL pattern (Article.render).
   */
  style?: 'inline' | 'api' | 'static' | 'mixed';
  robots: string;
}

export interface LinkRef { site: string; path: string; text: string }

export interface Channel { topic: TopicId; name: string; dir: string; articles: string[] /* article ids, newest first */ }

export interface Article {
  id: string;
  site: string;
  path: string;
  topic: TopicId;
  title: string;
  paras: string[];
  /** ms since epoch. */
  publish: number;
  /** Index into the visible time formats (render.ts TIME_FORMATS). */
  timeFormat: number;
  metaPubdate: boolean;
  source: string;
  related: LinkRef[];
  /** Reply-arrival times of the comment widget (ms, sorted). */
  commentTimes: number[];
  /** Static (server-rendered) page instead of a JS-built one: tunnel cluster, GBK, broken. */
  static?: boolean;
  /**
   * Mixed web's portals only: `static` text and links in the HTML, no comment widget; `js` text
   * put there by an inline script; `xhr-comments` static text with a comment widget loading by XHR.
   */
  render?: 'static' | 'js' | 'xhr-comments';
}

export interface Board { fid: number; name: string; topic: TopicId | null; threads: number[] }

export interface Thread {
  tid: number;
  fid: number;
  topic: TopicId | null;
  title: string;
  author: string;
  uid: number;
  created: number;
  op: string[];
  /** Reply times (ms, sorted); a page shows those ≤ clock.now(). */
  replyTimes: number[];
  heat: 'hot' | 'warm' | 'cold';
}

export interface Portal { site: string; channels: Channel[]; hub: { path: string; title: string; articles: string[] } }

export interface Tunnel { topic: TopicId; via: string[]; cluster: string[] } // site-relative "site|path" keys

export interface WebModel {
  seed: number;
  start: number;
  sites: SiteModel[];
  portals: Portal[];
  articles: Map<string, Article>;
  /** site|path → article id */
  articleByPath: Map<string, string>;
  boards: Board[];
  threads: Map<number, Thread>;
  charity: { site: string; homeText: string[]; cluster: string[] };
  misc: { site: string; gbkArticle: string; brokenArticle: string };
  tunnels: Tunnel[];
  /** Linked URLs that answer 404 (dead links), as site|path. */
  deadLinks: Set<string>;
  users: string[];
}

export interface ModelOptions {
  seed: number;
  articlesPerChannel: number;
  portals: number;
  thucnews?: string | false;
  start: Date;
  /**
   * The mixed web (adaptive-fetcher benchmark): the default web plus server-rendered portals and
   * one portal where only some URL patterns need JavaScript. Generated after everything else from
   * its own random streams, so the default web's sites keep their content and truth.
   */
  mixed?: boolean;
}

export const PORTAL_NAMES = ['华夏新闻网', '神州在线', '东方资讯网', '环球新闻中心', '长江新闻网', '北方视窗'];
const CHANNEL_NAMES: Record<TopicId, [string, string, string]> = {
  // [channel name, dir on inline-style portals, dir on api-style portals]
  quake: ['抗震救灾', 'news', 'china'],
  sports: ['体育', 'sports', 'sports'],
  finance: ['财经', 'finance', 'business'],
  tech: ['科技', 'tech', 'it'],
  ent: ['娱乐', 'ent', 'yule'],
};
const HOUR = 3600_000;
const DAY = 24 * HOUR;
const QUAKE_2008 = Date.parse('2008-05-12T14:28:00+08:00');

export const key = (site: string, path: string) => `${site}|${path}`;

/** Wall-clock parts in China Standard Time (UTC+8, no DST) regardless of the host zone. */
export function cst(ms: number) {
  const d = new Date(ms + 8 * HOUR);
  return {
    y: d.getUTCFullYear(), mo: d.getUTCMonth() + 1, d: d.getUTCDate(),
    h: d.getUTCHours(), mi: d.getUTCMinutes(), s: d.getUTCSeconds(),
  };
}
const p2 = (n: number) => String(n).padStart(2, '0');
export function isoCst(ms: number): string {
  const t = cst(ms);
  return `${t.y}-${p2(t.mo)}-${p2(t.d)}T${p2(t.h)}:${p2(t.mi)}:${p2(t.s)}+08:00`;
}

/**
 * Arrival times of a decaying Poisson process with rate λ0·e^{-(t-c)/τ} per hour, by
 * time-transforming unit-rate arrivals (Λ(t) = λ0·τ·(1 − e^{-(t-c)/τ}) is invertible), so hot
 * threads get many replies early and every thread eventually goes quiet.
 */
export function decayingArrivals(rng: Rng, c: number, lambdaPerHour: number, tauHours: number, cap: number): number[] {
  const total = lambdaPerHour * tauHours;
  const out: number[] = [];
  let s = 0;
  while (out.length < cap) {
    s += rng.exp(1);
    if (s >= total) break;
    const hours = -tauHours * Math.log(1 - s / total);
    out.push(c + Math.round((hours * HOUR) / 60_000) * 60_000 + 60_000); // minute resolution, after c
  }
  return out;
}

function makeUsers(rng: Rng, n: number): string[] {
  const a = ['蓝色', '快乐', '老', '小', '天涯', '成都', '北京', '沉默的', '飞翔的', '孤独', '阳光', '风中'];
  const b = ['海豚', '行者', '王子', '猫', '股民', '球迷', '布丁', '浪子', '书生', '木头', '大侠', '小鱼'];
  const out = new Set<string>();
  while (out.size < n) out.add(rng.pick(a) + rng.pick(b) + (rng.chance(0.5) ? String(rng.int(1, 2008)) : ''));
  return [...out];
}

// Long because: the whole web is generated in one seeded pass (its order fixes the model).
export function generateModel(opts: ModelOptions): WebModel {
  const rng = new Rng(opts.seed);
  const start = opts.start.getTime();
  // The quake window starts at the 12 May 2008 main shock (or earlier when the clock is moved back).
  const QUAKE_TIME = Math.min(QUAKE_2008, start - 20 * DAY);
  const thuc = opts.thucnews ? loadThucHeadlines(opts.thucnews) : null;
  const thucQueues = new Map<TopicId, string[]>();
  if (thuc) for (const [t, list] of thuc) thucQueues.set(t, rng.fork(`thuc:${t}`).shuffle(list));
  const usedTitles = new Set<string>();
  const titleFor = (r: Rng, topic: TopicId): string => {
    const q = thucQueues.get(topic);
    if (q && q.length && r.chance(0.7)) return q.pop()!;
    for (let i = 0; ; i++) {
      const t = headline(r, lexiconOf(topic));
      if (!usedTitles.has(t) || i > 20) { usedTitles.add(t); return t; }
    }
  };

  const sites: SiteModel[] = [];
  const portals: Portal[] = [];
  const articles = new Map<string, Article>();
  const articleByPath = new Map<string, string>();
  const deadLinks = new Set<string>();
  const users = makeUsers(rng.fork('users'), 300);
  const topics = TOPIC_LEXICONS.map((t) => t.id);

  // ---- news portals ----
  const usedIds = new Set<string>();
  for (let pi = 0; pi < opts.portals; pi++) {
    const site = `news${pi + 1}`;
    const style: 'inline' | 'api' = pi % 2 === 0 ? 'inline' : 'api';
    sites.push({
      key: site, name: PORTAL_NAMES[pi % PORTAL_NAMES.length] + (pi >= PORTAL_NAMES.length ? String(pi) : ''),
      kind: 'news', style,
      robots: `User-agent: *\nDisallow: /member/\nDisallow: /print/\n${style === 'api' ? 'Disallow: /cgi-bin/\n' : ''}`,
    });
    const pr = rng.fork(`portal:${pi}`);
    const channels: Channel[] = [];
    for (const topic of topics) {
      const [name, dirA, dirB] = CHANNEL_NAMES[topic];
      const ch: Channel = { topic, name, dir: style === 'inline' ? dirA : dirB, articles: [] };
      const lx = lexiconOf(topic);
      for (let i = 0; i < opts.articlesPerChannel; i++) {
        const ar = pr.fork(`a:${topic}:${i}`);
        // Quake news starts at the 12 May main shock; other news spreads over spring, a few are old.
        let publish: number;
        if (topic === 'quake') publish = QUAKE_TIME + ar.int(10, Math.floor((start - QUAKE_TIME) / 60_000) - 60) * 60_000;
        else if (ar.chance(0.05)) publish = start - ar.int(200, 500) * DAY + ar.int(0, 1439) * 60_000;
        else publish = start - ar.int(0, 60 * 24 * 60 - 60) * 60_000 - HOUR;
        publish = Math.floor(publish / 60_000) * 60_000;
        const t = cst(publish);
        let id: string;
        do {
          id = style === 'inline' ? String(ar.int(100000, 999999)) : String(ar.int(200000000, 299999999));
        } while (usedIds.has(id));
        usedIds.add(id);
        const path = style === 'inline'
          ? `/${ch.dir}/${t.y}/${p2(t.mo)}${p2(t.d)}/n${id}.shtml`
          : `/${t.y}${p2(t.mo)}${p2(t.d)}/n${id}.shtml`;
        const paras: string[] = [];
        const np = ar.int(4, 8);
        const q = thucQueues.get(topic);
        for (let k = 0; k < np; k++) {
          let para = paragraph(ar, lx);
          // Real headlines as lead sentences when THUCNews is available.
          if (q && q.length && ar.chance(0.3)) para = q.pop()! + '。' + para;
          paras.push(para);
        }
        // Noise: off-topic news sometimes touches the disaster (donations, insurance), and
        // quake news sometimes talks money or sport, so keyword matching alone is imperfect.
        if (ar.chance(0.12)) paras.splice(ar.int(1, paras.length - 1), 0, sentence(ar, lexiconOf(topic === 'quake' ? ar.pick(['finance', 'sports', 'tech'] as TopicId[]) : 'quake')));
        const hot = topic === 'quake' ? ar.float() * 2 + 0.3 : ar.float() * 0.8 + 0.05;
        const art: Article = {
          id, site, path, topic, title: titleFor(ar, topic), paras, publish,
          timeFormat: ar.int(0, 3), metaPubdate: ar.chance(0.5), source: ar.pick(SOURCES), related: [],
          commentTimes: decayingArrivals(ar.fork('comments'), publish, hot, ar.int(6, 48), 120),
        };
        articles.set(id, art);
        articleByPath.set(key(site, path), id);
        ch.articles.push(id);
      }
      ch.articles.sort((a, b) => articles.get(b)!.publish - articles.get(a)!.publish);
      channels.push(ch);
    }
    const quakeIds = channels.find((c) => c.topic === 'quake')!.articles;
    portals.push({
      site, channels,
      hub: { path: style === 'inline' ? '/zt/wenchuan/index.shtml' : '/s2008/dizhen/', title: '聚焦汶川大地震专题报道', articles: quakeIds.slice() },
    });
  }

  // ---- related links: topical locality with some crossing ----
  const byTopicSite = (site: string, topic: TopicId) => portals.find((p) => p.site === site)!.channels.find((c) => c.topic === topic)!.articles;
  for (const art of articles.values()) {
    const r = rng.fork(`rel:${art.id}`);
    const seen = new Set([art.id]);
    const n = r.int(5, 8);
    for (let k = 0; k < n; k++) {
      const cross = r.chance(0.2);
      const topic = cross ? r.pick(topics.filter((t) => t !== art.topic)) : art.topic;
      // Mostly the same portal; sometimes a sister portal's report (cross-site link).
      const site = portals.length > 1 && r.chance(0.1) ? r.pick(portals).site : art.site;
      const cand = byTopicSite(site, topic);
      const other = articles.get(r.pick(cand))!;
      if (seen.has(other.id)) continue;
      seen.add(other.id);
      art.related.push({ site: other.site, path: other.path, text: other.title });
    }
    if (r.chance(0.02)) {
      const dead = art.path.replace(/n(\d+)\.shtml$/, 'n1$1.shtml');
      deadLinks.add(key(art.site, dead));
      art.related.push({ site: art.site, path: dead, text: titleFor(r, art.topic) });
    }
  }

  // ---- charity site: the tunnel (finance article → 公益 home → quake cluster) ----
  const charitySite = 'charity';
  sites.push({ key: charitySite, name: '爱心公益网', kind: 'misc', robots: 'User-agent: *\nDisallow:\n' });
  const cr = rng.fork('charity');
  const cluster: string[] = [];
  for (let i = 0; i < 12; i++) {
    const ar = cr.fork(`c:${i}`);
    const publish = Math.floor((QUAKE_TIME + ar.int(2, 18) * DAY + ar.int(0, 1439) * 60_000) / 60_000) * 60_000;
    const t = cst(publish);
    const id = `gy${t.y}${p2(t.mo)}${p2(t.d)}${p2(i)}`;
    const path = `/news/${t.y}/${p2(t.mo)}/${id}.html`;
    const art: Article = {
      id, site: charitySite, path, topic: 'quake', title: titleFor(ar, 'quake'),
      paras: Array.from({ length: ar.int(3, 6) }, () => paragraph(ar, lexiconOf('quake'))),
      publish, timeFormat: ar.int(0, 3), metaPubdate: false, source: '爱心公益网', related: [], commentTimes: [], static: true,
    };
    articles.set(id, art);
    articleByPath.set(key(charitySite, path), id);
    cluster.push(id);
  }
  for (const id of cluster) {
    const a = articles.get(id)!;
    for (const o of cr.sample(cluster.filter((x) => x !== id), 4)) {
      const b = articles.get(o)!;
      a.related.push({ site: charitySite, path: b.path, text: b.title });
    }
  }
  const charityHome = Array.from({ length: 4 }, () => paragraph(cr, CHARITY, 3));
  const viaArticles: string[] = [];
  const fin = portals[0].channels.find((c) => c.topic === 'finance')!.articles;
  for (const id of cr.sample(fin, 2)) {
    const a = articles.get(id)!;
    a.related.push({ site: charitySite, path: '/', text: '爱心公益网：企业社会责任与慈善捐赠' });
    viaArticles.push(key(a.site, a.path));
  }

  // ---- misc site: traps and faults ----
  const miscSite = 'misc';
  sites.push({
    key: miscSite, name: '城市生活网', kind: 'misc',
    robots: 'User-agent: *\nCrawl-delay: 1\nDisallow: /private/\nDisallow: /cgi-bin/\n',
  });
  const mr = rng.fork('misc');
  const mk = (id: string, path: string, topic: TopicId, publish: number): Article => {
    const art: Article = {
      id, site: miscSite, path, topic, title: titleFor(mr, topic),
      paras: Array.from({ length: 5 }, () => paragraph(mr, lexiconOf(topic))),
      publish, timeFormat: 0, metaPubdate: true, source: '城市生活网', related: [], commentTimes: [], static: true,
    };
    articles.set(id, art);
    articleByPath.set(key(miscSite, path), id);
    return art;
  };
  mk('gbk1', '/gbk/zhenqing.html', 'quake', QUAKE_TIME + 3 * DAY + 5 * HOUR);
  mk('broken1', '/broken.html', 'quake', QUAKE_TIME + 6 * DAY + 9 * HOUR);

  // ---- forum (Discuz!-like) ----
  sites.push({
    key: 'forum', name: '九州社区', kind: 'forum',
    robots: 'User-agent: *\nDisallow: /api/\nDisallow: /home.php\nDisallow: /member.php\nDisallow: /search.php\n' +
      'Disallow: /misc.php\nDisallow: /forum.php?mod=redirect*\nDisallow: /forum.php?mod=post*\n',
  });
  const fr = rng.fork('forum');
  const boards: Board[] = [];
  const threads = new Map<number, Thread>();
  const boardDefs: [TopicId | null, string][] = [
    ['quake', '抗震救灾'], ['sports', '体育竞技'], ['finance', '股市财经'], ['tech', '数码科技'], ['ent', '娱乐八卦'], [null, '灌水乐园'],
  ];
  let tid = 1000 + fr.int(0, 8000);
  const perBoard = Math.max(4, Math.round(opts.articlesPerChannel / 2));
  boardDefs.forEach(([topic, name], bi) => {
    const board: Board = { fid: 2 + bi * 3, name, topic, threads: [] };
    const n = topic ? perBoard : Math.max(3, Math.round(perBoard / 2));
    for (let i = 0; i < n; i++) {
      const tr = fr.fork(`t:${bi}:${i}`);
      tid += tr.int(1, 40);
      const u = tr.int(0, users.length - 1);
      const roll = tr.float();
      const heat: Thread['heat'] = roll < 0.2 ? 'hot' : roll < 0.55 ? 'warm' : 'cold';
      let created: number;
      if (i < 1 && bi < 2) created = start + tr.int(1, 12) * HOUR; // appears only after the clock moves
      else if (heat === 'hot') created = start - tr.int(2 * 60, 36 * 60) * 60_000;
      else created = start - tr.int(60, 20 * 24 * 60) * 60_000;
      if (topic === 'quake') created = Math.max(created, QUAKE_TIME + 20 * 60_000);
      created = Math.floor(created / 60_000) * 60_000;
      const [lam, tau] = heat === 'hot' ? [3 + tr.float() * 3, 24 + tr.int(0, 36)]
        : heat === 'warm' ? [0.3 + tr.float() * 0.7, 12 + tr.int(0, 36)] : [0.2 + tr.float() * 0.3, 2 + tr.int(0, 4)];
      const lx = topic ? lexiconOf(topic) : lexiconOf(tr.pick(topics));
      const th: Thread = {
        tid, fid: board.fid, topic,
        title: topic ? titleFor(tr, topic) : tr.pick(['新人报到', '今天心情不错', '周末去哪儿玩', '有人一起吃饭吗', '大家晚上好', '求推荐好看的书']) + (tr.chance(0.5) ? '～' : '') + tr.int(1, 99),
        author: users[u], uid: 10000 + u, created,
        op: topic ? Array.from({ length: tr.int(2, 4) }, () => paragraph(tr, lx)) : [paragraph(tr, lexiconOf('ent'), 1)],
        replyTimes: decayingArrivals(tr.fork('replies'), created, lam, tau, 250), heat,
      };
      threads.set(tid, th);
      board.threads.push(tid);
    }
    boards.push(board);
  });

  // ---- search engine site ----
  sites.push({ key: 'search', name: '搜索', kind: 'search', robots: 'User-agent: *\nDisallow: /ad/\n' });

  if (opts.mixed) addMixedPortals({ rng, opts, sites, portals, articles, articleByPath, usedIds, titleFor, start, quakeTime: QUAKE_TIME });

  return {
    seed: opts.seed, start, sites, portals, articles, articleByPath, boards, threads,
    charity: { site: charitySite, homeText: charityHome, cluster },
    misc: { site: miscSite, gbkArticle: 'gbk1', brokenArticle: 'broken1' },
    tunnels: [{ topic: 'quake', via: [...viaArticles, key(charitySite, '/')], cluster: cluster.map((id) => key(charitySite, articles.get(id)!.path)) }],
    deadLinks, users,
  };
}

/** Server-rendered portals and a portal whose URL patterns differ in needing JavaScript (ModelOptions.mixed). */
export const MIXED_STATIC_PORTALS = 7;
function addMixedPortals(g: {
  rng: Rng; opts: ModelOptions; sites: SiteModel[]; portals: Portal[]; articles: Map<string, Article>; articleByPath: Map<string, string>;
  usedIds: Set<string>; titleFor: (r: Rng, topic: TopicId) => string; start: number; quakeTime: number;
}): void {
  const topics = TOPIC_LEXICONS.map((t) => t.id);
  const first = g.opts.portals;
  const added: Portal[] = [];
  for (let k = 0; k <= MIXED_STATIC_PORTALS; k++) {
    const pi = first + k;
    const site = `news${pi + 1}`;
    const style: 'static' | 'mixed' = k < MIXED_STATIC_PORTALS ? 'static' : 'mixed';
    g.sites.push({
      key: site, name: PORTAL_NAMES[pi % PORTAL_NAMES.length] + (pi >= PORTAL_NAMES.length ? String(pi) : ''),
      kind: 'news', style, robots: 'User-agent: *\nDisallow: /member/\nDisallow: /print/\n',
    });
    const pr = g.rng.fork(`mixed-portal:${pi}`);
    const channels: Channel[] = [];
    for (const topic of topics) {
      const [name, dir] = CHANNEL_NAMES[topic];
      const ch: Channel = { topic, name, dir, articles: [] };
      for (let i = 0; i < g.opts.articlesPerChannel; i++) {
        const ar = pr.fork(`a:${topic}:${i}`);
        let publish: number;
        if (topic === 'quake') publish = g.quakeTime + ar.int(10, Math.floor((g.start - g.quakeTime) / 60_000) - 60) * 60_000;
        else publish = g.start - ar.int(0, 60 * 24 * 60 - 60) * 60_000 - HOUR;
        publish = Math.floor(publish / 60_000) * 60_000;
        const t = cst(publish);
        let id: string;
        do id = String(ar.int(3000000, 3999999)); while (g.usedIds.has(id));
        g.usedIds.add(id);
        // The mixed portal: half its articles server-rendered, a quarter live reports built by
        // JavaScript, a quarter commentary pages whose comments load by XHR; each kind its own URL shape.
        const roll = ar.float();
        const render: Article['render'] = style === 'static' ? 'static' : roll < 0.5 ? 'static' : roll < 0.75 ? 'js' : 'xhr-comments';
        const path = render === 'js' ? `/live/${id}.html` : render === 'xhr-comments' ? `/pinglun/${t.y}${p2(t.mo)}/${id}.html` : `/${dir}/${t.y}-${p2(t.mo)}-${p2(t.d)}/content_${id}.htm`;
        const lx = lexiconOf(topic);
        const hot = topic === 'quake' ? ar.float() * 2 + 0.3 : ar.float() * 0.8 + 0.05;
        const art: Article = {
          id, site, path, topic, title: g.titleFor(ar, topic), paras: Array.from({ length: ar.int(4, 8) }, () => paragraph(ar, lx)), publish,
          timeFormat: ar.int(0, 3), metaPubdate: ar.chance(0.5), source: ar.pick(SOURCES), related: [],
          commentTimes: decayingArrivals(ar.fork('comments'), publish, hot, ar.int(6, 48), 120), render,
        };
        g.articles.set(id, art);
        g.articleByPath.set(key(site, path), id);
        ch.articles.push(id);
      }
      ch.articles.sort((a, b) => g.articles.get(b)!.publish - g.articles.get(a)!.publish);
      channels.push(ch);
    }
    const portal: Portal = { site, channels, hub: { path: '/zt/dizhen/', title: '抗震救灾专题', articles: channels.find((c) => c.topic === 'quake')!.articles.slice() } };
    g.portals.push(portal);
    added.push(portal);
  }
  // Related links of the new portals' articles only (the default web's articles keep theirs).
  for (const p of added) {
    for (const ch of p.channels) {
      for (const id of ch.articles) {
        const art = g.articles.get(id)!;
        const r = g.rng.fork(`mixed-rel:${id}`);
        const seen = new Set([id]);
        for (let k = r.int(5, 8); k > 0; k--) {
          const topic = r.chance(0.2) ? r.pick(topics.filter((t) => t !== art.topic)) : art.topic;
          const other = r.chance(0.1) ? r.pick(added) : p;
          const o = g.articles.get(r.pick(other.channels.find((c) => c.topic === topic)!.articles))!;
          if (seen.has(o.id)) continue;
          seen.add(o.id);
          art.related.push({ site: o.site, path: o.path, text: o.title });
        }
      }
    }
  }
}

/** Lazily generated reply/comment text: depends only on (seed, thread, index). */
export function replyText(model: WebModel, topic: TopicId | null, label: string): string {
  const r = new Rng(model.seed).fork(label);
  const lx = lexiconOf(topic ?? 'ent');
  if (r.chance(0.45)) return r.pick(lx.replies) + (r.chance(0.3) ? '！' : '');
  return r.chance(0.5) ? sentence(r, lx) : sentence(r, lx) + sentence(r, lx);
}
