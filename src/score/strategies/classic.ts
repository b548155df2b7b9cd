/** `classic`: URL filters, anchor stoplist, site table and site cutoff on the §3.1 priority (METHODS §3.6, seed 002). */
import { parentAnchorPriority } from '../priority.js';
import type { StrategyDefinition } from '../strategy.js';

/** A cut site's URLs are scored this much lower, below any other site's (§3.6). */
export const SITE_CUT_FACTOR = 1e-6;

export const classic: StrategyDefinition = {
  name: 'classic',
  description: 'URL filters, anchor stoplist, site table and site cutoff (§3.6)',
  create: (o) => ({
    traits: { tunnel: true, tunnelLiftsRel: true, periodicRescore: true, pathEnds: true, stoplist: true, dropsRedundant: true, siteCutoff: true },
    term(c, rel, tf, _fb, env) {
      const prio = parentAnchorPriority(rel, c.sim, env.o.theta, env.o.gamma);
      return { term: prio * c.stoplistWeight * tf, prio };
    },
    finish(score, _s, p, env, ex) {
      const siteFactor = 1 + env.o.siteBonus * env.sites.relevance(p.host);
      if (ex) ex.siteBonus = siteFactor;
      let out = score * siteFactor;
      // Site cutoff (§3.6): a cut site goes to the back of the queue rather than out of it. Dropped,
      // a web of one or two hosts ran dry after its 100th irrelevant page.
      if (env.sites.isCut(p.host, o.siteCutoff)) {
        out *= SITE_CUT_FACTOR;
        if (ex) ex.siteCutoff = SITE_CUT_FACTOR;
      }
      return { score: out };
    },
    explainTerm(c, prio, _rel, _env, ex) {
      ex.parentPriority = prio;
      ex.stoplist = c.stoplistWeight;
    },
  }),
};
