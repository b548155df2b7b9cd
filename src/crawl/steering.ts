/**
 * Steering a running crawl: pause, resume, stop, raise the budget, block a host or URL pattern.
 * The engine makes one `CrawlControl` per crawl and hands it to plugins (`CrawlContext.control`);
 * the dashboard is its user. Each action is journalled (./journal.ts) and the budget and blocks
 * are re-applied when the run is resumed, whoever resumes it.
 *
 * Kept narrow on purpose: the frontier's request manager (pause), the frontier's budget and
 * queue (budget, blocks), the fetch gate (blocks: new links, sub-requests and the adaptive
 * fetcher's own requests are refused) and the engine's stop.
 */
import { UserError } from '../config/errors.js';
import type { CrawlConfig } from '../config/schema.js';
import type { FetchGate } from '../fetch/gate/gate.js';
import type { CrawlFrontier } from '../frontier/frontier.js';
import type { QueuedUrl } from '../frontier/types.js';
import { appendSteering, parseBlock, readSteering, steeringToReapply, type BlockRule, type SteeringAction } from '../store/steering-journal.js';

/** What a local frontier offers beyond the shared interface (a Redis frontier's budget and queue live in Redis). */
interface SteerableFrontier extends CrawlFrontier {
  budget?: number;
  setBudget?(maxPages: number): void;
  queued?(): Iterable<QueuedUrl>;
}

export interface CrawlControlOptions {
  runDir: string;
  config: CrawlConfig;
  frontier: CrawlFrontier;
  gate: FetchGate;
  log?: (line: string) => void;
}

/** The state steering has set, as the dashboard shows it. */
export interface ControlState {
  paused: boolean;
  stopping: boolean;
  budget: number;
  blocks: string[];
}

export class CrawlControl {
  private readonly frontier: SteerableFrontier;
  private readonly rules: BlockRule[] = [];
  private stopWith?: (reason: string) => void;
  private readonly blockListeners: ((pattern: string) => void)[] = [];
  private stopped = false;

  constructor(private readonly o: CrawlControlOptions) {
    this.frontier = o.frontier as SteerableFrontier;
    // One gate check for every rule, added as rules come.
    o.gate.addBlock((url) => this.rules.find((r) => r.matches(url))?.pattern);
  }

  /**
   * The engine's stop, once the fetcher exists; and the journal's budget and blocks re-applied
   * (a resumed run: after its frontier is restored, so the restored queue is filtered too).
   */
  attach(stop: (reason: string) => void): void {
    this.stopWith = stop;
    const again = steeringToReapply(readSteering(this.o.runDir));
    if (again.budget !== undefined) this.applyBudget(again.budget);
    for (const b of again.blocks) this.applyBlock(b);
    if (again.budget !== undefined || again.blocks.length) this.o.log?.(`Steering re-applied from ${'steering.jsonl'}: ${[again.budget !== undefined ? `budget ${again.budget}` : '', again.blocks.length ? `blocked ${again.blocks.join(', ')}` : ''].filter(Boolean).join('; ')}`);
  }

  state(): ControlState {
    return { paused: this.frontier.requestManager.paused, stopping: this.stopped, budget: this.o.config.maxPages, blocks: this.rules.map((r) => r.pattern) };
  }

  /** Hand out nothing more until resumed; pages in flight finish. */
  pause(): void {
    if (this.frontier.requestManager.paused) return;
    this.frontier.requestManager.paused = true;
    this.journal({ action: 'pause' });
  }

  resume(): void {
    if (!this.frontier.requestManager.paused) return;
    this.frontier.requestManager.paused = false;
    this.journal({ action: 'resume' });
  }

  /** End the crawl as Ctrl-C does: pages in flight finish, state is saved, `--resume` continues it. */
  stop(): void {
    if (!this.stopWith) throw new UserError('stop: the crawl has not started fetching yet');
    if (this.stopped) return;
    this.stopped = true;
    this.journal({ action: 'stop' });
    this.frontier.requestManager.paused = false; // a paused crawl stops too
    this.stopWith('interrupted (stopped from the dashboard)');
  }

  /** A new page budget: higher than the pages handed out so far. */
  setBudget(maxPages: number): void {
    if (!Number.isInteger(maxPages) || maxPages < 1) throw new UserError(`budget: ${maxPages} is not a positive whole number of pages`);
    if (!this.frontier.setBudget) throw new UserError('budget: a crawl shared through Redis keeps its budget in Redis; it cannot be changed from here');
    if (maxPages <= this.frontier.pagesHandedOut) throw new UserError(`budget: ${maxPages} is not above the ${this.frontier.pagesHandedOut} pages handed out already`);
    this.applyBudget(maxPages);
    this.journal({ action: 'budget', maxPages });
  }

  /** Block a host or URL pattern (./journal.ts parseBlock): queued URLs it matches are dropped, new ones refused by the gate. */
  block(pattern: string): { pattern: string; dropped: number } {
    const rule = parseBlock(pattern);
    if (this.rules.some((r) => r.pattern === rule.pattern)) return { pattern: rule.pattern, dropped: 0 };
    const dropped = this.applyBlock(rule.pattern);
    this.journal({ action: 'block', pattern: rule.pattern });
    return { pattern: rule.pattern, dropped };
  }

  /**
   * Told every block, those in force now and each one to come: a gate outside this process (the
   * gate proxy every browser request goes through) must refuse what the crawler's own gate does.
   */
  onBlock(listener: (pattern: string) => void): void {
    this.blockListeners.push(listener);
    for (const r of this.rules) listener(r.pattern);
  }

  /** True when a URL is blocked (a page the dashboard shows). */
  isBlocked(url: string): boolean {
    try {
      const u = new URL(url);
      return this.rules.some((r) => r.matches(u));
    } catch {
      return false;
    }
  }

  /** A label given from the dashboard: journalled here beside the other actions (the judge and labels.jsonl take it in src/crawl/labels.ts). */
  noteLabel(url: string, relevant: boolean): void {
    this.journal({ action: 'label', url, relevant });
  }

  private applyBudget(maxPages: number): void {
    this.frontier.setBudget?.(maxPages);
    // The progress line, the summary's stop reason and state.json read the budget from the config.
    this.o.config.maxPages = maxPages;
  }

  private applyBlock(pattern: string): number {
    const rule = parseBlock(pattern);
    this.rules.push(rule);
    for (const tell of this.blockListeners) tell(rule.pattern);
    let dropped = 0;
    // Dropped through the frontier's journal, so --resume keeps them dropped.
    for (const e of [...(this.frontier.queued?.() ?? [])]) {
      let u: URL;
      try {
        u = new URL(e.url);
      } catch {
        continue;
      }
      if (rule.matches(u) && this.frontier.drop(e.uniqueKey, `blocked: ${rule.pattern}`)) dropped++;
    }
    return dropped;
  }

  private journal(a: SteeringAction): void {
    appendSteering(this.o.runDir, a);
    this.o.log?.(`Dashboard: ${a.action}${'maxPages' in a ? ` ${a.maxPages}` : ''}${'pattern' in a ? ` ${a.pattern}` : ''}${'url' in a ? ` ${a.url} ${a.relevant ? 'relevant' : 'not relevant'}` : ''}`);
  }
}
