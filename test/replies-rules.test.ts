/** Templates and generic-detector rules added for the real-page benchmark (bench/threads.ts). */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUILTIN_MATCHERS, extractThread, resolveTimeText } from '../src/extract/replies/index.js';
import { normaliseNumericDate, pageDayFirst } from '../src/extract/replies/time.js';
import { lowerCaseAttributes, parseDocument, textOf } from '../src/extract/replies/dom.js';
import { voiceCount } from '../src/extract/replies/generic.js';

const fx = (name: string) => readFileSync(join(import.meta.dirname, 'fixtures/replies', name), 'utf8');
const REF = new Date('2021-06-15T12:00:00Z');
const iso = (s: string, dayFirst?: boolean) => resolveTimeText(s, REF, 'UTC', dayFirst)?.toISOString();

describe('dates', () => {
  it('German `10. April 2020 um 07:38 Uhr` and German month names', () => {
    expect(iso('10. April 2020 um 07:38 Uhr')).toBe('2020-04-10T07:38:00.000Z');
    expect(iso('erstellt: 20. Apr 2004, 09:16')).toBe('2004-04-20T09:16:00.000Z');
    expect(iso('18. Dezember 2019, 21:12')).toBe('2019-12-18T21:12:00.000Z');
    expect(iso('3. März 2020')).toBe('2020-03-03T12:00:00.000Z');
  });

  it('numeric dates: dots are day-first, a part above 12 decides, else the page order', () => {
    expect(iso('21.04.20')).toBe('2020-04-21T12:00:00.000Z');
    expect(iso('04-23-2020 at 3:40 pm')).toBe('2020-04-23T15:40:00.000Z');
    expect(iso('04/02/2005, 12h25', true)).toBe('2005-02-04T12:25:00.000Z');
    expect(iso('04/02/2005, 12h25', false)).toBe('2005-04-02T12:25:00.000Z');
    expect(normaliseNumericDate('am 2019-03-04 um')).toBe('am 2019-03-04 um');
    expect(normaliseNumericDate('11.06.2020, 16:22')).toBe('2020-06-11, 16:22');
  });

  it('pageDayFirst: unambiguous dates on the page beat the language', () => {
    expect(pageDayFirst('posted 29/07/2004 and 04/02/2005', 'en-US')).toBe(true);
    expect(pageDayFirst('posted 07/29/2004 and 04/02/2005', 'fr')).toBe(false);
    expect(pageDayFirst('04/02/2005', 'fr')).toBe(true);
    expect(pageDayFirst('04/02/2005', 'en')).toBe(false);
    expect(pageDayFirst('04/02/2005', 'en-GB')).toBe(true);
    expect(pageDayFirst('04/02/2005', null)).toBeUndefined();
  });
});

describe('templates', () => {
  it('XenForo 1: permalink time (not the edit date), time in the user block, data-author, empty ad post dropped', () => {
    const t = extractThread({ html: fx('xenforo1.html'), url: 'https://solar.example.de/threads/balkonkraftwerk.5501/', fetchedAt: REF, timeZone: 'UTC' })!;
    expect(t.matcher).toBe('xenforo1');
    expect(t.threadId).toBe('5501');
    expect(t.posts.map((p) => [p.author, p.time, p.floor])).toEqual([
      ['Sonnenfan', '2021-03-03T18:02:00.000Z', 1],
      ['Volt', '2021-03-03T19:15:00.000Z', 2],
    ]);
    expect(t.replyCount).toBe(1);
    expect(t.pageUrls).toEqual(['https://solar.example.de/threads/balkonkraftwerk.5501/page-2']);
  });

  it('Phorum: author, time from the <small> header after the subject, body', () => {
    const t = extractThread({ html: fx('phorum.html'), url: 'http://foro.example.org/read.php?3,77', fetchedAt: REF, timeZone: 'UTC' })!;
    expect(t.matcher).toBe('phorum');
    expect(t.threadId).toBe('77');
    expect(t.posts.map((p) => [p.author, p.time])).toEqual([
      ['Marisa', '2012-03-02T10:41:00.000Z'],
      ['Jordi', '2012-03-05T21:07:00.000Z'],
    ]);
    expect(t.posts[1].text).toMatch(/^Sí, en el hospital La Fe/);
    expect(t.pageUrls).toEqual(['http://foro.example.org/read.php?3,77,page=2']);
  });
});

