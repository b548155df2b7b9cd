/** `bfs`: breadth first, discovery order (the baseline every harvest rate is compared to). */
import type { StrategyDefinition } from '../strategy.js';

/** FIFO encoded as a score decreasing in discovery order, so a max-heap pops oldest first. */
export function bfsScore(seq: number): number {
  return 1 / (1 + seq);
}

export const bfs: StrategyDefinition = {
  name: 'bfs',
  description: 'breadth first: discovery order',
  create: () => ({
    traits: { firstDiscoveryOnly: true, ignoresDeadLinks: true },
    before(p, _env, ex) {
      if (ex) ex.fifoOrder = p.seq;
      return { score: bfsScore(p.seq), best: p.contributions[0] };
    },
    term: () => ({ term: 0, prio: 0 }), // never reached: `before` answers
    explainTerm() {},
  }),
};
