import { afterAll, describe, expect, it } from 'vitest';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NEAR_DUPLICATE_FILE, NearDuplicateJournal } from '../src/crawl/near-duplicate-journal.js';
import { chinese, words } from './helpers/texts.js';
import { decodeSketch, encodeSketch, NearDuplicateIndex, shingleHashes, shingleTokens } from '../src/text/near-duplicate.js';

describe('near-duplicate pages by their main text', () => {
  it('tokens: a CJK character alone, Latin words whole', () => {
    expect(shingleTokens('地震 Rescue-Team 2024年')).toEqual(['地', '震', 'rescue', 'team', '2024', '年']);
    expect(shingleHashes('').length).toBe(0);
  });

  it('an "only this author" view (one post of a thread) is a near-duplicate of the thread page', () => {
    const posts = Array.from({ length: 12 }, (_, i) => chinese(i + 1, 120));
    const idx = new NearDuplicateIndex();
    expect(idx.check('https://f.test/thread-1-1-1.html', posts.join('\n'))).toBeUndefined();
    expect(idx.check('https://f.test/forum.php?tid=1&authorid=7', `${posts[3]}\n${posts[9]}`)).toBe('https://f.test/thread-1-1-1.html');
    expect(idx.check('https://f.test/forum.php?tid=1&authorid=8', posts[5])).toBe('https://f.test/thread-1-1-1.html');
    // The same in English words.
    const en = Array.from({ length: 10 }, (_, i) => words(i + 100, 80));
    expect(idx.check('https://n.test/a', en.join('\n'))).toBeUndefined();
    expect(idx.check('https://n.test/a?print=1', en[2])).toBe('https://n.test/a');
  });

  it('identical texts and reordered posts (another sort order) are near-duplicates', () => {
    const posts = Array.from({ length: 8 }, (_, i) => words(i + 1, 60));
    const idx = new NearDuplicateIndex();
    expect(idx.check('a', posts.join('\n'))).toBeUndefined();
    expect(idx.check('a-mirror', posts.join('\n'))).toBe('a');
    expect(idx.check('a-newest-first', [...posts].reverse().join('\n'))).toBe('a');
    // A text of a line or two says too little: never a near-duplicate, even when identical.
    expect(idx.check('s', 'magnitude six quake hits the coast')).toBeUndefined();
    expect(idx.check('s2', 'magnitude six quake hits the coast')).toBeUndefined();
    const short = new NearDuplicateIndex({ minShingles: 1 });
    expect(short.check('s', 'magnitude six quake hits the coast')).toBeUndefined();
    expect(short.check('s2', 'magnitude six quake hits the coast')).toBe('s');
  });

  it('different pages on the same subject are not, nor is the thread page after its view', () => {
    const idx = new NearDuplicateIndex();
    const pages = Array.from({ length: 30 }, (_, i) => chinese(i + 50, 400));
    for (const [i, p] of pages.entries()) expect(idx.check(`p${i}`, p)).toBeUndefined();
    // A view first, then its thread: the thread page holds more than the view, so it is new.
    const posts = Array.from({ length: 6 }, (_, i) => words(i + 300, 70));
    expect(idx.check('view', posts[2])).toBeUndefined();
    expect(idx.check('thread', posts.join('\n'))).toBeUndefined();
    // Half of a page with new text is not contained.
    expect(idx.check('half', `${posts.slice(0, 3).join('\n')}\n${words(999, 210)}`)).toBeUndefined();
  });

  it('a footer shared by many pages does not make their short bodies duplicates', () => {
    const footer = words(7, 120);
    const idx = new NearDuplicateIndex({ boilerplatePages: 20 });
    for (let i = 0; i < 25; i++) expect(idx.check(`p${i}`, `${words(i + 500, 150)}\n${footer}`)).toBeUndefined();
    // Once the footer is in more than 20 pages it is not compared: a short page is judged by its own words.
    for (let i = 25; i < 40; i++) expect(idx.check(`p${i}`, `${words(i + 500, 8)}\n${footer}`)).toBeUndefined();
    // Its own words contained in an earlier page still make it a near-duplicate.
    expect(idx.check('p3-excerpt', `${words(503, 150).split(' ').slice(20, 60).join(' ')}\n${footer}`)).toBe('p3');
  });

  it('memory is bounded: the oldest pages are forgotten', () => {
    const idx = new NearDuplicateIndex({ maxPages: 5 });
    const texts = Array.from({ length: 8 }, (_, i) => words(i + 700, 100));
    for (const [i, t] of texts.entries()) idx.check(`p${i}`, t);
    expect(idx.size).toBe(5);
    expect(idx.check('again0', texts[0])).toBeUndefined();
    expect(idx.check('again7', texts[7])).toBe('p7');
  });

  it('a page fetched again (same id) is itself, not its own copy; another id with its text is a copy', () => {
    const text = words(900, 300);
    const idx = new NearDuplicateIndex();
    expect(idx.check('https://f.test/t1', text, 'k1')).toBeUndefined();
    expect(idx.check('https://f.test/t1', text, 'k1')).toBeUndefined();
    expect(idx.size).toBe(1);
    expect(idx.check('https://f.test/t1?authorid=2', text.split(' ').slice(0, 100).join(' '), 'k2')).toBe('https://f.test/t1');
  });

  it('a sketch written down and read back answers as the page did', () => {
    const idx = new NearDuplicateIndex();
    const posts = Array.from({ length: 10 }, (_, i) => chinese(i + 40, 100));
    const all = shingleHashes(posts.join('\n'));
    const sketch = idx.sketch('k', 'https://f.test/thread', all);
    const back = decodeSketch(encodeSketch(sketch));
    expect(back).toEqual(sketch);
    expect(back.sample.length).toBe(256);
    const other = new NearDuplicateIndex();
    other.add(back);
    expect(other.check('https://f.test/view', posts[4], 'v')).toBe('https://f.test/thread');
  });
});

