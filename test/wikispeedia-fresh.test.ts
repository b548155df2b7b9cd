import { describe, expect, it } from 'vitest';
import { categorySizes, freshWikiTopics, queryOfCategory } from '../src/testweb/wikispeedia-fresh.js';

describe('fresh Wikispeedia topics (drawn by rule)', () => {
  it('writes the query from the category name: filler dropped, parent words only while fewer than two, at most three', () => {
    expect(queryOfCategory('subject.Science.Biology.Insects_Reptiles_and_Fish')).toEqual(['insects', 'reptiles', 'fish']);
    expect(queryOfCategory('subject.Design_and_Technology.Engineering')).toEqual(['engineering', 'design', 'technology']);
    expect(queryOfCategory('subject.History.Ancient_History_Classical_History_and_Mythology')).toEqual(['ancient', 'history', 'classical']);
    expect(queryOfCategory('subject.Science.Physics.General_Physics')).toEqual(['physics', 'science']);
    expect(queryOfCategory('subject.Mathematics')).toEqual(['mathematics']);
    expect(queryOfCategory('subject.History.British_History.British_History_15001750')).toEqual(['british', 'history']);
  });

  it('counts a category with its subcategories, each article once', () => {
    const sizes = categorySizes([
      ['A', 'subject.X.Y'],
      ['A', 'subject.X.Z'],
      ['B', 'subject.X.Y'],
    ]);
    expect(sizes.get('subject.X')).toBe(2);
    expect(sizes.get('subject.X.Y')).toBe(2);
    expect(sizes.get('subject.X.Z')).toBe(1);
    expect(sizes.has('subject')).toBe(false);
  });

  it('draws reproducibly, only big enough categories unrelated to the excluded ones and to each other', () => {
    const sizes = new Map<string, number>([
      ['subject.Birds', 100],
      ['subject.Birds.Owls', 50],
      ['subject.Science', 300],
      ['subject.Science.Physics', 80],
      ['subject.Art', 60],
      ['subject.Art.Painting', 45],
      ['subject.Tiny', 10],
      ['subject.Music', 70],
      ['subject.Sport', 90],
    ]);
    const rule = { minArticles: 40, count: 10, seed: 's' };
    const a = freshWikiTopics(sizes, ['subject.Science.Physics', 'subject.Music'], rule);
    expect(freshWikiTopics(sizes, ['subject.Science.Physics', 'subject.Music'], rule)).toEqual(a);
    const cats = a.map((t) => t.category);
    // Science contains an excluded topic, Tiny is too small, Music is excluded itself.
    for (const c of ['subject.Science', 'subject.Tiny', 'subject.Music', 'subject.Science.Physics']) expect(cats).not.toContain(c);
    // One of each nested pair, never both.
    expect(cats.filter((c) => c.startsWith('subject.Birds')).length).toBe(1);
    expect(cats.filter((c) => c.startsWith('subject.Art')).length).toBe(1);
    expect(cats).toContain('subject.Sport');
    expect(a.every((t) => t.fresh && t.query.length > 0)).toBe(true);
    expect(freshWikiTopics(sizes, [], { ...rule, count: 2 })).toHaveLength(2);
  });
});
