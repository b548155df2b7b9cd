/**
 * The sections that show the crawl at work, shared by the live dashboard and the report (its
 * final state): the frontier's best URLs with their score breakdown, the recent pages with
 * verdict and reason, the fetcher mix and memory, and the steering journal.
 */
import type { QueuedUrl } from '../frontier/types.js';
import type { CrawlLogEntry } from '../store/crawl-log.js';
import type { SteeringRecord } from '../store/steering-journal.js';
import { esc, fmt, pct, statCard } from './html.js';
import { memoryChart, type Sample } from './timeline.js';

/** Recent pages listed (and labelable, live). */
export const RECENT = 30;

/** The frontier's best URLs, each with its score's named parts and the --explain view a click away. */
export function frontierSection(top: QueuedUrl[], size: number, live = true): string {
  if (!top.length) return size ? `<p class="muted">${size} URLs queued, in Redis: the shared frontier keeps them in per-host queues and lists no best ones.</p>` : `<p class="empty">The frontier is empty.</p>`;
  const rows = top.map((e) => {
    const comps = Object.entries(e.components ?? {})
      .filter(([, v]) => v !== 0)
      .map(([k, v]) => `<span class="comp">${esc(k)}=${fmt(v)}</span>`)
      .join(' ');
    const buttons = live ? `<td class="nowrap"><button class="explain" data-action="explain" data-url="${esc(e.url)}" title="--explain">?</button><button data-action="block-host" data-url="${esc(e.url)}" title="Block this URL's host">⊘ host</button></td>` : '';
    return `<tr data-url="${esc(e.url)}"><td><a href="${esc(e.url)}" target="_blank" rel="noreferrer">${esc(e.url)}</a>${e.anchorText ? `<div class="url">“${esc(e.anchorText.slice(0, 80))}”</div>` : ''}</td><td class="num">${fmt(e.score)}</td><td class="num">${e.depth}</td><td>${comps || '–'}</td>${buttons}</tr>`;
  });
  return `<p class="muted">The ${top.length} best of ${size} queued URLs${live ? '' : ' when the crawl ended'}.</p><div class="scroll"><table id="frontier-table"><thead><tr><th>URL</th><th>Score</th><th>Depth</th><th>Score components</th>${live ? '<th></th>' : ''}</tr></thead><tbody>${rows.join('')}</tbody></table></div>`;
}

/** The last pages of the log, newest first; live, each analysed page offers a label and every page --explain. */
export function recentSection(log: CrawlLogEntry[], canLabel?: (url: string) => boolean): string {
  const recent = log.slice(-RECENT).reverse();
  if (!recent.length) return '<p class="empty">No page fetched yet.</p>';
  const live = canLabel !== undefined;
  const rows = recent.map((e) => {
    const buttons = canLabel?.(e.url)
      ? `<button class="lab yes" data-action="label" data-url="${esc(e.url)}" data-relevant="true" title="Relevant: a positive example of the judge">✓</button><button class="lab no" data-action="label" data-url="${esc(e.url)}" data-relevant="false" title="Not relevant: a negative example of the judge">✗</button>`
      : '';
    const actions = live ? `<td class="nowrap">${buttons}<button class="explain" data-action="explain" data-url="${esc(e.url)}" title="Why it was fetched: --explain">?</button></td>` : '';
    return `<tr data-url="${esc(e.url)}" data-decision="${esc(e.decision)}"><td>${esc(e.time.slice(11, 19))}</td><td><a href="${esc(e.url)}" target="_blank" rel="noreferrer">${esc(e.title || e.url)}</a><div class="url">${esc(e.url)}</div></td><td>${esc(e.decision)}${e.reason ? `<div class="url">${esc(e.reason)}</div>` : ''}</td><td class="num">${fmt(e.relevance)}</td><td>${esc(e.fetchedWith ?? '–')}</td>${actions}</tr>`;
  });
  return `<div class="scroll"><table id="recent-table"><thead><tr><th>At</th><th>Page</th><th>Verdict and reason</th><th>Rel.</th><th>Fetcher</th>${live ? '<th>Label</th>' : ''}</tr></thead><tbody>${rows.join('')}</tbody></table></div>`;
}

/** Pages by how they were fetched; a line naming none was fetched by the crawl's only fetcher (`fetcher`). */
export function fetcherMix(log: CrawlLogEntry[], fetcher?: string): Map<string, number> {
  const mix = new Map<string, number>();
  for (const e of log) {
    const how = e.fetchedWith ?? (e.decision === 'failed' ? 'failed' : (fetcher ?? 'not recorded'));
    mix.set(how, (mix.get(how) ?? 0) + 1);
  }
  return mix;
}

/** Memory (now, live; over time, where the samples carry it) and the fetcher mix. */
export function systemSection(mix: Map<string, number>, samples: Sample[], memory?: { rssMb: number; heapMb: number }): string {
  const total = [...mix.values()].reduce((a, b) => a + b, 0);
  const rows = [...mix]
    .sort((a, b) => b[1] - a[1])
    .map(([k, n]) => `<tr><td>${esc(k === 'browser' ? 'rendered (browser)' : k)}</td><td class="num" data-fetcher="${esc(k)}">${n}</td><td class="num">${pct(total ? n / total : 0)}</td></tr>`)
    .join('');
  const now = memory ? `<div class="stats">${statCard('rss', `${memory.rssMb.toFixed(0)} MB`, 'crawler resident memory')}${statCard('heap', `${memory.heapMb.toFixed(0)} MB`, 'JS heap used')}</div>` : '';
  return `${now}${memoryChart(samples)}<table id="fetcher-mix"><thead><tr><th>Fetched with</th><th>Pages</th><th>Share</th></tr></thead><tbody>${rows}</tbody></table>`;
}

/** The blocks in force and the journal of the user's actions (runs/<id>/steering.jsonl). */
export function steeringSection(blocks: string[], journal: SteeringRecord[]): string {
  const shown = blocks.length ? `<p id="blocks">Blocked: ${blocks.map((b) => `<code>${esc(b)}</code>`).join(' ')}</p>` : '<p id="blocks" class="muted">Nothing blocked.</p>';
  const rows = journal
    .slice(-12)
    .reverse()
    .map((r) => `<li><span class="muted">${esc(r.time.slice(11, 19))}</span> ${esc(r.action)} ${esc('maxPages' in r ? r.maxPages : 'pattern' in r ? r.pattern : 'url' in r ? `${r.relevant ? 'relevant' : 'not relevant'}: ${r.url}` : '')}</li>`)
    .join('');
  return `${shown}<ul id="journal">${rows || '<li class="muted">No action yet.</li>'}</ul>`;
}
