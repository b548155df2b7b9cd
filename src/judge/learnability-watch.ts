/**
 * Says during the crawl, not only in the end summary, that a topic cannot be learned from its
 * seed pages (src/topic/learnability.ts): the user can stop and give better seed pages
 * or keywords instead of reading an unsupported judged harvest for the whole crawl. Checked every
 * `every` pages judged (the sampled pages' rel judged again: a few hundred cosines), each topic
 * said once; not before `every` pages, when the pages fetched are still the seeds' neighbours.
 */
import type { PageJudge } from './judge.js';
import { seedStanding } from '../topic/learnability.js';

export class LearnabilityWatch {
  private next: number;
  private readonly said = new Set<string>();

  constructor(private readonly every = 50) {
    this.next = every;
  }

  /** Lines for the crawl's log, about topics newly found not learnable (usually none). */
  notices(judge: PageJudge): string[] {
    const judged = judge.pagesJudged;
    if (judged < this.next) return [];
    this.next = judged + this.every;
    const seeds = judge.seedScores();
    if (![...seeds.keys()].some((id) => !this.said.has(id))) return [];
    const rels = new Map<string, number[]>();
    for (const p of judge.sampledPages) {
      if (!p.tf) continue;
      const r = judge.model.rejudge(p.tf, p.url);
      const of = rels.get(r.topicId);
      if (of) of.push(r.rel);
      else rels.set(r.topicId, [r.rel]);
    }
    const lines: string[] = [];
    for (const [id, scores] of seeds) {
      const s = seedStanding(scores, rels.get(id) ?? []);
      if (this.said.has(id) || !s || s.standsOut) continue;
      this.said.add(id);
      lines.push(
        `topic "${id}" NOT LEARNABLE from its seed pages: after ${judged} pages they score no higher than a typical page fetched (mean rank ${(100 * s.meanStanding).toFixed(0)}% of the pages, 50% = typical), so the judge cannot tell the topic's pages from the rest and its judged harvest is not evidence (the end summary's estimate says how little is known). Give seed pages typical of the topic, or more specific keywords`,
      );
    }
    return lines;
  }
}
