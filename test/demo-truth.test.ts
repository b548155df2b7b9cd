/**
 * The demo's ground truth counts each page once (src/cli/demo.ts `demoTruth`): the crawler never
 * counts a near-duplicate as a new relevant page, so the truth it is held against must not count
 * a forum thread's "only this author" views as relevant pages of their own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoTruth } from '../src/cli/demo.js';
import { startTestWeb, type TestWeb } from '../src/testweb/index.js';

let web: TestWeb;
beforeAll(async () => {
  web = await startTestWeb();
});
afterAll(async () => web?.close());

describe('demoTruth', () => {
  it('counts a relevant page the first time its page is fetched, and its author views not again', () => {
    const topic = web.demo.topic;
    const pages = web.pages();
    const forum = web.sites.find((s) => s.kind === 'forum')!.origin;
    const thread = pages.find((u) => /thread-\d+-1-1\.html$/.test(u) && web.isRelevant(u, topic))!;
    expect(thread).toBeDefined();
    const tid = /thread-(\d+)-/.exec(thread)![1];
    const view = `${forum}/forum.php?mod=viewthread&tid=${tid}&page=1&authorid=10001`;
    // By URL the view is relevant too: the figure this truth replaces counted it.
    expect(web.isRelevant(view, topic)).toBe(true);
    const article = pages.find((u) => web.truth(u)?.kind === 'article' && web.isRelevant(u, topic))!;
    const offTopic = pages.find((u) => web.truth(u)?.kind === 'article' && !web.isRelevant(u, topic))!;

    const truth = demoTruth(web, topic);
    expect(truth(thread)).toBe(true);
    expect(truth(view)).toBe(false);
    expect(truth(thread)).toBe(false);
    expect(truth(article)).toBe(true);
    expect(truth(offTopic)).toBe(false);

    // A view fetched first counts, and its thread page then does not.
    const first = demoTruth(web, topic);
    expect(first(view)).toBe(true);
    expect(first(thread)).toBe(false);

    // A resumed run: the pages fetched before the stop are already seen.
    const resumed = demoTruth(web, topic, [thread]);
    expect(resumed(view)).toBe(false);
    expect(resumed(article)).toBe(true);
  });
});
