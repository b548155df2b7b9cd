// @ts-check
/**
 * focused-crawler as a library, with plain Node: start the package's local test web, crawl it for
 * its demo topic through the API, read the relevant pages as they are found, and check them
 * against the test web's ground truth. Exits 1 when a check fails.
 *
 *   npm install && node crawl-testweb.js [maxPages]
 *
 * Results go to $CRAWLEE_STORAGE_DIR (else ./storage), as with any Crawlee program.
 */
import assert from 'node:assert/strict';
import { crawl, startTestWeb } from 'focused-crawler';

const maxPages = Number(process.argv[2] ?? 30);
const web = await startTestWeb();
try {
  const run = crawl(
    {
      topics: [{ name: 'demo', keywords: web.demo.keywords, seeds: web.demo.seeds }],
      allowPrivate: web.sites.map((s) => s.origin), // the test web's sites are on loopback
      maxPages,
      maxConcurrency: 2,
    },
    {
      truth: (url) => web.isRelevant(url, web.demo.topic), // adds the true harvest rate to the result
      now: () => web.clock.now(), // reply times on the test web follow its own clock
    },
  );

  /** @type {import('focused-crawler').RelevantPage[]} */
  const pages = [];
  for await (const page of run) {
    pages.push(page);
    console.log(`relevant ${page.relevance.toFixed(2)}  ${page.title}  ${page.url}`);
  }
  const result = await run;

  const trulyRelevant = pages.filter((p) => web.isRelevant(p.url, web.demo.topic));
  console.log(
    `fetched ${result.fetched}, relevant ${result.relevant} (harvest ${(result.harvestRate * 100).toFixed(1)}%, ` +
      `true harvest ${((result.truthHarvestRate ?? 0) * 100).toFixed(1)}%), ` +
      `${trulyRelevant.length} of the iterated pages relevant by ground truth, threads found ${result.counts.threadsFound ?? 0}`,
  );
  assert.equal(result.fetched, maxPages, 'the whole page budget is fetched');
  assert.equal(pages.length, result.relevant, 'the loop sees every relevant page');
  assert.ok(pages.length > 0, 'some relevant pages are found');
  assert.ok(trulyRelevant.length >= pages.length / 3, 'at least a third of the pages judged relevant are relevant by ground truth');
  assert.ok(pages.every((p) => p.topic === 'demo' && p.text.length > 0), 'every page has its topic and text');
  const articles = pages.filter((p) => web.truth(p.url)?.kind === 'article');
  assert.ok(articles.every((p) => p.title), 'every article has a title');
  console.log(`OK ${JSON.stringify({ fetched: result.fetched, relevant: pages.length, trulyRelevant: trulyRelevant.length, runDir: result.runDir })}`);
} finally {
  await web.close();
}
