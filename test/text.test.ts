import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { normalizeText, tokenize, urlTokens } from '../src/text/tokenize.js';
import { sharedDataDir } from '../src/testweb/wikispeedia.js';
import {
  cosine,
  norm,
  pageVector,
  TermStatistics,
  textVector,
  topTerms,
  weightedTermFrequencies,
} from '../src/text/vector.js';

describe('tokenize (METHODS §0)', () => {
  it('segments Chinese with jieba in search mode and drops stopwords', () => {
    // 了 and 我 are stopwords; search mode adds the sub-words of 中华人民共和国.
    expect(tokenize('中华人民共和国成立了')).toEqual(['中华', '华人', '人民', '共和', '共和国', '中华人民共和国', '成立']);
    expect(tokenize('中华人民共和国成立了', { searchMode: false })).toEqual(['中华人民共和国', '成立']);
  });

  it('converts Traditional to Simplified before segmenting', () => {
    expect(tokenize('飛機製造商在臺灣', { searchMode: false })).toEqual(['飞机', '制造商', '台湾']);
    expect(tokenize('發動機')).toEqual(tokenize('发动机'));
  });

  it('handles mixed Chinese/English, dropping numbers, punctuation and stopwords', () => {
    expect(tokenize('汶川地震救援，Wenchuan earthquake rescue 2008年 3.5')).toEqual([
      '汶川', '地震', '救援', 'wenchuan', 'earthquake', 'rescue',
    ]);
    // Digits glued to letters are a word (model names), never split into a number.
    expect(tokenize('大飞机项目 C919')).toEqual(['飞机', '项目', 'c919']);
  });

  it('tokenizes English by word rules, lower-cased, full-width folded', () => {
    expect(tokenize('The engines were RUNNING, weren’t they?')).toEqual(['engines', 'running']);
    expect(normalizeText('ＡＢＣ１２３')).toBe('abc123');
    // Content words that stopwords-iso lists are kept: a topic may be about them.
    expect(tokenize('computer web research')).toEqual(['computer', 'web', 'research']);
  });

  it('takes URL words, percent-decoded, without scheme/TLD/extension noise', () => {
    expect(urlTokens('https://news.example.org/turbine/engine-news.html')).toEqual(['news', 'turbine', 'engine', 'news']);
    expect(urlTokens('http://a.cn/%E5%9C%B0%E9%9C%87/index.shtml')).toEqual(['地震']);
  });
});

describe('tokenize: one jieba call per text, each distinct run once', () => {
  // The definition: a text's terms are its pieces' terms in order (jieba segments each run
  // between punctuation on its own). Whole-text tokenizing batches and de-duplicates runs.
  const byPieces = (text: string) => text.split(/(?<=[。，！？\n])/u).flatMap((piece) => tokenize(piece));
  it('equals tokenizing piece by piece, with repeated runs, mixed scripts and Traditional text', () => {
    const text =
      '英语或俄语或日语。报考条件：英语或俄语或日语，任选一种。iPhone 15 发布会在北京举行，英语或俄语或日语！' +
      '臺灣的天氣，英语或俄语或日语\n飛機製造商在臺灣發表新款發動機。飛機製造商在臺灣發表新款發動機。';
    expect(tokenize(text)).toEqual(byPieces(text));
    expect(tokenize(text).filter((w) => w === '英语').length).toBe(4);
    expect(tokenize(text, { searchMode: false })).toEqual(text.split(/(?<=[。，！？\n])/u).flatMap((p) => tokenize(p, { searchMode: false })));
  });
  const cleaned = join(sharedDataDir(), 'zh-content-extraction', 'cleaned');
  it.skipIf(!existsSync(cleaned))(`equals tokenizing piece by piece on 67 real pages (needs ${cleaned})`, () => {
    for (const f of readdirSync(cleaned)) {
      const t = readFileSync(join(cleaned, f), 'utf8');
      expect(tokenize(t)).toEqual(byPieces(t));
    }
  });
});

