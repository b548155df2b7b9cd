/**
 * The adaptive fetcher's decision rule (src/fetch/adaptive/adaptive.ts) on hand-made pairs of pages: the
 * HTML as served (HTTP) and the DOM after JavaScript (browser), analysed by the real page
 * analysis and thread matchers. No browser needed: the rule is a pure function of the two.
 */
import { describe, expect, it } from 'vitest';
import { analyzePage } from '../src/extract/page.js';
import { AdaptivePolicy, compareRenderings, DEFAULT_POLICY, scriptOn, shingleF1, signalsOf, urlPattern, urlShape } from '../src/fetch/adaptive/adaptive.js';

const AT = new Date('2008-06-01T12:00:00+08:00');
const PARAS = [
  '国家地震局消息，四川汶川发生里氏八级地震，救援队伍连夜赶赴灾区，展开搜救工作，首批物资已经运抵。',
  '解放军和武警部队官兵冒雨徒步进入震中映秀镇，打通生命通道，转移受伤群众，医疗队在帐篷里救治伤员。',
  '各地群众踊跃捐款捐物，红十字会设立专门账户，志愿者排起长队献血，社会各界纷纷伸出援手支援灾区重建。',
];

function page(opts: { text?: boolean; links?: string[]; comments?: number; script?: string } = {}): string {
  const body = opts.text === false ? '<div id="article"><div class="loading">正在加载...</div></div>' : `<div id="article"><h1>汶川地震救援进展</h1><div class="time">2008年05月13日 10:20</div>${PARAS.map((p) => `<p>${p}</p>`).join('')}</div>`;
  const links = (opts.links ?? ['/news/1.shtml', '/news/2.shtml', '/news/3.shtml']).map((l, i) => `<li><a href="${l}">相关新闻${i}</a></li>`).join('');
  const comments = Array.from({ length: opts.comments ?? 0 }, (_, i) => `<div class="comment-item"><span class="user">网友${i}</span> <span class="time">2008-05-13 1${i}:00:00</span><p class="content">祝福灾区人民，一定要挺住${i}</p></div>`).join('');
  return `<!DOCTYPE html><html><head><meta charset="utf-8"><title>汶川地震救援进展_新闻</title></head><body>
<div id="nav"><a href="/">首页</a></div>${body}<div class="related"><ul>${links}</ul></div>
<div id="comment-list">${comments}</div>${opts.script ?? ''}</body></html>`;
}

const URL_ = 'http://127.0.0.9:8000/news/2008-05-13/content_3123456.htm';
function signals(html: string, xhr: { url: string; json: unknown }[] = []) {
  const analysis = analyzePage({ html, url: URL_, fetchedAt: AT });
  return signalsOf(analysis, html, xhr, AT);
}
const compare = (http: string, browser: string, xhr: { url: string; json: unknown }[] = []) => compareRenderings(signals(http), signals(browser, xhr), DEFAULT_POLICY);

describe('URL patterns', () => {
  it('generalise digits and keep the shape', () => {
    expect(urlPattern('http://a.cn/news/2008/0512/n123456.shtml')).toBe(urlPattern('http://a.cn/news/2008/0601/n9.shtml'));
    expect(urlPattern('http://a.cn/news/2008/0512/n1.shtml')).not.toBe(urlPattern('http://a.cn/live/123.html'));
    expect(urlPattern('http://a.cn/news/1.html')).not.toBe(urlPattern('http://b.cn/news/1.html'));
    expect(urlPattern('http://f.cn/forum.php?mod=viewthread&tid=12')).toBe('f.cn/forum.php?mod=viewthread&tid=#');
    expect(urlPattern('http://f.cn/forum.php?tid=1&mod=viewthread')).toBe(urlPattern('http://f.cn/forum.php?mod=viewthread&tid=99'));
    expect(urlPattern('http://f.cn/forum.php?mod=forumdisplay&fid=2')).not.toBe(urlPattern('http://f.cn/forum.php?mod=viewthread&tid=2'));
    // the coarse shape joins channels of one layout
    expect(urlShape('http://a.cn/sports/2008-05-13/content_1.htm')).toBe(urlShape('http://a.cn/news/2008-06-01/content_22.htm'));
  });

  it('shingle F1 is 1 for the same text, 0 for none shared, in between for edits', () => {
    expect(shingleF1(PARAS.join(''), PARAS.join(''))).toBe(1);
    expect(shingleF1(PARAS[0], '')).toBe(0);
    const f = shingleF1(PARAS.join(''), PARAS.slice(0, 2).join(''));
    expect(f).toBeGreaterThan(0.5);
    expect(f).toBeLessThan(0.95);
  });
});

