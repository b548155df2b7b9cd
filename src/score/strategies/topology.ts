/**
 * `topology`: path relation, link coefficient, scale-free correction, tunnelling and relevance
 * feedback; W(u) accumulates over in-linking parents (METHODS §3.2, seed 000).
 */
import { scaleFreeCorrection } from '../structure.js';
import type { StrategyDefinition } from '../strategy.js';

export const topology: StrategyDefinition = {
  name: 'topology',
  description: 'path relation, link coefficient, scale-free correction, tunnelling, relevance feedback (§3.2)',
  create: () => ({
    traits: { tunnel: true, tunnelLiftsRel: true, feedback: 'all', periodicRescore: true, dropsRedundant: true },
    term(c, rel, tf, fb, env) {
      const t = scaleFreeCorrection([{ rel, omega: c.omega, bias: env.graph.bias(c.parent), validLinks: env.graph.pages.get(c.parent)!.validLinks }]) * tf * fb;
      return { term: t, prio: t };
    },
    aggregate(s, _p, _env, ex) {
      if (ex) ex.W = s.sumTerms;
      return s.sumTerms;
    },
    explainTerm(c, _prio, rel, env, ex) {
      ex.parentRel = rel;
      ex.wPath = c.wPath;
      ex.omega = c.omega;
      ex.scaleFree = env.graph.bias(c.parent);
      ex.validLinks = env.graph.pages.get(c.parent)!.validLinks;
    },
  }),
};
