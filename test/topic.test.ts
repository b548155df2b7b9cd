import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TopicSchema } from '../src/config/schema.js';
import { UserError } from '../src/config/errors.js';
import { TopicError } from '../src/topic/errors.js';
import { TopicModel } from '../src/topic/model.js';
import { MultiTopicModel } from '../src/topic/multi-topic.js';
import { cosine, pageVector, type PageFields } from '../src/text/vector.js';
import { Cilin, semanticSimilarity, WordNet, wordSimilarity } from '../src/topic/semantic.js';
import { parseDistributionCsv, TimeIntent } from '../src/topic/time.js';
import { sharedDataDir } from '../src/testweb/wikispeedia.js';

const topic = (o: object) => TopicSchema.parse(o);
const CILIN = join(sharedDataDir(), 'cilin', 'new_cilin.txt');

describe('TopicModel: keyword cosine and seed set (METHODS §1)', () => {
  it('simD is the mean cosine to the seed pages, and rel mixes it in', () => {
    const m = new TopicModel(topic({ keywords: ['turbine'], threshold: 0.1 }));
    m.addSeedDocument({ url: 'http://s/1', body: 'turbine engine' });
    m.addSeedDocument({ url: 'http://s/2', body: 'turbine blade' });
    expect(m.stats.documentCount).toBe(2);
    const a = Math.log(3 / 2) + 1; // idf(engine) = idf(blade); idf(turbine) = ln(3/3)+1 = 1
    const r = m.relevance({ url: 'http://p/1', body: 'engine blade' }, { observe: false });
    // p = {engine:a, blade:a}; seed1 = {turbine:1, engine:a}: cos = a² / (a√2 · √(1+a²)).
    const simD = a / (Math.SQRT2 * Math.sqrt(1 + a * a));
    expect(r.cosine).toBe(0);
    expect(r.simD).toBeCloseTo(simD, 12);
    expect(r.rel).toBeCloseTo(0.8 * 0 + 0.2 * simD, 12); // default simD share μ = 0.2
    expect(r.relevant).toBe(true);
    expect(r.sem).toBeUndefined();
    // simD ≈ 0.576 > θ_seed 0.3: the nucleus grows, once per URL.
    expect(m.maybeGrowSeedSet({ url: 'http://p/1', body: 'engine blade' }, r)).toBe(true);
    expect(m.maybeGrowSeedSet({ url: 'http://p/1', body: 'engine blade' }, r)).toBe(false);
    expect(m.seedCount).toBe(3);
  });

  it('simD stays the exact mean seed cosine while the IDF moves (inverted index, live norms)', () => {
    // A stream of pages over a small vocabulary: every page observed shifts N and some df, so
    // a seed vector built once would drift. Compare with the definition recomputed from scratch.
    const vocab = 'quake rescue relief tent aftershock football match goal stock market fund chip phone film star'.split(' ');
    let seed = 7;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    const doc = (n: number) => Array.from({ length: n }, () => vocab[Math.floor(rnd() * vocab.length)]).join(' ');
    const m = new TopicModel(topic({ keywords: ['quake'] }), { maxSeeds: 6 });
    const seeds: PageFields[] = [];
    for (let i = 0; i < 4; i++) {
      seeds.push({ url: `http://seed/${i}`, body: doc(12) });
      m.addSeedDocument(seeds[i]);
    }
    for (let i = 0; i < 60; i++) {
      const page = { url: `http://p/${i}`, body: doc(3 + (i % 9)) };
      const r = m.relevance(page);
      // The definition, now: mean over seeds of cos(p, d_j), both with the current IDF.
      const p = pageVector(page, m.stats, undefined, m.analyze);
      const expected = seeds.reduce((s, d) => s + cosine(p, pageVector(d, m.stats, undefined, m.analyze)), 0) / seeds.length;
      expect(r.simD).toBeCloseTo(expected, 10);
      if (i === 30) {
        // A seed added mid-stream joins the index with the df of that moment.
        seeds.push(page);
        m.addSeedDocument(page);
      }
    }
    expect(m.seedCount).toBe(5);
  });

  it('a keyword-only topic starts its seed set from the pages with the highest keyword cosine, a better page displacing the weakest', () => {
    const m = new TopicModel(topic({ keywords: ['quake'], threshold: 0.05 }), { bootstrapSeeds: 2 });
    const judge = (url: string, body: string) => {
      const r = m.relevance({ url, body });
      return { r, grew: m.maybeGrowSeedSet({ url, body }, r) };
    };
    // Filler pages give the IDF a background.
    for (let i = 0; i < 5; i++) judge(`http://f/${i}`, 'stock market fund bank');
    const aboutPage = judge('http://about', 'news sports quake stock film phone portal site service weather travel cars');
    expect(aboutPage.grew).toBe(true);
    const first = judge('http://a/1', 'quake quake rescue tent aftershock rubble');
    expect(first.grew).toBe(true);
    expect(m.seedCount).toBe(2);
    // A third relevant page with a higher cosine displaces the weakest (the about page).
    const third = judge('http://a/2', 'quake quake magnitude epicentre');
    expect(third.r.simD).toBeLessThanOrEqual(0.3); // not close enough to join by simD
    expect(aboutPage.r.cosine).toBeLessThan(Math.min(first.r.cosine, third.r.cosine));
    expect(third.grew).toBe(true);
    expect(m.seedCount).toBe(2);
    // simD is now against the two articles only: an article without the keyword is close to them,
    // the about page is not.
    const noKeyword = m.relevance({ url: 'http://a/3', body: 'rescue tent aftershock rubble' }, { observe: false });
    const about = m.relevance({ url: 'http://about', body: 'news sports quake stock film phone portal site service weather travel cars' }, { observe: false });
    expect(noKeyword.cosine).toBe(0);
    expect(noKeyword.simD).toBeGreaterThan(0.3);
    expect(about.simD).toBeLessThan(0.15);
    // The same simD, exactly, as a seed set built from those two pages from the start.
    const fresh = new TopicModel(topic({ keywords: ['quake'], threshold: 0.05 }), { stats: m.stats });
    fresh.addSeed({ url: 'http://a/1', body: 'quake quake rescue tent aftershock rubble' }, false);
    fresh.addSeed({ url: 'http://a/2', body: 'quake quake magnitude epicentre' }, false);
    expect(fresh.relevance({ url: 'http://a/3', body: 'rescue tent aftershock rubble' }, { observe: false }).simD).toBeCloseTo(noKeyword.simD, 12);
    // A page below θ never joins by its cosine; nor does anything once a given seed page is in D.
    expect(judge('http://f/x', 'stock market fund').grew).toBe(false);
    const seeded = new TopicModel(topic({ keywords: ['quake'], threshold: 0.05 }), { bootstrapSeeds: 2 });
    seeded.addSeedDocument({ url: 'http://s/1', body: 'film star premiere' });
    const r = seeded.relevance({ url: 'http://a/1', body: 'quake rescue' });
    expect(r.relevant).toBe(true);
    expect(seeded.maybeGrowSeedSet({ url: 'http://a/1', body: 'quake rescue' }, r)).toBe(false);
  });

  it('keyword cosine on a page, observing it once in the IDF', () => {
    const m = new TopicModel(topic({ keywords: [{ term: 'turbine', weight: 2 }, 'engine'] }));
    const r = m.relevance({ url: 'http://p/1', title: 'turbine', body: 'turbine' });
    expect(m.stats.documentCount).toBe(1);
    m.relevance({ url: 'http://p/1', title: 'turbine', body: 'turbine' });
    expect(m.stats.documentCount).toBe(1);
    // After one document: idf(turbine) = 1, idf(engine) = ln 2 + 1. T = {turbine:2, engine:e}, p = {turbine:4}.
    const e = Math.log(2) + 1;
    expect(r.cosine).toBeCloseTo(2 / Math.sqrt(4 + e * e), 12);
    expect(m.linkRelevance('about the engine')).toBeCloseTo(e / Math.sqrt(4 + e * e), 12);
  });

  it('a topic of numbers and punctuation only is a clear user error; stopword keywords are kept', () => {
    expect(() => new TopicModel(topic({ keywords: ['2008', '3.5', '——'] }), { source: 'topic.yaml' })).toThrow(TopicError);
    expect(() => new TopicModel(topic({ keywords: ['2008', '——'] }), { source: 'topic.yaml' })).toThrow(/topic\.yaml: .*empty or a number/);
    expect(new TopicModel(topic({ keywords: ['的', 'the'] })).stopwordKeywords).toEqual(['的', 'the']);
  });

  it('adds sem(T,p) through the thesaurus (eq. 8–9)', () => {
    const cilin = Cilin.parse('Ae13A01= 教师 老师\r\nAe13A02= 学生\r\nAe15A01= 医生 大夫\r\n');
    const m = new TopicModel(topic({ keywords: ['教师'] }), { thesaurus: cilin });
    expect(m.hasThesaurus).toBe(true);
    const r = m.relevance({ body: '老师 讲课' });
    expect(r.cosine).toBe(0);
    expect(r.sem).toBe(1);
    expect(r.rel).toBeCloseTo(0.5, 12);
    // 学生 is a sibling group (dist 2): s = 1.6/3.6.
    expect(semanticSimilarity([{ term: '教师', weight: 1 }], ['学生'], cilin)).toBeCloseTo(1.6 / 3.6, 12);
    expect(new TopicModel(topic({ keywords: ['教师'] })).hasThesaurus).toBe(false);
  });

  it('optionally expands keywords with their Cilin synonyms at a reduced weight', () => {
    const cilin = Cilin.parse('Ae13A01= 教师 老师\r\nAe13A02= 学生\r\n');
    expect(cilin.synonyms('教师')).toEqual(['老师']);
    const plain = new TopicModel(topic({ keywords: [{ term: '教师', weight: 2 }] }), { thesaurus: cilin });
    const expanded = new TopicModel(topic({ keywords: [{ term: '教师', weight: 2 }] }), { thesaurus: cilin, expandSynonyms: 0.5 });
    expect(Object.fromEntries(plain.keywordTf)).toEqual({ 教师: 2 });
    expect(Object.fromEntries(expanded.keywordTf)).toEqual({ 教师: 2, 老师: 1 });
    // Page {老师: 1}, stats empty (idf 1): cos = 1 / √(4 + 1).
    expect(expanded.relevance({ body: '老师' }, { observe: false }).cosine).toBeCloseTo(1 / Math.sqrt(5), 12);
    expect(plain.relevance({ body: '老师' }, { observe: false }).cosine).toBe(0);
  });

  it('discards a page outside the time window without scoring it', () => {
    const m = new TopicModel(topic({ keywords: ['地震'], time: { start: '2008-05-12' } }));
    const r = m.relevance({ body: '地震' }, { publishTime: new Date('2008-05-11T12:00:00+08:00') });
    expect(r).toMatchObject({ rel: 0, relevant: false, outOfWindow: true });
    expect(m.relevance({ body: '地震' }, { publishTime: new Date('2008-05-12T12:00:00+08:00') }).relevant).toBe(true);
  });
});

