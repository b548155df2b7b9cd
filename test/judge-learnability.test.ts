/**
 * A topic the judge cannot learn from its seed pages (src/topic/learnability.ts), through
 * the real judge: the crawl says so while it runs (src/judge/learnability-watch.ts) and in its
 * harvest estimate; a topic whose seed pages stand out is left alone.
 */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config/schema.js';
import { PageJudge } from '../src/judge/judge.js';
import { LearnabilityWatch } from '../src/judge/learnability-watch.js';
import { analyzePage } from '../src/extract/page.js';

const o = 'http://127.0.0.1:9';
const page = (url: string, title: string, body: string) =>
  analyzePage({ html: `<html><head><title>${title}</title></head><body><h1>${title}</h1><p>${body}</p></body></html>`, url, fetchedAt: new Date() });

const words = ['river', 'market', 'bridge', 'school', 'harbour', 'castle', 'railway', 'factory', 'garden', 'church', 'council', 'mill'];
/** Town pages that all say "history" again and again (a vague keyword most pages use). */
const towns = Array.from({ length: 80 }, (_, i) =>
  page(`${o}/town${i}`, `Town ${i} history`, `The history of town ${i}: its ${words[i % 12]} and ${words[(i + 5) % 12]} have a long history, and the history society keeps the history of the ${words[(i + 3) % 12]} in a small museum of local history.`),
);
/** Seed pages of the category, each about something else, naming history once in a long text. */
const vagueSeeds = [
  page(`${o}/s1`, 'Printing press', 'The printing press with movable metal type spread across Europe, cheap books pamphlets and newspapers followed, literacy rose and scholars exchanged texts quickly; a turning point in history for religion science and politics alike, as presses multiplied in cities.'),
  page(`${o}/s2`, 'Silk Road', 'Caravans crossed deserts and mountain passes carrying silk spices paper and glass between China Persia and the Mediterranean, oasis cities grew rich on trade and pilgrims monks and merchants carried religions and ideas along the routes through centuries of history.'),
  page(`${o}/s3`, 'Black Death', 'The plague swept from Asia into Europe in the fourteenth century, carried by fleas on rats along trade routes, killing a third of the population, emptying villages, raising wages for the survivors and shaking the church; few events in history changed labour so fast.'),
];
/** Bird pages and seed pages about birds: the seeds stand out from town pages. */
const birdSeeds = [
  page(`${o}/heron`, 'Grey heron bird', 'The grey heron is a wading bird of rivers and marshes; this bird spears fish with its bill and nests in colonies, a bird of slow wing beats.'),
  page(`${o}/egret`, 'Little egret bird', 'The little egret is a white wading bird of marshes; the bird stirs the mud with its feet, a bird that nests in colonies in trees.'),
  page(`${o}/stork`, 'White stork bird', 'The white stork is a large bird of wet meadows; the bird builds huge nests on roofs, a migrating bird that soars on thermals.'),
];

async function crawl(keywords: string[], seeds: typeof vagueSeeds) {
  const judge = await PageJudge.create(parseConfig({ topics: [{ keywords, seeds: seeds.map((s) => s.url) }] }));
  const watch = new LearnabilityWatch(50);
  const said: { at: number; line: string }[] = [];
  for (const s of seeds) judge.judge(s, { isSeed: true });
  towns.forEach((t, i) => {
    judge.judge(t, { isSeed: false });
    for (const line of watch.notices(judge)) said.push({ at: i + seeds.length + 1, line });
  });
  return { judge, said };
}

describe('a topic not learnable from its seed pages', () => {
  it('is said once while the crawl runs, and the estimate leaves its pages out of the lower end', async () => {
    const { judge, said } = await crawl(['history'], vagueSeeds);
    expect(said).toHaveLength(1);
    expect(said[0].at).toBe(50);
    expect(said[0].line).toMatch(/NOT LEARNABLE from its seed pages: after 50 pages they score no higher than a typical page fetched/);
    const e = judge.harvestEstimate();
    expect(e.unlearnable).toHaveLength(1);
    expect(e.unlearnable![0].seedStanding).toBeLessThanOrEqual(0.5);
    expect(e.low).toBe(0);
    expect(e.mean).toBeCloseTo((e.low + e.high) / 2, 12);
  });

  it('is not said where the seed pages stand out from the pages fetched', async () => {
    const { judge, said } = await crawl(['bird'], birdSeeds);
    expect(said).toEqual([]);
    expect(judge.harvestEstimate().unlearnable).toBeUndefined();
  });
});