describe('sparse vectors', () => {
  it('cosine and norm on hand-computed cases', () => {
    const a = new Map([['x', 1], ['y', 2]]);
    const b = new Map([['x', 2], ['y', 1]]);
    expect(norm(a)).toBeCloseTo(Math.sqrt(5), 12);
    expect(cosine(a, b)).toBeCloseTo(4 / 5, 12);
    expect(cosine(a, new Map([['z', 3]]))).toBe(0);
    expect(cosine(a, new Map())).toBe(0);
    expect(cosine(a, a)).toBeCloseTo(1, 12);
  });

  it('IDF = ln((N+1)/(df+1)) + 1, updated document by document', () => {
    const s = new TermStatistics();
    s.addDocument(['x', 'y', 'x']);
    expect(s.idf('x')).toBeCloseTo(Math.log(2 / 2) + 1, 12);
    s.addDocument(['x']);
    s.addDocument(['z']);
    expect(s.documentCount).toBe(3);
    expect(s.documentFrequency('x')).toBe(2);
    expect(s.idf('x')).toBeCloseTo(Math.log(4 / 3) + 1, 12);
    expect(s.idf('z')).toBeCloseTo(Math.log(4 / 2) + 1, 12);
    expect(s.idf('never')).toBeCloseTo(Math.log(4) + 1, 12);
    expect(TermStatistics.fromJSON(s.toJSON()).idf('z')).toBeCloseTo(s.idf('z'), 12);
    // Large counts (a resumed crawl of millions of pages) leave the log table and are computed.
    const big = TermStatistics.fromJSON({ documentCount: 3_000_000, df: [['x', 5], ['y', 2_000_000]] });
    expect(big.idf('x')).toBeCloseTo(Math.log(3_000_001 / 6) + 1, 12);
    expect(big.idf('y')).toBeCloseTo(Math.log(3_000_001 / 2_000_001) + 1, 12);
    expect(big.idf('never')).toBeCloseTo(Math.log(3_000_001) + 1, 12);
  });

  it('weights positions: title 3, headings 2, anchor 2, body 1, URL 1', () => {
    const tf = weightedTermFrequencies({
      title: 'engine',
      headings: ['turbine'],
      anchorText: 'engine',
      body: 'engine turbine turbine',
      url: 'http://a.com/turbine',
    });
    expect(Object.fromEntries(tf)).toEqual({ engine: 3 + 2 + 1, turbine: 2 + 2 + 1 });
  });

  it('pageVector = weighted TF × IDF; textVector = TF × IDF', () => {
    const s = new TermStatistics();
    s.addDocument(['engine']);
    s.addDocument(['turbine', 'engine']);
    const v = pageVector({ title: 'engine', body: 'turbine' }, s);
    expect(v.get('engine')).toBeCloseTo(3 * (Math.log(3 / 3) + 1), 12);
    expect(v.get('turbine')).toBeCloseTo(1 * (Math.log(3 / 2) + 1), 12);
    const t = textVector('turbine turbine engine', s);
    expect(t.get('turbine')).toBeCloseTo(2 * (Math.log(3 / 2) + 1), 12);
    expect(topTerms(t, 1)).toEqual(['turbine']);
    // Same as ordering every term (weight desc, then term), ties at the cut included.
    const v2 = new Map<string, number>();
    for (let i = 0; i < 400; i++) v2.set(`w${(i * 7919) % 1000}`, (i * 31) % 17);
    const reference = (k: number) => [...v2].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, k).map(([w]) => w);
    for (const k of [1, 5, 23, 50, 399, 400, 500]) expect(topTerms(v2, k)).toEqual(reference(k));
    expect(topTerms(v2, 0)).toEqual([]);
  });
});

describe('Traditional → Simplified fast path', () => {
  it('skips OpenCC only where OpenCC would change nothing', async () => {
    const OpenCC = await import('opencc-js/t2cn');
    const full = OpenCC.Converter({ from: 'tw', to: 'cn' });
    const samples = [
      '已经是简体的文字，汶川地震救援',
      '飛機製造商在臺灣發表新款發動機',
      '乾燥的天氣裡，他著有一本書',
      'mixed 軟體 and English 2008',
      '𠀀𪚥 rare astral-plane Han',
    ];
    for (const s of samples) expect(normalizeText(s)).toBe(full(s.normalize('NFKC').toLowerCase()));
  });

  const cleaned = join(sharedDataDir(), 'zh-content-extraction', 'cleaned');
  it.skipIf(!existsSync(cleaned))('agrees with full conversion on real Chinese pages (zh-content-extraction)', async () => {
    const OpenCC = await import('opencc-js/t2cn');
    const full = OpenCC.Converter({ from: 'tw', to: 'cn' });
    for (const f of readdirSync(cleaned)) {
      const t = readFileSync(join(cleaned, f), 'utf8').replace(/[’‘]/g, "'");
      expect(normalizeText(t)).toBe(full(t.normalize('NFKC').toLowerCase()));
    }
  });
});

describe('tokenize remembers short texts', () => {
  it('gives each caller its own copy: changing one result changes no later one', () => {
    const first = tokenize('汶川地震救援 news');
    const again = tokenize('汶川地震救援 news');
    expect(again).toEqual(first);
    first[0] = 'changed';
    first.push('extra');
    expect(tokenize('汶川地震救援 news')).toEqual(again);
    // options are part of what is remembered
    expect(tokenize('the quake', { keepStopwords: true })).toContain('the');
    expect(tokenize('the quake')).not.toContain('the');
    const keep = new Set(['the']);
    expect(tokenize('the quake', { keep })).toContain('the');
  });
});
