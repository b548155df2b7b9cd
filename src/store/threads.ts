/**
 * Reply-thread store (METHODS §4 revisit queue), lowdb-backed. Writes are batched (every
 * `flushEvery` visits, or flush()) and atomic: lowdb's JSONFileSync writes through steno's
 * temp-file-and-rename, so a crash leaves either the previous or the new file, never half.
 * Sync I/O on purpose: a flush that returns has reached the disk, which is what crash safety needs.
 */
import { createHash } from 'node:crypto';
import { LowSync } from 'lowdb';
import { JSONFileSync } from 'lowdb/node';
import type { Post, ThreadEvidence, ThreadExtract } from '../extract/replies/types.js';
import { activeTimePoint, hotness, nextRevisitAt, type HotnessOptions, type RevisitOptions } from '../score/hotness.js';

export interface ThreadVisit {
  at: string;
  replyCount: number;
  /** The page fetched. */
  page?: string;
  /** A revisit: a later fetch of the thread (queued by its hotness, or a page such a fetch uncovered), not its first reading. */
  revisit?: boolean;
}

export interface ThreadRecord {
  id: string;
  url: string;
  matcher: string;
  /** The extractor's confidence that this is a reply thread (0..1), at the latest visit. */
  confidence?: number;
  /** What made it a thread: the repeated structure found and the reply signals (latest visit). */
  evidence?: ThreadEvidence;
  /** The thread's pages fetched, in the order first fetched (one thread however many pages it spans). */
  pages?: string[];
  firstSeen: string;
  visits: ThreadVisit[];
  posts: Post[];
  /** Dedup keys of `posts`, same order. */
  postKeys: string[];
  /** Key of the opening post (not a reply), when the thread has one. */
  openingKey: string | null;
  replyTimes: string[];
  /** Active time point t̄ (ISO), null until a reply time is known. */
  tBar: string | null;
  hotness: { at: string; h: number }[];
  /** Next revisit (ISO); null = no longer revisited (hotness fell below the floor). */
  nextVisit: string | null;
}

interface Data {
  version: 1;
  threads: Record<string, ThreadRecord>;
}

export interface ThreadStoreOptions {
  flushEvery?: number;
  hotness?: HotnessOptions;
  revisit?: RevisitOptions;
}

const COMMENT_MATCHERS = new Set(['wordpress-comments', 'xhr-comments']);

/** Dedup key: the floor when the forum shows one, else a hash of author + time + text. */
export function postKey(p: Post): string {
  if (p.floor !== undefined) return `#${p.floor}`;
  return createHash('sha1').update(`${p.author}\u0000${p.time ?? ''}\u0000${p.text}`).digest('hex').slice(0, 20);
}

/**
 * A thread without reply times decays from its opening post: an old thread nobody answered is
 * cold (below the floor), not as fresh as the moment we happened to look at it.
 */
function openingTime(rec: ThreadRecord): string | undefined {
  if (!rec.openingKey) return undefined;
  const i = rec.postKeys.indexOf(rec.openingKey);
  return i >= 0 ? rec.posts[i].time : undefined;
}

export class ThreadStore {
  private readonly db: LowSync<Data>;
  private pending = 0;
  private readonly flushEvery: number;

  constructor(
    readonly path: string,
    private readonly opts: ThreadStoreOptions = {},
  ) {
    this.db = new LowSync<Data>(new JSONFileSync<Data>(path), { version: 1, threads: {} });
    try {
      this.db.read();
    } catch (e) {
      throw new Error(`thread store ${path} is not readable JSON: ${(e as Error).message}`);
    }
    this.db.data ??= { version: 1, threads: {} };
    this.db.data.threads ??= {};
    this.flushEvery = Math.max(1, opts.flushEvery ?? 20);
  }

  get size(): number {
    return Object.keys(this.db.data.threads).length;
  }

  records(): ThreadRecord[] {
    return Object.values(this.db.data.threads);
  }

  get(id: string): ThreadRecord | undefined {
    return this.db.data.threads[id];
  }

