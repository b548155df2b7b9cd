/**
 * A scorer's state as one piece of plain data (`Scorer.state()` / `restore()`), assembled from
 * its stateful parts' own seams (./state-data.ts): the link graph, the site table, the link
 * book (queued and fetched URLs), the dead-link keys, the random generator, the last IPageRank
 * and the strategy's learners. Used by a late worker of a Redis crawl to restore another
 * worker's scorer and replay only the pages after it (src/cluster/redis-scorer-state.ts).
 */
import type { DeadLinkTracker } from './dead-links.js';
import type { SiteTable } from './filters.js';
import type { LinkBook } from './links.js';
import type { Strategy } from './strategy.js';
import type { LinkGraph } from './structure.js';
import type { ScorerState } from './types.js';
import { checkStateVersion } from './state-data.js';

export interface ScorerParts {
  graph: LinkGraph;
  sites: SiteTable;
  book: LinkBook;
  deadLinks: DeadLinkTracker;
  strategy: Strategy;
}

export function scorerState(p: ScorerParts, rng: readonly number[], ipr: Map<string, number>): ScorerState {
  return { v: 1, pages: p.graph.fetchedCount, rng: [...rng], ipr, graph: p.graph.state(), sites: p.sites.state(), book: p.book.state(), deadLinks: p.deadLinks.state(), strategy: p.strategy.state?.() };
}

/** Every version checked first, then every part restored: a refused state changes nothing. */
export function restoreScorerParts(p: ScorerParts, s: ScorerState): void {
  checkStateVersion('scorer', s, 1);
  checkStateVersion('link graph', s.graph, 1);
  checkStateVersion('site table', s.sites, 1);
  checkStateVersion('link book', s.book, 1);
  checkStateVersion('dead links', s.deadLinks, 1);
  if (!p.strategy.restore !== !s.strategy) throw new Error(`scorer snapshot: the strategy's learned state is ${s.strategy ? 'present' : 'missing'} (a snapshot of another strategy)`);
  if (s.strategy) p.strategy.checkState?.(s.strategy);
  if (!Array.isArray(s.rng) || !(s.ipr instanceof Map)) throw new Error('scorer snapshot: random generator or IPageRank missing');
  p.graph.restore(s.graph);
  p.sites.restore(s.sites);
  p.book.restore(s.book);
  p.deadLinks.restore(s.deadLinks);
  if (s.strategy) p.strategy.restore?.(s.strategy);
}
