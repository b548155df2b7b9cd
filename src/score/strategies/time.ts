/** `time`: §3.1 priority with the time-aware factor prio · e^{Pr(t|T)} (METHODS §3.4, seed 003). */
import { parentAnchorPriority } from '../priority.js';
import type { StrategyDefinition } from '../strategy.js';

export const time: StrategyDefinition = {
  name: 'time',
  description: '§3.1 plus time-aware priority prio · e^{Pr(t|T)} (§3.4)',
  create: () => ({
    traits: { time: true, periodicRescore: true, dropsRedundant: true },
    term(c, _rel, _t, _f, env) {
      const prio = parentAnchorPriority(c.parentRel, c.sim, env.o.theta, env.o.gamma);
      return { term: prio, prio };
    },
    explainTerm(_c, prio, _rel, _env, ex) {
      ex.parentPriority = prio;
    },
  }),
};
