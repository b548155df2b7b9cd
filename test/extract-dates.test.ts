import { describe, expect, it } from 'vitest';
import { parseDateText, toZonedIso, zonedTimeToUtc } from '../src/extract/dates.js';
import { analyzePage } from '../src/extract/page.js';

// 2024-03-10 16:00 in Shanghai.
const REF = new Date('2024-03-10T08:00:00Z');
const SH = 'Asia/Shanghai';
const iso = (d: Date | null) => (d ? toZonedIso(d, SH) : null);

describe('parseDateText', () => {
  it.each([
    ['2008年5月12日 14:28', '2008-05-12T14:28:00+08:00'],
    ['2008年05月12日14:28', '2008-05-12T14:28:00+08:00'],
    ['2008-05-12 14:28', '2008-05-12T14:28:00+08:00'],
    ['发表于 2008-5-13 10:22', '2008-05-13T10:22:00+08:00'],
    ['2008/09/05', '2008-09-05T00:00:00+08:00'],
    ['２００８年５月１２日', '2008-05-12T00:00:00+08:00'],
    ['2008年5月12日 下午2:28', '2008-05-12T14:28:00+08:00'],
    ['May 12, 2008 2:28 pm', '2008-05-12T14:28:00+08:00'],
    ['2008-05-12T14:28:00Z', '2008-05-12T22:28:00+08:00'],
    ['发布日期： 9/17/2004 5:54:13 AM', '2004-09-17T05:54:13+08:00'],
    ['17/9/2004', '2004-09-17T00:00:00+08:00'],
    ['Aktualisiert am 06. Mär. 2023', '2023-03-06T00:00:00+08:00'],
  ])('absolute %s', (text, want) => {
    expect(iso(parseDateText(text, REF, SH))).toBe(want);
  });

  it.each([
    ['刚刚', '2024-03-10T16:00:00+08:00'],
    ['3小时前', '2024-03-10T13:00:00+08:00'],
    ['3 小时前', '2024-03-10T13:00:00+08:00'],
    ['5分钟前', '2024-03-10T15:55:00+08:00'],
    ['2 hours ago', '2024-03-10T14:00:00+08:00'],
    ['2天前', '2024-03-08T16:00:00+08:00'],
    ['昨天 12:00', '2024-03-09T12:00:00+08:00'],
    ['前天 08:30', '2024-03-08T08:30:00+08:00'],
    ['今天 09:05', '2024-03-10T09:05:00+08:00'],
    ['yesterday', '2024-03-09T00:00:00+08:00'],
    ['05-12 14:28', '2023-05-12T14:28:00+08:00'],
    ['03-09 14:28', '2024-03-09T14:28:00+08:00'],
  ])('relative %s', (text, want) => {
    expect(iso(parseDateText(text, REF, SH))).toBe(want);
  });

  it('uses the given zone for wall times', () => {
    expect(parseDateText('2008-05-12 14:28', REF, 'America/New_York')?.toISOString()).toBe('2008-05-12T18:28:00.000Z');
    expect(zonedTimeToUtc(2024, 7, 1, 12, 0, 0, 'Europe/Berlin').toISOString()).toBe('2024-07-01T10:00:00.000Z');
  });

  it('returns null for text without a date', () => {
    expect(parseDateText('新华网 北京 报道', REF, SH)).toBeNull();
    expect(parseDateText('14:28', REF, SH)).toBeNull();
    expect(parseDateText('2008年前的政策', REF, SH)).toBeNull();
    expect(parseDateText('', REF, SH)).toBeNull();
  });
});