describe('MultiTopicModel (seed 002)', () => {
  it('classifies each page into its nearest topic and keeps it only above the threshold', () => {
    const m = new MultiTopicModel([
      topic({ name: 'quake', keywords: ['地震', '救援'] }),
      topic({ name: 'plane', keywords: ['飞机', '航空'] }),
    ]);
    m.addSeedDocument({ url: 'http://s/q', body: '汶川地震 救援队 伤员' }, 'quake');
    m.addSeedDocument({ url: 'http://s/p', body: '国产大飞机 首飞 航空' }, 'plane');
    const q = m.relevance({ url: 'http://a/1', title: '地震救援', body: '救援队连夜赶到灾区' });
    const p = m.relevance({ url: 'http://a/2', title: '大飞机首飞', body: '航空工业的大飞机今天试飞' });
    const n = m.relevance({ url: 'http://a/3', title: '天气', body: '今天晴' });
    expect([q.topicId, q.relevant]).toEqual(['quake', true]);
    expect([p.topicId, p.relevant]).toEqual(['plane', true]);
    expect(n.relevant).toBe(false);
    expect(n.rel).toBe(0);
    expect(m.linkRelevance('大飞机首飞')).toBeGreaterThan(0);
    expect(m.linkRelevance('今天天气晴')).toBe(0);
    expect(() => m.topic('nope')).toThrow(/no topic "nope"/);
  });
});

