import { readFileSync } from 'node:fs';
import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { decodeHtml, detectCharset, isHtmlResponse } from '../src/extract/encoding.js';
import { analyzePage, cleanTitle, extractLinks, parseHtml, urlDate } from '../src/extract/page.js';
import { headlineAbove } from '../src/extract/title.js';

const fx = (name: string) => readFileSync(new URL(`./fixtures/extract/${name}`, import.meta.url), 'utf8');
const FETCHED = new Date('2024-03-10T08:00:00Z'); // 16:00 in Shanghai

describe('cleanTitle', () => {
  it.each([
    ['央行宣布降准_财经_凤凰网', [], '央行宣布降准'],
    ['习近平会见美国总统 - 新华网', [], '习近平会见美国总统'],
    ['国足1比0击败对手|网易新闻', [], '国足1比0击败对手'],
    ['网易新闻 | 国足1比0击败对手', [], '国足1比0击败对手'],
    ['房价上涨-人民网', [], '房价上涨'],
    ['北京-上海高铁今日通车', [], '北京-上海高铁今日通车'],
    ['艺术史研究<世纪在线中国艺术网', [], '艺术史研究'],
    ['民间资本路在何方-搜狐财经', [], '民间资本路在何方'],
    ['朋友,请正确认识凉山[麻辣社区]', [], '朋友,请正确认识凉山'],
    ['再就业研究(页 1) - 学术前沿 - 社会学论坛 - powered by Discuz! Archiver', [], '再就业研究'],
    ['为现代化建设凝聚力量 - 热烈祝贺会议开幕 - 巴彦淖尔市人民政府网', [], '为现代化建设凝聚力量'],
    ['The COVID-19 vaccine rollout, explained | Health', [], 'The COVID-19 vaccine rollout, explained'],
  ])('%s', (raw, h1s, want) => {
    expect(cleanTitle(raw, h1s)).toBe(want);
  });

  it('prefers an h1 the title contains, and uses the site name', () => {
    expect(cleanTitle('世卫组织：疫情仍是突发公共卫生事件——中国青年网', ['世卫组织：疫情仍是突发公共卫生事件'])).toBe('世卫组织：疫情仍是突发公共卫生事件');
    expect(cleanTitle('Rates cut again - The Example Gazette', [], 'The Example Gazette')).toBe('Rates cut again');
    // A truncated title: the fuller h1 wins.
    expect(cleanTitle('Rates cut again as inflation - WSJ', ['Rates cut again as inflation eases'])).toBe('Rates cut again as inflation eases');
  });
});

describe('urlDate (METHODS §3.4)', () => {
  it.each([
    ['http://news.example.cn/20080905/n1.shtml', [2008, 9, 5]],
    ['http://news.example.cn/a/2008-09-05/12.html', [2008, 9, 5]],
    ['http://news.example.cn/2008/09/05/12.html', [2008, 9, 5]],
    ['http://news.example.cn/2008/0905/12.html', [2008, 9, 5]],
  ])('%s', (url, [year, month, day]) => {
    expect(urlDate(url)).toEqual({ year, month, day });
  });
  it('rejects impossible dates and plain ids', () => {
    expect(urlDate('http://x.example/2008/1345/1.html')).toBeNull();
    expect(urlDate('http://x.example/item/12345678.html')).toBeNull();
    expect(urlDate('http://x.example/20080231/a.html')).toBeNull();
  });
});