describe('Vanilla on a rewritten URL', () => {
  it('`/category/ID-slug.html`: discussion plus comments, the sidebar thread list is not posts', () => {
    const t = extractThread({ html: fx('vanilla-rewritten.html'), url: 'https://talk.example.com/ivy-league/2184314-application-to-ivy-leagues.html', fetchedAt: REF, timeZone: 'UTC' })!;
    expect(t.matcher).toBe('vanilla');
    expect(t.threadId).toBe('2184314');
    expect(t.posts.map((p) => p.author)).toEqual(['tommyshelby', 'TomSrOfBoston', 'tommyshelby']);
    expect(t.posts.map((p) => p.time)).toEqual(['2020-04-23T13:40:04.000Z', '2020-04-23T13:55:19.000Z', '2020-04-24T04:56:47.000Z']);
    expect(t.replyCount).toBe(2);
  });
});

describe('posts of only a picture', () => {
  it('XenForo 2: an image-only post is a post (empty text); an ad slot without a time is not', () => {
    const t = extractThread({ html: fx('xenforo2-media.html'), url: 'https://www.example.de/forum/homescreens.905512.html', fetchedAt: REF, timeZone: 'UTC' })!;
    expect(t.matcher).toBe('xenforo');
    expect(t.posts.map((p) => p.author)).toEqual(['M--G', 'deineltan', 'DVa']);
    expect(t.posts[1].text).toBe('');
    expect(t.posts[1].time).toBe('2019-03-12T19:50:00.000Z');
    expect(t.replyCount).toBe(2);
  });
});

describe('generic detector', () => {
  it('table layout: a post is a header row (author, time) plus the next body row', () => {
    const t = extractThread({ html: fx('table-rows.html'), url: 'http://hifi.example.de/viewthread-84-87.html', fetchedAt: REF, timeZone: 'UTC' })!;
    expect(t.matcher).toBe('generic');
    expect(t.posts.map((p) => p.time)).toEqual(['2004-04-20T00:17:00.000Z', '2004-04-20T09:16:00.000Z', '2004-04-21T10:12:00.000Z']);
    expect(t.posts[1].text).toBe('Finde ich eine tolle Idee, ich lade heute Abend Bilder hoch.');
    expect(t.posts[1].author).toContain('Django8');
  });

  it('bbPress: `38 secs ago` is a time, the opening post takes its own date (not the header\'s last reply), names without the date', () => {
    const t = extractThread({ html: fx('bbpress-relative.html'), url: 'https://ms.example/topic/cbd-oil-11', fetchedAt: REF, timeZone: 'UTC' })!;
    expect(t.matcher).toBe('generic');
    expect(t.posts.map((p) => p.author)).toEqual(['diaflash', 'highlander', 'cathy', 'highlander']);
    // en-GB: 15/05/19 is 15 May 2019; relative times count back from REF (2021-06-15 12:00).
    expect(t.posts.map((p) => p.time)).toEqual([
      '2019-05-15T12:00:00.000Z',
      '2020-12-15T12:00:00.000Z',
      '2021-06-15T11:39:00.000Z',
      '2021-06-15T11:59:22.000Z',
    ]);
    expect(t.replyCount).toBe(3);
  });

  it('nested reply tree (each reply inside the one it answers) plus a header-card opening post whose body follows it', () => {
    const t = extractThread({ html: fx('nested-tree.html'), url: 'https://community.example.com/pd/posts/143660160/calcium', fetchedAt: REF, timeZone: 'UTC' })!;
    expect(t.matcher).toBe('generic');
    expect(t.posts.map((p) => p.author)).toEqual(['kaypeeoh', 'pvw2', 'kaypeeoh', 'pvw2']);
    expect(t.posts.map((p) => p.time)).toEqual(['2020-06-16T13:36:54.000Z', '2020-06-16T19:14:26.000Z', '2020-06-16T19:37:46.000Z', '2020-06-16T22:12:43.000Z']);
    expect(t.posts[0].text).toBe('The podiatrist says the spike of bone pushing on the Achilles is the cause of the pain.');
    expect(t.posts[3].text).toBe('True, injuries tend to trigger worse arthritis.');
    expect(t.replyCount).toBe(3);
  });

  it('a longer `Recent activity` list (title link, `Most recent by`, time, counts) loses to the real replies', () => {
    const t = extractThread({ html: fx('teaser-sidebar.html'), url: 'https://talk.example.com/ivy/2184314-application.html', fetchedAt: REF, timeZone: 'UTC' })!;
    expect(t.matcher).toBe('generic');
    expect(t.posts.map((p) => p.author)).toEqual(['tommyshelby', 'TomSrOfBoston', 'Lindagaf', 'tommyshelby']);
    expect(t.posts[1].time).toBe('2020-04-23T13:55:19.000Z');
    expect(t.replyCount).toBe(3);
  });

  it('opening post with other markup than the replies is found before the reply list', () => {
    const t = extractThread({ html: fx('opening-post.html'), url: 'https://ms.example/topic/news-on-myelin-repair/', fetchedAt: REF, timeZone: 'UTC' })!;
    expect(t.matcher).toBe('generic');
    expect(t.posts.map((p) => p.author)).toEqual(['watsoncraig', 'vixen', 'msrn', 'john_barry']);
    // en-GB page: 02/06/20 is 2 June.
    expect(t.posts.map((p) => p.time?.slice(0, 10))).toEqual(['2020-05-26', '2020-05-27', '2020-06-02', '2020-06-14']);
    expect(t.posts[0].text).toContain('clemastine');
    expect(t.replyCount).toBe(3);
  });

  it('article page: teaser lists are ignored, the comment section is the thread (no opening post)', () => {
    const t = extractThread({ html: fx('article-teasers.html'), url: 'https://news.example/2019/11/bridge', fetchedAt: new Date('2019-11-21T12:00:00Z'), timeZone: 'UTC' })!;
    expect(t.matcher).toBe('generic-comments');
    expect(t.posts.map((p) => p.author)).toEqual(['kaye', 'rolf', 'mina']);
    expect(t.replyCount).toBe(3);
  });

  it('voiceCount: a name plus a run-on role is the same voice, a longer nickname is not', () => {
    expect(voiceCount(['Carrie Arnold', 'Carrie ArnoldContributing Writer', 'Carrie Arnold'])).toBe(1);
    expect(voiceCount(['john', 'johnny', 'JOHN'])).toBe(2);
    expect(voiceCount(['Ann', 'Ann · Moderator', 'Bob'])).toBe(2);
  });

  it('article byline, author box and footer box (one writer, one date) are not a thread', () => {
    expect(extractThread({ html: fx('byline-authorbox.html'), url: 'https://science.example/tuft-cells-20191115/', fetchedAt: REF, timeZone: 'UTC' })).toBeNull();
  });

  it('one author repeating a few times (a feed, a byline) is not a thread', () => {
    expect(extractThread({ html: fx('byline-feed.html'), url: 'https://news.example/deportees', fetchedAt: REF, timeZone: 'UTC' })).toBeNull();
  });
});

