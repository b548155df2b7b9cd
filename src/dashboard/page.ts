/**
 * The dashboard's page: the report's look (its CSS), a bar of controls, and a section per view
 * part. Live, a few lines of script take each server-sent update and replace the sections that
 * changed; written at the end of the crawl, the same page holds its final state and no script
 * beyond the report's table sorting (it opens from disk like the report).
 */
import { CSS, esc } from '../report/html.js';
import type { DashboardView } from './state.js';

/** Section ids in page order, with their headings; `wide` ones take the full width. */
const SECTIONS: { id: string; title: string; wide?: boolean }[] = [
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
];

const DASH_CSS = `.bar{display:flex;flex-wrap:wrap;gap:8px;align-items:center;background:#fff;border-bottom:1px solid #e1e4e8;padding:6px 20px;position:sticky;top:0;z-index:2}
.bar input{padding:3px 6px;width:90px}.bar input.wide{width:260px}button{cursor:pointer;padding:2px 8px;border:1px solid #c9d1d9;background:#f6f8fa;border-radius:4px;font:inherit}
button:hover{background:#eef3fb}button.lab.yes{color:#2b8a3e}button.lab.no{color:#c92a2a}#note{color:#555;margin-left:8px}#note.err{color:#c92a2a}
.dgrid{display:grid;grid-template-columns:repeat(2,minmax(0,1fr));gap:0 10px}.dgrid>.wide{grid-column:1/-1}@media (max-width:1000px){.dgrid{grid-template-columns:1fr}}
.nowrap{white-space:nowrap}#recent-table td:nth-child(2),#frontier-table td:first-child{word-break:break-all}
dialog{max-width:900px;width:90vw}dialog pre{white-space:pre-wrap;max-height:70vh;overflow:auto;font-size:12px}main{max-width:none}`;

/** The client: server-sent updates into the sections, and the controls' requests (the token rides along). */
const CLIENT = `const token=new URLSearchParams(location.search).get('token')||'';const q='token='+encodeURIComponent(token);
const note=(t,err)=>{const n=document.getElementById('note');n.textContent=t;n.className=err?'err':''};
window.dashboardUpdates=0;let paused=false;
const es=new EventSource('events?'+q);
es.onmessage=(ev)=>{const v=JSON.parse(ev.data);for(const[id,html]of Object.entries(v.sections)){const el=document.getElementById('s-'+id);if(el&&el.dataset.last!==html){el.innerHTML=html;el.dataset.last=html}}
paused=v.paused;document.getElementById('pause').textContent=paused?'Resume':'Pause';document.body.dataset.status=v.status;document.body.dataset.fetched=v.fetched;
if(!document.activeElement||document.activeElement.id!=='budget')document.getElementById('budget').placeholder=v.budget||'∞';window.dashboardUpdates++};
es.onerror=()=>note('disconnected: the crawl has ended or the server is gone',true);
async function act(body){try{const r=await fetch('action?'+q,{method:'POST',headers:{'content-type':'application/json'},body:JSON.stringify(body)});const j=await r.json();note(j.message||j.error,!r.ok)}catch(e){note(String(e),true)}}
async function explain(url){const r=await fetch('explain?'+q+'&url='+encodeURIComponent(url));const d=document.getElementById('explain');d.querySelector('pre').textContent=await r.text();d.showModal()}
document.addEventListener('click',(e)=>{const b=e.target.closest('[data-action]');if(!b)return;const a=b.dataset.action;
if(a==='label')act({action:'label',url:b.dataset.url,relevant:b.dataset.relevant==='true'});
else if(a==='explain')explain(b.dataset.url);
else if(a==='block-host')act({action:'block',pattern:new URL(b.dataset.url).host});
else if(a==='pause')act({action:paused?'resume':'pause'});
else if(a==='stop'){if(confirm('Stop the crawl? (it can be resumed with --resume)'))act({action:'stop'})}
else if(a==='budget')act({action:'budget',maxPages:Number(document.getElementById('budget').value)});
else if(a==='block')act({action:'block',pattern:document.getElementById('block').value})});`;

export function dashboardPage(o: { runId: string; topics: string; view?: DashboardView; live: boolean; generatedAt?: Date }): string {
  const sections = SECTIONS.map((s) => `<section id="${s.id}"${s.wide ? ' class="wide"' : ''}><h2>${esc(s.title)}</h2><div id="s-${s.id}">${o.view?.sections[s.id] ?? '<p class="empty">…</p>'}</div></section>`).join('\n');
  const bar = o.live
    ? `<div class="bar"><button id="pause" data-action="pause">Pause</button><button id="stop" data-action="stop">Stop</button>
<label>Budget <input id="budget" type="number" min="1" aria-label="New page budget"></label><button id="raise" data-action="budget">Set budget</button>
<label>Block <input id="block" class="wide" placeholder="host, or https://host/path/*" aria-label="Host or URL pattern to block"></label><button id="block-go" data-action="block">Block</button><span id="note"></span></div>`
    : `<div class="bar"><span>The dashboard's final state${o.view ? `: ${esc(o.view.status)}` : ''}${o.generatedAt ? `, written ${esc(o.generatedAt.toISOString())}` : ''}.</span></div>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Crawl ${esc(o.runId)}${o.live ? ' (live)' : ''}</title><style>${CSS}\n${DASH_CSS}</style></head>
<body data-status="${esc(o.view?.status ?? 'starting')}"><header><h1>Crawl <span id="run-id">${esc(o.runId)}</span>${o.live ? ' <small style="color:#cfe3ff">live</small>' : ''}</h1><div class="meta">${esc(o.topics)}</div></header>
${bar}
<main><div class="stats" id="s-stats">${o.view?.sections.stats ?? ''}</div>
<div class="dgrid">${sections}</div></main>
<dialog id="explain"><form method="dialog"><button>Close</button></form><pre></pre></dialog>
${o.live ? `<script>${CLIENT}</script>` : ''}</body></html>
`;
}