describe('analyzePage', () => {
  const url = 'https://finance.ifeng.com/a/20080512/123.shtml';

  it('reads title, text, visible date, canonical and links of a Chinese article', () => {
    let commentsSeen = 0;
    const a = analyzePage({ html: fx('ifeng-article.html'), url, fetchedAt: FETCHED }, {
      onDocument: (doc) => { commentsSeen = doc.querySelectorAll('.comment').length; },
    });
    expect(a.title).toBe('央行宣布下调存款准备金率0.5个百分点');
    expect(a.text).toContain('中国人民银行今天宣布，决定下调金融机构存款准备金率0.5个百分点。');
    expect(a.text).toContain('此次下调后，金融机构加权平均存款准备金率约为百分之八。');
    expect(a.text).not.toContain('首页');
    expect(commentsSeen).toBe(2); // the comment DOM is intact before Readability runs
    expect(a.publishTime).toEqual({ iso: '2008-05-12T14:28:00', source: 'text', raw: '2008年5月12日 14:28' });
    expect(a.canonicalUrl).toBe('https://finance.ifeng.com/c/8Abc123'); // resolved against <base href>
    expect(a.lang).toBe('zh-CN');
    expect(a.links.map((l) => [l.tag, l.url])).toEqual([
      ['a', 'https://finance.ifeng.com/'],
      ['a', 'https://finance.ifeng.com/finance/'],
      ['a', 'https://news.ifeng.com/'],
      ['a', 'https://finance.ifeng.com/news/rrr-history.shtml'],
      ['area', 'https://finance.ifeng.com/map/beijing'],
      ['img', 'https://img.ifeng.com/a.jpg'],
      ['iframe', 'https://v.ifeng.com/player?id=9'],
    ]);
    const rel = a.links[3]!;
    expect(rel.anchorText).toBe('历次降准回顾');
    expect(rel.title).toBe('历次降准一览');
    expect(rel.contextBefore.endsWith('相关阅读：')).toBe(true);
    expect(rel.contextAfter.startsWith('，以及央行此前发布的货币政策执行报告。')).toBe(true);
    expect(rel.contextBefore.length).toBeLessThanOrEqual(50);
    expect(a.links[4]!.title).toBe('北京地图');
    expect(a.links[5]).toMatchObject({ title: '央行大楼', anchorText: '' });
  });

  it('prefers JSON-LD datePublished over meta tags', () => {
    const a = analyzePage({ html: fx('xinhua-jsonld.html'), url: 'http://www.news.example.cn/x.htm', fetchedAt: FETCHED });
    expect(a.title).toBe('国务院常务会议部署稳就业举措');
    expect(a.publishTime).toEqual({ iso: '2023-06-01T09:30:00+08:00', source: 'json-ld', raw: '2023-06-01T09:30:00+08:00' });
  });

  it('decodes a GBK page and reads the PubDate meta and meta refresh', () => {
    const bytes = iconv.encode(fx('netease-meta.html'), 'gbk');
    const html = decodeHtml(bytes);
    const a = analyzePage({ html, url: 'https://news.163.com/19/1015/21/ABC.html', fetchedAt: FETCHED });
    expect(a.title).toBe('国足1比0击败对手');
    expect(a.publishTime).toEqual({ iso: '2019-10-15T21:05:33', source: 'meta', raw: '2019-10-15 21:05:33' });
    expect(a.metaRefresh).toBe('https://news.163.com/live/refresh.html');
    expect(a.text).toContain('国足在主场1比0战胜对手');
  });

  it('reads <time datetime> with its own offset and an English visible date as the wall time it shows', () => {
    const t = analyzePage({ html: fx('time-element.html'), url: 'https://example.com/rates', fetchedAt: FETCHED });
    expect(t.title).toBe('Rates cut again');
    expect(t.publishTime).toMatchObject({ iso: '2008-05-12T14:28:00+08:00', source: 'time-element' });
    const e = analyzePage({ html: fx('english-text-date.html'), url: 'https://example.com/storm', fetchedAt: FETCHED, timeZone: 'America/New_York' });
    expect(e.title).toBe('Storm hits coast');
    expect(e.publishTime).toMatchObject({ iso: '2008-05-12T14:28:00', source: 'text' });
  });

  it('resolves a relative date against the fetch time in Asia/Shanghai', () => {
    const a = analyzePage({ html: fx('relative-date.html'), url: 'https://news.sohu.com/a/1', fetchedAt: FETCHED });
    expect(a.title).toBe('突发：某地发生地震');
    expect(a.publishTime).toEqual({ iso: '2024-03-10T13:00:00+08:00', source: 'text', raw: '3小时前' });
  });

  it('prefers a timed stamp to sidebar dates when the title is only a blog name', () => {
    const html = `<html><head><title>海姑娘</title></head><body><div>海姑娘的博客</div>
      <div class="side">归档 12/01/2004 - 01/01/2005 建立于:2004年10月6日</div>
      <h2>湘菜粤菜 兵分两路</h2><div>2005-06-14 03:25:55</div><p>湘菜粤菜兵分两路，新鲜的是……</p></body></html>`;
    const a = analyzePage({ html, url: 'http://blog.example.com/a.php', fetchedAt: FETCHED });
    expect(a.publishTime).toMatchObject({ iso: '2005-06-14T03:25:55', source: 'text' });
  });

  it('uses a bare year-month as the last resort', () => {
    const html = '<html><head><title>论文一篇</title></head><body><p>正文很长的一段文字，没有具体日期。</p><p>——《北京之春》1998年3月号</p></body></html>';
    expect(analyzePage({ html, url: 'http://x.example/a.asp', fetchedAt: FETCHED }).publishTime)
      .toMatchObject({ iso: '1998-03-01', source: 'text', raw: '1998年3月' });
  });

  it('takes the headline from the page when <title> is only the site name', () => {
    const html = '<html><head><title>北医新闻网</title></head><body><table><tr><td class=bt_title>新外科运动向我们走来</td></tr><tr><td><p>正文。</p></td></tr></table></body></html>';
    expect(analyzePage({ html, url: 'http://news.bjmu.example.cn/a.htm', fetchedAt: FETCHED }).title).toBe('新外科运动向我们走来');
  });

  it('with no heading either, takes the headline line above the main text (old forum layout)', () => {
    // Shaped like a NetEase board post: <title> is the portal+channel, the headline a plain cell
    // between the breadcrumb and the author, no h1 and no title class.
    const body = '不得不承认，如果没有张曼玉在戛纳封后，就很少有人会去关注这部法国电影。'.repeat(8);
    const html = `<html><head><title>网易娱乐</title></head><body><table>
      <tr><td>网易娱乐 &gt; 电影版区 &gt; 周黎明留言板 [ 精华区 ] 版主：[申请版主]</td></tr>
      <tr><td><b>《清洁》：东方式内敛与摇滚现实绘</b></td></tr><tr><td>眉间尺</td></tr><tr><td>2004-06-01 10:00</td></tr>
      <tr><td><p>${body}</p><p>${body}</p></td></tr></table></body></html>`;
    const a = analyzePage({ html, url: 'http://bbs.ent.163.example.com/x.html', fetchedAt: FETCHED });
    expect(a.text.startsWith('不得不承认')).toBe(true);
    expect(a.title).toBe('《清洁》：东方式内敛与摇滚现实绘');
    // The author line (too short), the date and the breadcrumb are never taken for the headline.
    expect(headlineAbove(['网易娱乐 > 电影版区', '眉间尺', '2004-06-01 10:00', 'x'], 'x')).toBeUndefined();
  });

  it('drops link lists and calendars inside the article container', () => {
    const para = '<p>市场人士指出，这是今年以来的第二次降准，有助于降低实体经济融资成本，保持流动性合理充裕。</p>';
    const cells = Array.from({ length: 31 }, (_, i) => `<td>${i + 1}</td>`).join('');
    const html = `<html><head><title>降准</title></head><body><div id="content">${para.repeat(6)}
      <ul><li><a href="/1">[百态] 北京防空洞景点可直达故宫(图)</a></li><li><a href="/2">[情感] 男子玲珑塔下跪地求婚</a></li></ul>
      <table><tr>${cells}</tr></table>${para}</div></body></html>`;
    const a = analyzePage({ html, url: 'http://x.example/a', fetchedAt: FETCHED });
    expect(a.text).toContain('有助于降低实体经济融资成本');
    expect(a.text).not.toContain('防空洞');
    expect(a.text).not.toMatch(/^31$/m);
  });

  it('falls back to the URL date', () => {
    const a = analyzePage({ html: fx('url-date.html'), url: 'http://news.example.cn/2008/0905/12.html', fetchedAt: FETCHED });
    expect(a.publishTime).toEqual({ iso: '2008-09-05', source: 'url', raw: 'http://news.example.cn/2008/0905/12.html' });
  });

  it('keeps frames of a frameset as links', () => {
    const links = extractLinks(parseHtml(fx('frameset.html')), 'http://a.example/dir/index.html');
    expect(links.map((l) => [l.tag, l.url])).toEqual([
      ['frame', 'http://a.example/dir/menu.html'],
      ['frame', 'http://a.example/main/content.html'],
    ]);
  });

  it('parses fragments and saved pages without an <html> root', () => {
    const a = analyzePage({ html: '<text id="x"><title>片段_测试网</title><p>正文内容在这里。</p></text>', url: 'http://x.example/', fetchedAt: FETCHED });
    expect(a.title).toBe('片段');
    expect(a.text).toContain('正文内容在这里。');
  });
});

