/**
 * `combined`'s link relevance by the examples' language (src/judge/judge.ts `linkRelevance`):
 * a link context is matched against the keywords and against the topic's examples (its seed
 * pages' words), so a link to a page like the seeds scores even when it shares no keyword; the
 * other strategies keep the keyword cosine (METHODS §3.1).
 */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config/schema.js';
import { PageJudge } from '../src/judge/judge.js';
import { analyzePage } from '../src/extract/page.js';
import type { LinkInfo } from '../src/extract/types.js';

const o = 'http://127.0.0.1:9';
const page = (url: string, title: string, body: string) =>
  analyzePage({ html: `<html><head><title>${title}</title></head><body><h1>${title}</h1><p>${body}</p></body></html>`, url, fetchedAt: new Date() });
const fruit = (name: string) =>
  `The ${name} is a tropical fruit with sweet flesh and a thick rind; its seeds and pulp are eaten fresh, the ripe fruit has a strong smell, and the trees grow in orchards of Southeast Asia where the fruit is sold in markets`;
const other = (i: number) => `The river ${i} flows past a city with a bridge, a mayor, a council and a railway station; the town ${i} has schools, roads and a harbour`;
const link = (anchorText: string, context: string): LinkInfo => ({ url: `${o}/wiki/${anchorText}`, tag: 'a', anchorText, title: '', contextBefore: context, contextAfter: '' });

async function judgeFor(strategy: 'combined' | 'best-first'): Promise<PageJudge> {
  const seeds = ['Durian', 'Mangosteen', 'Rambutan'].map((n) => page(`${o}/wiki/${n}`, n, fruit(n)));
  const judge = await PageJudge.create(parseConfig({ topics: [{ keywords: ['food', 'agriculture', 'crop'], seeds: seeds.map((s) => s.url) }], strategy, judge: 'cosine' }));
  for (const s of seeds) judge.judge(s, { isSeed: true });
  for (let i = 0; i < 10; i++) judge.judge(page(`${o}/wiki/River_${i}`, `River ${i}`, other(i)), { isSeed: false });
  return judge;
}

describe("combined's link relevance", () => {
  it("scores a link to a page like the seed pages by their words, with no keyword in its context", async () => {
    const toFruit = link('Mango', 'the sweet tropical fruit with ripe flesh');
    const toRiver = link('Bridge', 'the city council and the railway station');
    const combined = await judgeFor('combined');
    expect(combined.linkRelevance(toFruit)).toBeGreaterThan(0.01);
    expect(combined.linkRelevance(toRiver)).toBeLessThan(combined.linkRelevance(toFruit) / 5);
    // A keyword still counts: half the keyword cosine at least.
    const toCrop = link('Crop', 'agriculture');
    const bestFirst = await judgeFor('best-first');
    expect(combined.linkRelevance(toCrop)).toBeGreaterThanOrEqual(bestFirst.linkRelevance(toCrop) / 2);
    // The other strategies keep the papers' cos(T, A_u), T the keywords: no keyword, 0.
    expect(bestFirst.linkRelevance(toFruit)).toBe(0);
  });
});
