import { describe, expect, it } from 'vitest';
import { extractLinks, parseHtml } from '../src/extract/page.js';

describe('rel=nofollow', () => {
  it('never yields a link the page asks crawlers not to follow, and keeps the others', () => {
    const doc = parseHtml('<p><a href="/a">kept</a> <a rel="external nofollow" href="http://spam.example/">spam</a> <a rel="NoFollow" href="/b">b</a> <a rel="nofollower" href="/c">c</a></p>');
    const urls = extractLinks(doc, 'http://site.test/page').map((l) => l.url);
    expect(urls).toEqual(['http://site.test/a', 'http://site.test/c']);
  });
});