describe('upper-case HTML', () => {
  it('lowerCaseAttributes: names lower-cased, values (even `A B=C`) untouched', () => {
    expect(lowerCaseAttributes(`<A HREF='u.pl?id=1' TITLE="Foo Bar=Baz">x</A><TD ALIGN=right><img src="a.png" alt="A B"/>`)).toBe(
      `<A href='u.pl?id=1' title="Foo Bar=Baz">x</A><TD align=right><img src="a.png" alt="A B"/>`,
    );
  });

  it('textOf: a space where a line or block breaks, none inside inline markup, scripts left out', () => {
    const el = parseDocument('<div><p><a href="/u/anna">@anna</a></p><p>hi<br/>there <b>you</b>r<script>x()</script></p></div>').querySelector('div')!;
    expect(textOf(el)).toBe('@anna hi there your');
  });

  it('mwForum `<A HREF=user_info.pl>` posts: the author link is seen, three posts', () => {
    const t = extractThread({ html: fx('mwforum-uppercase.html'), url: 'https://pd.example.org/cgi-bin/forum/topic_show.pl?id=5256', fetchedAt: REF, timeZone: 'UTC' })!;
    expect(t.matcher).toBe('generic');
    expect(t.posts.map((p) => p.author)).toEqual(['jcoff012', 'junipersage', 'jcoff012']);
    expect(t.posts.map((p) => p.time)).toEqual(['2020-03-12T13:17:00.000Z', '2020-03-12T15:21:00.000Z', '2020-03-12T17:31:00.000Z']);
    expect(t.posts[2].text).toBe('Bless you! This is wonderfully helpful. Thank you!');
  });
});