describe('cluster centre (seed 002) without building it', () => {
  it('centreCosine equals cos(K/|K| + M/|M|, v) built from scratch with the current IDF', () => {
    const vocab = '地震 救援 灾区 帐篷 余震 足球 比赛 进球 股市 基金 芯片 手机 电影 明星'.split(' ');
    let seed = 11;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    const doc = (n: number) => Array.from({ length: n }, () => vocab[Math.floor(rnd() * vocab.length)]).join(' ');
    const m = new TopicModel(topic({ keywords: ['地震', { term: '救援', weight: 2 }] }));
    const seeds: PageFields[] = [];
    const fromScratch = (v: Map<string, number>) => {
      const unitOf = (x: Map<string, number>) => {
        const n = Math.sqrt([...x.values()].reduce((s, y) => s + y * y, 0));
        return new Map([...x].map(([t, y]) => [t, y / n]));
      };
      const c = unitOf(pageVector({ body: '地震 救援 救援' }, m.stats));
      if (seeds.length) {
        const mean = new Map<string, number>();
        for (const d of seeds) for (const [t, y] of unitOf(pageVector(d, m.stats))) mean.set(t, (mean.get(t) ?? 0) + y / seeds.length);
        for (const [t, y] of unitOf(mean)) c.set(t, (c.get(t) ?? 0) + y);
      }
      return cosine(c, v);
    };
    for (let i = 0; i < 40; i++) {
      const page = { url: `http://p/${i}`, body: doc(4 + (i % 7)) };
      m.observe(page);
      const v = pageVector(page, m.stats);
      expect(m.centreCosine(v)).toBeCloseTo(fromScratch(v), 10);
      if (i % 8 === 0) {
        seeds.push(page);
        m.addSeedDocument(page);
      }
    }
    expect(m.seedCount).toBe(5);
  });
});

