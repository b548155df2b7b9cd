/**
 * The dataset write off the fetch slot. Crawlee's `Dataset.pushData` writes each item as a file
 * under a lock (a chain of thread-pool hops: 40 ms at rest, 60-260 ms on a loaded machine), and
 * a page's crawl-log line must follow its dataset item (a crash between them: `--resume` drops the
 * item and fetches the page again, src/store/dataset-tail.ts; the reverse order would log a saved page whose item never reached the disk).
 * So the slot hands the item and the log line's writer to this queue and takes the next page:
 * items are written in order, in batches (one `pushData` for what piled up during the last
 * write), and each page's `after` runs once its item is on disk, in the order pages were added,
 * so crawl-log lines keep their order. A crash loses pages whose item and line were both still
 * queued: neither is on disk, so `--resume` fetches them again. `drain()` before the crawl log
 * is closed. At most `maxQueued` pages wait: past that, `add` waits for the write in progress.
 */
export class OrderedWriteBehind<T> {
  private queue: { item?: T; after(error?: Error): void; done(): void }[] = [];
  private running?: Promise<void>;

  constructor(
    private readonly write: (items: T[]) => Promise<void>,
    /** An `after` that threw (it runs off the slot, so its error has nowhere else to go). */
    private readonly onError: (e: Error) => void,
    private readonly maxQueued = 256,
  ) {}

  /**
   * Queue `item` (or nothing: a page with no item whose log line must keep its place) and the
   * work to do once it is written (`error` when the write failed). Resolves when there is room
   * in the queue; `stored` resolves once `after` has run.
   */
  async add(item: T | undefined, after: (error?: Error) => void): Promise<{ stored: Promise<void> }> {
    let done!: () => void;
    const stored = new Promise<void>((ok) => (done = ok));
    this.queue.push({ item, after, done });
    // Started on a later tick: `running` must be set before the loop can finish and clear it.
    this.running ??= Promise.resolve().then(() => this.loop());
    while (this.queue.length > this.maxQueued && this.running) await this.running;
    return { stored };
  }

  /** Wait until every queued item is written and every `after` has run. */
  async drain(): Promise<void> {
    while (this.running) await this.running;
  }

  private async loop(): Promise<void> {
    try {
      while (this.queue.length) {
        const batch = this.queue.splice(0);
        const items = batch.flatMap((b) => (b.item === undefined ? [] : [b.item]));
        let error: Error | undefined;
        if (items.length) {
          try {
            await this.write(items);
          } catch (e) {
            error = e as Error;
          }
        }
        for (const b of batch) {
          try {
            b.after(b.item === undefined ? undefined : error);
          } catch (e) {
            this.onError(e as Error);
          } finally {
            b.done();
          }
        }
      }
    } finally {
      this.running = undefined;
    }
  }
}

/**
 * The engine's use of one OrderedWriteBehind for its fetch slots: a page's item and log line go
 * in, the slot moves on, and the frontier's finish of the page waits for the line (`lineOf`, the
 * request manager's `finishAfter`). `waitInSlot` (a Redis crawl, whose shared lease ends with the
 * finish) keeps the slot until the line is written.
 *
 * `add` resolves to `{ stored }`, never to the `stored` promise itself: an async function that
 * returns a promise resolves only once that one settles, so the slot would wait for every write
 * (it did, until measured: 260 ms a page on a loaded machine, a fifth of all slot time).
 */
export class PageWrites<T> {
  private readonly lines = new Map<string, Promise<void>>();

  constructor(
    private readonly store: OrderedWriteBehind<T>,
    private readonly waitInSlot: boolean,
  ) {}

  /** Queue a page's item (or none) and its line's writer; resolves when the slot may take its next page. */
  async add(key: string, item: T | undefined, after: (error?: Error) => void): Promise<{ stored: Promise<void> }> {
    const { stored } = await this.store.add(item, after);
    if (this.waitInSlot) await stored;
    else this.lines.set(key, stored);
    return { stored };
  }

  /** The page's line being written, once (the frontier's finish waits for it). */
  lineOf(key: string): Promise<void> | undefined {
    const line = this.lines.get(key);
    this.lines.delete(key);
    return line;
  }
}