describe('the near-duplicate journal across --resume', () => {
  const dirs: string[] = [];
  const tmp = () => {
    const d = mkdtempSync(join(tmpdir(), 'fc-ndj-'));
    dirs.push(d);
    return d;
  };
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  it('a resumed index knows the pages the crawl log holds, not the ones lost with the crash', () => {
    const dir = tmp();
    const a = new NearDuplicateIndex();
    const journal = new NearDuplicateJournal(dir, a);
    const texts = Array.from({ length: 4 }, (_, i) => words(i + 1000, 200));
    for (const [i, t] of texts.entries()) expect(a.check(`https://x.test/${i}`, t, `k${i}`)).toBeUndefined();
    // Killed: no close; the last line torn half-way.
    const line = readFileSync(join(dir, NEAR_DUPLICATE_FILE), 'utf8').split('\n')[0];
    appendFileSync(join(dir, NEAR_DUPLICATE_FILE), line.slice(0, 100));
    void journal;
    const b = new NearDuplicateIndex();
    // Page 3 was remembered but never logged: fetched again after the resume, it is new.
    const resumed = NearDuplicateJournal.resume(dir, b, (id) => id !== 'k3');
    expect(b.size).toBe(3);
    const excerpt = (t: string) => t.split(' ').slice(50, 150).join(' ');
    expect(b.check('https://x.test/0?print=1', excerpt(texts[0]), 'p0')).toBe('https://x.test/0');
    expect(b.check('https://x.test/3', texts[3], 'k3')).toBeUndefined();
    resumed.close();
    // Resumed once more: the file was rewritten whole (no torn line), page 3 written after the resume.
    const c = new NearDuplicateIndex();
    NearDuplicateJournal.resume(dir, c, () => true).close();
    expect(c.size).toBe(4);
    expect(c.check('https://x.test/3#again', excerpt(texts[3]), 'p3')).toBe('https://x.test/3');
  });

  it('a run from before the journal: the index from the texts of the pages it saved', () => {
    const dir = tmp();
    const dataset = join(dir, 'dataset');
    mkdirSync(dataset);
    const texts = Array.from({ length: 3 }, (_, i) => words(i + 3000, 200));
    texts.forEach((text, i) => writeFileSync(join(dataset, `00000000${i + 1}.json`), JSON.stringify({ url: `https://x.test/saved${i}`, text, title: 't' })));
    writeFileSync(join(dataset, '000000009.json'), '{"url": "https://x.test/torn", "te');
    const idx = new NearDuplicateIndex();
    NearDuplicateJournal.resume(dir, idx, () => false, dataset).close();
    expect(idx.size).toBe(3);
    expect(idx.check('https://x.test/saved1?authorid=2', texts[1].split(' ').slice(10, 90).join(' '), 'v')).toBe('https://x.test/saved1');
    // Written down: the next resume reads the journal.
    const again = new NearDuplicateIndex();
    NearDuplicateJournal.resume(dir, again, () => true).close();
    expect(again.size).toBe(3);
  });

  it('the file stays bounded: rewritten with the remembered pages once it holds twice the limit', () => {
    const dir = tmp();
    const idx = new NearDuplicateIndex({ maxPages: 3 });
    const journal = new NearDuplicateJournal(dir, idx);
    for (let i = 0; i < 20; i++) idx.check(`u${i}`, words(i + 2000, 120));
    journal.close();
    const lines = readFileSync(join(dir, NEAR_DUPLICATE_FILE), 'utf8').split('\n').filter(Boolean);
    expect(lines.length).toBeLessThanOrEqual(6);
    const back = new NearDuplicateIndex({ maxPages: 3 });
    NearDuplicateJournal.resume(dir, back, () => true).close();
    expect([...back.sketches()].map((s) => s.id)).toEqual(['u17', 'u18', 'u19']);
  });
});
