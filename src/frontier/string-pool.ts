/**
 * Reference-counted interning of strings that many queued entries share (the parent URL: a page
 * queues tens of links, all with the same parent). An entry holds a small integer instead of
 * its own pointer to a possibly distinct copy of the string, and the string is released when the
 * last entry using it leaves the queue.
 */
export class StringPool {
  private readonly ids = new Map<string, number>();
  private strings: (string | undefined)[] = [];
  private refs = new Int32Array(64);
  private free: number[] = [];

  /** Distinct strings held. */
  get size(): number {
    return this.ids.size;
  }

  /** Take a reference to the string; returns its id. */
  acquire(s: string): number {
    let id = this.ids.get(s);
    if (id === undefined) {
      id = this.free.pop() ?? this.strings.length;
      if (id >= this.refs.length) {
        const refs = new Int32Array(this.refs.length * 2);
        refs.set(this.refs);
        this.refs = refs;
      }
      this.strings[id] = s;
      this.refs[id] = 0;
      this.ids.set(s, id);
    }
    this.refs[id]!++;
    return id;
  }

  /** Drop a reference; the string is forgotten with its last one. */
  release(id: number): void {
    if (--this.refs[id]! > 0) return;
    const s = this.strings[id];
    if (s === undefined) throw new Error(`StringPool: id ${id} released more often than acquired`);
    this.ids.delete(s);
    this.strings[id] = undefined;
    this.free.push(id);
  }

  get(id: number): string {
    const s = this.strings[id];
    if (s === undefined) throw new RangeError(`StringPool: no string ${id}`);
    return s;
  }

  /** References held on the string with this id (0 when released). */
  refCount(id: number): number {
    return this.strings[id] === undefined ? 0 : this.refs[id]!;
  }
}