describe('generic detector on template-indented pages', () => {
  it('table rows: indentation does not hide the date cell, short replies join, a rank `Ist häufiger hier` is no time', () => {
    const t = extractThread({ html: fx('table-rows-indented.html'), url: 'http://hifi.example.de/viewthread-84-87.html', fetchedAt: REF, timeZone: 'UTC' })!;
    expect(t.matcher).toBe('generic');
    expect(t.posts.map((p) => p.author)).toEqual(['Sober', 'Django8', 'Dualist', 'Classe', 'Sober']);
    expect(t.posts.map((p) => p.time)).toEqual([
      '2004-04-20T00:17:00.000Z',
      '2004-04-20T09:16:00.000Z',
      '2004-04-20T21:32:00.000Z',
      '2004-04-28T12:35:00.000Z',
      '2004-05-01T15:41:00.000Z',
    ]);
    expect(t.posts[3].text).toBe('gute initiative.');
    expect(t.replyCount).toBe(4);
  });
});

describe('generic detector without templates (issue 23)', () => {
  const at = (name: string, url: string, disabledMatchers?: string[]) =>
    extractThread({ html: fx(name), url, fetchedAt: REF, timeZone: 'UTC', disabledMatchers });

  it('schema.org microdata posts: the shown time (not a migrated <meta> date), quote and signature stay inside their post, form and teasers are no posts', () => {
    const t = at('microdata-board.html', 'https://energie.example.de/t/balkon-solar/77')!;
    expect(t.matcher).toBe('generic');
    expect(t.posts.map((p) => [p.author, p.time])).toEqual([
      ['Sonnenkind', '2021-03-03T18:02:00.000Z'],
      ['Volt', '2021-03-03T19:15:00.000Z'],
      ['Ampere', '2021-03-04T07:40:00.000Z'],
    ]);
    expect(t.posts[1].text).toContain('Ja, seit zwei Jahren');
    expect(t.posts[2].text).toBe('Danke.');
    expect(t.replyCount).toBe(2);
    expect(t.confidence).toBeGreaterThan(0.85);
  });

  it('structure alone: authors in unnamed <dt><strong>, post time at the place every post has it (not `Registered:` nor a date in a quote), opening post counted', () => {
    const t = at('custom-board.html', 'https://board.example.org/viewtopic.php?id=249553', BUILTIN_MATCHERS.map((m) => m.name))!;
    expect(t.matcher).toBe('generic');
    expect(t.posts.map((p) => [p.author, p.time])).toEqual([
      ['wzrdtales', '2019-09-29T10:46:47.000Z'],
      ['nickl', '2019-10-06T16:59:52.000Z'],
      ['wzrdtales', '2019-10-10T13:47:14.000Z'],
      ['gromit', '2020-03-09T14:35:12.000Z'],
    ]);
    expect(t.posts[1].text).toContain('boltctl fixed it');
    expect(t.replyCount).toBe(3);
    // Less sure than declared markup, sure enough to use.
    expect(t.confidence).toBeGreaterThan(0.5);
    expect(t.confidence).toBeLessThan(0.9);
  });

  it('JSON-LD QAPage: question and answers when the HTML shows no repeated blocks; the question must be printed on the page', () => {
    const t = at('qa-jsonld.html', 'https://qa.example.org/posts/Heart-Rhythm/Tikosyn/show/1640925')!;
    expect(t.posts.map((p) => [p.author, p.time])).toEqual([
      ['mary_k', '2011-12-01T19:20:00.000Z'],
      ['Jerry_NJ', '2011-12-04T14:09:18.000Z'],
      ['pat', '2011-12-06T02:30:00.000Z'],
    ]);
    expect(t.replyCount).toBe(2);
    const elsewhere = fx('qa-jsonld.html').replace(/<div id="app">[\s\S]*<\/div>\s*<\/body>/, '<div id="app"><p>Loading…</p></div></body>');
    expect(extractThread({ html: elsewhere, url: 'https://qa.example.org/x', fetchedAt: REF, timeZone: 'UTC' })).toBeNull();
  });

  it('disabledMatchers leaves a built-in template out (leave-one-forum-out), and the generic detector carries the page', () => {
    const url = 'https://forum.example.org/viewtopic.php?t=5';
    const own = at('phpbb.html', url)!;
    expect(own.matcher).toBe('phpbb');
    const t = at('phpbb.html', url, ['phpbb'])!;
    expect(t.matcher).toBe('generic');
    expect(t.posts.map((p) => [p.author, p.time])).toEqual(own.posts.map((p) => [p.author, p.time]));
    expect(t.confidence).toBeLessThan(own.confidence);
  });
});
