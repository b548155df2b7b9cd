/**
 * The score floor of a queued URL: one rule for both frontier back ends (the in-memory
 * `Frontier`, ./frontier.ts, through `requeued` below; the Redis one in `fcOffer`,
 * ./redis-scripts.ts, which mirrors it in Lua). The contract is stated in ./types.ts.
 *
 * A plugin's band offer (src/score/bands.ts: a relevant thread's other pages, a listing's sibling
 * threads) says "at least this": it carries a floor (score and components). Before, such an offer
 * was one more score, and the scorer's next re-score of the URL (its periodic cycle, a new in-link,
 * another worker's replay) replaced it: a "more informed" or later score wins, so a thread's
 * later pages and the sibling walk's next thread sank back among ordinary links at whatever the
 * learned weights said at that moment (live test-web crawls: 0.07–0.45 instead of the band's 1).
 * Now:
 *   - an offer with a floor only raises: the entry keeps the higher of the floors, and its score
 *     becomes at least that floor (a higher score it holds stays, with its components);
 *   - a score without a floor (the scorer's offers and re-scores) is taken or refused by the back
 *     end's usual rule (in memory: latest wins; in Redis: ownership and the stale-score rule),
 *     then lifted back to the floor if it fell below it, with the floor's components.
 * The scorer may so raise a URL above its band, never lower it below.
 */
import type { QueuedUrl, ScoreComponents, ScoreFloor } from './types.js';

/** What an offer or re-score brings to a queued URL. */
export interface ScoreOffer {
  score: number;
  components?: ScoreComponents;
  floor?: ScoreFloor;
}

/**
 * The entry after an offer (or re-score) of a queued URL. `take`: whether the back end's own
 * rule takes a floorless score (in memory always). Other fields (depth…) are the caller's.
 */
export function requeued(e: QueuedUrl, o: ScoreOffer, take = true): QueuedUrl {
  const out: QueuedUrl = { ...e };
  if (o.floor) {
    if (!out.floor || o.floor.score > out.floor.score) out.floor = o.floor;
  } else if (take) {
    out.score = o.score;
    out.components = o.components;
  }
  return lifted(out);
}

/** An entry whose score is below its floor, lifted to it (with the floor's components); a new entry goes through it too. */
export function lifted<T extends { score: number; components?: ScoreComponents; floor?: ScoreFloor }>(e: T): T {
  if (!e.floor || e.score >= e.floor.score) return e;
  return { ...e, score: e.floor.score, components: e.floor.components };
}