describe('encodings', () => {
  const page = '<html><head><title>新闻</title></head><body><p>中华人民共和国国务院新闻办公室今天举行新闻发布会，介绍国民经济运行情况。</p></body></html>';

  it('uses the HTTP charset first', () => {
    const bytes = iconv.encode(page, 'gbk');
    expect(detectCharset(bytes, 'text/html; charset=GBK')).toEqual({ charset: 'gb18030', source: 'http' });
    expect(decodeHtml(bytes, 'text/html; charset=GBK')).toBe(page);
  });

  it('reads <meta charset> for Big5', () => {
    const big5 = '<html><head><meta charset="big5"><title>新聞</title></head><body><p>臺灣的新聞報導</p></body></html>';
    const bytes = iconv.encode(big5, 'big5');
    expect(detectCharset(bytes).source).toBe('meta');
    expect(decodeHtml(bytes)).toBe(big5);
  });

  it('detects undeclared GBK', () => {
    const bytes = iconv.encode(page, 'gbk');
    expect(detectCharset(bytes).source).toBe('detected');
    expect(decodeHtml(bytes)).toBe(page);
  });

  it('trusts valid UTF-8 over a stale legacy declaration', () => {
    const html = '<html><head><meta charset="iso-8859-1"></head><body><p>It’s complicated — café</p></body></html>';
    expect(decodeHtml(new Uint8Array(Buffer.from(html, 'utf8')))).toBe(html);
  });

  it('strips a UTF-8 BOM', () => {
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...Buffer.from('<p>好</p>')]);
    expect(decodeHtml(bytes)).toBe('<p>好</p>');
  });
});

