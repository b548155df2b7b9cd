import { describe, expect, it } from 'vitest';
import { BoilerplateLinks } from '../src/score/boilerplate.js';

describe('boilerplate links', () => {
  it('marks a URL linked from most fetched pages of its site, once the site has enough pages', () => {
    const b = new BoilerplateLinks(0.6, 5, 0.2);
    for (let i = 0; i < 4; i++) b.record('wiki', ['/wiki/Main_Page', `/wiki/Article_${i}`]);
    expect(b.isBoilerplate('wiki', '/wiki/Main_Page')).toBe(false); // four pages: too few to tell
    b.record('wiki', ['/wiki/Main_Page', '/wiki/Article_0']);
    expect(b.isBoilerplate('wiki', '/wiki/Main_Page')).toBe(true);
    expect(b.factor('wiki', '/wiki/Main_Page')).toBe(0.2);
    // linked from two of five pages: a topical link, not boilerplate
    expect(b.isBoilerplate('wiki', '/wiki/Article_0')).toBe(false);
    expect(b.factor('wiki', '/wiki/Article_0')).toBe(1);
    // another site's pages say nothing about this one
    expect(b.isBoilerplate('other', '/wiki/Main_Page')).toBe(false);
  });

  it('counts a URL once per page however often the page links it', () => {
    const b = new BoilerplateLinks(0.6, 5, 0.2);
    b.record('s', Array(10).fill('/x'));
    for (let i = 0; i < 4; i++) b.record('s', ['/y']);
    expect(b.isBoilerplate('s', '/x')).toBe(false);
    expect(b.isBoilerplate('s', '/y')).toBe(true);
  });
});
