/**
 * The never-relevant rule: non-2xx, error pages served with 200, boilerplate-only
 * pages and login walls are never relevant, never seeds, never a learner's positive example.
 */
import { describe, expect, it } from 'vitest';
import { PageJudge } from '../src/judge/judge.js';
import { neverRelevant } from '../src/judge/never-relevant.js';
import { parseConfig } from '../src/config/schema.js';
import type { PageAnalysis } from '../src/extract/types.js';

const quake = '汶川地震发生后，救援队伍迅速赶赴灾区，展开搜救工作，救援物资陆续运抵，余震仍在持续。';
const article = Array.from({ length: 6 }, () => quake).join('\n');
const A = (over: Partial<PageAnalysis>): PageAnalysis => ({ url: 'http://news.test/a.html', title: '汶川地震救援进展', text: article, headings: [], links: [], ...over });

describe('neverRelevant', () => {
  it('rejects every non-2xx status, keeps 2xx and unknown', () => {
    for (const status of [301, 404, 410, 500, 503, 199]) expect(neverRelevant({ status, title: 't', text: article })?.reason).toBe('http-status');
    for (const status of [200, 203, 0, undefined]) expect(neverRelevant({ status, title: '汶川地震', text: article })).toBeUndefined();
  });

  it('recognises error pages served with 200 in several languages, from the title, a heading or the opening text', () => {
    const nav = '首页 | 新闻 | 体育 | 财经 | 科技';
    expect(neverRelevant({ status: 200, title: '提示', text: `${nav}\n您访问的页面不存在或已被删除\n汶川地震 救援 最新消息` })?.reason).toBe('error-page');
    expect(neverRelevant({ status: 200, title: '页面不存在 - 新闻网', text: '汶川地震救援专题已经下线，请浏览其他栏目。' })?.reason).toBe('error-page');
    expect(neverRelevant({ status: 200, title: 'Student home pages', headings: ['Page Not Found'], text: 'Sorry, try the department index.' })?.reason).toBe('error-page');
    expect(neverRelevant({ status: 200, title: 'x', text: 'The requested URL /~jdoe/home.html was not found on this server.' })?.reason).toBe('error-page');
    expect(neverRelevant({ status: 200, title: 'Seite nicht gefunden', text: 'Leider ...' })?.reason).toBe('error-page');
    expect(neverRelevant({ status: 200, title: '頁面不存在', text: '' })?.reason).toBe('error-page');
  });

  it('keeps a long article that merely mentions an error phrase', () => {
    const long = Array.from({ length: 20 }, (_, i) => `Paragraph ${i}: web archivists study why a page not found error appears on old university sites and how links rot over the years.`).join('\n');
    expect(neverRelevant({ status: 200, title: 'Why links rot', text: long })).toBeUndefined();
  });

  it('rejects pages whose main text is only copyright and navigation lines', () => {
    const text = '首页 | 关于我们 | 联系我们 | 网站地图\nCopyright © 2008 汶川地震救援网 版权所有\n京ICP备05001234号\nHome · About · Contact';
    expect(neverRelevant({ status: 200, title: '汶川地震救援网', text })?.reason).toBe('boilerplate-only');
    expect(neverRelevant({ status: 200, title: '汶川地震救援网', text: '' })?.reason).toBe('boilerplate-only');
    expect(neverRelevant({ status: 200, title: 'x', text: `${text}\n${quake}` })).toBeUndefined();
  });

  it('rejects login walls, not pages that merely carry a log-in box', () => {
    expect(neverRelevant({ status: 200, title: '提示信息', text: '抱歉，您尚未登录，没有权限访问该版块' })?.reason).toBe('login-wall');
    expect(neverRelevant({ status: 200, title: 'Members', text: 'Please log in to view this page.', html: '<input type="password">' })?.reason).toBe('login-wall');
    const thread = `${article}\n您需要登录后才可以回帖`;
    expect(neverRelevant({ status: 200, title: '地震救援讨论', text: thread, html: '<form><input name=u><input type=password name=p></form>' })).toBeUndefined();
  });
});

describe('PageJudge applies the rule before the topic model', () => {
  const config = parseConfig({ topics: [{ keywords: ['汶川地震', '救援'] }] });

  it('a 404 page full of the topic’s words is not relevant, does not join the seed set nor count in the IDF', async () => {
    const judge = await PageJudge.create(config);
    const topic = judge.model.topics[0];
    const v404 = judge.judge(A({ url: 'http://news.test/dead.html' }), { isSeed: true, status: 404, anchorText: '汶川地震救援' });
    expect(v404).toMatchObject({ relevant: false, rel: 0, neverRelevant: { reason: 'http-status' } });
    expect(topic.seedCount).toBe(0);
    expect(judge.model.stats.documentCount).toBe(0);
    const soft = judge.judge(A({ url: 'http://news.test/soft.html', title: '页面不存在', text: '您访问的页面不存在或已被删除\n汶川地震救援' }), { isSeed: true, status: 200 });
    expect(soft).toMatchObject({ relevant: false, neverRelevant: { reason: 'error-page' } });
    expect(topic.seedCount).toBe(0);
    const ok = judge.judge(A({}), { isSeed: true, status: 200 });
    expect(ok.relevant).toBe(true);
    expect(ok.neverRelevant).toBeUndefined();
    expect(topic.seedCount).toBe(1);
  });
  it('a list page (channel, portal home: main text only copyright, content in headlines) is not relevant and never a seed, but keeps its rel for its links', async () => {
    const judge = await PageJudge.create(config);
    const topic = judge.model.topics[0];
    const headlines = ['汶川地震救援队伍赶赴北川灾区', '地震灾区群众安置工作有序推进', '余震监测显示震区趋于平稳', '救援物资陆续运抵汶川映秀'];
    const links = headlines.map((t, i) => ({ url: `http://news.test/q/${i}.html`, anchorText: t }));
    const channel = A({ url: 'http://news.test/quake/', title: '汶川地震 救援', text: 'Copyright © 2008 华夏新闻网 版权所有', links } as Partial<PageAnalysis>);
    const v = judge.judge(channel, { isSeed: true, status: 200 });
    expect(v.neverRelevant).toBeUndefined();
    expect(v).toMatchObject({ relevant: false, listPage: true, listTopical: true, probability: 0 });
    expect(v.rel).toBeGreaterThanOrEqual(topic.threshold);
    expect(topic.seedCount).toBe(0);
    // The same words as an article's main text: relevant, and a seed.
    const story = judge.judge(A({ url: 'http://news.test/q/1.html', text: `${headlines.join('。')}。\n${article}` }), { isSeed: true, status: 200 });
    expect(story).toMatchObject({ relevant: true });
    expect(story.listPage).toBeUndefined();
    expect(topic.seedCount).toBe(1);
  });
});