describe('semantic tree (METHODS §2)', () => {
  it.skipIf(!existsSync(CILIN))('Cilin distances on pairs looked up in new_cilin.txt', () => {
    const c = Cilin.load(CILIN);
    expect(c.codes('教师')).toEqual(['Ae13A01=']);
    expect(c.distance('教师', '老师')).toBe(0); // both Ae13A01=
    expect(c.distance('良民', '顺民')).toBe(1); // both Aa01B03#
    expect(c.distance('人类', '匹夫')).toBe(2); // Aa01A02= vs Aa01A05=
    expect(c.distance('男人', '女人')).toBe(4); // Ab01A01= vs Ab01B01= (and Ah08A/Ah08B)
    expect(c.distance('教师', '医生')).toBe(6); // Ae13A01= vs Ae15A01=
    expect(wordSimilarity('教師', '老師', c)).toBe(1); // Traditional input folds first
    expect(wordSimilarity('男人', '女人', c)).toBeCloseTo(1.6 / 5.6, 12);
    expect(wordSimilarity('不在词林里的词', '不在词林里的词', c)).toBe(1);
    expect(wordSimilarity('不在词林里的词', '教师', c)).toBe(0);
  });

  it('a missing thesaurus file is one clear error naming the path', () => {
    expect(() => Cilin.load('/no/such/cilin.txt')).toThrow(TopicError);
    expect(() => Cilin.load('/no/such/cilin.txt')).toThrow('/no/such/cilin.txt: cannot read the Cilin thesaurus (ENOENT)');
  });

  it('WordNet noun hypernym distance', () => {
    const wn = WordNet.load();
    expect(wn.distance('car', 'automobile')).toBe(0); // one synset
    expect(wn.distance('dog', 'cat')).toBe(4); // dog→canine→carnivore←feline←cat
    expect(wn.distance('dog', 'qwertyuiop')).toBeUndefined();
  });
});

