/**
 * What the demo and `--resume` share: the demo records its test web's origins in its run folder
 * (runs/<id>/testweb.json), and `--resume` of such a run serves the test web again at exactly
 * those origins, so the URLs the run queued answer again (before, they all failed as refused
 * connections). Also the end of a crawl as the CLI reports it: exit code 3 and the command that
 * continues a run stopped at the memory ceiling, or by Ctrl-C.
 */
import { commandName } from '../util/command-name.js';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { UserError } from '../config/errors.js';
import type { CrawlPlugin, CrawlResult } from '../crawl/types.js';
import { RUN_FILES } from '../store/run-dir.js';
import type { TestWeb } from '../testweb/index.js';

export interface DemoRecord {
  /** Site key → origin the demo's test web served it at. */
  origins: Record<string, string>;
}

/** A plugin that writes the demo's test-web origins into the run folder before the first page. */
export function recordDemoWeb(web: TestWeb): CrawlPlugin {
  return {
    name: 'demo-web',
    beforeRun(ctx) {
      const path = join(ctx.runDir, RUN_FILES.testweb);
      if (existsSync(path)) return; // a resumed demo keeps its record
      const record: DemoRecord = { origins: Object.fromEntries(web.sites.map((s) => [s.key, s.origin])) };
      writeFileSync(`${path}.tmp`, JSON.stringify(record, null, 2));
      renameSync(`${path}.tmp`, path); // whole or absent, never half
    },
  };
}

/**
 * The demo's ground truth, each page once: a fetch is relevant by the test web's truth only the
 * first time the crawl fetches its page (`TestWeb.pageOf`: a forum thread's "only this author"
 * views are the thread page). The crawler never counts a near-duplicate as a new relevant page
 * (src/text/near-duplicate.ts), so a truth counting every URL would hold its honest figure
 * against repeat fetches. `fetched`: the URLs a resumed run fetched before, in order.
 * Called once per crawl-log entry, in order (src/crawl/engine.ts `record`).
 */
export function demoTruth(web: TestWeb, topicId: string, fetched: Iterable<string> = []): (url: string) => boolean {
  const seen = new Set<string>();
  for (const u of fetched) seen.add(web.pageOf(u) ?? u);
  return (url) => {
    const page = web.pageOf(url) ?? url;
    if (seen.has(page)) return false;
    seen.add(page);
    return web.isRelevant(url, topicId);
  };
}

/** The demo record of a run, or undefined when the run was not a demo. */
export function readDemoRecord(runDir: string): DemoRecord | undefined {
  const path = join(runDir, RUN_FILES.testweb);
  if (!existsSync(path)) return undefined;
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as DemoRecord;
  } catch (e) {
    throw new UserError(`--resume: cannot read ${path}: ${(e as Error).message}`);
  }
}

/** Start the demo's test web again at the origins of the run being resumed (one line when one is taken). */
export async function restartDemoWeb(record: DemoRecord, runId: string): Promise<TestWeb> {
  const { startTestWeb } = await import('../testweb/index.js');
  try {
    return await startTestWeb({ origins: record.origins });
  } catch (e) {
    throw new UserError(`--resume: run ${runId} crawled the demo's test web, which must answer at the same addresses again: ${(e as Error).message}`);
  }
}

/**
 * The CLI's exit code for a finished crawl: 0, or 3 when it stopped at the memory ceiling; then
 * the command that continues it goes to stderr (with a higher ceiling when one was set: the
 * saved config would stop the resumed run at once).
 */
export function crawlExitCode(result: CrawlResult, opts: { storage: string; ceilingWasSet: boolean; watch?: boolean }): number {
  const m = result.memoryStop;
  const storage = opts.storage !== 'storage' ? ` --storage ${opts.storage}` : '';
  // Ctrl-C ends a crawl cleanly (exit 0: with --watch it is the way to end one); say how to go on.
  if (!m && result.stopReason === 'interrupted (Ctrl-C)') {
    process.stderr.write(
      `Stopped by Ctrl-C. The run's state is saved; nothing is lost.\n` + `Continue it with:  ${commandName()} --resume ${result.runId}${storage}${opts.watch ? ' --watch' : ''}\n`,
    );
  }
  if (!m) return 0;
  const tree = m.of === 'process tree';
  const ceiling = opts.ceilingWasSet && tree ? ` --max-rss-mb ${m.ceilingMb * 2}` : '';
  process.stderr.write(
    `Stopped at the memory ceiling: ${tree ? 'the crawl (Node and Chromium)' : "Node's own process"} ${m.rssMb} MB resident, ceiling ${m.ceilingMb} MB. The run's state is saved; nothing is lost.\n` +
      `Continue it with:  ${commandName()} --resume ${result.runId}${storage}${ceiling}\n` +
      (tree ? `(--max-rss-mb sets the ceiling of the whole crawl, Chromium included; 0 = none)\n` : `(Node's ceiling is 90% of its heap limit: raise it with NODE_OPTIONS=--max-old-space-size=MB)\n`),
  );
  return 3;
}
