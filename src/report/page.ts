/**
 * The one page layout of a crawl, live and final: the dashboard serves it while the crawl runs
 * (sections replaced by server-sent updates) and the report is the same page in its final state,
 * written as one self-contained file (inline CSS, SVG and script; it opens from disk). Each
 * section is drawn by one function (src/report/html.ts, crawl-sections.ts, timeline.ts), so a
 * chart or table has one implementation for both.
 */
import { steeringToReapply, type SteeringRecord } from '../store/steering-journal.js';
import { CSS, esc, failuresSection, harvestSection, labelsSection, relevantSection, reportCounts, SCRIPT, sitesSection, statCards, threadsSection, breakdownSection, topicLabel, type ReportInput } from './html.js';
import { fetcherMix, frontierSection, recentSection, steeringSection, systemSection } from './crawl-sections.js';
import { harvestOverTimeChart, samplesFromLog, speedChart, type Timeline } from './timeline.js';

/** Sections in page order, with their headings; `wide` ones take the full width. */
export const SECTIONS: { id: string; title: string; wide?: boolean; finalOnly?: boolean }[] = [
  { id: 'speed', title: 'Pages per second' },
  { id: 'harvest-time', title: 'Harvest over time: judged, estimated (90% interval), truth' },
  { id: 'frontier', title: 'Frontier: the best queued URLs', wide: true },
  { id: 'recent', title: 'Recent pages: verdict, reason, your label', wide: true },
  { id: 'harvest', title: 'Harvest rate over pages fetched' },
  { id: 'sites', title: 'Sites' },
  { id: 'failures', title: 'Failures by reason' },
  { id: 'system', title: 'Memory and fetcher mix' },
  { id: 'threads', title: 'Reply threads: hotness and revisits', wide: true },
  { id: 'labels', title: 'Your labels' },
  { id: 'steering', title: 'Steering journal' },
  // The whole list of relevant pages is the report's: live, the recent pages show each verdict.
  { id: 'relevant', title: 'Relevant pages by topic', wide: true, finalOnly: true },
];

const LAYOUT_CSS = `.bar{display:flex;flex-wrap:wrap;gap:8px;align-items:center;background:#fff;border-bottom:1px solid #e1e4e8;padding:6px 20px;position:sticky;top:0;z-index:2}
.bar input{padding:3px 6px;width:90px}.bar input.wide{width:260px}button{cursor:pointer;padding:2px 8px;border:1px solid #c9d1d9;background:#f6f8fa;border-radius:4px;font:inherit}
button:hover{background:#eef3fb}button.lab.yes{color:#2b8a3e}button.lab.no{color:#c92a2a}#note{color:#555;margin-left:8px}#note.err{color:#c92a2a}
.dgrid{display:grid;grid-template-columns:repeat(2,minmax(0,1fr));gap:0 10px}.dgrid>.wide{grid-column:1/-1}@media (max-width:1000px){.dgrid{grid-template-columns:1fr}}
.nowrap{white-space:nowrap}#recent-table td:nth-child(2),#frontier-table td:first-child{word-break:break-all}
dialog{max-width:900px;width:90vw}dialog pre{white-space:pre-wrap;max-height:70vh;overflow:auto;font-size:12px}main{max-width:none}`;

export interface CrawlPageOptions {
  runId: string;
  /** The line under the heading (topics, and in the final state strategy, budget, times). */
  meta: string;
  /** The stat cards' HTML. */
  stats: string;
  /** Each section's HTML by id (SECTIONS); a section without HTML is left out of a final page. */
  sections: Record<string, string>;
  /** Live: the page served during the crawl (controls bar, section holders the updates replace). */
  live?: { bar: string; script: string };
  /** Final page only: the HTML after the sections (the score breakdown). */
  footer?: string;
}