describe('time intent (METHODS §3.4)', () => {
  const trends = [
    'Category: All categories',
    '',
    'Week,地震: (China)',
    '2008-05-04,0',
    '2008-05-11,100',
    '2008-05-18,40',
    '2008-05-25,<1',
  ].join('\n');
  const at = (s: string) => new Date(s);

  it('reads a trends CSV: Pr(t|T) = λ/max λ, t_s from the first non-zero period', () => {
    const t = new TimeIntent({ periods: parseDistributionCsv(trends, 'trends.csv') });
    expect(t.start).toBe(Date.parse('2008-05-11T00:00:00+08:00'));
    expect(t.Pr(at('2008-05-12T12:00:00+08:00'))).toBe(1);
    expect(t.Pr(at('2008-05-20T00:00:00+08:00'))).toBe(0.4);
    expect(t.Pr(at('2008-05-26T00:00:00+08:00'))).toBe(0.005);
    expect(t.Pr(at('2008-06-02T00:00:00+08:00'))).toBe(0); // last week ends 2008-06-01
    expect(t.timeRelevance(at('2008-05-10T23:59:00+08:00'))).toBe(0);
    expect(t.timeRelevance(at('2008-05-11T00:00:00+08:00'))).toBe(1);
    expect(t.timeRelevance(undefined)).toBe(1);
  });

  it('an end date includes its whole day; months and ranges are periods', () => {
    const t = TimeIntent.fromConfig({ start: '2008-05-12', end: '2008-05-31' });
    expect(t.timeRelevance(at('2008-05-31T23:00:00+08:00'))).toBe(1);
    expect(t.timeRelevance(at('2008-06-01T00:00:00+08:00'))).toBe(0);
    const p = parseDistributionCsv('2008-05,10\n2008-06,20\n2008-07-01 - 2008-07-07,5\n');
    expect(new TimeIntent({ periods: p }).Pr(at('2008-05-31T12:00:00+08:00'))).toBe(0.5);
    expect(new TimeIntent({ periods: p }).Pr(at('2008-07-07T12:00:00+08:00'))).toBe(0.25);
    // Hourly export: datetime periods last until the next row; the last one as long as the one before.
    const h = new TimeIntent({ periods: parseDistributionCsv('Time,x\n2008-05-12T14:00:00+08:00,100\n2008-05-12T15:00:00+08:00,50\n') });
    expect(h.Pr(at('2008-05-12T14:30:00+08:00'))).toBe(1);
    expect(h.Pr(at('2008-05-12T15:59:00+08:00'))).toBe(0.5);
    expect(h.Pr(at('2008-05-12T16:00:00+08:00'))).toBe(0);
  });

  it('a bad CSV row or unreadable file is one error naming file and line', () => {
    expect(() => parseDistributionCsv('Week,x\n2008-05-04,10\n2008-05-11,abc\n', 'trends.csv')).toThrow(
      'trends.csv:3: bad value "abc" for period 2008-05-11',
    );
    expect(() => parseDistributionCsv('2008-05-04,10\nlater,5\n', 'trends.csv')).toThrow(/^trends\.csv:2: bad period "later"/);
    expect(() => TimeIntent.fromConfig({ distribution: '/no/such.csv' })).toThrow(UserError);
    const dir = mkdtempSync(join(tmpdir(), 'topic-'));
    writeFileSync(join(dir, 'd.csv'), '2008-05-12,1\n');
    expect(TimeIntent.fromConfig({ distribution: 'd.csv' }, { baseDir: dir }).periods).toHaveLength(1);
    expect(() => TimeIntent.fromConfig({ start: 'next week' })).toThrow(/time\.start: cannot read "next week"/);
  });
});
