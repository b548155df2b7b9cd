/**
 * The scorer's link bookkeeping: URLs known from links and not fetched (with their in-links),
 * fetched pages, and the queued URLs of each host (for the site cutoff). Strategies read it;
 * only the scorer (src/score/scorer.ts) changes it.
 */
import type { Contribution, FetchedInfo, LinkBookState, Pending } from './types.js';
import { ownString } from './own-string.js';
import { refill } from './state-data.js';

/** `host[:port]`, or ''. A copy of src/frontier/url-key.ts's: that module imports crawlee, and scoring stays plain data. */
export function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '';
  }
}

/** Shared by all pending URLs without an in-link yet; never pushed to (see addContribution). */
const EMPTY_CONTRIBUTIONS: Contribution[] = [];


export class LinkBook {
  readonly pending = new Map<string, Pending>();
  readonly fetched = new Map<string, FetchedInfo>();
  private readonly pendingByHost = new Map<string, Set<string>>();
  private seq = 0;

  /** @param byHost keep the queued URLs of each host (only the site cutoff reads them; a Set entry per queued URL otherwise). */
  constructor(private readonly byHost = true) {}

  /** The pending URL, created (with the next discovery number) when new. */
  pend(url: string, depth: number, urlTime: Date | undefined): { p: Pending; created: boolean } {
    const old = this.pending.get(url);
    if (old) return { p: old, created: false };
    const parsed = hostOf(url);
    let host = this.hostKeys.get(parsed);
    if (host === undefined) this.hostKeys.set((host = ownString(parsed)), host);
    // The array is created at its first push: `[]` then push() reserves 17 slots, most URLs have one in-link.
    // Every field set here, so later ones (deadKeys, last) need no out-of-object property array.
    const p: Pending = { url, host, depth, seq: this.seq++, urlTime, contributions: EMPTY_CONTRIBUTIONS, deadKeys: undefined, last: undefined };
    this.pending.set(url, p);
    if (this.byHost) {
      let set = this.pendingByHost.get(host);
      if (!set) this.pendingByHost.set(host, (set = new Set()));
      set.add(url);
    }
    return { p, created: true };
  }

  removePending(url: string): void {
    const p = this.pending.get(url);
    if (!p) return;
    this.pending.delete(url);
    this.pendingByHost.get(p.host)?.delete(url);
  }

  /** One string per host, shared by its pending URLs (interned: a host string per queued URL otherwise). */
  private readonly hostKeys = new Map<string, string>();

  /** Record one more in-link of a pending URL. */
  addContribution(p: Pending, c: Contribution): void {
    if (p.contributions === EMPTY_CONTRIBUTIONS) p.contributions = [c];
    else p.contributions.push(c);
  }

  pendingOnHost(host: string): Iterable<string> {
    return this.pendingByHost.get(host) ?? [];
  }

  /** Its state as plain data, live (see src/score/state-data.ts); the per-host index and interned hosts are rebuilt on restore. */
  state(): LinkBookState {
    return { v: 1, pending: this.pending, fetched: this.fetched, seq: this.seq };
  }

  restore(s: LinkBookState): void {
    refill(this.pending, s.pending);
    refill(this.fetched, s.fetched);
    this.seq = s.seq;
    this.pendingByHost.clear();
    this.hostKeys.clear();
    for (const p of this.pending.values()) {
      // The shared empty array is a sentinel (addContribution replaces it): a deserialised one would be shared and pushed to.
      if (p.contributions.length === 0) p.contributions = EMPTY_CONTRIBUTIONS;
      let host = this.hostKeys.get(p.host);
      if (host === undefined) this.hostKeys.set((host = p.host), host);
      p.host = host;
      if (this.byHost) {
        let set = this.pendingByHost.get(host);
        if (!set) this.pendingByHost.set(host, (set = new Set()));
        set.add(p.url);
      }
    }
  }
}

/** The most generous tunnel buffer over several in-links: undefined (a relevant parent) wins. */
export function bestBuffer(cs: readonly Contribution[]): number | undefined {
  let best = -1;
  for (const c of cs) {
    if (c.buffer === undefined) return undefined;
    best = Math.max(best, c.buffer);
  }
  return best < 0 ? undefined : best;
}
