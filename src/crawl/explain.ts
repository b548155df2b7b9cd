/**
 * `npm start -- --explain URL`: why a URL was fetched when it was (its score, the named
 * components, parent, depth, fetch position), or that it is still queued (with its rank), or
 * that it was dropped and why. Reads the run's crawl log and frontier journal; no crawl needed.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { topicNameOfId, type CrawlConfig } from '../config/schema.js';
import { UserError } from '../config/errors.js';
import { resolveRun, RunDir } from '../store/run-dir.js';
import { Frontier, uniqueKeyOf } from '../frontier/frontier.js';
import { FrontierJournal, type JournalOp } from '../frontier/journal.js';
import { CrawlLog } from '../store/crawl-log.js';
import { judgeLabels, readRunLabels } from './labels.js';

function fmt(x: number | undefined): string {
  if (x === undefined) return '-';
  return Number.isInteger(x) ? String(x) : x.toPrecision(4);
}

function components(c: Record<string, number> | undefined): string[] {
  if (!c || Object.keys(c).length === 0) return ['  components   (none recorded)'];
  return ['  components', ...Object.entries(c).map(([k, v]) => `    ${k.padEnd(16)} ${fmt(v)}`)];
}

/** The user's label of the page (labels.jsonl) and what the judge learned from it (its journal). */
function labelLines(runDir: string, key: string): string[] {
  const asked = readRunLabels(runDir).filter((l) => uniqueKeyOf(l.url) === key);
  if (asked.length === 0) return [];
  const learned = judgeLabels(runDir);
  const mine = learned.filter((l) => uniqueKeyOf(l.url) === key);
  const yes = learned.filter((l) => l.relevant).length;
  const l = asked.at(-1)!;
  const said = l.relevant === undefined ? 'skipped' : l.relevant ? 'relevant' : 'not relevant';
  const from = { terminal: 'in the terminal', file: 'in the labels file', library: "through the library's onLabelRequest", simulated: 'simulated', dashboard: 'in the dashboard' }[l.source];
  return [
    `  label        ${said} (${from}, ${l.time})${l.judgedRelevant !== undefined ? `; the judge had said ${l.judgedRelevant ? 'relevant' : 'not relevant'}` : ''}`,
    mine.length
      ? `  judge        a ${mine.at(-1)!.relevant ? 'positive' : 'negative'} example of the judge${mine.at(-1)!.topicId ? ` for topic ${mine.at(-1)!.topicId}` : ''} (its labelled examples: ${yes} positive, ${learned.length - yes} negative)`
      : `  judge        not one of the judge's examples (its labelled examples: ${yes} positive, ${learned.length - yes} negative)`,
  ];
}

/** The run's topics from its saved config (state.json), to name a topic as the summary does; none when unreadable. */
function runTopics(run: RunDir): CrawlConfig['topics'] {
  try {
    return (JSON.parse(readFileSync(run.file('state'), 'utf8')) as { config?: { topics?: CrawlConfig['topics'] } }).config?.topics ?? [];
  } catch {
    return [];
  }
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
      // As the page stated it: its own offset, a wall time, or a date; the time window compares its calendar date.
      ...(e.publishTime ? [`  published    ${e.publishTime} (page's calendar date ${e.publishTime.slice(0, 10)})`] : []),
      `  why then     it was the best-scored URL whose host could be fetched at that moment${h?.sk ? ` (${h.sk} better-scored host(s) were waiting for politeness)` : ''}`,
      `  score        ${fmt(e.score)}`,
      ...components(e.components),
      `  parent       ${e.parent ?? '(seed)'}`,
      `  depth        ${e.depth}`,
    );
    // fetcher: adaptive (src/fetch/adaptive/adaptive.ts): which path, and the evidence behind the choice
    if (e.fetchedWith) lines.push(`  fetched with ${e.fetchedWith}: ${e.fetchWhy ?? ''}`);
    // rendered pages (src/fetch/page-load.ts): how the page settled, and which document was analysed
    if (e.settled) lines.push(`  settled      ${e.settled}`);
    if (e.analysedFrom) lines.push(`  analysed     from the ${e.analysedFrom === 'served' ? 'document as served (not the rendering)' : 'rendered page'}`);
    if (e.thread) {
      const ev = e.thread.evidence;
      lines.push(`  reply thread ${e.thread.matcher}, confidence ${fmt(e.thread.confidence)}${ev ? `: ${ev.structure}; signals ${ev.signals.join(', ')}` : ''}`);
    }
    if (e.relevance !== undefined) lines.push(`  relevance    ${fmt(e.relevance)} (${e.relevant ? 'judged relevant' : 'judged not relevant'}${e.topic ? `, topic "${topicNameOfId(runTopics(run), e.topic)}"` : ''})`);
    lines.push(...labelLines(runDir, key));
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
  else lines.push('  not queued   the crawl never found a link to it, or a filter rejected the link before queueing (docs/methods.md §3.6)');
  return lines.join('\n');
}