export function crawlPage(o: CrawlPageOptions): string {
  const sections = SECTIONS.flatMap((s) => {
    const html = o.sections[s.id];
    if (o.live ? s.finalOnly : html === undefined) return [];
    // Live, each section's body sits in a holder the updates replace; final, it follows its heading.
    const body = o.live ? `<div id="s-${s.id}">${html ?? '<p class="empty">…</p>'}</div>` : html;
    return [`<section id="${s.id}"${s.wide ? ' class="wide"' : ''}><h2>${esc(s.title)}</h2>${body}</section>`];
  }).join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${o.live ? `Crawl ${esc(o.runId)} (live)` : `Crawl report ${esc(o.runId)}`}</title><style>${CSS}\n${LAYOUT_CSS}</style></head>
<body><header><h1>${o.live ? 'Crawl' : 'Crawl report'} <span id="run-id">${esc(o.runId)}</span>${o.live ? ' <small style="color:#cfe3ff">live</small>' : ''}</h1><div class="meta">${o.meta}</div></header>
${o.live?.bar ?? ''}
<main><div class="stats"${o.live ? ' id="s-stats"' : ''}>${o.stats}</div>
<div class="dgrid">${sections}</div>
${o.footer ?? ''}</main>
${o.live ? `<dialog id="explain"><form method="dialog"><button>Close</button></form><pre></pre></dialog>\n<script>${o.live.script}</script>` : `<script>${SCRIPT}</script>`}</body></html>
`;
}

/** What the dashboard adds to a run's report: its samples over time and the frontier at the end, and the steering journal. */
export interface LiveRecord {
  timeline?: Timeline;
  steering?: SteeringRecord[];
}

/**
 * The report: the crawl page in its final state. Pure: the same input always gives the same HTML.
 * A run crawled with the dashboard brings its samples (memory, the estimate over time) and its
 * frontier at the end; any other run has its charts over time read back from the log's times.
 */
export function renderReport(input: ReportInput & LiveRecord): string {
  const c = reportCounts(input);
  const st = input.state;
  const topics = st ? st.config.topics.map((t, i) => topicLabel(st, t.name ?? `topic${i + 1}`)).join(' | ') : '';
  const meta = `${esc(topics)}${st ? ` · strategy ${esc(st.config.strategy)} · budget ${st.config.maxPages} · ${esc(st.status)} · started ${esc(st.startedAt)}${st.finishedAt ? ` · finished ${esc(st.finishedAt)}` : ''}` : ''} · generated ${esc(input.generatedAt.toISOString())}`;
  const samples = input.timeline?.samples.length ? input.timeline.samples : samplesFromLog(input.log);
  const downloads = (input.exports ?? []).length
    ? `<div class="downloads" id="downloads">Relevant pages: ${(input.exports ?? []).map((f) => `<a href="${esc(f)}" download>${esc(f)}</a>`).join('')}</div>`
    : '';
  const onlyFetcher = st && st.config.fetcher !== 'adaptive' ? st.config.fetcher : undefined;
  const steering = input.steering ?? [];
  const frontier = input.timeline?.frontier;
  const sections: Record<string, string> = {
    speed: speedChart(samples),
    'harvest-time': harvestOverTimeChart(samples),
    ...(frontier ? { frontier: frontierSection(frontier.top, frontier.size, false) } : {}),
    recent: recentSection(input.log),
    harvest: harvestSection(input, c),
    sites: sitesSection(input.log),
    failures: failuresSection(input.log),
    system: systemSection(fetcherMix(input.log, onlyFetcher), samples),
    threads: threadsSection(input, c),
    ...(input.labels?.length ? { labels: labelsSection(input.labels) } : {}),
    ...(steering.length ? { steering: steeringSection(steeringToReapply(steering).blocks, steering) } : {}),
    relevant: downloads + relevantSection(input),
  };
  const footer = `<section id="breakdown"><details><summary>Score breakdown of every URL (${input.log.length})</summary>${breakdownSection(input.log)}</details></section>`;
  return crawlPage({ runId: input.runId, meta, stats: statCards(input, c), sections, footer });
}
