import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { cut, cutForSearch, jiebaBinding, packageJieba } from '../src/text/jieba.js';
import { sharedDataDir } from '../src/testweb/wikispeedia.js';

const cleaned = join(sharedDataDir(), 'zh-content-extraction', 'cleaned');
const SAMPLES = [
  '四川汶川发生8.0级地震，救援队伍陆续抵达灾区',
  '温家宝总理赶赴都江堰市，指挥抗震救灾工作', // unknown names: HMM
  'iPhone 15发布会在北京举行，售价5999元',
  '中华人民共和国国务院新闻办公室举行发布会', // long words: search-mode sub-words
  '𠀀𪚥罕见字与常用字混排，，，标点连用',
  '',
  'only ascii text here',
  '孤立代理\uD800项与\uDC00字', // lone surrogates: encoded as U+FFFD both ways
  '地震救援'.repeat(30_000), // 120,000 characters in one call: WASM memory grows mid-call
];

describe('jieba slice binding (src/text/jieba.ts)', () => {
  it('is the binding in use, and cuts exactly as jieba-wasm\'s own functions', () => {
    expect(jiebaBinding).toBe('slices');
    const pkg = packageJieba();
    for (const s of SAMPLES)
      for (const hmm of [true, false]) {
        expect(cut(s, hmm)).toEqual(pkg.cut(s, hmm));
        expect(cutForSearch(s, hmm)).toEqual(pkg.cut_for_search(s, hmm));
      }
  });

  it.skipIf(!existsSync(cleaned))(`cuts 67 real pages word for word as the package does (needs ${cleaned})`, () => {
    const pkg = packageJieba();
    let words = 0;
    for (const f of readdirSync(cleaned)) {
      const text = readFileSync(join(cleaned, f), 'utf8');
      const ours = cutForSearch(text);
      expect(ours).toEqual(pkg.cut_for_search(text, true));
      words += ours.length;
    }
    expect(words).toBeGreaterThan(100_000);
  });

  it('falls back to the package when told to (JIEBA_BINDING=package)', async () => {
    vi.resetModules();
    process.env.JIEBA_BINDING = 'package';
    try {
      const fresh = await import('../src/text/jieba.js');
      expect(fresh.jiebaBinding).toBe('package');
      expect(fresh.cutForSearch(SAMPLES[3])).toEqual(packageJieba().cut_for_search(SAMPLES[3], true));
    } finally {
      delete process.env.JIEBA_BINDING;
    }
  });
});
