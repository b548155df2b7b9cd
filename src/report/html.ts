/**
 * The crawl report: one self-contained HTML page (inline CSS, inline SVG charts, a few lines of
 * inline script for the search box) built as a pure function of a run's files, so it opens from
 * disk with no server and can be regenerated at any time (`npm start -- --report RUN_ID`).
 * Charts are hand-written SVG: a polyline per series is all we need, and a chart library would
 * mean a CDN or a large inline bundle.
 */
import type { CrawlLogEntry } from '../store/crawl-log.js';
import type { RunStateData } from '../store/run-state.js';
import type { ThreadRecord } from '../store/threads.js';

/** One relevant page as the engine stores it in the run's dataset. */
export interface DatasetItem {
  url: string;
  title?: string;
  publishTime?: string;
  topic?: string;
  relevance?: number;
  score?: number;
  fetchedAt?: string;
}

export interface ReportInput {
  runId: string;
  state?: RunStateData;
  log: CrawlLogEntry[];
  dataset: DatasetItem[];
  /** Reply threads of the run; undefined = the run kept no thread store. */
  threads?: ThreadRecord[];
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

const esc = (s: unknown): string =>
  String(s ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
const fmt = (x: number | undefined, d = 3): string => (x === undefined || !Number.isFinite(x) ? '–' : x.toFixed(d));
const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;
const hostOf = (url: string): string => {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
};

/** Counts shown at the top; the engine counts revisits as fetches too, and so do we. */
export function reportCounts(input: ReportInput): ReportCounts {
  const log = input.log;
  const relevant = log.filter((e) => e.decision === 'saved').length;
  const failed = log.filter((e) => e.decision === 'failed').length;
  const labelled = log.filter((e) => e.truth !== undefined);
  return {
    fetched: log.length,
    relevant,
    failed,
    harvestRate: log.length ? relevant / log.length : 0,
    truthHarvestRate: labelled.length ? labelled.filter((e) => e.truth).length / log.length : undefined,
    sites: new Set(log.map((e) => hostOf(e.url))).size,
    threads: input.threads?.length ?? 0,
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

/** Group failures (request errors and HTTP ≥ 400) by a reason with URLs and numbers blanked. */
export function failuresByReason(log: CrawlLogEntry[]): FailureRow[] {
  const by = new Map<string, FailureRow>();
  for (const e of log) {
    let reason: string;
    if (e.decision === 'failed') {
      reason = (e.reason ?? 'unknown error')
        .replace(/https?:\/\/\S+/g, 'URL')
        .replace(/\d+(\.\d+)?/g, 'N')
        .slice(0, 120);
      if (e.status >= 400) reason = `HTTP ${e.status}: ${reason}`;
    } else if (e.status >= 400) reason = `HTTP ${e.status}`;
    else continue;
    const row = by.get(reason) ?? { reason, count: 0, examples: [] };
    row.count++;
    if (row.examples.length < 3) row.examples.push(e.url);
    by.set(reason, row);
  }
  return [...by.values()].sort((a, b) => b.count - a.count || a.reason.localeCompare(b.reason));
}

interface Series {
  name: string;
  color: string;
  values: number[];
}

/** A line chart of series over [0, n) with a y axis from 0 to yMax. */
export function lineChartSvg(series: Series[], opts: { width?: number; height?: number; yMax?: number; yLabel?: (v: number) => string; xLabel?: string; title: string }): string {
  const w = opts.width ?? 720;
  const h = opts.height ?? 260;
  const m = { l: 52, r: 16, t: 16, b: 36 };
  const n = Math.max(1, ...series.map((s) => s.values.length));
  const yMax = opts.yMax ?? Math.max(1e-9, ...series.flatMap((s) => s.values));
  const x = (i: number) => m.l + (n === 1 ? 0 : (i / (n - 1)) * (w - m.l - m.r));
  const y = (v: number) => m.t + (1 - v / yMax) * (h - m.t - m.b);
  const yl = opts.yLabel ?? ((v: number) => fmt(v, 2));
  const grid = [0, 0.25, 0.5, 0.75, 1]
    .map((f) => {
      const v = f * yMax;
      return `<line x1="${m.l}" x2="${w - m.r}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}" class="grid"/><text x="${m.l - 6}" y="${(y(v) + 4).toFixed(1)}" text-anchor="end">${esc(yl(v))}</text>`;
    })
    .join('');
  const xt = [0, Math.floor((n - 1) / 2), n - 1]
    .filter((v, i, a) => a.indexOf(v) === i)
    .map((i) => `<text x="${x(i).toFixed(1)}" y="${h - m.b + 16}" text-anchor="middle">${i + 1}</text>`)
    .join('');
  const lines = series
    .filter((s) => s.values.length)
    .map((s) => `<polyline fill="none" stroke="${s.color}" stroke-width="2" points="${s.values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(' ')}"><title>${esc(s.name)}</title></polyline>`)
    .join('');
  const legend = series
    .map((s, i) => `<rect x="${w - m.r - 380 + i * 190}" y="${m.t + 4}" width="12" height="3" fill="${s.color}"/><text x="${w - m.r - 362 + i * 190}" y="${m.t + 9}">${esc(s.name)}</text>`)
    .join('');
  return `<svg class="chart" viewBox="0 0 ${w} ${h}" width="${w}" height="${h}" role="img" aria-label="${esc(opts.title)}">${grid}${xt}<text x="${(w + m.l) / 2}" y="${h - 4}" text-anchor="middle">${esc(opts.xLabel ?? '')}</text>${lines}${legend}</svg>`;
}

function topicLabel(state: RunStateData | undefined, id: string | undefined): string {
  if (!id) return '(no topic)';
  const topics = state?.config.topics ?? [];
  const i = topics.findIndex((t, k) => t.name === id || `topic${k + 1}` === id);
  if (i < 0) return id;
  const kw = topics[i].keywords.map((k) => (typeof k === 'string' ? k : k.term)).join(' ');
  return topics[i].name ? `${topics[i].name} (${kw})` : kw;
}

function relevantSection(input: ReportInput): string {
  // The dataset is the store of relevant pages; fall back to the log's saved entries.
  const items: DatasetItem[] = input.dataset.length
    ? input.dataset
    : input.log.filter((e) => e.decision === 'saved').map((e) => ({ url: e.url, title: e.title, publishTime: e.publishTime, topic: e.topic, relevance: e.relevance, score: e.score }));
  if (!items.length) return '<p class="empty">No relevant page was found in this run.</p>';
  const byTopic = new Map<string, DatasetItem[]>();
  for (const it of items) byTopic.set(it.topic ?? '', [...(byTopic.get(it.topic ?? '') ?? []), it]);
  return [...byTopic]
    .map(([topic, list]) => {
      list.sort((a, b) => (b.relevance ?? 0) - (a.relevance ?? 0));
      const rows = list
        .map((it) => `<tr><td><a href="${esc(it.url)}">${esc(it.title || it.url)}</a><div class="url">${esc(it.url)}</div></td><td>${esc(it.publishTime?.slice(0, 16).replace('T', ' ') ?? '–')}</td><td class="num">${fmt(it.relevance)}</td><td class="num">${fmt(it.score)}</td></tr>`)
        .join('');
      return `<h3>${esc(topicLabel(input.state, topic))} <small data-topic-count="${esc(topic)}">${list.length} pages</small></h3><table class="relevant"><thead><tr><th>Title</th><th>Published</th><th>Relevance</th><th>Score</th></tr></thead><tbody>${rows}</tbody></table>`;
    })
    .join('');
}

function threadsSection(input: ReportInput): string {
  if (!input.threads) return '<p class="empty" id="threads-empty">This run kept no thread store (no reply threads were tracked).</p>';
  if (!input.threads.length) return '<p class="empty" id="threads-empty">No reply thread was found in this run.</p>';
  const last = (t: ThreadRecord) => t.hotness[t.hotness.length - 1]?.h ?? 0;
  const list = [...input.threads].sort((a, b) => last(b) - last(a) || a.id.localeCompare(b.id)).slice(0, 20);
  const rows = list
    .map((t) => {
      const hs = t.hotness.map((p) => p.h);
      const max = Math.max(1e-9, ...hs);
      const pts = hs.map((v, i) => `${(hs.length === 1 ? 60 : (i / (hs.length - 1)) * 120).toFixed(1)},${(28 - (v / max) * 24).toFixed(1)}`).join(' ');
      const spark = `<svg class="spark" viewBox="0 0 120 30" width="120" height="30"><polyline fill="none" stroke="#d9480f" stroke-width="1.5" points="${pts}"/>${hs.length === 1 ? `<circle cx="60" cy="${(28 - 24).toFixed(1)}" r="2" fill="#d9480f"/>` : ''}</svg>`;
      const replies = t.visits[t.visits.length - 1]?.replyCount ?? 0;
      return `<tr><td><a href="${esc(t.url)}">${esc(t.url)}</a><div class="url">${esc(t.matcher)}</div></td><td class="num">${replies}</td><td class="num">${t.visits.length}</td><td class="num">${fmt(last(t), 2)}</td><td>${spark}</td></tr>`;
    })
    .join('');
  return `<table class="threads"><thead><tr><th>Thread</th><th>Replies</th><th>Visits</th><th>Hotness</th><th>Hotness over visits</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function breakdownSection(log: CrawlLogEntry[]): string {
  const rows = log
    .map((e) => {
      const comps = Object.entries(e.components ?? {})
        .map(([k, v]) => `<span class="comp">${esc(k)}=${fmt(v)}</span>`)
        .join(' ');
      return `<tr data-url="${esc(e.url.toLowerCase())}"><td><a href="${esc(e.url)}">${esc(e.url)}</a></td><td>${esc(e.decision)}</td><td class="num">${e.depth}</td><td class="num">${fmt(e.score)}</td><td class="num">${fmt(e.relevance)}</td><td>${comps || '–'}</td></tr>`;
    })
    .join('');
  return `<input id="score-search" type="search" placeholder="Filter by URL…" aria-label="Filter by URL"> <span id="score-shown">${log.length}</span> of ${log.length} shown
<table id="score-table"><thead><tr><th>URL</th><th>Decision</th><th>Depth</th><th>Score</th><th>Relevance</th><th>Score components</th></tr></thead><tbody>${rows}</tbody></table>`;
}

const CSS = `body{font:14px/1.45 system-ui,"Noto Sans CJK SC",sans-serif;margin:0;color:#1d1d1f;background:#f6f7f9}
header{background:#1f3a5f;color:#fff;padding:16px 28px}header h1{margin:0 0 4px;font-size:22px}header .meta{opacity:.85}
main{padding:8px 28px 40px;max-width:1200px}section{background:#fff;border:1px solid #e1e4e8;border-radius:8px;padding:12px 18px;margin:16px 0}
h2{font-size:17px;margin:4px 0 10px}h3{font-size:15px;margin:14px 0 6px}small{color:#666;font-weight:normal}
.stats{display:flex;flex-wrap:wrap;gap:12px}.stat{background:#fff;border:1px solid #e1e4e8;border-radius:8px;padding:10px 16px;min-width:120px}
.stat b{display:block;font-size:22px}.stat span.l{color:#666;font-size:12px}
table{border-collapse:collapse;width:100%}th,td{border-bottom:1px solid #eee;padding:4px 6px;text-align:left;vertical-align:top}th{background:#fafbfc;font-weight:600}
td.num{text-align:right;font-variant-numeric:tabular-nums}.url{color:#888;font-size:11px;word-break:break-all}a{color:#0b5cad;text-decoration:none}
.comp{display:inline-block;background:#eef3fb;border-radius:3px;padding:0 4px;margin:1px;font-size:12px}
.chart text{font-size:11px;fill:#555}.chart .grid{stroke:#e5e5e5}.empty{color:#777;font-style:italic}
#score-search{padding:4px 8px;width:340px;margin-bottom:6px}#score-table td:first-child{word-break:break-all;max-width:520px}`;

const SCRIPT = `const q=document.getElementById('score-search'),rows=[...document.querySelectorAll('#score-table tbody tr')],shown=document.getElementById('score-shown');
q.addEventListener('input',()=>{const v=q.value.trim().toLowerCase();let n=0;for(const r of rows){const ok=!v||r.dataset.url.includes(v);r.hidden=!ok;if(ok)n++}shown.textContent=n});`;

/** The report page. Pure: the same input always gives the same HTML. */
export function renderReport(input: ReportInput): string {
  const c = reportCounts(input);
  const judged = harvestCurve(input.log, (e) => e.decision === 'saved');
  const series: Series[] = [{ name: 'harvest rate (crawler judged)', color: '#1f6feb', values: judged }];
  if (c.truthHarvestRate !== undefined) series.push({ name: 'harvest rate (ground truth)', color: '#2da44e', values: harvestCurve(input.log, (e) => e.truth === true) });
  const chart = input.log.length
    ? lineChartSvg(series, { yMax: 1, yLabel: (v) => `${Math.round(v * 100)}%`, xLabel: 'pages fetched', title: 'Harvest rate over pages fetched' })
    : '<p class="empty">No page was fetched.</p>';
  const sites = topSites(input.log);
  const siteRows = sites
    .map((s) => `<tr><td>${esc(s.host)}</td><td class="num">${s.fetched}</td><td class="num">${s.relevant}</td><td class="num">${pct(s.fetched ? s.relevant / s.fetched : 0)}</td><td class="num">${fmt(s.meanRelevance)}</td></tr>`)
    .join('');
  const failures = failuresByReason(input.log);
  const failureRows = failures
    .map((f) => `<tr><td>${esc(f.reason)}</td><td class="num" data-failure-count>${f.count}</td><td>${f.examples.map((u) => `<div class="url">${esc(u)}</div>`).join('')}</td></tr>`)
    .join('');
  const st = input.state;
  const topics = st ? st.config.topics.map((t, i) => topicLabel(st, t.name ?? `topic${i + 1}`)).join(' | ') : '';
  const stat = (key: string, value: string, label: string) => `<div class="stat"><b data-stat="${key}">${esc(value)}</b><span class="l">${esc(label)}</span></div>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Crawl report ${esc(input.runId)}</title><style>${CSS}</style></head>
<body><header><h1>Crawl report <span id="run-id">${esc(input.runId)}</span></h1>
<div class="meta">${esc(topics)}${st ? ` · strategy ${esc(st.config.strategy)} · budget ${st.config.maxPages} · ${esc(st.status)} · started ${esc(st.startedAt)}${st.finishedAt ? ` · finished ${esc(st.finishedAt)}` : ''}` : ''} · generated ${esc(input.generatedAt.toISOString())}</div></header>
<main>
<div class="stats">${stat('fetched', String(c.fetched), 'pages fetched')}${stat('relevant', String(c.relevant), 'relevant (judged)')}${stat('harvest', pct(c.harvestRate), 'harvest rate')}${c.truthHarvestRate !== undefined ? stat('truth-harvest', pct(c.truthHarvestRate), 'harvest rate (truth)') : ''}${stat('failed', String(c.failed), 'failed')}${stat('sites', String(c.sites), 'sites')}${stat('threads', String(c.threads), 'reply threads')}</div>
<section id="harvest"><h2>Harvest rate over pages fetched</h2>${chart}</section>
<section id="relevant"><h2>Relevant pages by topic</h2>${relevantSection(input)}</section>
<section id="sites"><h2>Top sites</h2>${sites.length ? `<table><thead><tr><th>Site</th><th>Fetched</th><th>Relevant</th><th>Harvest</th><th>Mean relevance</th></tr></thead><tbody>${siteRows}</tbody></table>` : '<p class="empty">No site visited.</p>'}</section>
<section id="threads"><h2>Hot threads</h2>${threadsSection(input)}</section>
<section id="failures"><h2>Failures by reason</h2>${failures.length ? `<table><thead><tr><th>Reason</th><th>Count</th><th>Examples</th></tr></thead><tbody>${failureRows}</tbody></table>` : '<p class="empty">No failures.</p>'}</section>
<section id="breakdown"><h2>Score breakdown of every URL</h2>${breakdownSection(input.log)}</section>
</main><script>${SCRIPT}</script></body></html>
`;
}