describe('isHtmlResponse', () => {
  it.each([
    ['text/html; charset=utf-8', '', true],
    ['application/xhtml+xml', '', true],
    ['application/pdf', '%PDF-1.4', false],
    ['image/png', '\x89PNG', false],
    ['application/json', '{"a":1}', false],
    [undefined, '<!DOCTYPE html><html>', true],
    ['text/plain', 'hello world', false],
    ['application/octet-stream', '  \n<html lang="zh">', true],
  ])('%s', (type, first, want) => {
    expect(isHtmlResponse(type, new Uint8Array(Buffer.from(first, 'latin1')))).toBe(want);
  });
});

describe('analyzePage: classes of misses found on the benchmarks (bench/results/extract-misses.txt)', () => {
  const para = (s: string) => `<p>${s.repeat(6)}</p>`;
  const url = 'http://blog.example.cn/a.html';

  it('reads a page whose content sits in a second <body> behind a stray <style> (linkedom kept it out of document.body)', () => {
    const html = `<!DOCTYPE html><html><head><title>为现代化建设凝聚强大智慧和力量_市政府网</title></head><style>p{}</style>
      <body><div>${para('新征程催人奋进，新使命激荡人心。今天，政协第五届委员会第一次会议隆重开幕。')}</div></body></html>`;
    const a = analyzePage({ html, url, fetchedAt: FETCHED });
    expect(a.text).toContain('新征程催人奋进');
    expect(parseHtml(html).body.textContent).toContain('新征程催人奋进');
  });

  it('takes the first post of a list of dated posts, even when its body is mostly pictures', () => {
    const post = (title: string, date: string, body: string) => `<div class="post"><h3 class="post-title">${title}</h3><span>${date}</span>
      <div class="post-body">${body}</div><div class="post-footer">由海姑娘张贴 @ ${date}</div></div>`;
    const html = `<html><head><title>海姑娘 | blog.example.cn</title></head><body><div id="main">
      ${post('湘菜粤菜 兵分两路 (图)', '2005-06-14 03:25:55', '<img src="a.jpg"><img src="b.jpg"><p>湘菜粤菜兵分两路，新鲜的是，湘菜浓妆淡抹，粤菜却是明艳照人。</p><img src="c.jpg">')}
      ${post('澳坛真的累了', '2005-06-13 15:00:14', para('当斑竹半年来，没有功劳也有苦劳，而一切都怪我太认真。'))}
      ${post('长发剪了', '2005-06-10 01:58:01', para('头发留的很长很长了，每天总是花很多时间去梳头，去洗头。'))}
      </div></body></html>`;
    const a = analyzePage({ html, url, fetchedAt: FETCHED });
    expect(a.text).toContain('湘菜浓妆淡抹');
    expect(a.text).not.toContain('当斑竹半年来');
    expect(a.title).toBe('湘菜粤菜 兵分两路 (图)');
  });

  it('keeps every chunk of one article split into undated post-text blocks', () => {
    const chunk = (s: string) => `<div class="post-text">${para(s)}</div><figure><img src="x.jpg"></figure>`;
    const html = `<html><head><title>Light festival</title></head><body><article>
      ${chunk('Thirty artworks will light up the city canals this winter, curated around one theme. ')}
      ${chunk('The second part of the route crosses the old harbour, where larger pieces stand. ')}
      ${chunk('Tickets for the boat tours are sold at the central station and online only. ')}</article></body></html>`;
    const a = analyzePage({ html, url: 'https://art.example.com/light', fetchedAt: FETCHED });
    for (const w of ['Thirty artworks', 'old harbour', 'boat tours']) expect(a.text).toContain(w);
  });

  it('drops teasers of other posts set as <article>s beside the one holding the headline, and keeps a body set apart from a header article', () => {
    const teaser = (s: string) => `<article class="post"><a href="/other">Share</a>${para(s)}</article>`;
    const html = `<html><head><title>Only those who love themselves</title></head><body><div id="primary">
      <article class="post"><h1>Only those who love themselves</h1><div class="entry-content">${para('Living a true experience of love is one of the great pleasures of life, and it starts at home. ')}</div></article>
      <article class="post"><h3>You may also like</h3>
        ${teaser('Life asks of us optimism and courage to hope for the best and to make the best happen. ')}
        ${teaser('What unites a family is love, affection and care for one another, in good days and bad. ')}
        ${teaser('Strength to win and faith to believe that every obstacle can be overcome in its time. ')}
      </article></div></body></html>`;
    const a = analyzePage({ html, url: 'https://quotes.example.com/love', fetchedAt: FETCHED });
    expect(a.text).toContain('Living a true experience of love');
    for (const w of ['optimism and courage', 'What unites a family', 'Strength to win']) expect(a.text).not.toContain(w);
    // The headline in a header <article> of its own, the text in a longer one: the text stays.
    const split = `<html><head><title>Harbour plan approved</title></head><body><article><h1>Harbour plan approved</h1><p>By A. Reporter</p></article>
      <article>${para('The council met on the harbour plan and voted to widen the quay before the winter storms arrive. ')}</article></body></html>`;
    expect(analyzePage({ html: split, url: 'https://news.example.com/harbour', fetchedAt: FETCHED }).text).toContain('voted to widen the quay');
  });

  it('drops a repeat of the headline kept on top of the text, and the site header above it', () => {
    const html = `<html><head><title>Cat found in New Mexico after going missing in Oregon - Example News</title></head><body><div class="page">
      <div><a href="/login">Sign In</a></div><div>Breaking News</div><div>https://news.example.com/article/cat-found-14848175.php</div>
      <div>Cat found in New Mexico after going missing in Oregon</div>
      ${para('A cat who has been missing for five years in Portland has been found in Santa Fe, the shelter said. ')}
      ${para('American Airlines offered to fly the cat home, along with a member of the animal shelter staff. ')}</div></body></html>`;
    const a = analyzePage({ html, url: 'https://news.example.com/article/cat-found-14848175.php', fetchedAt: FETCHED });
    expect(a.title).toBe('Cat found in New Mexico after going missing in Oregon');
    expect(a.text.split('\n')[0]).toMatch(/^A cat who has been missing/);
    for (const w of ['Sign In', 'Breaking News', 'cat-found-14848175']) expect(a.text).not.toContain(w);
  });

  it('drops captions, photo credits and a leading byline/dateline, not running text that starts with a date', () => {
    const text = 'The discovery was announced in an article published Monday in the journal, and more follows here. ';
    const html = `<html><head><title>Scientists find water</title></head><body><article>
      <p>By HNN Staff | November 18, 2019 at 2:26 PM HST</p>
      <figure><img src="e.jpg"><figcaption>Europa rising above Jupiter's cloud tops in 2007.</figcaption></figure>
      <p>November 18, 2019 was the day the team said so, and this sentence is part of the story. It goes on.</p>
      ${para(text)}<span class="image-credit">Credit: NASA/JPL</span>${para(text)}</article></body></html>`;
    const a = analyzePage({ html, url: 'https://news.example.com/water', fetchedAt: FETCHED });
    expect(a.text).not.toContain('By HNN Staff');
    expect(a.text).not.toContain('cloud tops');
    expect(a.text).not.toContain('Credit: NASA');
    expect(a.text).toContain('November 18, 2019 was the day');
  });

  it('takes the headline over the dateline when <title> and <h1> name only the blog or site', () => {
    const body = para('承蒙开心就好的邀请，很高兴入住博客堂。作为微软技术的知名社区，博客堂是一个做技术博客的好地方。');
    const html = `<html><head><title>李建忠</title></head><body><h1>李建忠</h1><div>随笔分类</div><div>程序人生 (rss)</div>
      <div id="post"><div>很高兴入住博客堂</div><div>2004-12-27 12:40 李建忠</div>${body}</div></body></html>`;
    expect(analyzePage({ html, url, fetchedAt: FETCHED }).title).toBe('很高兴入住博客堂');
    // A navigation link elsewhere is not the headline; the line above the byline and its fuller form are.
    const html2 = `<html><head><title>谢谢您访问〖关注中国中心〗</title></head><body>
      <table><tr><td class="menutitle"><a href="/x">推动中国的宪政运动</a></td><td><a href="/y">时政研讨</a></td><td><a href="/z">个人专栏</a></td></tr></table>
      <div id="art"><div>茉莉：我是怎样卷入八九民运的</div><div>作者： 来源： 发布日期： 7/5/2005 9:23:57 PM</div>
      <div>我是怎样卷入八九民运的</div><div>茉莉</div>${para('一九八九年四月，我在湖南张家界开一个全省教学研究会议。按照惯例，会议安排了一天时间。')}
      ${para('那一天正好是四月十五日，后来我们才知道，这是在中国历史上刻下深深痕迹的一天。')}</div></body></html>`;
    expect(analyzePage({ html: html2, url, fetchedAt: FETCHED }).title).toBe('茉莉：我是怎样卷入八九民运的');
  });

  it('keeps a page\'s own Chinese headline when it is shown with the article', () => {
    const html = `<html><head><title>工商部门初定SKII广告属于虚假宣传-搜狐财经</title></head><body><h1>工商部门初定SKII广告属于虚假宣传</h1>
      <div>2005年03月21日 11:21 来源：理财周刊</div>${para('“使用4周后，肌肤年轻12年，细纹减少47%，这是个明显存在误导成分的虚假宣传。')}</body></html>`;
    expect(analyzePage({ html, url, fetchedAt: FETCHED }).title).toBe('工商部门初定SKII广告属于虚假宣传');
  });

  it('reads lang from the script when the page declares none or contradicts it', () => {
    const lang = (html: string) => analyzePage({ html, url, fetchedAt: FETCHED }).lang;
    expect(lang('<p>中国的宪政运动是一个很长的故事，我们今天来讲一讲。</p>')).toBe('zh');
    expect(lang('<html lang="en"><body><p>中国的宪政运动是一个很长的故事，我们今天来讲一讲。</p></body></html>')).toBe('zh');
    expect(lang('<p>これは日本語の文章です。漢字も使います。</p>')).toBe('ja');
    expect(lang('<p>한국어 문장입니다. 漢字</p>')).toBe('ko');
    expect(lang('<html lang="de"><body><p>Hallo Welt</p></body></html>')).toBe('de');
    expect(lang('<p>plain english text, no declaration</p>')).toBeUndefined();
  });
});

