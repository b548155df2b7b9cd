/**
 * The dashboard's page: the crawl page the report is (src/report/page.ts) with a bar of controls;
 * a few lines of script take each server-sent update and replace the sections that changed. Its
 * final state is the run's report.
 */
import { esc } from '../report/html.js';
import { crawlPage } from '../report/page.js';
import type { DashboardView } from './state.js';

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

/** The live page: the crawl page (src/report/page.ts) with a bar of controls and the client script. */
export function dashboardPage(o: { runId: string; topics: string; view?: DashboardView }): string {
  const bar = `<div class="bar"><button id="pause" data-action="pause">Pause</button><button id="stop" data-action="stop">Stop</button>
<label>Budget <input id="budget" type="number" min="1" aria-label="New page budget"></label><button id="raise" data-action="budget">Set budget</button>
<label>Block <input id="block" class="wide" placeholder="host, or https://host/path/*" aria-label="Host or URL pattern to block"></label><button id="block-go" data-action="block">Block</button><span id="note"></span></div>`;
  const { stats = '', ...sections } = o.view?.sections ?? {};
  return crawlPage({ runId: o.runId, meta: esc(o.topics), stats, sections, live: { bar, script: CLIENT } });
}
