/** `semantic`: child-link smoothing over Sim(T, A_u) (METHODS §3.3, seed 001). */
import { childLinkSmoothing } from '../priority.js';
import type { StrategyDefinition } from '../strategy.js';

export const semantic: StrategyDefinition = {
  name: 'semantic',
  description: 'child-link smoothing over Sim(T, A_u) (§3.3)',
  create: () => ({
    traits: { dropsRedundant: true },
    term(c, _rel, _t, _f, env) {
      const prio = childLinkSmoothing(c.sim, c.c, env.o.delta);
      return { term: prio, prio };
    },
    explainTerm(c, prio, _rel, _env, ex) {
      ex.smoothedSim = prio;
      if (c.c !== undefined) ex.pageLinkTerm = c.c;
    },
  }),
};
