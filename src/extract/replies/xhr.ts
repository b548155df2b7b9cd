/**
 * Comments loaded by XHR (news comment widgets). The crawler captures JSON responses and hands
 * them over as {url, json}; we look for an array of objects that have a text field and an
 * author or time field, under the key names common comment APIs use.
 */
import type { Post, XhrCapture } from './types.js';
import { cleanText } from './dom.js';
import { resolveTimeText } from './time.js';

const TEXT_KEYS = ['content', 'text', 'body', 'message', 'comment', 'cmt_content', 'msg', 'contents'];
const AUTHOR_KEYS = ['user', 'author', 'nick', 'nickname', 'username', 'userName', 'user_name', 'name', 'screen_name', 'uname'];
const TIME_KEYS = ['time', 'created_at', 'createdAt', 'ctime', 'create_time', 'createTime', 'pubtime', 'date', 'timestamp', 'created', 'posted_at'];
const TOTAL_KEYS = ['total', 'count', 'totalCount', 'total_count', 'commentCount', 'comment_count', 'cmt_num', 'replyCount'];
const FLOOR_KEYS = ['floor', 'position', 'post_number'];

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function pick(o: Obj, keys: string[]): unknown {
  for (const k of keys) if (o[k] !== undefined && o[k] !== null && o[k] !== '') return o[k];
  return undefined;
}

function authorOf(o: Obj): string {
  const v = pick(o, AUTHOR_KEYS);
  if (typeof v === 'string') return cleanText(v);
  if (isObj(v)) {
    const n = pick(v, ['nick', 'nickname', 'name', 'username', 'userName', 'screen_name']);
    return typeof n === 'string' ? cleanText(n) : '';
  }
  return '';
}

function textValue(v: unknown): string {
  // Some APIs send HTML fragments; tags are stripped, entities are rare enough to leave.
  return typeof v === 'string' ? cleanText(v.replace(/<[^>]+>/g, ' ')) : '';
}

function toPost(o: Obj, ref: Date, timeZone: string): Post | null {
  const text = textValue(pick(o, TEXT_KEYS));
  if (!text) return null;
  const post: Post = { author: authorOf(o), text };
  const tv = pick(o, TIME_KEYS);
  if (typeof tv === 'string' || typeof tv === 'number') {
    const d = resolveTimeText(String(tv), ref, timeZone);
    if (d) post.time = d.toISOString();
  }
  const f = pick(o, FLOOR_KEYS);
  if (typeof f === 'number') post.floor = f;
  return post;
}

export interface XhrComments {
  posts: Post[];
  total?: number;
  /** Further pages of the comment API (when the URL has a page parameter and total says more exist). */
  pageUrls: string[];
}

/** Depth-first search for the first array that reads as comments; `holder` is the object owning it. */
function findList(v: unknown, holder: Obj | null, depth: number): { list: Obj[]; holder: Obj | null } | null {
  if (depth > 6) return null;
  if (Array.isArray(v)) {
    const objs = v.filter(isObj);
    if (objs.length && objs.length >= v.length / 2) {
      const good = objs.filter((o) => pick(o, TEXT_KEYS) !== undefined && (pick(o, AUTHOR_KEYS) !== undefined || pick(o, TIME_KEYS) !== undefined));
      if (good.length >= Math.max(1, objs.length / 2)) return { list: objs, holder };
    }
    return null;
  }
  if (isObj(v)) {
    for (const val of Object.values(v)) {
      const r = findList(val, v, depth + 1);
      if (r) return r;
    }
  }
  return null;
}

function totalOf(o: Obj | null): number | undefined {
  if (!o) return undefined;
  const t = pick(o, TOTAL_KEYS);
  if (typeof t === 'number' && Number.isFinite(t)) return t;
  if (typeof t === 'string' && /^\d+$/.test(t)) return Number(t);
  return undefined;
}

export function commentsFromXhr(captures: XhrCapture[], ref: Date, timeZone: string): XhrComments | null {
  const posts: Post[] = [];
  const pageUrls = new Set<string>();
  const seenApi = new Set<string>();
  let total: number | undefined;
  for (const c of captures) {
    const found = findList(c.json, null, 0);
    if (!found) continue;
    seenApi.add(c.url);
    for (const o of found.list) {
      const p = toPost(o, ref, timeZone);
      if (p) posts.push(p);
    }
    const t = totalOf(found.holder) ?? (isObj(c.json) ? totalOf(c.json) : undefined);
    if (t !== undefined) total = Math.max(total ?? 0, t);
    // Page-numbered APIs (`?page=N`): list the remaining pages so the crawler can fetch them.
    try {
      const u = new URL(c.url);
      const key = ['page', 'pn', 'p', 'pageNo', 'page_no'].find((k) => u.searchParams.has(k));
      const perPage = found.list.length;
      if (key && t !== undefined && perPage > 0) {
        const pages = Math.ceil(t / perPage);
        for (let i = 1; i <= pages; i++) {
          u.searchParams.set(key, String(i));
          pageUrls.add(u.href);
        }
      }
    } catch {
      // not a URL: no pagination
    }
  }
  if (!posts.length) return null;
  for (const s of seenApi) pageUrls.delete(s);
  return { posts, total, pageUrls: [...pageUrls] };
}