describe('cleanTitle: h1 segments and decorations', () => {
  it.each([
    ['金锺国 - 维基百科，自由的百科全书', ['金锺国'], '金锺国'],
    ['主题: 【太行山上】 【DVDSCR-RMVB】', [], '【太行山上】 【DVDSCR-RMVB】'],
    ['投身外交(3)_读书频道_新浪网', [], '投身外交(3)'],
    ['多维博客 » 播客热潮迅速蔓延 挑逗传统传媒业', [], '播客热潮迅速蔓延 挑逗传统传媒业'],
  ])('%s', (raw, h1s, want) => {
    expect(cleanTitle(raw, h1s)).toBe(want);
  });
});

describe('titles: site, column and board parts, breadcrumbs, category tags (hand-written pages)', () => {
  it.each([
    // A forum board before an unspaced dash, the site tag after, and the error-page marker.
    ['大话四川-[原创]朋友,请正确客观认识凉山！错误信息[麻辣社区]', '[原创]朋友,请正确客观认识凉山！'],
    ['Wi-Fi 7 routers tested', 'Wi-Fi 7 routers tested'],
    ['北京-上海高铁今日通车', '北京-上海高铁今日通车'],
    // A column before a pipe; a headline before a pipe keeps its place.
    ['书记市长这一周 | 奋马扬鞭争春色，“虎”力全开向未来', '奋马扬鞭争春色，“虎”力全开向未来'],
    ['央行宣布年内第二次降准 | 财经观察', '央行宣布年内第二次降准'],
    ['春节 | 回家', '春节'],
  ])('%s', (raw, want) => {
    expect(cleanTitle(raw)).toBe(want);
  });

  const text = '<p>这是正文第一段，讲述了一件事情的来龙去脉，内容足够长，可以被当作文章的正文来读取和分析，也有足够多的逗号，句号。</p>'.repeat(5);
  const title = (html: string) => analyzePage({ html, url: 'http://art.example.cn/a.html', fetchedAt: FETCHED }).title;

  it('takes the last crumb the page shows as its headline when <title> names a column of the breadcrumb', () => {
    const html = `<html><head><title>艺术史研究&lt;世纪在线中国艺术网</title></head><body>
      <div><a href="/1">快讯</a>|<a href="/2">艺术史研究</a>|<a href="/3">电影</a></div>
      <div>您的位置：主页&gt;艺术史研究&gt;方法与规范&gt;第一编 古代</div>
      <div>无规矩无以成方圆</div><div>唯科学能担当结论之保障</div>
      <div>*第一编 古代</div><div id="art">${text}</div></body></html>`;
    expect(title(html)).toBe('第一编 古代');
  });

  it('looks past a breadcrumb kept on top of the text for the headline, and drops it from the text', () => {
    const html = `<html><head></head><body><div class="nav"><a href="/a">军事技术</a> <a href="/b">各国军队</a></div>
      <div id="mailtitle">欢迎加入本站邮件列表，您将得到最新更新邮件。请在表格中填入您的邮件地址</div>
      <div id="art"><p>当前位置：首页->军事技术</p><p>飞行物理学常识</p>${text}</div></body></html>`;
    const a = analyzePage({ html, url: 'http://mil.example.cn/a.html', fetchedAt: FETCHED });
    expect(a.title).toBe('飞行物理学常识');
    expect(a.text).not.toContain('当前位置');
  });

  it('drops a category tag the page lists elsewhere, keeps one it does not', () => {
    const page = (tag: string) => `<html><head><title>China-Pub blog--洞庭一叶</title></head><body>
      <div class="side"><div>我的分类（专题）</div><div>古今战争(9)</div><div>湖湘文化(49)</div></div>
      <div class="post"><div><a href="/cat/516">[${tag}]</a><a href="/p/1">陈天华《警世钟》</a></div>
      <div>ggjjzhzz 发表于 2005-9-15 11:46:00</div>${text}</div></body></html>`;
    expect(title(page('湖湘文化'))).toBe('陈天华《警世钟》');
    expect(title(page('原创'))).toBe('[原创]陈天华《警世钟》');
  });

  it('takes a short headline on top of the text when <title> is a label the page never shows', () => {
    const html = `<html><head><title>显示</title></head><body><p align="center"><strong>犬儒病(上)</strong></p><hr>
      <p>胡平<br><br>——当代中国的精神危机 (上)<br>${text}</p></body></html>`;
    expect(title(html)).toBe('犬儒病(上)');
  });

  it('never reads a <title> a broken page puts in its body as shown text', () => {
    const html = `<text id="x"><html><head><title>显示</title></head><body><p><strong>比赛革命的革命</strong></p>
      <p>胡平<br>——对文化革命的政治心理学分析<br>${text}</p></body></html></text>`;
    expect(title(html)).toBe('比赛革命的革命');
  });
});
