/**
 * The crawler's own verdicts against the truth, per crawl: how many pages it judged relevant
 * against how many truly were, and the judge's precision and recall on those pages. Printed beside
 * every harvest figure (`bench:replay`, `npm run bench`), so a harvest gain that comes from a worse
 * judge cannot hide: the ordering of `combined` learns from the verdicts, and what the crawler
 * saves and reports is the verdict, not the truth.
 */

/** One fetched page: the truth, and the crawler's verdict (null: no verdict, e.g. a dead link). */
export interface VerdictRow {
  truth: boolean;
  verdict: boolean | null;
}

export interface VerdictAgreement {
  /** Pages the crawler judged relevant. */
  judged: number;
  /** Pages truly relevant among those fetched. */
  truly: number;
  /** Judged relevant and truly relevant. */
  both: number;
  /** both / judged; undefined when nothing was judged relevant. */
  precision?: number;
  /** both / truly; undefined when nothing fetched was relevant. */
  recall?: number;
  /** judged / truly; undefined when nothing fetched was relevant. */
  countRatio?: number;
}

export function verdictAgreement(rows: Iterable<VerdictRow>): VerdictAgreement {
  let judged = 0;
  let truly = 0;
  let both = 0;
  for (const r of rows) {
    if (r.truth) truly++;
    if (r.verdict) {
      judged++;
      if (r.truth) both++;
    }
  }
  return fromCounts(judged, truly, both);
}

/** Precision, recall and the count ratio of these counts (undefined where a denominator is 0). */
function fromCounts(judged: number, truly: number, both: number): VerdictAgreement {
  return {
    judged,
    truly,
    both,
    precision: judged ? both / judged : undefined,
    recall: truly ? both / truly : undefined,
    countRatio: truly ? judged / truly : undefined,
  };
}

/** The share by which the judged count may miss the true count and still count as right (±30%). */
export const COUNT_TOLERANCE = 0.3;

/** The judged count is within ±`tolerance` of the true count (none judged of none true counts as right). */
export function countWithin(a: VerdictAgreement, tolerance = COUNT_TOLERANCE): boolean {
  if (a.truly === 0) return a.judged === 0;
  return Math.abs(a.judged - a.truly) <= tolerance * a.truly;
}

/** Pooled over crawls: the pages' precision and recall, and how many crawls' counts are within the tolerance. */
export function pooledAgreement(crawls: readonly VerdictAgreement[], tolerance = COUNT_TOLERANCE): VerdictAgreement & { within: number; crawls: number } {
  const judged = crawls.reduce((s, a) => s + a.judged, 0);
  const truly = crawls.reduce((s, a) => s + a.truly, 0);
  const both = crawls.reduce((s, a) => s + a.both, 0);
  return {
    ...fromCounts(judged, truly, both),
    within: crawls.filter((a) => countWithin(a, tolerance)).length,
    crawls: crawls.length,
  };
}

const fix = (x: number | undefined, d = 2) => (x === undefined ? '–' : x.toFixed(d));

/** `judged 41 / true 37 (1.11×) P 0.71 R 0.78`: one crawl's verdicts in a line. */
export function formatAgreement(a: VerdictAgreement): string {
  return `judged ${a.judged} / true ${a.truly} (${a.countRatio === undefined ? '–' : `${a.countRatio.toFixed(2)}×`}) P ${fix(a.precision)} R ${fix(a.recall)}`;
}

/** A Markdown table, one row per crawl: topic, strategy, judged, true, ratio, within ±30%, precision, recall. */
export function agreementTableMd(rows: readonly { topic: string; strategy: string; a: VerdictAgreement }[], tolerance = COUNT_TOLERANCE): string {
  const out = [`| topic | strategy | judged relevant | truly relevant | judged / true | within ±${Math.round(tolerance * 100)}% | judge precision | judge recall |`, '|---|---|---:|---:|---:|:---:|---:|---:|'];
  for (const { topic, strategy, a } of rows) {
    out.push(`| ${topic} | ${strategy} | ${a.judged} | ${a.truly} | ${a.countRatio === undefined ? '–' : a.countRatio.toFixed(2)} | ${countWithin(a, tolerance) ? 'yes' : 'no'} | ${fix(a.precision)} | ${fix(a.recall)} |`);
  }
  return out.join('\n');
}
