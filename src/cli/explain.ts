/**
 * `npm start -- --explain URL`: why a URL was fetched when it was (its score, the named
 * components, parent, depth, fetch position), or that it is still queued (with its rank), or
 * that it was dropped and why. Reads the run's crawl log and frontier journal; no crawl needed.
 */
import { resolve } from 'node:path';
import { UserError } from '../config/errors.js';
import { resolveRun, RunDir } from '../store/run-dir.js';
import { Frontier, uniqueKeyOf } from '../frontier/frontier.js';
import { FrontierJournal, type JournalOp } from '../frontier/journal.js';
import { CrawlLog } from '../store/crawl-log.js';

function fmt(x: number | undefined): string {
  if (x === undefined) return '-';
  return Number.isInteger(x) ? String(x) : x.toPrecision(4);
}

function components(c: Record<string, number> | undefined): string[] {
  if (!c || Object.keys(c).length === 0) return ['  components   (none recorded)'];
  return ['  components', ...Object.entries(c).map(([k, v]) => `    ${k.padEnd(16)} ${fmt(v)}`)];
}

export function explainUrl(storageDir: string, url: string, runId?: string): string {
  let key: string;
  try {
    key = uniqueKeyOf(new URL(url).href);
  } catch {
    throw new UserError(`--explain: "${url}" is not a valid URL`);
  }
  const id = resolveRun(resolve(storageDir), runId, '--explain');
  const run = new RunDir(storageDir, id);
  const runDir = run.dir;
  const log = CrawlLog.read(run.file('crawlLog'));
  const lines = [`${url}  (run ${id})`];

  const idx = log.findIndex((e) => uniqueKeyOf(e.url) === key);
  const { snapshot, ops } = FrontierJournal.read(runDir);
  if (idx >= 0) {
    const e = log[idx];
    // Politeness skips recorded at hand-out ('h' op): better-scored hosts that had to wait.
    const h = ops.find((o): o is Extract<JournalOp, { o: 'h' }> => o.o === 'h' && o.k === key);
    lines.push(
      `  fetched      #${idx + 1} of ${log.length} (${e.time}), decision ${e.decision}${e.reason ? ` (${e.reason})` : ''}`,
      `  why then     it was the best-scored URL whose host could be fetched at that moment${h?.sk ? ` (${h.sk} better-scored host(s) were waiting for politeness)` : ''}`,
      `  score        ${fmt(e.score)}`,
      ...components(e.components),
      `  parent       ${e.parent ?? '(seed)'}`,
      `  depth        ${e.depth}`,
    );
    // fetcher: adaptive (src/fetch/adaptive.ts): which path, and the evidence behind the choice
    if (e.fetchedWith) lines.push(`  fetched with ${e.fetchedWith}: ${e.fetchWhy ?? ''}`);
    if (e.thread) {
      const ev = e.thread.evidence;
      lines.push(`  reply thread ${e.thread.matcher}, confidence ${fmt(e.thread.confidence)}${ev ? `: ${ev.structure}; signals ${ev.signals.join(', ')}` : ''}`);
    }
    if (e.relevance !== undefined) lines.push(`  relevance    ${fmt(e.relevance)} (${e.relevant ? 'judged relevant' : 'judged not relevant'}${e.topic ? `, topic ${e.topic}` : ''})`);
    return lines.join('\n');
  }

  const f = new Frontier();
  f.restore({ snapshot, ops }, () => false);
  const q = f.get(key);
  if (q) {
    let rank = 1;
    for (const other of f.queued()) if (other.score > q.score || (other.score === q.score && other.queuedAt < q.queuedAt)) rank++;
    lines.push(
      `  still queued rank ${rank} of ${f.size} by score (not fetched: the budget or time ran out first, or the crawl is still running)`,
      `  score        ${fmt(q.score)}`,
      ...components(q.components),
      `  parent       ${q.parentUrl ?? '(seed)'}`,
      `  depth        ${q.depth}`,
    );
    return lines.join('\n');
  }
  const why = f.dropReason(key);
  if (why) {
    lines.push(`  dropped      ${why} (never fetched)`);
    return lines.join('\n');
  }
  if (f.hasSeen(url)) lines.push('  seen         a redirect target or a duplicate of a fetched URL (not fetched under this URL)');
  else lines.push('  never queued the crawl did not discover it, or a filter rejected it before queueing (see METHODS §3.6)');
  return lines.join('\n');
}
