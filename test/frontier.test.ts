import { describe, expect, it } from 'vitest';
import { Frontier, uniqueKeyOf } from '../src/frontier/frontier.js';

async function drain(f: Frontier): Promise<string[]> {
  const out: string[] = [];
  for (;;) {
    const r = await f.requestManager.fetchNextRequest();
    if (!r) return out;
    out.push(r.url);
    await f.requestManager.markRequestHandled(r);
  }
}

describe('Frontier', () => {
  it('hands out the best-scored URL first, across hosts', async () => {
    const f = new Frontier();
    f.offer({ url: 'http://a.test/1', depth: 1, score: 0.2 });
    f.offer({ url: 'http://b.test/1', depth: 1, score: 0.9 });
    f.offer({ url: 'http://a.test/2', depth: 1, score: 0.5 });
    expect(await drain(f)).toEqual(['http://b.test/1', 'http://a.test/2', 'http://a.test/1']);
  });

  it('serves equal scores in queue order (FIFO)', async () => {
    const f = new Frontier();
    for (const u of ['http://a.test/x', 'http://b.test/y', 'http://a.test/z']) f.offer({ url: u, depth: 1, score: 1 });
    expect(await drain(f)).toEqual(['http://a.test/x', 'http://b.test/y', 'http://a.test/z']);
  });

  it('re-prioritises a queued URL when its score changes', async () => {
    const f = new Frontier();
    f.offer({ url: 'http://a.test/low', depth: 1, score: 0.1 });
    f.offer({ url: 'http://a.test/high', depth: 1, score: 0.8 });
    expect(f.offer({ url: 'http://a.test/low', depth: 1, score: 0.95 })).toBe('rescored');
    expect(f.rescore(uniqueKeyOf('http://a.test/high'), 0.05)).toBe(true);
    expect(await drain(f)).toEqual(['http://a.test/low', 'http://a.test/high']);
  });

  it('de-duplicates on normalised URLs and never re-queues a fetched URL', async () => {
    const f = new Frontier();
    expect(f.offer({ url: 'http://a.test/p?b=2&a=1#frag', depth: 1, score: 1 })).toBe('queued');
    expect(f.offer({ url: 'HTTP://A.TEST/p?a=1&b=2', depth: 1, score: 2 })).toBe('rescored');
    const r = await f.requestManager.fetchNextRequest();
    await f.requestManager.markRequestHandled(r!);
    expect(f.offer({ url: 'http://a.test/p?a=1&b=2', depth: 1, score: 3 })).toBe('duplicate');
    expect(await f.requestManager.isFinished()).toBe(true);
  });

  it('drops URLs beyond the depth limit and removes dropped ones for good', async () => {
    const f = new Frontier({ maxDepth: 2 });
    expect(f.offer({ url: 'http://a.test/deep', depth: 3, score: 1 })).toBe('too-deep');
    f.offer({ url: 'http://a.test/ok', depth: 2, score: 1 });
    f.offer({ url: 'http://a.test/gone', depth: 1, score: 5 });
    expect(f.drop(uniqueKeyOf('http://a.test/gone'))).toBe(true);
    expect(f.offer({ url: 'http://a.test/gone', depth: 1, score: 5 })).toBe('duplicate');
    expect(await drain(f)).toEqual(['http://a.test/ok']);
  });

  it('stops handing out at the page budget without capping the queue', async () => {
    const f = new Frontier({ maxPages: 2 });
    for (let i = 0; i < 5; i++) f.offer({ url: `http://a.test/${i}`, depth: 1, score: i });
    expect(await drain(f)).toEqual(['http://a.test/4', 'http://a.test/3']);
    expect(f.size).toBe(3);
    expect(await f.requestManager.isEmpty()).toBe(true);
    expect(await f.requestManager.isFinished()).toBe(true);
  });

  it('keeps the per-host delay: a waiting host is skipped for the next-best host', async () => {
    let now = 1000;
    const f = new Frontier({ perHostDelayMs: 500, now: () => now });
    f.offer({ url: 'http://a.test/1', depth: 1, score: 0.9 });
    f.offer({ url: 'http://a.test/2', depth: 1, score: 0.8 });
    f.offer({ url: 'http://b.test/1', depth: 1, score: 0.1 });
    const first = await f.requestManager.fetchNextRequest();
    await f.requestManager.markRequestHandled(first!);
    const second = await f.requestManager.fetchNextRequest();
    expect([first!.url, second!.url]).toEqual(['http://a.test/1', 'http://b.test/1']);
    await f.requestManager.markRequestHandled(second!);
    expect(await f.requestManager.fetchNextRequest()).toBeNull(); // a.test must wait
    expect(await f.requestManager.isEmpty()).toBe(true);
    expect(await f.requestManager.isFinished()).toBe(false); // ...but the crawl is not over
    expect(f.nextEligibleInMs()).toBe(500);
    now += 500;
    expect((await f.requestManager.fetchNextRequest())!.url).toBe('http://a.test/2');
  });

  it('caps concurrent requests per host', async () => {
    const f = new Frontier({ perHostConcurrency: 1 });
    f.offer({ url: 'http://a.test/1', depth: 1, score: 2 });
    f.offer({ url: 'http://a.test/2', depth: 1, score: 1 });
    const r1 = await f.requestManager.fetchNextRequest();
    expect(await f.requestManager.fetchNextRequest()).toBeNull();
    await f.requestManager.markRequestHandled(r1!);
    expect((await f.requestManager.fetchNextRequest())!.url).toBe('http://a.test/2');
  });

  it('hands a reclaimed request back (Crawlee retries) as the same object, outside the budget', async () => {
    const f = new Frontier({ maxPages: 1 });
    f.offer({ url: 'http://a.test/1', depth: 1, score: 1 });
    const r = await f.requestManager.fetchNextRequest();
    r!.retryCount = 1;
    await f.requestManager.reclaimRequest(r!);
    expect(await f.requestManager.isFinished()).toBe(false);
    const again = await f.requestManager.fetchNextRequest();
    expect(again).toBe(r);
    expect(again!.retryCount).toBe(1);
    await f.requestManager.markRequestHandled(again!);
    expect(await f.requestManager.handledCount()).toBe(1);
    expect(await f.requestManager.isFinished()).toBe(true);
  });

  it('carries depth, parent and score breakdown to the Request', async () => {
    const f = new Frontier();
    f.offer({ url: 'http://a.test/c', depth: 2, parentUrl: 'http://a.test/p', score: 0.7, components: { parentPriority: 0.3 } });
    const r = await f.requestManager.fetchNextRequest();
    expect(r!.userData).toMatchObject({ depth: 2, parentUrl: 'http://a.test/p', score: 0.7, components: { parentPriority: 0.3 } });
    expect(r!.crawlDepth).toBe(2);
  });

  it('queues revisits of fetched URLs as separate entries that share the budget', async () => {
    const f = new Frontier({ maxPages: 3 });
    f.offer({ url: 'http://a.test/thread-1-1-1.html', depth: 1, score: 0.5 });
    const r = await f.requestManager.fetchNextRequest();
    await f.requestManager.markRequestHandled(r!);
    expect(f.offer({ url: 'http://a.test/thread-1-1-1.html', depth: 1, score: 0.5 })).toBe('duplicate');
    f.offer({ url: 'http://a.test/new', depth: 1, score: 0.2 });
    const key = f.offerRevisit({ url: 'http://a.test/thread-1-1-1.html', depth: 1, score: 0.9 });
    expect(key).toMatch(/#revisit-1$/);
    const again = await f.requestManager.fetchNextRequest();
    expect(again!.url).toBe('http://a.test/thread-1-1-1.html');
    expect(again!.userData.revisit).toBe(true);
    await f.requestManager.markRequestHandled(again!);
    expect((await f.requestManager.fetchNextRequest())!.url).toBe('http://a.test/new');
    expect(await f.requestManager.fetchNextRequest()).toBeNull(); // budget of 3 spent: 2 discoveries + 1 revisit
  });
});
