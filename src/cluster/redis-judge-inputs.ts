/**
 * The page judge's learning shared by the workers of a Redis crawl: every judge's input (a
 * page's term frequencies with whether it was a seed or a list page, a page that can never be
 * relevant, a user's negative page: src/judge/judge.ts `JudgedPage`, what `--resume`'s judge
 * journal keeps) goes to one Redis stream, and each worker's judge replays the others' before it
 * judges a page of its own. So every judge has the whole crawl's IDF statistics, the seed pages
 * (the seed set D and the θ calibrated from them, whichever worker fetched them), the seed set's
 * growth, the topic term models and the learned classifier — as one process would, up to the
 * pages in flight. Without it a worker's judge learns from its own quarter of the pages, and
 * the workers that did not fetch a seed page have no seed set at all.
 *
 * Cost: one stream entry per judged page (its term frequencies, a few KB) and, per worker, the
 * judge's learning step for every page of the crawl (no text analysis: the terms are counted).
 */
import type { Redis } from 'ioredis';
import type { JudgedPage } from '../judge/judge.js';
import type { SparseVector } from '../text/vector.js';
import { SharedInputStream } from './redis-input-stream.js';

type Plain = Record<string, unknown> & { tf?: [string, number][] };

export function sharedJudgeInputs(redis: Redis, prefix: string, workerId: string): SharedInputStream<JudgedPage> {
  return new SharedInputStream<JudgedPage>(
    redis,
    `${prefix}judged`,
    workerId,
    (raw) => {
      const r = raw as Plain;
      return (r.tf ? { ...r, tf: new Map(r.tf) as SparseVector } : r) as JudgedPage;
    },
    (input) => ('tf' in input ? { ...input, tf: [...input.tf] } : input),
  );
}
