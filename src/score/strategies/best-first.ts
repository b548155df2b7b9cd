/** `best-first`: parent/anchor priority θ·rel(parent) + γ·cos(T, A_u) (METHODS §3.1, seed 003). */
import { parentAnchorPriority } from '../priority.js';
import type { StrategyDefinition } from '../strategy.js';

export const bestFirst: StrategyDefinition = {
  name: 'best-first',
  description: 'parent/anchor priority θ·rel(parent) + γ·cos(T, A_u) (§3.1)',
  create: () => ({
    traits: {},
    term(c, _rel, _t, _f, env) {
      const prio = parentAnchorPriority(c.parentRel, c.sim, env.o.theta, env.o.gamma);
      return { term: prio, prio };
    },
    explainTerm(_c, prio, _rel, _env, ex) {
      ex.parentPriority = prio;
    },
  }),
};
