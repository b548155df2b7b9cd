/**
 * The user's negative pages (`negativeSeeds`, `--negative`): fetched once through the
 * fetch gate and taught to the page judge (./judge.ts) as examples of what a topic is not.
 */
import type { CrawlConfig } from '../config/schema.js';
import { analyzePage } from '../extract/page.js';
import type { FetchGate } from '../fetch/gate/gate.js';
import { gatedFetchText } from '../fetch/gate/gated-request.js';
import { ROBOTS_TOKEN } from '../fetch/gate/gate-proxy.js';
import type { RobotsCache } from '../frontier/robots.js';
import type { PageJudge } from './judge.js';

/**
 * Fetch each topic's negative pages (`negativeSeeds`, `--negative`) once, through the fetch gate
 * and robots.txt like any fetch, and teach them to the judge as negative examples. A page that
 * cannot be fetched is skipped with a notice: the crawl can go on without it.
 */
export async function learnNegativeSeeds(config: CrawlConfig, judge: PageJudge, gate: FetchGate, robots: RobotsCache | undefined, notice: (line: string) => void): Promise<void> {
  for (const [i, topic] of config.topics.entries()) {
    for (const url of topic.negativeSeeds ?? []) {
      gate.allowOrigin(url); // named by the user, like a seed
      const blocked = await robots?.block(url);
      const answer = blocked ? undefined : await gatedFetchText(gate, url, { timeoutMs: 15_000, userAgent: ROBOTS_TOKEN });
      const got = answer && 'status' in answer ? answer : undefined;
      if (!got || got.status < 200 || got.status >= 300 || !got.text) {
        const failure = answer && 'failure' in answer ? answer.failure : 'unreachable or refused by the fetch gate';
        notice(`negative page skipped: ${url} (${blocked ?? (got ? `HTTP ${got.status}` : failure)})`);
        continue;
      }
      judge.addNegativeExample(analyzePage({ html: got.text, url, fetchedAt: new Date() }), judge.model.topics[i].id);
      notice(`negative example learned: ${url}`);
    }
  }
}
