/**
 * A fresh held-out set of Wikispeedia topics, drawn mechanically so nobody chose (or tuned on)
 * them: categories of categories.tsv with enough articles to be a topic, unrelated to the
 * benchmark's own topics (neither one of them, nor inside one, nor containing one), a seeded draw
 * of them, and keywords written by a rule from the category's name alone, as a user would type
 * two or three words.
 */
import { hash32, Rng } from '../util/rng.js';

export interface FreshTopicRule {
  /** Fewest articles (the category and its subcategories) a category needs to be a topic. */
  minArticles: number;
  /** How many topics to draw. */
  count: number;
  /** The draw's seed (a label hashed to a number). */
  seed: string;
}

export const FRESH_TOPIC_RULE: FreshTopicRule = { minArticles: 40, count: 12, seed: 'fresh-topics:1' };

/** Words a user would leave out of a query written from a category name. */
const FILLER = new Set(['and', 'the', 'of', 'in', 'including', 'before', 'after', 'general', 'subject']);

const wordsOf = (part: string) =>
  part
    .toLowerCase()
    .split(/[_\s]+/)
    .filter((w) => /^[a-z]+$/.test(w) && !FILLER.has(w));

/**
 * The query a user would type for a category, from its name alone: the words of its last part
 * (filler words dropped), then, while fewer than two, its parent's; at most three, each once.
 * `subject.Design_and_Technology.Engineering` → engineering design technology.
 */
export function queryOfCategory(category: string): string[] {
  const parts = category.split('.').slice(1);
  const out: string[] = [];
  for (let i = parts.length - 1; i >= 0 && (i === parts.length - 1 || out.length < 2); i--) {
    for (const w of wordsOf(parts[i])) if (!out.includes(w) && out.length < 3) out.push(w);
  }
  return out;
}

/** Every category prefix (below `subject`) and how many articles it holds, subcategories included. */
export function categorySizes(rows: [article: string, category: string][]): Map<string, number> {
  const members = new Map<string, Set<string>>();
  for (const [a, c] of rows) {
    const parts = c.split('.');
    for (let i = 2; i <= parts.length; i++) {
      const k = parts.slice(0, i).join('.');
      let s = members.get(k);
      if (!s) members.set(k, (s = new Set()));
      s.add(a);
    }
  }
  return new Map([...members].map(([k, s]) => [k, s.size]));
}

const related = (a: string, b: string) => a === b || a.startsWith(b + '.') || b.startsWith(a + '.');

/**
 * The fresh topics: a seeded draw of the categories the rule admits, each with its mechanical
 * query. Drawn one by one in a seeded order, skipping a category inside or around one already
 * drawn (Languages within Language and literature would be half the same topic twice).
 */
export function freshWikiTopics(sizes: Map<string, number>, exclude: string[], rule: FreshTopicRule = FRESH_TOPIC_RULE) {
  const candidates = [...sizes]
    .filter(([c, n]) => n >= rule.minArticles && !exclude.some((e) => related(c, e)) && queryOfCategory(c).length > 0)
    .map(([c]) => c)
    .sort();
  const drawn: string[] = [];
  for (const c of new Rng(hash32(rule.seed)).shuffle(candidates)) {
    if (drawn.length < rule.count && !drawn.some((d) => related(c, d))) drawn.push(c);
  }
  return drawn.map((category) => {
    const last = category.split('.').at(-1)!;
    return {
      id: `fresh-${last.toLowerCase().replace(/_+/g, '-')}`,
      label: last.replace(/_/g, ' '),
      category,
      query: queryOfCategory(category),
      fresh: true as const,
    };
  });
}