  /** Merge a visit's extract: new posts, reply times, t̄, hotness, next revisit time. */
  recordVisit(thread: ThreadExtract, at: Date, url?: string, visit: { page?: string; revisit?: boolean } = {}): { newPosts: Post[]; hotness: number; nextVisit: Date | null } {
    const atIso = at.toISOString();
    let rec = this.db.data.threads[thread.threadId];
    if (!rec) {
      const first = thread.posts[0];
      const opening = first && !COMMENT_MATCHERS.has(thread.matcher) && (first.floor ?? 1) === 1 ? postKey(first) : null;
      rec = {
        id: thread.threadId, url: url ?? thread.pageUrls[0] ?? thread.threadId, matcher: thread.matcher,
        firstSeen: atIso, visits: [], posts: [], postKeys: [], openingKey: opening,
        replyTimes: [], tBar: null, hotness: [], nextVisit: null,
      };
      this.db.data.threads[thread.threadId] = rec;
    }
    if (url) rec.url = url;
    rec.matcher = thread.matcher;
    rec.confidence = thread.confidence;
    if (thread.evidence) rec.evidence = thread.evidence;
    if (visit.page && !(rec.pages ??= []).includes(visit.page)) rec.pages.push(visit.page);
    const known = new Set(rec.postKeys);
    const newPosts: Post[] = [];
    for (const p of thread.posts) {
      const k = postKey(p);
      if (known.has(k)) continue;
      known.add(k);
      rec.posts.push(p);
      rec.postKeys.push(k);
      newPosts.push(p);
      if (p.time && k !== rec.openingKey) rec.replyTimes.push(p.time);
    }
    const tBar = activeTimePoint(rec.replyTimes);
    rec.tBar = tBar ? tBar.toISOString() : null;
    // n: the forum's own total when larger than what we have seen (later pages not yet fetched).
    const seenReplies = rec.posts.length - (rec.openingKey ? 1 : 0);
    const n = Math.max(thread.replyCount, seenReplies);
    rec.visits.push({ at: atIso, replyCount: n, ...(visit.page ? { page: visit.page } : {}), ...(visit.revisit ? { revisit: true } : {}) });
    const h = hotness(n, tBar ?? openingTime(rec) ?? at, at, this.opts.hotness);
    rec.hotness.push({ at: atIso, h });
    const next = nextRevisitAt(h, at, this.opts.revisit);
    rec.nextVisit = next ? next.toISOString() : null;
    if (++this.pending >= this.flushEvery) this.flush();
    return { newPosts, hotness: h, nextVisit: next };
  }

  /** Hotness of a stored thread at time t (from its latest reply count and t̄). */
  hotnessAt(rec: ThreadRecord, t: Date): number {
    const last = rec.visits[rec.visits.length - 1];
    return hotness(last?.replyCount ?? 0, rec.tBar ?? openingTime(rec) ?? last?.at ?? t, t, this.opts.hotness);
  }

  /** Threads due for a revisit at `now`, hottest first. */
  dueRevisits(now: Date, limit = Infinity): ThreadRecord[] {
    const due = Object.values(this.db.data.threads).filter((r) => r.nextVisit !== null && Date.parse(r.nextVisit) <= now.getTime());
    return this.byHotness(due, now).slice(0, limit);
  }

  /** The n hottest threads at `at` (ordering by H at any common time is the same, see §4 formula). */
  hottest(n: number, at: Date = new Date()): ThreadRecord[] {
    return this.byHotness(Object.values(this.db.data.threads), at).slice(0, n);
  }

  private byHotness(list: ThreadRecord[], at: Date): ThreadRecord[] {
    return list
      .map((r) => ({ r, h: this.hotnessAt(r, at) }))
      .sort((a, b) => b.h - a.h || a.r.id.localeCompare(b.r.id))
      .map((x) => x.r);
  }

  /** Write everything recorded so far (atomic temp-file + rename). */
  flush(): void {
    this.db.write();
    this.pending = 0;
  }

  close(): void {
    if (this.pending) this.flush();
  }
}

/** Later fetches of a thread (revisits), not the fetches of its pages on first reading. */
export function revisitCount(rec: Pick<ThreadRecord, 'visits'>): number {
  return rec.visits.filter((v) => v.revisit).length;
}

/** Pages of a thread fetched (records written before pages were kept count their distinct visited pages, else one). */
export function pageCount(rec: Pick<ThreadRecord, 'pages' | 'visits'>): number {
  return rec.pages?.length ?? Math.max(1, new Set(rec.visits.map((v) => v.page).filter(Boolean)).size);
}

/** Whether a thread is sure enough to be listed among the hot ones (records written before confidence was kept pass). */
export function isConfident(rec: Pick<ThreadRecord, 'confidence'>, minConfidence: number): boolean {
  return (rec.confidence ?? 1) >= minConfidence;
}
