/** `ipagerank`: IPageRank of the unfetched URL with RW/RWB link admission (METHODS §3.5, seed 004). */
import { parentAnchorPriority } from '../priority.js';
import type { StrategyDefinition } from '../strategy.js';

export const ipagerank: StrategyDefinition = {
  name: 'ipagerank',
  description: 'IPageRank and RW/RWB link relevance (§3.5)',
  create: () => ({
    traits: { ipagerank: true, periodicRescore: true, rwb: true, dropsRedundant: true },
    // The in-link term only picks the best in-link (for the log); the score is the IPR below.
    term(c, _rel, _t, _f, env) {
      const prio = parentAnchorPriority(c.parentRel, c.sim, env.o.theta, env.o.gamma);
      return { term: prio, prio };
    },
    aggregate(_s, p, env, ex) {
      const v = env.unfetchedIpr(p);
      if (ex) ex.ipagerank = v;
      return v;
    },
    explainTerm(_c, prio, _rel, _env, ex) {
      ex.parentPriority = prio;
    },
  }),
};
