/**
 * The cosine verdict's θ per topic from the seed pages (src/topic/seed-threshold.ts): a topic
 * whose own examples score low gets a lower θ, one whose examples score high a higher one; a
 * topic's own `threshold` and keyword-only topics keep θ as given.
 */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config/schema.js';
import { PageJudge } from '../src/judge/judge.js';
import { analyzePage } from '../src/extract/page.js';
import { SEED_THRESHOLD_SHARE, seedCalibratedThreshold } from '../src/topic/seed-threshold.js';
import { isSiteHomePage } from '../src/judge/entry-page.js';

const page = (url: string, title: string, body: string) =>
  analyzePage({ html: `<html><head><title>${title}</title></head><body><h1>${title}</h1><p>${body}</p></body></html>`, url, fetchedAt: new Date() });

const o = 'http://127.0.0.1:9';
/** Wading birds, named by "bird" once in a long text: a low keyword cosine for the keyword "bird". */
const lowSeeds = [
  page(`${o}/heron`, 'Grey heron', 'The grey heron is a long legged wading bird of rivers lakes and marshes. It stands still in shallow water and spears fish frogs and eels with its dagger bill, nests in colonies called heronries high in trees, and flies with its neck folded back and slow wing beats over the reeds.'),
  page(`${o}/egret`, 'Little egret', 'The little egret wades in shallow water of marshes lakes and estuaries, white plumes on its back, yellow feet stirring the mud to flush fish and frogs; like the heron it nests in colonies in trees near water and this bird flies with slow wing beats and its neck folded.'),
  page(`${o}/stork`, 'White stork', 'The white stork walks through wet meadows marshes and shallow water hunting frogs fish insects and small mammals, builds huge nests of sticks on roofs and trees, flies with slow wing beats and soars on thermals; this large bird migrates to Africa in the winter.'),
];
const ibis = page(`${o}/ibis`, 'Sacred ibis', 'The sacred ibis wades through marshes and shallow water of lakes and rivers, probing the mud with its curved bill for frogs fish and insects; it nests in colonies in trees near water and this bird flies with its neck stretched and slow wing beats.');
const cars = page(`${o}/cars`, 'Car prices', 'Car prices rose again this quarter as dealers cut discounts on new models; buyers waited for electric cars and petrol engines grew dearer with fuel taxes.');
const fillers = Array.from({ length: 8 }, (_, i) => page(`${o}/f${i}`, `Town ${i}`, `The town council met on day ${i} to discuss roads schools taxes budgets parking and the new library opening hours for the winter season.`));

/** θ_page here: above the wading birds' keyword cosine (short pages score higher than real articles). */
const THETA = 0.12;

async function judgeOf(topic: Record<string, unknown>) {
  const judge = await PageJudge.create(parseConfig({ topics: [{ keywords: ['bird'], ...topic }], pageThreshold: THETA }));
  for (const s of lowSeeds) if ((topic.seeds as string[] | undefined)?.includes(s.url)) judge.judge(s, { isSeed: true });
  for (const f of fillers) judge.judge(f, { isSeed: false });
  return judge;
}