describe('publish time from the visible page (hand-written pages, METHODS §3.4)', () => {
  const page = (body: string, title = '某某新闻网') => `<html><head><title>${title}</title></head><body>${body}</body></html>`;
  const pt = (html: string, url = 'http://news.example.cn/a.html') => analyzePage({ html, url, fetchedAt: REF }).publishTime;
  const text = '<p>这是正文第一段，讲述了一件事情的来龙去脉，内容足够长，可以被当作文章的正文来读取和分析。</p>'.repeat(4);

  it('does not read the adverb 刚刚 in running text as "just now"', () => {
    const html = page(`<h1>播客热潮迅速蔓延 挑逗传统传媒业</h1><p>作为一个新兴事物，刚刚开始起步的播客还面临很多问题。</p>${text}<p>2006年12月27日</p>`, '播客热潮迅速蔓延 挑逗传统传媒业');
    expect(pt(html)?.raw).toBe('2006年12月27日');
  });

  it('takes a blog post stamp just above its headline (ordinal day) over the header clock and comment stamps', () => {
    const html = page(`<div class="top">2006年12月27日（京港台时间）</div><div class="date">Saturday, September 10th, 2005 10:56 am</div>
      <h2>播客热潮迅速蔓延 挑逗传统传媒业</h2>${text}
      <ul><li>网友回复: 好文 (2006-12-24 03:45:27)</li></ul>`, '多维博客 » 播客热潮迅速蔓延 挑逗传统传媒业');
    expect(pt(html)?.iso.slice(0, 10)).toBe('2005-09-10');
  });

  it('skips a "today is" widget', () => {
    const html = page(`<div>今天是2024年3月10日 星期日</div><h1>某地举行植树活动</h1>${text}<div>2019年5月2日</div>`);
    expect(pt(html)?.raw).toBe('2019年5月2日');
  });

  it('skips the fetch day shown with its weekday above the headline (a header clock)', () => {
    const html = page(`<div>2024年3月10日 星期日</div><h1>某地举行植树活动</h1>${text}`, '某地举行植树活动_某某新闻网');
    expect(pt(html, 'http://news.example.cn/2019/05/02/a.html')).toMatchObject({ iso: '2019-05-02', source: 'url' });
    // The same line on another day is the article's dateline.
    expect(pt(html.replace('2024年3月10日', '2019年5月1日'), 'http://news.example.cn/a.html')?.raw).toBe('2019年5月1日');
  });

  it('never takes a copyright line', () => {
    const html = page(`<h1>某地举行植树活动</h1>${text}<div>Copyright © 2024.01.01 某某新闻网 版权所有</div>`);
    expect(pt(html)).toBeUndefined();
  });

  it('reads comment-box stamps only when nothing else dates the page', () => {
    const article = `<h1>某地举行植树活动</h1>${text}`;
    const comments = '<div class="comment-list"><p>网友甲 2024-03-01 10:00</p><p>好</p></div>';
    expect(pt(page(`<div class="side">2019-05-02</div>${article}${comments}`))?.raw).toBe('2019-05-02');
    expect(pt(page(`${article}${comments}`))?.raw).toBe('2024-03-01 10:00');
  });

  it('prefers the URL date over a stamp not next to the headline, keeping a visible time on that day', () => {
    const side = '<div class="side">最新回复 2024-03-01 10:00</div>';
    const url = 'http://news.example.cn/2019/05/02/a.html';
    expect(pt(page(`${side}<div>2019-05-02 08:30</div><h1>某地</h1>${text}`), url)).toMatchObject({ iso: '2019-05-02T08:30:00', source: 'text' });
    expect(pt(page(`${side}<h1>某地</h1>${text}`), url)).toMatchObject({ iso: '2019-05-02', source: 'url' });
  });

  it('reads an English byline with an ordinal day and "at … a.m." over a date in a photo caption', () => {
    const html = `<html><head><title>Guide to tariffs - PolitiFact</title></head><body><h1>Guide to tariffs</h1>
      <p>By <a href="/s/lj">Louis Jacobson</a> on Monday, November 18th, 2019 at 11:04 a.m.</p>
      <figure><img alt="A ship leaves port, on Aug. 31, 2019."><figcaption>A ship leaves port, on Aug. 31, 2019. (AP)</figcaption></figure>
      ${'<p>Tariffs are taxes on imports, and they have been in the news a great deal lately, for good reasons.</p>'.repeat(5)}</body></html>`;
    expect(analyzePage({ html, url: 'https://www.example.com/a', fetchedAt: REF, timeZone: 'UTC' }).publishTime).toMatchObject({ iso: '2019-11-18T11:04:00', source: 'text' });
  });

  it('reads a dateline written with character references between its parts, over a later date in the text', () => {
    const html = `<html><head><title>Davis Cup: zwei Neulinge nominiert - Tennis Bund</title></head><body><h1>Davis Cup: zwei Neulinge nominiert</h1>
      <div class="att-publish">Von <span>Tennis Bund</span> 4.&thinsp;2.&thinsp;2022.</div>
      <p>Der Teamchef hat die Mannschaft für die Spiele gegen Brasilien (4. und 5. März 2022 in Rio) bekanntgegeben.</p>
      ${'<p>Die Mannschaft reist eine Woche vorher an und trainiert auf dem Sand der Anlage am Strand.</p>'.repeat(4)}</body></html>`;
    expect(analyzePage({ html, url: 'https://www.example.de/news/davis-cup', fetchedAt: REF, timeZone: 'Europe/Berlin' }).publishTime).toMatchObject({ iso: '2022-02-04', source: 'text' });
  });

  it('takes the stamp labelled as the publication over unlabelled stamps of other stories around the headline', () => {
    const html = `<html><head><title>Lindvik gewinnt in Willingen</title></head><body>
      <ul class="ticker"><li>Skispringen live 01.02.2022 16:28</li></ul><h1>Lindvik gewinnt in Willingen</h1>
      <ul class="ticker"><li>Kriznar gewinnt Weitenjagd 30.01.2022 14:47</li></ul><div>Erstellt am: 30.01.2022 18:36</div>
      ${'<p>Der Norweger setzte sich vor dem Deutschen durch, der mit zwei weiten Sprüngen auf das Podest kam.</p>'.repeat(4)}</body></html>`;
    expect(analyzePage({ html, url: 'https://www.example.com/news/10759-lindvik', fetchedAt: REF, timeZone: 'Europe/Berlin' }).publishTime).toMatchObject({ iso: '2022-01-30T18:36:00', source: 'text' });
  });

  it('never takes the date of an embedded social post', () => {
    const embed = `<blockquote class="instagram-media"><div><p><time datetime="2018-03-12T19:30:12+00:00">Mär 12, 2018 um 12:30 PDT</time></p></div></blockquote>`;
    const html = `<html><head><title>Was sich nach dem Urteil ändert</title></head><body><h1>Was sich nach dem Urteil ändert</h1>
      <div class="PublishDate">Dienstag, 29. Januar 2019</div><p>Vor wenigen Tagen hat ein Gericht entschieden, wie Beiträge zu kennzeichnen sind.</p>${embed}
      ${'<p>Die Entscheidung betrifft viele, die auf ihren Kanälen Produkte zeigen, ohne dafür bezahlt zu werden.</p>'.repeat(4)}</body></html>`;
    expect(analyzePage({ html, url: 'https://www.example.de/kommentare/urteil-172529', fetchedAt: REF, timeZone: 'Europe/Berlin' }).publishTime).toMatchObject({ iso: '2019-01-29', source: 'text' });
  });

  it('reads Chinese-numeral relative stamps and forum stamps without a year', () => {
    expect(pt(page(`<h1>某地举行植树活动</h1><div>两小时前</div>${text}`, '某地举行植树活动'))?.iso).toBe('2024-03-10T14:00:00+08:00');
    expect(pt(page(`<h1>某地举行植树活动</h1><div>发表于 03-09 14:28</div>${text}`, '某地举行植树活动'))?.iso).toBe('2024-03-09T14:28:00');
  });
});

