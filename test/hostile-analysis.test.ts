/**
 * Bounded analysis of huge pages (src/extract/limits.ts): what is not read, what is still read,
 * and that each cut is said. The limits are set small here so the pages stay small; the
 * hostile-site crawl (hostile.test.ts) runs the defaults on the 100,000-link page.
 */
import { describe, expect, it } from 'vitest';
import { analyzePage, pruneLinkLists, parseHtml } from '../src/extract/page.js';
import { countElements, DEFAULT_ANALYSIS_LIMITS } from '../src/extract/limits.js';

const url = 'http://127.0.0.1:1/page.html';
const fetchedAt = new Date('2024-05-01T00:00:00Z');
const article = '<article><p>汶川地震发生后，救援队伍迅速赶赴灾区，展开搜救工作，救援物资陆续运抵。余震不断，救援仍在继续。</p></article>';
const manyLinks = (n: number) => `<!doctype html><html><head><title>many</title></head><body><h1>many</h1>${article}<div>${Array.from({ length: n }, (_, i) => `<a href="/l/${i}.html">l${i}</a>`).join(' ')}</div><p>尾部的说明文字</p></body></html>`;

describe('analysis limits', () => {
  it('takes the first maxLinks links in document order, with their context, and says it stopped', () => {
    const a = analyzePage({ html: manyLinks(500), url, fetchedAt }, { limits: { maxLinks: 100 } });
    expect(a.links.map((l) => l.url)).toEqual(Array.from({ length: 100 }, (_, i) => `http://127.0.0.1:1/l/${i}.html`));
    // The last link taken still has its text after it (the walk reads on for the context).
    expect(a.links[99].contextAfter).toMatch(/^l100 l101/);
    expect(a.bounded).toEqual(['over 100 links: the first 100 taken']);
    // Exactly maxLinks links on the page: nothing is cut, nothing is said.
    const b = analyzePage({ html: manyLinks(100), url, fetchedAt }, { limits: { maxLinks: 100 } });
    expect(b.links).toHaveLength(100);
    expect(b.bounded).toBeUndefined();
  });

  it('reads the main text of a page over the element limit without Readability: link lists and captions dropped', () => {
    const html = manyLinks(300).replace('</article>', '<figure><img src="/x.jpg"><figcaption>图片说明</figcaption></figure></article>');
    const a = analyzePage({ html, url, fetchedAt }, { limits: { maxElements: 200 } });
    expect(a.bounded).toEqual(['over 200 elements: main text read without Readability']);
    expect(a.text).toContain('汶川地震发生后，救援队伍迅速赶赴灾区');
    expect(a.text).toContain('尾部的说明文字');
    expect(a.text).not.toMatch(/l1\b|l299/); // the link list
    expect(a.text).not.toContain('图片说明');
    // Under the limit the same page goes through Readability and says nothing.
    expect(analyzePage({ html, url, fetchedAt }, { limits: { maxElements: 2000 } }).bounded).toBeUndefined();
  });

  it('parses only the first maxHtmlChars characters of a longer page', () => {
    const html = manyLinks(1000);
    const cut = html.indexOf('/l/500.html');
    const a = analyzePage({ html, url, fetchedAt }, { limits: { maxHtmlChars: cut, maxLinks: 5000 } });
    expect(a.bounded).toEqual([`${html.length.toLocaleString('en-US')} characters of HTML: the first ${cut.toLocaleString('en-US')} analysed`]);
    expect(a.links.length).toBeGreaterThanOrEqual(499);
    expect(a.links.length).toBeLessThanOrEqual(500);
    expect(a.title).toBe('many');
  });

  it('leaves the 100,000-link page of the hostile site to bounded work with the defaults', () => {
    const a = analyzePage({ html: manyLinks(100_000), url, fetchedAt });
    expect(a.links).toHaveLength(DEFAULT_ANALYSIS_LIMITS.maxLinks);
    expect(a.bounded).toEqual([
      `over ${DEFAULT_ANALYSIS_LIMITS.maxElements.toLocaleString('en-US')} elements: main text read without Readability`,
      `over ${DEFAULT_ANALYSIS_LIMITS.maxLinks.toLocaleString('en-US')} links: the first ${DEFAULT_ANALYSIS_LIMITS.maxLinks.toLocaleString('en-US')} taken`,
    ]);
    expect(a.text).toContain('余震不断，救援仍在继续');
    expect(a.text.length).toBeLessThan(200);
  });
});

describe('countElements', () => {
  it('counts every element once, stops past the limit, and takes 30,000 levels of nesting without recursion', () => {
    const doc = parseHtml('<html><head><title>t</title></head><body><div><p>a<b>b</b></p><ul><li>1</li><li>2</li></ul></div><p>c</p></body></html>');
    expect(countElements(doc.documentElement, 100)).toBe(11); // html head title body div p b ul li li p
    expect(countElements(doc.documentElement, 3)).toBe(4);
    expect(countElements(doc.body, 100)).toBe(8);
    const deep = parseHtml(`<html><body>${'<div>'.repeat(30_000)}x${'</div>'.repeat(30_000)}</body></html>`);
    expect(countElements(deep.documentElement, 1e9)).toBe(30_002);
  });
});

describe('pruneLinkLists', () => {
  it('drops blocks over 60% link text and calendars, judging each block on its own original content', () => {
    const doc = parseHtml(`<html><body><div id="main">
      <p>正文第一段，没有链接的文字内容比较多。</p>
      <ul id="related"><li><a href="/1">相关新闻一</a></li><li><a href="/2">相关新闻二</a></li></ul>
      <div id="mixed"><p>这一段有一个<a href="/3">链接</a>但文字更多一些内容。</p><div id="inner-list"><a href="/4">列表一</a><a href="/5">列表二</a></div></div>
      <table id="cal"><tr>${Array.from({ length: 31 }, (_, i) => `<td>${i + 1}</td>`).join('')}</tr></table>
      <template><div id="tpl"><a href="/6">模板里的链接</a></div></template>
    </div></body></html>`);
    pruneLinkLists(doc.body);
    const ids = Array.from(doc.body.querySelectorAll('[id]')).map((e) => e.id);
    expect(ids).toEqual(['main', 'mixed']);
    expect(doc.body.textContent).toContain('这一段有一个链接但文字更多一些内容');
  });
});
