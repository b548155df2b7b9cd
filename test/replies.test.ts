import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUILTIN_MATCHERS, extractThread, MatcherFileError, parseMatchers, resolveTimeText } from '../src/extract/replies/index.js';

const fx = (name: string) => readFileSync(join(import.meta.dirname, 'fixtures/replies', name), 'utf8');

describe('template matchers', () => {
  it('Discuz: posts, floors, title-attribute and relative times, reply total, pages', () => {
    const fetchedAt = new Date('2008-05-19T12:00:00+08:00');
    const t = extractThread({ html: fx('discuz.html'), url: 'https://bbs.example.cn/thread-88-1-1.html', fetchedAt })!;
    expect(t.matcher).toBe('discuz');
    expect(t.threadId).toBe('88');
    expect(t.posts.map((p) => p.author)).toEqual(['老张', '小李', '王工']);
    expect(t.posts.map((p) => p.floor)).toEqual([1, 2, 3]);
    // `<span title="2008-5-16 09:05">3 天前</span>`: the title wins; `3 小时前` resolves against fetchedAt.
    expect(t.posts.map((p) => p.time)).toEqual(['2008-05-13T02:22:00.000Z', '2008-05-16T01:05:00.000Z', '2008-05-19T01:00:00.000Z']);
    expect(t.posts[1].text).toBe('先看看信道是不是和邻居冲突了。');
    expect(t.replyCount).toBe(23); // the forum's own total, not the 2 replies on this page
    expect(t.pageUrls).toEqual(['https://bbs.example.cn/thread-88-2-1.html', 'https://bbs.example.cn/thread-88-3-1.html']);
  });

  it('phpBB: <time datetime> and plain author-line dates, quote kept inside text', () => {
    const t = extractThread({ html: fx('phpbb.html'), url: 'https://forum.example.org/viewtopic.php?f=5&t=4521', fetchedAt: new Date('2014-01-01T00:00:00Z'), timeZone: 'UTC' })!;
    expect(t.matcher).toBe('phpbb');
    expect(t.threadId).toBe('4521');
    expect(t.posts.map((p) => p.author)).toEqual(['jdoe', 'helper', 'jdoe']);
    expect(t.posts.map((p) => p.time)).toEqual(['2013-07-28T11:59:00.000Z', '2013-07-28T13:34:00.000Z', '2013-07-29T08:10:00.000Z']);
    expect(t.posts[1].text).toContain('Which version are you running?');
    expect(t.replyCount).toBe(2);
    expect(t.pageUrls).toEqual(['https://forum.example.org/viewtopic.php?t=4521&start=10']);
  });

  it('vBulletin: US dates, #N floors, next page', () => {
    const t = extractThread({ html: fx('vbulletin.html'), url: 'https://audio.example.com/showthread.php?t=30512', fetchedAt: new Date('2013-01-01T00:00:00Z'), timeZone: 'UTC' })!;
    expect(t.matcher).toBe('vbulletin');
    expect(t.threadId).toBe('30512');
    expect(t.posts.map((p) => [p.author, p.floor, p.time])).toEqual([
      ['audiofan', 1, '2012-06-12T10:22:00.000Z'],
      ['kenwood_guy', 2, '2012-06-12T11:05:00.000Z'],
    ]);
    expect(t.pageUrls).toEqual(['https://audio.example.com/showthread.php?t=30512&page=2']);
  });

  it('Tieba: floor from `N楼` among look-alike tail spans, total from 回复贴', () => {
    const t = extractThread({ html: fx('tieba.html'), url: 'https://tieba.baidu.com/p/2012345678', fetchedAt: new Date('2012-10-12T00:00:00+08:00') })!;
    expect(t.matcher).toBe('tieba');
    expect(t.threadId).toBe('2012345678');
    expect(t.posts.map((p) => [p.author, p.floor, p.time])).toEqual([
      ['球迷甲', 1, '2012-10-11T14:15:00.000Z'],
      ['路人乙', 2, '2012-10-11T14:31:00.000Z'],
    ]);
    expect(t.replyCount).toBe(57);
    expect(t.pageUrls).toEqual(['https://tieba.baidu.com/p/2012345678?pn=2', 'https://tieba.baidu.com/p/2012345678?pn=3']);
  });

  it('WordPress comments: nested replies count, the article is not a post', () => {
    const t = extractThread({ html: fx('wordpress.html'), url: 'https://blog.example/2019/09/plum-jam/', fetchedAt: new Date('2019-10-01T00:00:00Z'), timeZone: 'UTC' })!;
    expect(t.matcher).toBe('wordpress-comments');
    expect(t.posts.map((p) => [p.author, p.time, p.text])).toEqual([
      ['Marta', '2019-09-02T10:15:00.000Z', 'Did you leave the skins on?'],
      ['Anna', '2019-09-02T12:40:00.000Z', 'Yes, they give the colour.'],
    ]);
    expect(t.replyCount).toBe(2);
  });

  it('Discourse crawler view: position floors, navigation block is not a post', () => {
    const t = extractThread({ html: fx('discourse.html'), url: 'https://forums.example.com/t/layer-changes-on-select-realms/4997', fetchedAt: new Date('2020-06-01T00:00:00Z') })!;
    expect(t.matcher).toBe('discourse');
    expect(t.threadId).toBe('4997');
    expect(t.posts.map((p) => [p.author, p.floor, p.time])).toEqual([
      ['Kaivax', 1, '2020-04-17T23:10:00.000Z'],
      ['Pmmo', 2, '2020-04-17T23:20:00.000Z'],
    ]);
    expect(t.pageUrls).toEqual(['https://forums.example.com/t/layer-changes-on-select-realms/4997?page=2']);
  });
});

