/**
 * Frontier score bands, in one place. The frontier is one best-first queue, so "who goes
 * first" between seeds, due revisits of hot threads, pages of a relevant thread and ordinary
 * links is decided by which band their scores live in:
 *
 *   seed (score.seedScore, 1000)  >  revisit (100 + H)  >  thread page (≤ 20)  >  strategy (≤ 10)
 *
 * - seeds are fetched before anything else;
 * - a due revisit (METHODS §4) is queued at `revisit + H` (hotter first), kept below seeds;
 * - a relevant thread's other pages are as good as the page they were found on (at least 1),
 *   at most `threadPage`: a seed thread's pages outrank every ordinary link, never a revisit;
 * - a strategy's score (METHODS §3) stays below `strategy`, so no strategy (topology's sums and
 *   IPageRank values grow on hubs; one added with registerStrategy() may return anything) can
 *   jump over thread pages, revisits or seeds. Scores up to half of it are queued as they are
 *   (the built-in strategies' scores on ordinary pages are under 1.5); above that they are
 *   compressed into the upper half by a strictly increasing map, so strategies still order
 *   their URLs exactly as they scored them (a hard cap made ties of hubs and changed topology's
 *   and ipagerank's Wikispeedia results).
 * The config schema (src/config/schema.ts) refuses settings that break this order.
 */
export interface ScoreBands {
  /** Score of a seed URL (config `score.seedScore`). */
  seed: number;
  /** Base of a revisit's score: revisit + H (config `score.revisitScore`). */
  revisit: number;
  /** Most a thread page gets (config `score.threadPageMaxScore`). */
  threadPage: number;
  /** Most a strategy's score counts (config `score.strategyMaxScore`). */
  strategy: number;
}

export const DEFAULT_SCORE_BANDS: ScoreBands = { seed: 1000, revisit: 100, threadPage: 20, strategy: 10 };

/** The bands of a parsed config's `score` options. */
export function scoreBands(o: { seedScore: number; revisitScore: number; threadPageMaxScore: number; strategyMaxScore: number }): ScoreBands {
  return { seed: o.seedScore, revisit: o.revisitScore, threadPage: o.threadPageMaxScore, strategy: o.strategyMaxScore };
}

const ORDER: { band: keyof ScoreBands; field: string; name: string }[] = [
  { band: 'seed', field: 'seedScore', name: 'seed' },
  { band: 'revisit', field: 'revisitScore', name: 'revisit' },
  { band: 'threadPage', field: 'threadPageMaxScore', name: 'thread page' },
  { band: 'strategy', field: 'strategyMaxScore', name: 'strategy' },
];

/** Why these bands are out of order (one line), or undefined when seed > revisit > thread page > strategy. */
export function scoreBandsProblem(b: ScoreBands): { field: string; message: string } | undefined {
  for (let i = 0; i + 1 < ORDER.length; i++) {
    const hi = ORDER[i];
    const lo = ORDER[i + 1];
    if (!(b[hi.band] > b[lo.band])) {
      return {
        field: hi.field,
        message: `score bands must be ordered seed > revisit > thread page > strategy, but ${hi.field} ${b[hi.band]} is not above ${lo.field} ${b[lo.band]}`,
      };
    }
  }
  return undefined;
}

/**
 * A strategy's score as queued: unchanged up to half the band's top, above it compressed
 * strictly increasingly into (top/2, top): knee + h·x/(x + h), x = score − knee, h = top/2.
 */
export function strategyBandScore(b: ScoreBands, score: number): number {
  const knee = b.strategy / 2;
  if (!(score > knee)) return score;
  const x = score - knee;
  return knee + (knee * x) / (x + knee);
}

/** A due revisit's score: revisit + H, hotter first, and still below the seeds (H is unbounded in principle). */
export function revisitBandScore(b: ScoreBands, h: number): number {
  return Math.min(b.revisit + Math.max(0, h), b.revisit + (b.seed - b.revisit) * 0.999);
}

/**
 * A relevant thread's other pages: as good as the page found (at least 1), at most the thread
 * band's top. An off-topic thread's pages get no promotion (undefined): the scorer ranks them as
 * ordinary links (promoting them let off-topic threads eat the budget page by page).
 */
export function threadPageBandScore(b: ScoreBands, pageScore: number | undefined, relevant: boolean): number | undefined {
  if (!relevant) return undefined;
  return Math.min(b.threadPage, Math.max(1, pageScore ?? 0));
}
