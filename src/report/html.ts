/**
 * Long because: the report's sections, each a small pure function over the run's files.
 *
 * The sections of the crawl page (src/report/page.ts: the report, and the live dashboard), each
 * a pure function of a run's files, so the report opens from disk with no server and can be
 * regenerated at any time (`npm start -- --report RUN_ID`). Tables sort on a header click and the
 * score table filters by URL (a few lines of inline script). Charts are hand-written SVG: a
 * polyline per series is all we need, and a chart library would mean a CDN or a large inline
 * bundle.
 */
import type { LabelRecord } from '../crawl/labels.js';
import type { CrawlLogEntry } from '../store/crawl-log.js';
import { topicName } from '../config/schema.js';
import type { RunStateData } from '../store/run-state.js';
import type { SubRequestCounts } from '../store/sub-requests.js';
import type { ThreadRecord } from '../store/threads.js';
import type { HarvestEstimate } from '../topic/harvest-sample.js';
import { countLog, countThreads, failureReason, harvestRate, latestHotness } from '../store/counts.js';
import { readStamp } from '../extract/dates.js';
import { isConfident, pageCount, revisitCount } from '../store/threads.js';

/** One relevant page as the engine stores it in the run's dataset. */
export interface DatasetItem {
  url: string;
  title?: string;
  publishTime?: string;
  topic?: string;
  relevance?: number;
  score?: number;
  text?: string;
  fetchedAt?: string;
}

/** Another run of the same topic, for the comparison chart. */
export interface EarlierRun {
  runId: string;
  strategy: string;
  /** Judged harvest rate after each fetched page. */
  curve: number[];
}

export interface ReportInput {
  runId: string;
  state?: RunStateData;
  log: CrawlLogEntry[];
  dataset: DatasetItem[];
  /** Reply threads of the run; undefined = the run kept no thread store. */
  threads?: ThreadRecord[];
  /** The run's sub-request log counted (comment-API requests); undefined = no log. */
  subRequests?: SubRequestCounts;
  /** Earlier runs of the same topic (same keywords), newest first. */
  earlierRuns?: EarlierRun[];
  /** The crawl's own harvest estimate at its end (absent for runs from before it was kept). */
  harvestEstimate?: HarvestEstimate;
  /** The user's labels of pages (src/crawl/labels.ts: runs/<id>/labels.jsonl), oldest first; absent without any. */
  labels?: LabelRecord[];
  /** Export files written beside the report (relative links), e.g. relevant.csv. */
  exports?: string[];
  generatedAt: Date;
}

export interface ReportCounts {
  fetched: number;
  relevant: number;
  failed: number;
  harvestRate: number;
  truthHarvestRate?: number;
  sites: number;
  threads: number;
  hotThreads: number;
  hotThreshold: number;
  /** Hot lists take only threads the extractor is at least this sure of. */
  minConfidence: number;
}

export interface SiteRow {
  host: string;
  fetched: number;
  relevant: number;
  meanRelevance: number;
}

export interface FailureRow {
  reason: string;
  count: number;
  examples: string[];
}