describe('θ calibrated from the seed pages', () => {
  it('is the share of the seed pages’ mean rel, θ_page without seed pages', () => {
    expect(seedCalibratedThreshold([], 0.05)).toBe(0.05);
    expect(seedCalibratedThreshold([0.02, 0.04], 0.05)).toBeCloseTo(SEED_THRESHOLD_SHARE * 0.03, 12);
    expect(seedCalibratedThreshold([0.4, 0.2], 0.05, 0.5)).toBeCloseTo(0.15, 12);
  });

  it('calls a page like low-scoring seed pages relevant though it is under θ_page; an unrelated page stays out', async () => {
    const judge = await judgeOf({ seeds: lowSeeds.map((s) => s.url) });
    const v = judge.judge(ibis, { isSeed: false });
    expect(v.rel).toBeLessThan(THETA); // the fixed rule would reject it
    expect(v.threshold!).toBeLessThan(v.rel);
    expect(v.relevant).toBe(true);
    expect(judge.judge(cars, { isSeed: false }).relevant).toBe(false);
  });

  it('keeps a topic’s own threshold, and θ_page for a keyword-only topic', async () => {
    const given = await judgeOf({ seeds: lowSeeds.map((s) => s.url), threshold: THETA });
    const v = given.judge(ibis, { isSeed: false });
    expect(v.threshold).toBe(THETA);
    expect(v.relevant).toBe(false);
    const keywordOnly = await judgeOf({});
    expect(keywordOnly.judge(ibis, { isSeed: false }).threshold).toBe(THETA);
  });

  it('raises θ above θ_page when the seed pages score high: a passing mention no longer counts', async () => {
    const judge = await PageJudge.create(parseConfig({ topics: [{ keywords: ['heron'], seeds: [`${o}/h1`, `${o}/h2`] }], pageThreshold: 0.05 }));
    judge.judge(page(`${o}/h1`, 'Heron', 'Heron heron heron: the heron of the heron family, herons of marshes.'), { isSeed: true });
    judge.judge(page(`${o}/h2`, 'Herons', 'Herons: the heron and the night heron, heron colonies and heron nests.'), { isSeed: true });
    for (const f of fillers) judge.judge(f, { isSeed: false });
    const mention = judge.judge(page(`${o}/river`, 'River walk', 'A river walk past the mill, the weir, the old bridge, the church and the pub; we saw a heron once, then walked on to the station for the train home through fields and woods.'), { isSeed: false });
    expect(mention.rel).toBeGreaterThanOrEqual(0.05); // the fixed rule would keep it
    expect(mention.threshold!).toBeGreaterThan(mention.rel);
    expect(mention.relevant).toBe(false);
  });

  it('takes a site home page given as a seed for where to start, not an example: θ is not set from it', async () => {
    // A department's welcome page: about its site, none of the topic's words (its rel is 0).
    const home = (origin: string) => page(`${origin}/`, 'Department of Letters', 'Welcome to the home page of the department. Visitors, directions and contact details are below. Main office, room 101.');
    const origins = ['http://127.0.1.1:9', 'http://127.0.1.2:9'];
    const judge = await PageJudge.create(parseConfig({ topics: [{ keywords: ['bird'], seeds: origins.map((x) => `${x}/`) }], pageThreshold: THETA }));
    for (const x of origins) judge.judge(home(x), { isSeed: true });
    for (const f of fillers) judge.judge(f, { isSeed: false });
    // Taken as examples they would set θ to 0, where one passing "bird" is relevant.
    const passing = page(`${o}/fair`, 'Town fair', 'The town fair had a cake stall, a bird show, a brass band, pony rides, a dog show, a tug of war, a flower tent, a vintage tractor parade and a raffle for the new library, with the council paying for the tents, the toilets, the stewards and the parking on the school field.');
    const v = judge.judge(passing, { isSeed: false });
    expect(v.rel).toBeGreaterThan(0);
    expect(v.rel).toBeLessThan(THETA);
    expect(v.threshold).toBe(THETA);
    expect(v.relevant).toBe(false);
    expect(judge.harvestEstimate().examples).toBeUndefined();
    // The same page deeper in its site is an example.
    const deep = await PageJudge.create(parseConfig({ topics: [{ keywords: ['bird'], seeds: origins.map((x) => `${x}/about`) }], pageThreshold: THETA }));
    for (const x of origins) deep.judge({ ...home(x), url: `${x}/about` }, { isSeed: true });
    for (const f of fillers) deep.judge(f, { isSeed: false });
    expect(deep.harvestEstimate().examples).toMatchObject({ given: 2 });
  });

  it('knows a site home page by its path: the root or its index document, without a query', () => {
    for (const u of ['http://a.example/', 'http://a.example', 'https://a.example/index.html', 'http://a.example/default.aspx', 'http://a.example/index.php']) expect(isSiteHomePage(u), u).toBe(true);
    for (const u of ['http://a.example/wiki/Heron', 'http://a.example/?page=2', 'http://a.example/index.php?title=Heron', 'http://a.example/news/', undefined, 'not a url']) expect(isSiteHomePage(u), String(u)).toBe(false);
  });
});
