/**
 * The dataset write queue (src/store/write-behind.ts): every page's `after` (its crawl-log line)
 * runs after its item is written, in the order pages were added, items written in batches, a
 * failed write reported to the pages it carried, and `add` waits once too many pages are queued.
 */
import { describe, expect, it } from 'vitest';
import { FrontierRequestManager } from '../src/frontier/request-manager.js';
import { OrderedWriteBehind, PageWrites } from '../src/store/write-behind.js';

/** A write the test finishes by hand. */
function heldWrites() {
  const calls: { items: number[]; finish(e?: Error): void }[] = [];
  let arrived: () => void = () => undefined;
  const write = (items: number[]) =>
    new Promise<void>((ok, fail) => {
      calls.push({ items, finish: (e) => (e ? fail(e) : ok()) });
      arrived();
    });
  const nextCall = (n: number) => new Promise<void>((r) => (arrived = () => calls.length >= n && r())).then(() => calls[n - 1]);
  return { calls, write, nextCall };
}

describe('OrderedWriteBehind', () => {
  it('runs each after once its item is written, in the order added, writing what piled up in one batch', async () => {
    const w = heldWrites();
    const log: string[] = [];
    const q = new OrderedWriteBehind<number>(w.write, (e) => log.push(`error ${e.message}`));
    const first = w.nextCall(1);
    await q.add(1, () => log.push('line 1'));
    const c1 = await first;
    await q.add(undefined, () => log.push('line 2 (no item)'));
    await q.add(3, () => log.push('line 3'));
    await q.add(4, () => log.push('line 4'));
    expect(log).toEqual([]); // nothing logged before its item (or an earlier page's item) is written
    const second = w.nextCall(2);
    c1.finish();
    const c2 = await second;
    expect(log).toEqual(['line 1']);
    expect(c2.items).toEqual([3, 4]);
    c2.finish();
    await q.drain();
    expect(log).toEqual(['line 1', 'line 2 (no item)', 'line 3', 'line 4']);
    expect(w.calls.map((c) => c.items)).toEqual([[1], [3, 4]]);
  });

  it('tells the pages of a failed write, and goes on with the next', async () => {
    const w = heldWrites();
    const log: string[] = [];
    const q = new OrderedWriteBehind<number>(w.write, () => undefined);
    const first = w.nextCall(1);
    await q.add(1, (e) => log.push(`1 ${e?.message ?? 'ok'}`));
    (await first).finish(new Error('disk full'));
    const second = w.nextCall(2);
    await q.add(2, (e) => log.push(`2 ${e?.message ?? 'ok'}`));
    (await second).finish();
    await q.drain();
    expect(log).toEqual(['1 disk full', '2 ok']);
  });

  it('passes an after that throws to onError and still runs the later ones', async () => {
    const errors: string[] = [];
    const ran: number[] = [];
    const q = new OrderedWriteBehind<number>(async () => undefined, (e) => errors.push(e.message));
    await q.add(1, () => {
      throw new Error('log closed');
    });
    const { stored } = await q.add(2, () => void ran.push(2));
    await stored;
    expect(errors).toEqual(['log closed']);
    expect(ran).toEqual([2]);
  });

  it('makes add wait while more than maxQueued pages are queued', async () => {
    const w = heldWrites();
    const q = new OrderedWriteBehind<number>(w.write, () => undefined, 2);
    const first = w.nextCall(1);
    await q.add(1, () => undefined);
    const c1 = await first;
    await q.add(2, () => undefined);
    await q.add(3, () => undefined);
    let returned = false;
    const fourth = q.add(4, () => undefined).then(() => (returned = true));
    await new Promise((r) => setImmediate(r));
    expect(returned).toBe(false); // three queued behind the write in progress: over the limit
    const second = w.nextCall(2);
    c1.finish();
    (await second).finish();
    await fourth;
    expect(returned).toBe(true);
    await q.drain();
  });
});

describe('FrontierRequestManager.finishAfter', () => {
  it('keeps a handled page in flight until its crawl-log line is written (its host free at once), and settled() waits for it', async () => {
    const finished: string[] = [];
    const hostsEnded: string[] = [];
    const source = {
      next: async () => ({ url: 'http://127.0.0.1:1/a', uniqueKey: 'a', depth: 0, score: 1, queuedAt: 0 }),
      finish: (k: string, _url: string, ended?: boolean) => void finished.push(`${k}${ended ? ' (host ended before)' : ''}`),
      requestEnded: (url: string) => void hostsEnded.push(url),
    } as unknown as ConstructorParameters<typeof FrontierRequestManager>[0];
    const rm = new FrontierRequestManager(source);
    let lineWritten!: () => void;
    const line = new Promise<void>((r) => (lineWritten = r));
    rm.finishAfter = (k) => (k === 'a' ? line : undefined);
    const req = await rm.fetchNextRequest();
    await rm.markRequestHandled(req!);
    const settled = rm.settled();
    await new Promise((r) => setImmediate(r));
    expect(finished).toEqual([]); // Crawlee heard "handled"; the frontier's journal did not
    expect(hostsEnded).toEqual(['http://127.0.0.1:1/a']); // but the host's slot is free for the next page
    lineWritten();
    await settled;
    expect(finished).toEqual(['a (host ended before)']);
  });
});

describe('PageWrites (the engine\'s fetch slots)', () => {
  it('lets the slot go on while the write is still running; the frontier\'s finish waits for the line, once', async () => {
    const w = heldWrites();
    const log: string[] = [];
    const writes = new PageWrites(new OrderedWriteBehind<number>(w.write, () => undefined), false);
    const first = w.nextCall(1);
    // resolves with the write still held: an async add returning the promise itself would not
    const { stored } = await writes.add('a', 1, () => log.push('line a'));
    const line = writes.lineOf('a');
    expect(line).toBeDefined();
    expect(writes.lineOf('a')).toBeUndefined();
    let lineDone = false;
    void line!.then(() => (lineDone = true));
    await Promise.resolve();
    expect(lineDone).toBe(false);
    expect(log).toEqual([]);
    (await first).finish();
    await stored;
    await line;
    expect(log).toEqual(['line a']);
  });

  it('keeps the slot until the line is written when asked (a Redis crawl\'s lease ends with the finish)', async () => {
    const w = heldWrites();
    const log: string[] = [];
    const writes = new PageWrites(new OrderedWriteBehind<number>(w.write, () => undefined), true);
    const first = w.nextCall(1);
    let slotFree = false;
    const added = writes.add('a', 1, () => log.push('line a')).then(() => (slotFree = true));
    const c1 = await first;
    await Promise.resolve();
    expect(slotFree).toBe(false);
    c1.finish();
    await added;
    expect(log).toEqual(['line a']);
    expect(writes.lineOf('a')).toBeUndefined();
  });
});

