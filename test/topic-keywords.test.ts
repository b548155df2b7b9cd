/**
 * Topic keywords and English word forms: a keyword is never dropped as a
 * stopword (a warning says it is one), and English words are stemmed on both the topic and the
 * pages (`students`/`student`, `mammals`/`mammal`); Chinese words are untouched.
 */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config/schema.js';
import { PageJudge } from '../src/judge/judge.js';
import { TopicModel } from '../src/topic/model.js';
import { MultiTopicModel } from '../src/topic/multi-topic.js';
import { stemEnglish, termAnalyzer, tokenize } from '../src/text/tokenize.js';

const body = (s: string) => ({ title: '', body: s });

describe('topic keywords that are stopwords', () => {
  it('keeps "course" in the topic and in pages, and says so', () => {
    const m = new TopicModel({ keywords: ['course', 'syllabus', 'homework'], seeds: [] });
    expect(m.stopwordKeywords).toEqual(['course']);
    expect(m.keywordTf.has(stemEnglish('course'))).toBe(true);
    const withCourse = m.relevance(body('Course page: the course syllabus and the weekly homework'), { observe: false });
    const without = m.relevance(body('Page: the syllabus and the weekly homework'), { observe: false });
    expect(withCourse.cosine).toBeGreaterThan(without.cosine);
  });

  it('a topic of stopwords only is no longer an error: its words are kept', () => {
    expect(() => new TopicModel({ keywords: ['course'], seeds: [] })).not.toThrow();
  });

  it('PageJudge warns once per stopword keyword', async () => {
    const lines: string[] = [];
    await PageJudge.create(parseConfig({ topics: [{ keywords: ['course', 'syllabus'] }] }), (l) => lines.push(l));
    expect(lines.filter((l) => /"course".*stopword/.test(l))).toHaveLength(1);
  });
});

describe('English stemming on topic and pages', () => {
  it('matches inflected forms both ways', () => {
    const m = new TopicModel({ keywords: ['student home page'], seeds: [] });
    expect(m.relevance(body('Students keep their homes on these pages'), { observe: false }).cosine).toBeGreaterThan(0.5);
    const birds = new TopicModel({ keywords: ['mammals'], seeds: [] });
    expect(birds.relevance(body('The mammal list'), { observe: false }).cosine).toBeGreaterThan(0.5);
    expect(birds.linkRelevance('a mammal')).toBeGreaterThan(0);
  });

  it('leaves Chinese and mixed tokens as the tokenizer gives them', () => {
    const analyze = termAnalyzer();
    const zh = '汶川地震救援，中华人民共和国成立了 C919 大飞机';
    expect(analyze(zh)).toEqual(tokenize(zh));
    expect(analyze('Wenchuan earthquake rescuers')).toEqual(['wenchuan', 'earthquak', 'rescuer']);
    expect(stemEnglish('c919')).toBe('c919');
    expect(stemEnglish('naïve')).toBe('naïve');
  });

  it('several topics share one analyzer, keeping every topic’s stopword keywords', () => {
    const mm = new MultiTopicModel([{ keywords: ['course'], seeds: [] }, { keywords: ['research', 'first'], seeds: [] }]);
    expect(mm.topics[1]!.stopwordKeywords).toEqual(['first']);
    const v = mm.relevance(body('first course'), { observe: false });
    expect(v.cosine).toBeGreaterThan(0);
  });
});
