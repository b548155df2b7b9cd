import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { Frontier } from '../src/frontier/frontier.js';
import { hash32, Rng } from '../src/util/rng.js';

/**
 * A crawl of a made-up web by W workers whose fetches take random times (from `delaySeed`):
 * each page's links are offered when the page is routed. Returns the hand-out order.
 */
async function simulatedCrawl(opts: { ordered: boolean; delaySeed: number; window?: number; pages?: number; perHost?: number; busiestHost?: { max: number } }): Promise<string[]> {
  const W = opts.window ?? 4;
  const frontier = new Frontier({ maxPages: opts.pages ?? 60, perHostConcurrency: opts.perHost ?? 2, orderedWindow: opts.ordered ? W : undefined });
  const rm = frontier.requestManager;
  const rng = new Rng(opts.delaySeed);
  const handedOut: string[] = [];
  const unrouted = new Map<string, number>();
  const page = (i: number) => `http://h${i % 3}.test/p${i}`;
  for (const i of [0, 1, 2]) frontier.offer({ url: page(i), depth: 0, score: 1 });
  const route = (url: string) => {
    const i = Number(/p(\d+)$/.exec(url)![1]);
    for (let k = 1; k <= 5; k++) {
      const j = (i * 7 + k * 13) % 400;
      frontier.offer({ url: page(j), depth: 1, score: (hash32(`${i}-${j}`) % 1000) / 1000, parentUrl: url });
    }
  };
  const worker = async () => {
    for (;;) {
      const req = await rm.fetchNextRequest();
      if (!req) {
        if (await rm.isFinished()) return;
        await sleep(2);
        continue;
      }
      handedOut.push(req.url);
      const host = new URL(req.url).host;
      unrouted.set(host, (unrouted.get(host) ?? 0) + 1);
      if (opts.busiestHost) opts.busiestHost.max = Math.max(opts.busiestHost.max, unrouted.get(host)!);
      await sleep(rng.int(0, 8) * 5); // the fetch: its time depends on the run
      const routeIt = async () => {
        route(req.url);
        unrouted.set(host, unrouted.get(host)! - 1);
      };
      await (frontier.order ? frontier.order.run(req.uniqueKey, routeIt) : routeIt());
      await rm.markRequestHandled(req);
    }
  };
  await Promise.all(Array.from({ length: W }, worker));
  return handedOut;
}

describe('fixed fetch order: the same crawl whatever order fetches finish in', () => {
  it('fetches that take different times give the same hand-out order and the same pages', async () => {
    const a = await simulatedCrawl({ ordered: true, delaySeed: 1 });
    const b = await simulatedCrawl({ ordered: true, delaySeed: 2 });
    const c = await simulatedCrawl({ ordered: true, delaySeed: 3 });
    expect(a).toHaveLength(60);
    expect(b).toEqual(a);
    expect(c).toEqual(a);
  });

  it('routed as they finish, the same delays change the crawl (what the fixed order prevents)', async () => {
    const a = await simulatedCrawl({ ordered: false, delaySeed: 1 });
    const b = await simulatedCrawl({ ordered: false, delaySeed: 2 });
    expect(b).toHaveLength(60);
    expect(b).not.toEqual(a);
  });

  it('a host never has more pages handed out and not routed than its concurrency', async () => {
    const busiestHost = { max: 0 };
    const order = await simulatedCrawl({ ordered: true, delaySeed: 5, perHost: 1, window: 4, busiestHost });
    expect(order).toHaveLength(60);
    expect(busiestHost.max).toBe(1);
    expect(await simulatedCrawl({ ordered: true, delaySeed: 6, perHost: 1, window: 4 })).toEqual(order);
  });

  it('a stopped crawl gives the order up: a page waiting for an earlier one that never comes routes at once', async () => {
    const frontier = new Frontier({ maxPages: 10, orderedWindow: 2 });
    for (const i of [1, 2, 3]) frontier.offer({ url: `http://h.test/${i}`, depth: 0, score: 1 });
    const rm = frontier.requestManager;
    const first = (await rm.fetchNextRequest())!;
    const second = (await rm.fetchNextRequest())!;
    let routed = false;
    const waiting = frontier.order!.run(second.uniqueKey, async () => {
      routed = true;
    });
    await sleep(20);
    expect(routed).toBe(false); // waits for the first page's routing
    const fetcher = { stopped: '', stop(reason?: string) { this.stopped = reason ?? ''; } };
    frontier.order!.givenUpWhenStopped(fetcher);
    fetcher.stop('time limit');
    await waiting;
    expect(routed).toBe(true);
    expect(fetcher.stopped).toBe('time limit');
    expect(first.url).not.toBe(second.url);
  });
});

describe('a paused crawl with URLs chosen ahead', () => {
  it('hands out nothing more; the chosen URLs count as handed out but not as being fetched (what a pause waits for)', async () => {
    const frontier = new Frontier({ maxPages: 10, orderedWindow: 3 });
    const rm = frontier.requestManager;
    for (let i = 0; i < 5; i++) frontier.offer({ url: `http://h${i}.test/`, depth: 0, score: 1 - i / 10 });
    const first = await rm.fetchNextRequest();
    expect(first).not.toBeNull();
    rm.paused = true;
    expect(await rm.fetchNextRequest()).toBeNull();
    await rm.markRequestHandled(first!);
    // The window chose two more URLs ahead (handed out, journalled), none of them started.
    expect(frontier.pagesInFlight).toBe(2);
    expect(rm.inProgressCount).toBe(0);
    rm.paused = false;
    expect((await rm.fetchNextRequest())?.url).toBe('http://h1.test/');
    expect(rm.inProgressCount).toBe(1);
  });
});