describe('generic detector and non-threads', () => {
  it('finds repeated author+time+text blocks on an unknown forum, with relative times', () => {
    const t = extractThread({ html: fx('generic-forum.html'), url: 'https://linli.example.cn/topic/5521', fetchedAt: new Date('2020-06-01T12:00:00+08:00') })!;
    expect(t.matcher).toBe('generic');
    expect(t.posts.map((p) => p.author)).toEqual(['楼上邻居', '老王', '物业小陈']);
    expect(t.posts.map((p) => p.time)).toEqual(['2020-05-30T00:12:00.000Z', '2020-05-31T13:40:00.000Z', '2020-06-01T01:00:00.000Z']);
    expect(t.posts[2].text).toBe('收到大家的意见，下周业主大会上会讨论车位方案。');
    expect(t.replyCount).toBe(2);
    expect(t.pageUrls).toEqual(['https://linli.example.cn/topic/5521?page=2']);
  });

  it('an article with a related-news list (author + date + linked title) is not a thread', () => {
    expect(extractThread({ html: fx('article.html'), url: 'https://news.example.cn/a/100.html', fetchedAt: new Date('2020-06-02T00:00:00Z') })).toBeNull();
  });

  it('user matchers from YAML are tried first; bad files give a plain message', () => {
    const yaml = `- name: linli\n  url: linli\\.example\\.cn/topic/\\d+\n  threadId: /topic/(\\d+)\n  post: section.msg-item\n  author: .nick\n  time: .when\n  text: .msg-main\n`;
    const matchers = parseMatchers(yaml);
    const t = extractThread({ html: fx('generic-forum.html'), url: 'https://linli.example.cn/topic/5521', fetchedAt: new Date('2020-06-01T12:00:00+08:00'), matchers })!;
    expect(t.matcher).toBe('linli');
    expect(t.threadId).toBe('5521');
    expect(t.posts).toHaveLength(3);
    expect(() => parseMatchers('- name: x\n  url: "("\n  post: a\n  author: b\n  time: c\n  text: d\n', 'm.yaml')).toThrow(MatcherFileError);
    expect(() => parseMatchers('[{"name": "x"}]', 'm.json')).toThrow(/m\.json: invalid reply matcher at 0\.url/);
    expect(BUILTIN_MATCHERS.map((m) => m.name)).toContain('discuz');
  });
});

describe('XHR comment JSON', () => {
  const fetchedAt = new Date('2020-06-01T12:00:00+08:00');
  it('reads the local test web comment API and lists its other pages', () => {
    const t = extractThread({
      html: fx('article.html'), url: 'http://127.0.0.1:8080/news/100.html', fetchedAt,
      xhr: [{ url: 'http://127.0.0.1:8080/api/comments?aid=100&page=1', json: { total: 5, comments: [
        { user: '网友A', time: '2020-06-01 10:00', content: '支持调整' },
        { user: '网友B', time: '2 小时前', content: '<p>希望<b>早高峰</b>加车</p>' },
      ] } }],
    })!;
    expect(t.matcher).toBe('xhr-comments');
    expect(t.posts).toEqual([
      { author: '网友A', time: '2020-06-01T02:00:00.000Z', text: '支持调整' },
      { author: '网友B', time: '2020-06-01T02:00:00.000Z', text: '希望 早高峰 加车' },
    ]);
    expect(t.replyCount).toBe(5);
    expect(t.pageUrls).toEqual(['http://127.0.0.1:8080/api/comments?aid=100&page=2', 'http://127.0.0.1:8080/api/comments?aid=100&page=3']);
  });

  it('nested API shapes: data.list with user objects, unix ctime, count', () => {
    const t = extractThread({
      html: '<html><body><p>x</p></body></html>', url: 'https://news.example.com/a/1', fetchedAt,
      xhr: [
        { url: 'https://news.example.com/api/other', json: { ok: true, items: [1, 2] } },
        { url: 'https://news.example.com/api/cmt?id=1', json: { code: 0, data: { count: 2, list: [
          { author: { nick: 'amy' }, ctime: 1590976800, body: 'first' },
          { author: { nick: 'bo' }, ctime: 1590980400, body: 'second' },
        ] } } },
      ],
    })!;
    expect(t.posts.map((p) => [p.author, p.time, p.text])).toEqual([
      ['amy', '2020-06-01T02:00:00.000Z', 'first'],
      ['bo', '2020-06-01T03:00:00.000Z', 'second'],
    ]);
    expect(t.replyCount).toBe(2);
  });
});

describe('relative and localised reply times', () => {
  const ref = new Date('2020-06-15T12:00:00Z');
  it.each([
    ['3 小时前', 'Asia/Shanghai', '2020-06-15T09:00:00.000Z'],
    ['2 hours ago', 'UTC', '2020-06-15T10:00:00.000Z'],
    ['10. April 2020, 19:40', 'UTC', '2020-04-10T19:40:00.000Z'],
    ['29/07/2004, 19h46', 'UTC', '2004-07-29T19:46:00.000Z'],
    ['1590976800', 'UTC', '2020-06-01T02:00:00.000Z'],
    ['2011-12-03T17:27:18-05:00', 'UTC', '2011-12-03T22:27:18.000Z'],
  ])('%s', (text, tz, iso) => {
    expect(resolveTimeText(text, ref, tz)?.toISOString()).toBe(iso);
  });
});