export const esc = (s: unknown): string =>
  String(s ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
export const fmt = (x: number | undefined, d = 3): string => (x === undefined || !Number.isFinite(x) ? '–' : x.toFixed(d));
export const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;
const hostOf = (url: string): string => {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
};

/** The hot threshold of a run (its config, else METHODS §4's default). */
export function hotThresholdOf(state: RunStateData | undefined): number {
  return state?.config.threads?.hotThreshold ?? 15;
}

/** The confidence a thread needs to be listed as hot (its run's config; runs from before the setting: any). */
export function minConfidenceOf(state: RunStateData | undefined): number {
  return state?.config.threads?.minConfidence ?? 0;
}

/**
 * The crawl's harvest estimate beside the judged rate: with its interval, never called the truth,
 * and the topics the judge cannot learn from their seed pages named (src/topic/learnability.ts).
 */
function estimateStat(e: HarvestEstimate | undefined, stat: (key: string, value: string, label: string) => string): string {
  if (!e || e.pages === 0) return '';
  const unlearnable = e.unlearnable?.length ? `; NOT LEARNABLE from its seed pages: ${e.unlearnable.map((u) => u.topicId).join(', ')}` : '';
  return stat('harvest-estimate', pct(e.mean), `harvest estimate, 90% interval ${pct(e.low)}–${pct(e.high)} (an estimate, not the truth)${unlearnable}`);
}

/** Counts shown at the top: the same tally the engine keeps (src/store/counts.ts), over the run's log and thread store. */
export function reportCounts(input: ReportInput): ReportCounts {
  const c = countLog(input.log);
  const hotThreshold = hotThresholdOf(input.state);
  const minConfidence = minConfidenceOf(input.state);
  const t = countThreads(input.threads ?? [], hotThreshold, minConfidence);
  return {
    fetched: c.fetched,
    relevant: c.relevant,
    failed: c.failed,
    harvestRate: harvestRate(c),
    truthHarvestRate: c.truthRelevant !== undefined ? c.truthRelevant / c.fetched : undefined,
    sites: new Set(input.log.map((e) => hostOf(e.url))).size,
    threads: t.threadsFound,
    hotThreads: t.hotThreads,
    hotThreshold,
    minConfidence,
  };
}

/** Harvest rate after each fetched page: relevant so far / fetched so far. */
export function harvestCurve(log: CrawlLogEntry[], isRelevant: (e: CrawlLogEntry) => boolean): number[] {
  let hits = 0;
  return log.map((e, i) => {
    if (isRelevant(e)) hits++;
    return hits / (i + 1);
  });
}

/** Hosts by relevant pages, then pages fetched. */
export function topSites(log: CrawlLogEntry[], limit = 20): SiteRow[] {
  const by = new Map<string, { fetched: number; relevant: number; relSum: number; relN: number }>();
  for (const e of log) {
    const h = hostOf(e.url);
    const s = by.get(h) ?? { fetched: 0, relevant: 0, relSum: 0, relN: 0 };
    s.fetched++;
    if (e.decision === 'saved') s.relevant++;
    if (e.relevance !== undefined) {
      s.relSum += e.relevance;
      s.relN++;
    }
    by.set(h, s);
  }
  return [...by]
    .map(([host, s]) => ({ host, fetched: s.fetched, relevant: s.relevant, meanRelevance: s.relN ? s.relSum / s.relN : 0 }))
    .sort((a, b) => b.relevant - a.relevant || b.fetched - a.fetched || a.host.localeCompare(b.host))
    .slice(0, limit);
}

/** Failures grouped by the reason the counts use (failureReason), with example URLs. */
export function failuresByReason(log: CrawlLogEntry[]): FailureRow[] {
  const by = new Map<string, FailureRow>();
  for (const e of log) {
    const reason = failureReason(e);
    if (reason === undefined) continue;
    const row = by.get(reason) ?? { reason, count: 0, examples: [] };
    row.count++;
    if (row.examples.length < 3) row.examples.push(e.url);
    by.set(reason, row);
  }
  return [...by.values()].sort((a, b) => b.count - a.count || a.reason.localeCompare(b.reason));
}

export interface Series {
  name: string;
  color: string;
  values: number[];
  /** Drawn dashed (earlier runs). */
  dashed?: boolean;
}

const MAX_POINTS = 800;

/** A line chart of series over [0, n) with a y axis from 0 to yMax; `marks` are horizontal reference lines. */
export function lineChartSvg(
  series: Series[],
  opts: {
    width?: number;
    height?: number;
    yMax?: number;
    yLabel?: (v: number) => string;
    xLabel?: string;
    /** The label of point i on the x axis (default its number, 1-based). */
    xTick?: (i: number) => string;
    title: string;
    marks?: { y: number; label: string }[];
  },
): string {
  const w = opts.width ?? 720;
  const h = opts.height ?? 220;
  const m = { l: 52, r: 200, t: 12, b: 34 };
  const n = Math.max(1, ...series.map((s) => s.values.length));
  const yMax = opts.yMax ?? Math.max(1e-9, ...series.flatMap((s) => s.values), ...(opts.marks ?? []).map((k) => k.y * 1.1));
  const x = (i: number) => m.l + (n === 1 ? 0 : (i / (n - 1)) * (w - m.l - m.r));
  const y = (v: number) => m.t + (1 - Math.min(v, yMax) / yMax) * (h - m.t - m.b);
  const yl = opts.yLabel ?? ((v: number) => fmt(v, 1));
  const grid = [0, 0.25, 0.5, 0.75, 1]
    .map((f) => {
      const v = f * yMax;
      return `<line x1="${m.l}" x2="${w - m.r}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}" class="grid"/><text x="${m.l - 6}" y="${(y(v) + 4).toFixed(1)}" text-anchor="end">${esc(yl(v))}</text>`;
    })
    .join('');
  const xt = [0, Math.floor((n - 1) / 2), n - 1]
    .filter((v, i, a) => a.indexOf(v) === i)
    .map((i) => `<text x="${x(i).toFixed(1)}" y="${h - m.b + 16}" text-anchor="middle">${esc(opts.xTick ? opts.xTick(i) : i + 1)}</text>`)
    .join('');
  const marks = (opts.marks ?? [])
    .map((k) => `<line class="mark" x1="${m.l}" x2="${w - m.r}" y1="${y(k.y).toFixed(1)}" y2="${y(k.y).toFixed(1)}" stroke="#c92a2a" stroke-dasharray="4 3"/><text x="${w - m.r - 4}" y="${(y(k.y) - 4).toFixed(1)}" text-anchor="end" fill="#c92a2a">${esc(k.label)}</text>`)
    .join('');
  const lines = series
    .filter((s) => s.values.length)
    .map((s) => {
      // At most ~MAX_POINTS points a line (a long crawl's curve is redrawn every second live): every k-th, and the last.
      const k = Math.ceil(s.values.length / MAX_POINTS);
      const pts = s.values
        .flatMap((v, i) => (i % k === 0 || i === s.values.length - 1 ? [`${x(i).toFixed(1)},${y(v).toFixed(1)}`] : []))
        .join(' ');
      return `<polyline class="series" data-series="${esc(s.name)}" fill="none" stroke="${s.color}" stroke-width="${s.dashed ? 1.5 : 2}"${s.dashed ? ' stroke-dasharray="5 3"' : ''} points="${pts}"><title>${esc(s.name)}</title></polyline>`;
    })
    .join('');
  // Legend on the right, one row per series, so any number of runs fits.
  const legend = series
    .map((s, i) => `<line x1="${w - m.r + 12}" x2="${w - m.r + 30}" y1="${m.t + 8 + i * 16}" y2="${m.t + 8 + i * 16}" stroke="${s.color}" stroke-width="2"${s.dashed ? ' stroke-dasharray="5 3"' : ''}/><text x="${w - m.r + 36}" y="${m.t + 12 + i * 16}">${esc(s.name.length > 28 ? `${s.name.slice(0, 27)}…` : s.name)}</text>`)
    .join('');
  return `<svg class="chart" viewBox="0 0 ${w} ${h}" width="${w}" height="${h}" role="img" aria-label="${esc(opts.title)}">${grid}${xt}<text x="${(w - m.r + m.l) / 2}" y="${h - 4}" text-anchor="middle">${esc(opts.xLabel ?? '')}</text>${marks}${lines}${legend}</svg>`;
}

/** Topic id (`topic1`) or name → the label users know: the name with its keywords, or the keywords. */
export function topicLabel(state: RunStateData | undefined, id: string | undefined): string {
  if (!id) return '(no topic)';
  const topics = state?.config.topics ?? [];
  const i = topics.findIndex((t, k) => t.name === id || `topic${k + 1}` === id || topicName(t) === id);
  if (i < 0) return id;
  const kw = topics[i].keywords.map((k) => (typeof k === 'string' ? k : k.term)).join(' ');
  return topics[i].name ? `${topics[i].name} (${kw})` : kw;
}


/** Relevant pages: the run's dataset, or the log's saved entries when the dataset is gone. */
export function relevantItems(input: Pick<ReportInput, 'dataset' | 'log'>): DatasetItem[] {
  return input.dataset.length
    ? input.dataset
    : input.log.filter((e) => e.decision === 'saved').map((e) => ({ url: e.url, title: e.title, publishTime: e.publishTime, topic: e.topic, relevance: e.relevance, score: e.score }));
}

/**
 * A publishTime as the page states it: its own date and wall clock, and its offset when it gave one
 * (`2023-11-02 00:30 +09:00`, `2023-11-02 10:00`, `2023-11-02`).
 */
export function publishShown(iso: string | undefined): string {
  if (!iso) return '–';
  const off = /([+-]\d\d:\d\d|Z)$/.exec(iso)?.[1];
  return iso.slice(0, 16).replace('T', ' ') + (off && iso.length > 10 ? ` ${off}` : '');
}

/** Sort key: the UTC instant when the stamp has an offset, else its date and wall clock. */
export function publishSortKey(iso: string | undefined): string {
  const p = iso ? readStamp(iso) : undefined;
  if (!p) return '';
  return p.instant !== undefined ? new Date(p.instant).toISOString().slice(0, 19) : new Date(p.wallMs).toISOString().slice(0, p.hasTime ? 19 : 10);
}

/** A short excerpt of a page's text, cut at a word or sentence boundary. */
export function snippet(text: string | undefined, max = 160): string {
  const t = (text ?? '').replace(/\s+/g, ' ').trim();
  if (t.length <= max) return t;
  const cut = t.slice(0, max);
  const at = Math.max(cut.lastIndexOf(' '), cut.lastIndexOf('。'), cut.lastIndexOf('，'), cut.lastIndexOf(','));
  return `${at > max / 2 ? cut.slice(0, at + 1) : cut}…`;
}

/** A table whose columns sort on a header click: `data-sort` on a cell is its sort key. */
/** A column: its label, whether it sorts as numbers, and the tooltip that says what it shows. */
interface Column {
  label: string;
  num?: boolean;
  tip?: string;
}

export function sortableTable(id: string, cls: string, head: Column[], rows: string[]): string {
  const th = head.map((c, i) => `<th data-col="${i}"${c.num ? ' data-num' : ''}${c.tip ? ` title="${esc(c.tip)}"` : ''} tabindex="0" aria-sort="none">${esc(c.label)}</th>`).join('');
  return `<div class="scroll"><table id="${id}" class="sortable ${cls}"><thead><tr>${th}</tr></thead><tbody>${rows.join('')}</tbody></table></div>`;
}

const num = (v: number | undefined, d = 3) => `<td class="num" data-sort="${v === undefined || !Number.isFinite(v) ? '' : v}">${fmt(v, d)}</td>`;

const RELEVANCE_TIP = "The judge's relevance of the page's own text to the topic (0–1); at or above the threshold the page is saved as relevant.";
const SCORE_TIP = 'The frontier priority the URL had when it was fetched, from its link context and parent before the page was seen (see Score components); higher is fetched sooner.';
const RELEVANT_COLUMNS: Column[] = [
  { label: 'Title and text', tip: 'The page title, the opening of its text and its URL.' },
  { label: 'Published', tip: 'Publish time found on the page (–: none found).' },
  { label: 'Relevance', num: true, tip: RELEVANCE_TIP },
  { label: 'Score', num: true, tip: SCORE_TIP },
];

export function relevantSection(input: ReportInput): string {
  const items = relevantItems(input);
  if (!items.length) return '<p class="empty">No relevant page was found in this run.</p>';
  const byTopic = new Map<string, DatasetItem[]>();
  for (const it of items) byTopic.set(it.topic ?? '', [...(byTopic.get(it.topic ?? '') ?? []), it]);
  let k = 0;
  return [...byTopic]
    .map(([topic, list]) => {
      list.sort((a, b) => (b.relevance ?? 0) - (a.relevance ?? 0));
      const rows = list.map((it) => {
        const snip = snippet(it.text);
        return `<tr><td data-sort="${esc(it.title || it.url)}"><a href="${esc(it.url)}">${esc(it.title || it.url)}</a>${snip ? `<div class="snippet">${esc(snip)}</div>` : ''}<div class="url">${esc(it.url)}</div></td><td data-sort="${esc(publishSortKey(it.publishTime))}">${esc(publishShown(it.publishTime))}</td>${num(it.relevance)}${num(it.score)}</tr>`;
      });
      const table = sortableTable(`relevant-${++k}`, 'relevant', RELEVANT_COLUMNS, rows);
      return `<h3>${esc(topicLabel(input.state, topic))} <small data-topic-count="${esc(topic)}">${list.length} pages</small></h3>${table}`;
    })
    .join('');
}

function sparkline(hs: number[]): string {
  if (hs.length < 2) return '<span class="muted">1 visit</span>';
  const max = Math.max(1e-9, ...hs);
  const pts = hs.map((v, i) => `${((i / (hs.length - 1)) * 120).toFixed(1)},${(28 - (v / max) * 24).toFixed(1)}`).join(' ');
  return `<svg class="spark" viewBox="0 0 120 30" width="120" height="30"><polyline fill="none" stroke="#d9480f" stroke-width="1.5" points="${pts}"/></svg>`;
}

export function threadsSection(input: ReportInput, c: ReportCounts): string {
  if (!input.threads) return '<p class="empty" id="threads-empty">This run kept no thread store (no reply threads were tracked).</p>';
  if (!input.threads.length) return '<p class="empty" id="threads-empty">No reply thread was found in this run.</p>';
  const byHeat = [...input.threads].sort((a, b) => latestHotness(b) - latestHotness(a) || a.id.localeCompare(b.id));
  // Listed as hot only when the extractor is sure enough it is a thread (threads.minConfidence).
  const sure = byHeat.filter((t) => isConfident(t, c.minConfidence));
  const hot = sure.filter((t) => latestHotness(t) > c.hotThreshold);
  // Every thread's hotness at its latest visit, hottest first, against the threshold: how many are near it.
  const chart = lineChartSvg([{ name: 'hotness at latest visit', color: '#d9480f', values: byHeat.map(latestHotness) }], {
    height: 180,
    xLabel: 'threads, hottest first',
    title: 'Hotness of every thread',
    marks: [{ y: c.hotThreshold, label: `hot: H > ${c.hotThreshold}` }],
  });
  const listed = hot.length ? hot : sure.slice(0, 10);
  const unsure = byHeat.length - sure.length;
  const leftOut = unsure ? ` ${unsure} thread${unsure === 1 ? '' : 's'} below confidence ${c.minConfidence} ${unsure === 1 ? 'is' : 'are'} not listed.` : '';
  const caption = hot.length
    ? `<p id="threads-caption">${c.hotThreads} of ${c.threads} threads are hot (hotness H &gt; ${c.hotThreshold} at their latest visit, confidence ≥ ${c.minConfidence}); all ${c.hotThreads} are listed.${leftOut}</p>`
    : `<p id="threads-caption">None of the ${c.threads} threads is hot (H &gt; ${c.hotThreshold}); listed instead: the ${listed.length} hottest.${leftOut}</p>`;
  const rows = listed.map((t) => {
    const replies = t.visits[t.visits.length - 1]?.replyCount ?? 0;
    const pages = pageCount(t);
    const revisits = revisitCount(t);
    const why = [t.matcher, t.confidence !== undefined ? `confidence ${t.confidence.toFixed(2)}` : '', t.evidence?.structure ?? ''].filter(Boolean).join(' · ');
    return `<tr><td data-sort="${esc(t.url)}"><a href="${esc(t.url)}">${esc(t.url)}</a><div class="url">${esc(why)}</div></td><td class="num" data-sort="${replies}">${replies}</td><td class="num" data-sort="${pages}" title="${esc((t.pages ?? []).join('\n'))}">${pages}</td><td class="num" data-sort="${revisits}">${revisits}</td>${num(latestHotness(t), 2)}<td>${sparkline(t.hotness.map((p) => p.h))}</td></tr>`;
  });
  return `${caption}${chart}${sortableTable('threads-table', 'threads', THREAD_COLUMNS, rows)}`;
}

/** The user's labels: each page asked about (or labelled in a file), the answer, and the judge's verdict when it was fetched. */
export function labelsSection(labels: LabelRecord[]): string {
  const given = labels.filter((l) => l.relevant !== undefined);
  const yes = given.filter((l) => l.relevant).length;
  const disagreed = given.filter((l) => l.judgedRelevant !== undefined && l.judgedRelevant !== l.relevant).length;
  const rows = labels.map(
    (l) =>
      `<tr><td>${esc(l.time.slice(0, 19).replace('T', ' '))}</td><td><a href="${esc(l.url)}">${esc(l.title || l.url)}</a></td><td>${l.relevant === undefined ? 'skipped' : l.relevant ? 'relevant' : 'not relevant'}</td><td>${l.judgedRelevant === undefined ? '–' : l.judgedRelevant ? 'relevant' : 'not relevant'}</td><td>${esc(l.source)}</td></tr>`,
  );
  return (
    `<p>${given.length} page(s) labelled (${yes} relevant, ${given.length - yes} not relevant${labels.length > given.length ? `, ${labels.length - given.length} skipped` : ''}); the judge had called ${disagreed} of the asked ones the other way. Each label is a positive or negative example of the judge from then on, and moves its line θ.</p>` +
    sortableTable('labels-table', 'labels', [{ label: 'When' }, { label: 'Page' }, { label: 'Label' }, { label: 'Judge said' }, { label: 'From' }], rows)
  );
}
const THREAD_COLUMNS: Column[] = [
  { label: 'Thread', tip: 'The thread (its latest page), the matcher that recognised it, its confidence and the repeated structure found.' },
  { label: 'Replies', num: true, tip: "Replies known at the latest visit: the forum's own total when it shows one, else the posts seen minus the opening post." },
  { label: 'Pages', num: true, tip: "The thread's pages fetched (a thread split over several pages is one thread)." },
  { label: 'Revisits', num: true, tip: 'Later fetches of the thread, queued by its hotness (or pages such a fetch uncovered); its first reading of each page is not a revisit.' },
  { label: 'Hotness', num: true, tip: 'Hotness H at the latest visit (docs/methods.md §4): grows with the replies, decays with the age of the thread\'s recent activity; hot above the threshold.' },
  { label: 'Hotness over visits', tip: 'H after each fetch of the thread, first to latest.' },
];

export function breakdownSection(log: CrawlLogEntry[]): string {
  const rows = log.map((e) => {
    const comps = Object.entries(e.components ?? {})
      .map(([k, v]) => `<span class="comp">${esc(k)}=${fmt(v)}</span>`)
      .join(' ');
    return `<tr data-url="${esc(e.url.toLowerCase())}"><td data-sort="${esc(e.url)}"><a href="${esc(e.url)}">${esc(e.url)}</a></td><td>${esc(e.decision)}</td><td class="num" data-sort="${e.depth}">${e.depth}</td>${num(e.score)}${num(e.relevance)}<td>${comps || '–'}</td></tr>`;
  });
  return `<input id="score-search" type="search" placeholder="Filter by URL…" aria-label="Filter by URL"> <span id="score-shown">${log.length}</span> of ${log.length} shown
${sortableTable('score-table', 'scores', [
    { label: 'URL', tip: 'The URL fetched.' },
    { label: 'Decision', tip: 'saved: relevant; recorded: not relevant; failed, not-html and the rest: not analysed.' },
    { label: 'Depth', num: true, tip: 'Links followed from a seed to reach it.' },
    { label: 'Score', num: true, tip: SCORE_TIP },
    { label: 'Relevance', num: true, tip: RELEVANCE_TIP },
    { label: 'Score components', tip: 'The named parts of the score (link context, parent relevance, hotness…).' },
  ], rows)}`;
}

const PALETTE = ['#7048e8', '#e8590c', '#0c8599', '#c2255c', '#5c940d', '#868e96'];

export function harvestSection(input: ReportInput, c: ReportCounts): string {
  if (!input.log.length) return '<p class="empty">No page was fetched.</p>';
  const strategy = input.state?.config.strategy;
  const series: Series[] = [{ name: `this run${strategy ? ` (${strategy})` : ''}`, color: '#1f6feb', values: harvestCurve(input.log, (e) => e.decision === 'saved') }];
  if (c.truthHarvestRate !== undefined) series.push({ name: 'this run, ground truth', color: '#2da44e', values: harvestCurve(input.log, (e) => e.truth === true) });
  const earlier = (input.earlierRuns ?? []).slice(0, PALETTE.length);
  earlier.forEach((r, i) => series.push({ name: `${r.runId} (${r.strategy})`, color: PALETTE[i], values: r.curve, dashed: true }));
  const note = earlier.length
    ? `<p class="muted">Dashed: earlier runs of the same topic in this storage folder (judged harvest), to compare strategies.</p>`
    : '';
  return lineChartSvg(series, { yMax: 1, yLabel: (v) => `${Math.round(v * 100)}%`, xLabel: 'pages fetched', title: 'Harvest rate over pages fetched' }) + note;
}

export const CSS = `body{font:13px/1.4 system-ui,"Noto Sans CJK SC",sans-serif;margin:0;color:#1d1d1f;background:#f6f7f9}
header{background:#1f3a5f;color:#fff;padding:10px 20px}header h1{margin:0 0 2px;font-size:19px}header .meta{opacity:.85}header a{color:#cfe3ff}
main{padding:4px 20px 24px;max-width:1280px}section{background:#fff;border:1px solid #e1e4e8;border-radius:6px;padding:8px 14px;margin:10px 0}
h2{font-size:15px;margin:2px 0 6px}h3{font-size:14px;margin:8px 0 4px}small,.muted{color:#666;font-weight:normal}
.grid2{display:grid;grid-template-columns:minmax(0,3fr) minmax(0,2fr);gap:10px}.grid2>section{margin:10px 0 0}
@media (max-width:1000px){.grid2{grid-template-columns:1fr}}
.stats{display:flex;flex-wrap:wrap;gap:8px;margin-top:8px}.stat{background:#fff;border:1px solid #e1e4e8;border-radius:6px;padding:6px 12px;min-width:96px}
.stat b{display:block;font-size:19px}.stat span.l{color:#666;font-size:11px}
.scroll{max-height:360px;overflow:auto}
table{border-collapse:collapse;width:100%}th,td{border-bottom:1px solid #eee;padding:3px 6px;text-align:left;vertical-align:top}
th{background:#fafbfc;font-weight:600;position:sticky;top:0;cursor:pointer;user-select:none;white-space:nowrap}
th[aria-sort=ascending]::after{content:" ▲"}th[aria-sort=descending]::after{content:" ▼"}
td.num{text-align:right;font-variant-numeric:tabular-nums}.url{color:#888;font-size:11px;word-break:break-all}a{color:#0b5cad;text-decoration:none}
.snippet{color:#444;font-size:12px;margin:1px 0}
.comp{display:inline-block;background:#eef3fb;border-radius:3px;padding:0 4px;margin:1px;font-size:11px}
.chart{max-width:100%;height:auto}.chart text{font-size:11px;fill:#555}.chart .grid{stroke:#e5e5e5}.empty{color:#777;font-style:italic}
details>summary{cursor:pointer;font-weight:600;font-size:15px}
#score-search{padding:3px 8px;width:320px;margin:6px 0}#score-table td:first-child{word-break:break-all;max-width:520px}
.downloads a{margin-right:10px}`;

export const SCRIPT = `const q=document.getElementById('score-search'),rows=[...document.querySelectorAll('#score-table tbody tr')],shown=document.getElementById('score-shown');
q.addEventListener('input',()=>{const v=q.value.trim().toLowerCase();let n=0;for(const r of rows){const ok=!v||r.dataset.url.includes(v);r.hidden=!ok;if(ok)n++}shown.textContent=n});
const key=(td,isNum)=>{const s=td?(td.dataset.sort??td.textContent):'';if(!isNum)return s.toLowerCase();const n=parseFloat(s);return Number.isFinite(n)?n:-Infinity};
for(const th of document.querySelectorAll('table.sortable th')){const sort=()=>{const table=th.closest('table'),tb=table.tBodies[0],col=+th.dataset.col,isNum=th.hasAttribute('data-num');
const dir=th.getAttribute('aria-sort')==='descending'?'ascending':th.getAttribute('aria-sort')==='ascending'?'descending':(isNum?'descending':'ascending');
for(const o of table.querySelectorAll('th'))o.setAttribute('aria-sort','none');th.setAttribute('aria-sort',dir);const f=dir==='ascending'?1:-1;
const rs=[...tb.rows].sort((a,b)=>{const x=key(a.cells[col],isNum),y=key(b.cells[col],isNum);return x<y?-f:x>y?f:0});for(const r of rs)tb.appendChild(r)};
th.addEventListener('click',sort);th.addEventListener('keydown',(e)=>{if(e.key==='Enter')sort()})}`;

/** Top sites: fetched, relevant, harvest and mean relevance per host (the report's and the dashboard's). */
export function sitesSection(log: CrawlLogEntry[]): string {
  const sites = topSites(log);
  const siteRows = sites.map(
    (s) => `<tr><td>${esc(s.host)}</td><td class="num" data-sort="${s.fetched}">${s.fetched}</td><td class="num" data-sort="${s.relevant}">${s.relevant}</td>${num(s.fetched ? s.relevant / s.fetched : 0)}${num(s.meanRelevance)}</tr>`,
  );
  return sites.length ? sortableTable('sites-table', 'sites', [{ label: 'Site' }, { label: 'Fetched', num: true }, { label: 'Relevant', num: true }, { label: 'Harvest', num: true }, { label: 'Mean rel.', num: true }], siteRows) : '<p class="empty">No site visited.</p>';
}

/** Failures by reason with example URLs (the report's and the dashboard's). */
export function failuresSection(log: CrawlLogEntry[]): string {
  const failures = failuresByReason(log);
  const failureRows = failures.map(
    (f) => `<tr><td>${esc(f.reason)}</td><td class="num" data-failure-count data-sort="${f.count}">${f.count}</td><td>${f.examples.map((u) => `<div class="url">${esc(u)}</div>`).join('')}</td></tr>`,
  );
  return failures.length ? sortableTable('failures-table', 'failures', [{ label: 'Reason' }, { label: 'Count', num: true }, { label: 'Examples' }], failureRows) : '<p class="empty">No failures.</p>';
}

/** One stat card: `data-stat=key` on its value. */
export const statCard = (key: string, value: string, label: string): string => `<div class="stat"><b data-stat="${key}">${esc(value)}</b><span class="l">${esc(label)}</span></div>`;

/** The stat cards at the top (the report's, and the first of the dashboard's). */
export function statCards(input: ReportInput, c = reportCounts(input)): string {
  const stat = statCard;
  const threadStats = input.threads ? `${stat('threads', String(c.threads), 'reply threads found')}${stat('hot-threads', String(c.hotThreads), `hot threads (H > ${c.hotThreshold})`)}` : '';
  const sub = input.subRequests;
  const subStats = sub && sub.fetched + sub.failed + sub.refused > 0 ? stat('sub-requests', String(sub.fetched), `comment-API requests (${sub.failed} failed, ${sub.refused} refused)`) : '';
  return `${stat('fetched', String(c.fetched), 'pages fetched')}${stat('relevant', String(c.relevant), 'relevant (judged)')}${stat('harvest', pct(c.harvestRate), 'harvest rate (judged)')}${estimateStat(input.harvestEstimate, stat)}${c.truthHarvestRate !== undefined ? stat('truth-harvest', pct(c.truthHarvestRate), 'harvest rate (truth)') : ''}${stat('failed', String(c.failed), 'failed')}${stat('sites', String(c.sites), 'sites')}${threadStats}${subStats}`;
}