describe('decision rule on hand-made page pairs', () => {
  it('the same page both ways is equivalent', () => {
    const c = compare(page(), page({ script: '<script>var _hmt=[];</script>' }));
    expect(c.differences).toEqual([]);
    expect(c.equivalent).toBe(true);
    expect(c.textF1).toBe(1);
  });

  it('text missing over HTTP: different, and says so', () => {
    const c = compare(page({ text: false }), page());
    expect(c.equivalent).toBe(false);
    expect(c.textF1).toBeLessThan(0.5);
    expect(c.differences.join()).toMatch(/main text differs/);
  });

  it('links missing over HTTP: different', () => {
    const all = ['/news/1.shtml', '/news/2.shtml', '/news/3.shtml', '/news/4.shtml', '/news/5.shtml'];
    const c = compare(page({ links: all.slice(0, 2) }), page({ links: all }));
    expect(c.equivalent).toBe(false);
    expect(c.linkRecall).toBeLessThan(0.95);
    expect(c.differences.join()).toMatch(/out-links missing/);
  });

  it('comments by XHR: different (the browser is needed for the thread)', () => {
    const xhr = [{ url: 'http://127.0.0.9:8000/api/comments?aid=3123456&page=1', json: { total: 3, page: 1, comments: [0, 1, 2].map((i) => ({ user: `网友${i}`, time: `2008-05-13 1${i}:00:00`, content: `祝福灾区人民，一定要挺住${i}` })) } }];
    const c = compare(page(), page({ comments: 3 }), xhr);
    expect(c.equivalent).toBe(false);
    expect(c.differences.join()).toMatch(/comments arrive by XHR/);
  });

  it('comments in the served HTML: equivalent', () => {
    const c = compare(page({ comments: 3 }), page({ comments: 3 }));
    expect(c.equivalent).toBe(true);
  });
});

describe('pages JavaScript cannot change (no sample needed)', () => {
  it('a page with no script, frame, automatic handler or refresh is sure; anything that can run is named', () => {
    expect(scriptOn(page())).toBeUndefined();
    // data blocks and handlers that need a user's input never run while a crawler renders
    expect(scriptOn(page({ script: '<script type="application/ld+json">{"@type":"NewsArticle"}</script><a href="javascript:void(0)" onclick="home()">设为首页</a><form onsubmit="go()"></form>' }))).toBeUndefined();
    expect(scriptOn(page({ script: '<script>document.write(1)</script>' }))).toBe('a <script> element');
    expect(scriptOn(page({ script: '<SCRIPT src="/a.js"></SCRIPT>' }))).toBe('a <script> element');
    expect(scriptOn(page({ script: '<script type="module" src="/m.js"></script>' }))).toBe('a <script> element');
    expect(scriptOn(page({ script: "<script type='text/javascript'>x()</script>" }))).toBe('a <script> element');
    expect(scriptOn(page({ script: '<svg><script>x()</script></svg>' }))).toBe('a <script> element');
    expect(scriptOn(page({ script: '<img src="x.png" onerror="fill()">' }))).toBe('an onerror= handler');
    expect(scriptOn(page({ script: '<body onload="build()">' }))).toBe('an onload= handler');
    expect(scriptOn(page({ script: '<div onmouseover="x()"></div>' }))).toBe('an onmouseover= handler');
    expect(scriptOn(page({ script: '<iframe src="/comments"></iframe>' }))).toBe('an <iframe> element');
    expect(scriptOn(page({ script: '<object data="a.swf"></object>' }))).toBe('an <object> element');
    expect(scriptOn('<html><head><meta http-equiv="refresh" content="0;url=/next"></head><body>x</body></html>')).toBe('a meta refresh');
    expect(scriptOn('<div><template shadowrootmode="open"><slot></slot></template></div>')).toBe('a declarative shadow root');
    // unsure counts as script: a <script tag never closed
    expect(scriptOn(page({ script: '<script' }))).toBe('a <script> element');
  });

  it('takes hostile input (unclosed tags and quotes by the hundred thousand; a backtracking scan would not finish)', () => {
    expect(scriptOn('<script type="'.repeat(20_000) + '<a on'.repeat(50_000))).toBe('a <script> element');
    expect(scriptOn('<meta '.repeat(200_000) + '<template '.repeat(100_000) + ' onclick='.repeat(100_000) + '<a title="'.repeat(100_000))).toBeUndefined();
  });
});