describe('machine-readable dates that disagree: the one the page shows wins (METHODS §3.4)', () => {
  const body = '<p>The council met on the harbour plan and voted to widen the quay before the winter storms arrive.</p>'.repeat(5);
  const ld = (published: string, modified: string) =>
    `<script type="application/ld+json">{"@type":"NewsArticle","headline":"Harbour plan approved","datePublished":"${published}","dateModified":"${modified}"}</script>`;
  const page = (head: string, dateline: string) =>
    `<html><head><title>Harbour plan approved</title>${head}</head><body><article><h1>Harbour plan approved</h1><p class="byline">By A. Reporter ${dateline}</p>${body}</article></body></html>`;
  const pt = (html: string) => analyzePage({ html, url: 'https://news.example.com/harbour', fetchedAt: REF, timeZone: 'Europe/Berlin' }).publishTime;

  it('takes the modified date when the dateline shows it as the article\'s date', () => {
    const head = ld('2021-01-01T11:00:00Z', '2023-04-01T10:00:00Z');
    expect(pt(page(head, '01.04.2023, 12:00 Uhr'))).toEqual({ iso: '2023-04-01T10:00:00+00:00', source: 'json-ld', raw: '2023-04-01T10:00:00Z' });
    // Shown as first published, or a dateline naming neither: the published date stands.
    expect(pt(page(head, '01.01.2021, 12:00 Uhr'))?.iso).toBe('2021-01-01T11:00:00+00:00');
    expect(pt(page(head, '5. März 2022'))?.iso).toBe('2021-01-01T11:00:00+00:00');
    // No dateline at all: the published date.
    expect(pt(page(head, ''))?.iso).toBe('2021-01-01T11:00:00+00:00');
  });

  it('takes the same instant with the page\'s own offset over a UTC stamp on the day before', () => {
    const head = `${ld('2019-10-18T22:04:00Z', '2019-10-18T22:05:41Z')}<meta name="date" content="Sat, 19 Oct 2019 00:04:00 +0200">`;
    expect(pt(page(head, '19. Oktober 2019 00:04 Uhr'))).toMatchObject({ iso: '2019-10-19T00:04:00+02:00', source: 'meta' });
  });
});