describe('policy: learning, re-checks, the text guard', () => {
  const equal = { equivalent: true, textF1: 1, linkRecall: 1, differences: [] };
  const differs = { equivalent: false, textF1: 0, linkRecall: 1, differences: ['main text differs'] };
  const url = (i: number) => `http://s.cn/news/2008-05-${String(10 + (i % 20)).padStart(2, '0')}/content_${1000 + i}.htm`;

  it('browser until minSamples equivalent renderings, then HTTP', () => {
    const p = new AdaptivePolicy({ recheckShare: 0 });
    for (let i = 0; i < 3; i++) {
      const d = p.decide(url(i));
      expect(d.mode).toBe('browser');
      expect(d.why).toMatch(/learning/);
      p.record(url(i), equal, 300);
    }
    const d = p.decide(url(3));
    expect(d.mode).toBe('http');
    expect(d.why).toMatch(/3 rendering\(s\) in a row/);
  });

  it('one difference makes the pattern browser, and it needs afterDifference equivalent ones to return', () => {
    const p = new AdaptivePolicy({ recheckShare: 0, afterDifference: 5 });
    p.record(url(0), equal, 300);
    p.record(url(1), differs, 300);
    for (let i = 2; i < 6; i++) {
      expect(p.decide(url(i)).mode).toBe('browser');
      expect(p.decide(url(i)).why).toMatch(/needs the browser: main text differs/);
      p.record(url(i), equal, 300);
    }
    p.record(url(6), equal, 300);
    expect(p.decide(url(7)).mode).toBe('http');
  });

  it('a new pattern on a host whose comparisons were all equivalent needs one rendering, not minSamples', () => {
    const p = new AdaptivePolicy({ recheckShare: 0 });
    for (let i = 0; i < 3; i++) p.record(url(i), equal, 300);
    const list = (i: number) => `http://s.cn/list/page_${i}.html`;
    expect(p.decide(list(1)).mode).toBe('browser');
    p.record(list(1), equal, 100);
    expect(p.decide(list(2)).mode).toBe('http');
    // …but not on a host with any difference
    const q = new AdaptivePolicy({ recheckShare: 0 });
    for (let i = 0; i < 3; i++) q.record(url(i), equal, 300);
    q.record('http://s.cn/live/1.html', differs, 300);
    q.record(list(1), equal, 100);
    expect(q.decide(list(2)).mode).toBe('browser');
  });

  it('re-checks a seeded share of HTTP pages, and catches a pattern that turns JavaScript-only mid-crawl', () => {
    const run = (seed: number) => {
      const p = new AdaptivePolicy({ recheckShare: 0.1, randomSeed: seed, textGuard: 0 });
      const log: { i: number; mode: string; recheck: boolean }[] = [];
      const SWITCH = 60;
      for (let i = 0; i < 200; i++) {
        const d = p.decide(url(i));
        log.push({ i, mode: d.mode, recheck: !!d.recheck });
        // the site serves static pages until SWITCH, JavaScript-only pages after it
        if (d.mode === 'browser') p.record(url(i), i < SWITCH ? equal : differs, 300);
      }
      return { log, SWITCH };
    };
    const { log, SWITCH } = run(7);
    const before = log.filter((l) => l.i >= 3 && l.i < SWITCH);
    const rechecks = before.filter((l) => l.recheck).length;
    expect(rechecks).toBeGreaterThan(0); // some HTTP pages were rendered anyway
    expect(rechecks).toBeLessThan(before.length / 2);
    const caught = log.find((l) => l.i >= SWITCH && l.mode === 'browser')!;
    expect(caught.recheck).toBe(true); // caught by a re-check…
    expect(log.filter((l) => l.i > caught.i).every((l) => l.mode === 'browser')).toBe(true); // …and the browser from then on
    // seeded: the same seed gives the same re-checks
    expect(run(7).log).toEqual(log);
    expect(run(8).log).not.toEqual(log);
  });

  it('re-checks fewer of a pattern\'s pages as its equivalent renderings add up, never under a quarter of the share', () => {
    const p = new AdaptivePolicy({ recheckShare: 0.2, randomSeed: 3, textGuard: 0 });
    for (let i = 0; i < 3; i++) p.record(url(i), equal, 300);
    const rechecked: boolean[] = [];
    for (let i = 3; i < 2003; i++) {
      const d = p.decide(url(i));
      rechecked.push(!!d.recheck);
      if (d.mode === 'browser') p.record(url(i), equal, 300);
    }
    const rate = (from: number, to: number) => rechecked.slice(from, to).filter(Boolean).length / (to - from);
    expect(rate(0, 50)).toBeGreaterThan(0.08); // about the full 20% at first
    expect(rate(1000, 2000)).toBeLessThan(0.1); // falls with the streak…
    expect(rate(1000, 2000)).toBeGreaterThan(0.02); // …to no less than 5%
    expect(p.decide(url(9999)).why).toMatch(/pattern .* rendering\(s\) in a row|re-check \(5\.0%/);
  });

  it('sites from one template: a path pattern equivalent on two other hosts decides a new host, until it differs anywhere', () => {
    const on = (host: string, i: number) => url(i).replace('s.cn', host);
    const p = new AdaptivePolicy({ recheckShare: 0 });
    for (let i = 0; i < 3; i++) p.record(on('a.cn', i), equal, 600);
    // one other host is not enough
    expect(p.decide(on('c.cn', 9)).mode).toBe('browser');
    p.record(on('b.cn', 3), equal, 600);
    const d = p.decide(on('c.cn', 9));
    expect(d.mode).toBe('http');
    expect(d.why).toMatch(/on 2 other hosts, never different/);
    // a host where that path is a JavaScript shell: the text guard, from the path's rendered median
    expect(p.guard(on('c.cn', 9), 20)).toMatch(/under 50%/);
    // …still once pages of the new pattern were fetched over HTTP (counted, never rendered)
    p.count(on('c.cn', 9), 'http');
    expect(p.decide(on('c.cn', 10)).mode).toBe('http');
    expect(p.guard(on('c.cn', 10), 0)).toMatch(/under 50% of this pattern's rendered median 600/);
    expect(p.guard(on('c.cn', 10), 590)).toBeUndefined();
    // once it differed on any host, every new host learns on its own
    p.record(on('c.cn', 9), differs, 600);
    expect(p.decide(on('d.cn', 10)).mode).toBe('browser');
  });

  it('a re-check that agrees with a pattern decided by its template or shape keeps it HTTP (agreement never costs renderings)', () => {
    const on = (host: string, i: number) => url(i).replace('s.cn', host);
    const p = new AdaptivePolicy({ recheckShare: 0 });
    for (let i = 0; i < 3; i++) p.record(on('a.cn', i), equal, 600);
    for (let i = 3; i < 6; i++) p.record(on('b.cn', i), equal, 600);
    expect(p.decide(on('c.cn', 9)).mode).toBe('http');
    // a re-check on c.cn agreed: one rendering of its own, short of minSamples on a host not yet clean
    p.record(on('c.cn', 9), equal, 600);
    const d = p.decide(on('c.cn', 10));
    expect(d.mode).toBe('http');
    expect(d.why).toMatch(/^pattern .*on 2 other hosts, never different/);
    // …and one that differs still makes it the browser's
    p.record(on('c.cn', 10), differs, 600);
    expect(p.decide(on('c.cn', 11)).mode).toBe('browser');
    // the same through the URL shape: /news/… learned, /sports/… (same shape) re-checked once
    const q = new AdaptivePolicy({ recheckShare: 0 });
    for (let i = 0; i < 3; i++) q.record(url(i), equal, 600);
    q.record('http://s.cn/live/1.html', differs, 300); // the host is not clean: one rendering no longer settles a pattern
    const sports = (i: number) => url(i).replace('/news/', '/sports/');
    expect(q.decide(sports(1)).why).toMatch(/^new pattern .*its URL shape/);
    q.record(sports(1), equal, 600);
    expect(q.decide(sports(2)).mode).toBe('http');
    expect(q.decide(sports(2)).why).toMatch(/^pattern .*its URL shape .* 4 times/);
  });

  it('re-checks a pattern decided by its template as often as the template\'s run of agreements says, not at the full share', () => {
    const on = (host: string, i: number) => url(i).replace('s.cn', host);
    const p = new AdaptivePolicy({ recheckShare: 0.2, randomSeed: 5, textGuard: 0 });
    for (let i = 0; i < 30; i++) p.record(on(i % 2 ? 'a.cn' : 'b.cn', i), equal, 600);
    let rechecks = 0;
    for (let i = 0; i < 1000; i++) {
      const d = p.decide(on('c.cn', 100 + i));
      expect(d.mode === 'http' || d.recheck).toBe(true);
      if (d.recheck) rechecks++;
    }
    // 20% × minSamples / 30 in a row = 2% (never under a quarter of 20% = 5%): 5%, not 20%
    expect(rechecks / 1000).toBeGreaterThan(0.02);
    expect(rechecks / 1000).toBeLessThan(0.09);
    expect(p.decide(on('c.cn', 5000)).why).toMatch(/re-check \(5\.0%|on 2 other hosts/);
  });

  it('the text guard renders an HTTP page whose text is far below the pattern norm', () => {
    const p = new AdaptivePolicy({ recheckShare: 0 });
    for (let i = 0; i < 3; i++) p.record(url(i), equal, 600);
    expect(p.decide(url(3)).mode).toBe('http');
    expect(p.guard(url(3), 580)).toBeUndefined();
    expect(p.guard(url(3), 27)).toMatch(/under 50%/);
  });
});
