/**
 * `npm run debug:extract -- URL [--topic "关键词 …"] [--pause]`: opens one page in a visible
 * Chromium and shows what the crawler sees: the main-text block outlined, links coloured by
 * their score (hover for the breakdown), and a side panel with the extracted title, publish
 * time and reply posts. The same is printed in the terminal.
 */
import { writeFileSync } from 'node:fs';
import { Command, InvalidArgumentError } from 'commander';
import { chromium, type Page } from 'playwright';
import { UserError } from '../config/errors.js';
import { PageJudge } from '../crawl/judge.js';
import { analyzePage } from '../extract/page.js';
import { extractThread, type ThreadExtract, type XhrCapture } from '../extract/replies/index.js';
import type { PageAnalysis } from '../extract/types.js';
import { browserLaunchOptions } from '../fetch/browser.js';
import { parentAnchorPriority } from '../score/priority.js';
import { buildConfig, checkUrl } from './options.js';
import { parseCommandLine, reportUserErrors, runAsMain } from './run.js';

export interface DebugLink {
  url: string;
  anchorText: string;
  /** cos(T, A_u) of the link context (METHODS §3.1); undefined without a topic. */
  contextSim?: number;
  /** §3.1 prio(u) = θ·rel(parent) + γ·cos(T, A_u), with this page as the parent. */
  priority?: number;
}

export interface DebugView {
  url: string;
  title: string;
  publishTime?: { iso: string; source: string; raw: string };
  /** rel(p) of this page for the topic, when one was given. */
  relevance?: number;
  topic?: string;
  text: string;
  links: DebugLink[];
  thread: ThreadExtract | null;
}

/** Score links as the crawler would with this page as their parent (pure, over the judge's numbers). */
export function buildDebugView(analysis: PageAnalysis, thread: ThreadExtract | null, judge?: PageJudge, topic?: string): DebugView {
  const verdict = judge?.judge(analysis, { isSeed: false });
  const links: DebugLink[] = analysis.links.map((l) => {
    if (!judge || !verdict) return { url: l.url, anchorText: l.anchorText };
    const contextSim = judge.linkRelevance(l);
    return { url: l.url, anchorText: l.anchorText, contextSim, priority: parentAnchorPriority(verdict.rel, contextSim) };
  });
  return {
    url: analysis.url,
    title: analysis.title,
    publishTime: analysis.publishTime,
    relevance: verdict?.rel,
    topic,
    text: analysis.text,
    links,
    thread,
  };
}

const f3 = (x: number | undefined) => (x === undefined ? '–' : x.toFixed(3));

/** The terminal version of the panel. */
export function formatDebugView(v: DebugView, topLinks = 10): string {
  const lines = [
    `URL          ${v.url}`,
    `title        ${v.title || '(none)'}`,
    `published    ${v.publishTime ? `${v.publishTime.iso} (from ${v.publishTime.source}: "${v.publishTime.raw}")` : '(not found)'}`,
  ];
  if (v.topic !== undefined) lines.push(`relevance    ${f3(v.relevance)} to "${v.topic}"`);
  lines.push(`main text    ${v.text.length} characters: ${v.text.slice(0, 120).replace(/\s+/g, ' ')}${v.text.length > 120 ? '…' : ''}`);
  const sorted = [...v.links].sort((a, b) => (b.priority ?? 0) - (a.priority ?? 0));
  lines.push(`links        ${v.links.length}${v.topic !== undefined ? `, best ${Math.min(topLinks, sorted.length)} by priority (0.4·rel(page) + 0.6·cos(T,A_u), METHODS §3.1):` : ' (give --topic to score them)'}`);
  for (const l of sorted.slice(0, v.topic !== undefined ? topLinks : 0)) {
    lines.push(`  ${f3(l.priority)}  cos ${f3(l.contextSim)}  ${l.anchorText.slice(0, 30) || '(no text)'}  ${l.url}`);
  }
  if (v.thread) {
    lines.push(`reply thread ${v.thread.matcher}, id ${v.thread.threadId}, ${v.thread.replyCount} replies, ${v.thread.posts.length} posts on this page`);
    for (const p of v.thread.posts) lines.push(`  ${p.floor !== undefined ? `#${p.floor} ` : ''}${p.author} ${p.time ?? '(no time)'}: ${p.text.slice(0, 60).replace(/\s+/g, ' ')}`);
  } else lines.push('reply thread (none recognised)');
  return lines.join('\n');
}

/**
 * Runs inside the page (a string, so no bundler helper leaks into page.evaluate). Finds the
 * element whose text best matches the extracted main text (F1 over text chunks, whitespace
 * ignored), outlines it, colours links by priority, and adds the side panel.
 */
const INJECT = String.raw`(view) => {
  const norm = (s) => (s || '').replace(/\s+/g, '');
  const esc = (s) => String(s ?? '').replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
  const chunks = view.text.split(/[\n。！？!?；;]+/).map(norm).filter((c) => c.length >= 6).slice(0, 80).map((c) => c.slice(0, 40));
  const mainLen = norm(view.text).length;
  let best = null, bestF = 0;
  if (chunks.length) {
    for (const el of document.body.querySelectorAll('*')) {
      if (['SCRIPT', 'STYLE', 'NOSCRIPT', 'A', 'SPAN', 'B', 'STRONG', 'EM', 'I', 'FONT'].includes(el.tagName)) continue;
      const t = norm(el.textContent);
      if (t.length < Math.min(mainLen, 20) * 0.5) continue;
      let hits = 0;
      for (const c of chunks) if (t.includes(c)) hits++;
      if (!hits) continue;
      const recall = hits / chunks.length, precision = Math.min(1, mainLen / t.length);
      const f = (2 * precision * recall) / (precision + recall);
      if (f > bestF + 1e-9 || (Math.abs(f - bestF) <= 1e-9 && best && best.contains(el))) { best = el; bestF = f; }
    }
  }
  if (best) {
    best.setAttribute('data-fc-main', bestF.toFixed(3));
    best.style.outline = '3px solid #2da44e';
    best.style.outlineOffset = '2px';
  }
  const byUrl = new Map(view.links.map((l) => [l.url, l]));
  let coloured = 0;
  for (const a of document.querySelectorAll('a[href], area[href]')) {
    let u;
    try { u = new URL(a.getAttribute('href'), document.baseURI); u.hash = ''; u = u.href; } catch { continue; }
    const l = byUrl.get(u);
    if (!l) continue;
    coloured++;
    a.setAttribute('data-fc-link', l.priority === undefined ? '' : l.priority.toFixed(3));
    if (l.priority === undefined) { a.style.outline = '1px dashed #888'; a.title = 'link (give --topic to score it)'; continue; }
    const hue = Math.round(Math.max(0, Math.min(1, l.priority)) * 120);
    a.style.outline = '2px solid hsl(' + hue + ',85%,40%)';
    a.style.backgroundColor = 'hsla(' + hue + ',85%,45%,0.12)';
    a.title = 'priority ' + l.priority.toFixed(3) + ' = 0.4·rel(page) ' + (view.relevance ?? 0).toFixed(3) + ' + 0.6·cos(T,A_u) ' + l.contextSim.toFixed(3) + '  (METHODS §3.1)';
  }
  const panel = document.createElement('aside');
  panel.id = 'fc-debug-panel';
  panel.setAttribute('style', 'position:fixed;top:0;right:0;width:380px;max-height:100vh;overflow:auto;z-index:2147483647;background:#fff;color:#111;border-left:3px solid #1f3a5f;box-shadow:-4px 0 12px rgba(0,0,0,.2);font:13px/1.45 system-ui,"Noto Sans CJK SC",sans-serif;padding:10px 12px;box-sizing:border-box;text-align:left');
  const sorted = [...view.links].sort((a, b) => (b.priority ?? 0) - (a.priority ?? 0)).slice(0, 10);
  const posts = view.thread ? view.thread.posts : [];
  panel.innerHTML =
    '<h2 style="font-size:15px;margin:0 0 6px;color:#1f3a5f">What the crawler sees</h2>' +
    '<div><b>Title</b><div data-field="title">' + esc(view.title || '(none)') + '</div></div>' +
    '<div style="margin-top:6px"><b>Published</b><div data-field="publishTime">' + (view.publishTime ? esc(view.publishTime.iso) + ' <small>(' + esc(view.publishTime.source) + ')</small>' : '(not found)') + '</div></div>' +
    (view.topic !== undefined ? '<div style="margin-top:6px"><b>Relevance</b> to “' + esc(view.topic) + '”: <span data-field="relevance">' + (view.relevance ?? 0).toFixed(3) + '</span></div>' : '') +
    '<div style="margin-top:6px"><b>Main text</b> <span data-field="textLength">' + view.text.length + '</span> chars' + (best ? ' (outlined in green)' : ' (block not found in the DOM)') + '<div style="color:#555;max-height:80px;overflow:hidden">' + esc(view.text.slice(0, 200)) + '</div></div>' +
    '<div style="margin-top:6px"><b>Links</b> <span data-field="linkCount">' + view.links.length + '</span> (' + coloured + ' outlined; hover one for its score)' +
    (view.topic !== undefined ? '<ol data-field="topLinks" style="margin:2px 0;padding-left:20px">' + sorted.map((l) => '<li><span style="color:hsl(' + Math.round(Math.max(0, Math.min(1, l.priority ?? 0)) * 120) + ',85%,35%)">' + (l.priority ?? 0).toFixed(3) + '</span> ' + esc(l.anchorText.slice(0, 40) || l.url) + '</li>').join('') + '</ol>' : '') + '</div>' +
    '<div style="margin-top:6px"><b>Reply thread</b> ' + (view.thread ? '<span data-field="matcher">' + esc(view.thread.matcher) + '</span>, <span data-field="replyCount">' + view.thread.replyCount + '</span> replies' : '<span data-field="matcher">none recognised</span>') +
    '<ul data-field="posts" style="margin:2px 0;padding-left:18px">' + posts.map((p) => '<li data-post><b data-author>' + esc(p.author) + '</b> <small>' + esc(p.time ?? '') + '</small><div>' + esc(p.text.slice(0, 80)) + '</div></li>').join('') + '</ul></div>';
  document.body.appendChild(panel);
  return { mainFound: !!best, f1: bestF, coloured };
}`;

/** Everything the page loads by XHR as JSON (comment widgets), for extractThread. */
function captureJson(page: Page): XhrCapture[] {
  const out: XhrCapture[] = [];
  page.on('response', async (res) => {
    const t = res.request().resourceType();
    if ((t !== 'xhr' && t !== 'fetch') || !(res.headers()['content-type'] ?? '').includes('json')) return;
    try {
      out.push({ url: res.url(), json: await res.json() });
    } catch {
      /* body gone or not JSON */
    }
  });
  return out;
}

export interface DebugOptions {
  url: string;
  topic?: string;
  pause?: boolean;
  slowMo?: number;
  browser?: string;
  screenshot?: string;
  savePanel?: string;
  /** Keep the window open until Enter (default: when stdin is a terminal and not --pause). */
  wait?: boolean;
}

export async function debugExtract(o: DebugOptions): Promise<DebugView> {
  const url = checkUrl(o.url, 'URL');
  if (!process.env.DISPLAY && process.platform === 'linux') {
    throw new UserError(`debug:extract shows a browser window and $DISPLAY is not set: run it under a virtual display, e.g. xvfb-run -a npm run debug:extract -- ${o.url}`);
  }
  const judge = o.topic ? await PageJudge.create(buildConfig({ topic: o.topic, seeds: [url] }, {})) : undefined;
  const { launchOptions } = await browserLaunchOptions({ browser: o.browser, headed: true, slowMo: o.slowMo });
  const browser = await chromium.launch(launchOptions);
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    const xhr = captureJson(page);
    try {
      await page.goto(url, { waitUntil: 'load', timeout: 30_000 });
    } catch (e) {
      throw new UserError(`cannot open ${url}: ${(e as Error).message.split('\n')[0]}`);
    }
    await page.waitForLoadState('networkidle', { timeout: 3000 }).catch(() => undefined);
    const html = await page.content();
    const fetchedAt = new Date();
    const analysis = analyzePage({ html, url: page.url(), fetchedAt });
    const thread = extractThread({ html, url: page.url(), fetchedAt, xhr });
    const view = buildDebugView(analysis, thread, judge, o.topic);
    console.log(formatDebugView(view));
    const r = (await page.evaluate(`(${INJECT})(${JSON.stringify(view)})`)) as { mainFound: boolean; f1: number; coloured: number };
    console.log(`page         main-text block ${r.mainFound ? `outlined (match F1 ${r.f1.toFixed(2)})` : 'not found in the DOM'}; ${r.coloured} links coloured`);
    if (o.screenshot) await page.screenshot({ path: o.screenshot });
    if (o.savePanel) writeFileSync(o.savePanel, await page.locator('#fc-debug-panel').evaluate((el) => el.outerHTML));
    if (o.pause) {
      console.log('Paused in the Playwright inspector: press Resume there to close.');
      await page.pause();
    } else if (o.wait ?? Boolean(process.stdin.isTTY)) {
      console.log('Press Enter (or close the window) to quit.');
      await Promise.race([new Promise((r) => process.stdin.once('data', r)), page.waitForEvent('close', { timeout: 0 })]);
      process.stdin.pause();
    }
    return view;
  } finally {
    await browser.close();
  }
}

export async function main(argv: string[]): Promise<number> {
  const program = new Command()
    .name('npm run debug:extract --')
    .description('Open one page in a visible browser and show what the crawler extracts from it.')
    .argument('<url>', 'page to open')
    .option('-t, --topic <keywords>', 'topic keywords: links are coloured by their priority for this topic')
    .option('--pause', 'stop in the Playwright inspector (page.pause())')
    .option('--slow-mo <ms>', 'slow each browser action down', (v) => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError(`--slow-mo must be a whole number, got "${v}"`);
      return n;
    })
    .option('--browser <path>', 'Chromium/Chrome executable')
    .option('--screenshot <file>', 'save a screenshot of the annotated page')
    .option('--save-panel <file>', "write the side panel's HTML to a file")
    .option('--no-wait', 'close right away instead of waiting for Enter');
  const ended = parseCommandLine(program, argv);
  if (ended !== undefined) return ended;
  const o = program.opts<{ topic?: string; pause?: boolean; slowMo?: number; browser?: string; screenshot?: string; savePanel?: string; wait: boolean }>();
  return reportUserErrors(async () => {
    await debugExtract({ url: program.args[0], ...o, wait: o.wait === false ? false : undefined });
    return 0;
  });
}

runAsMain(import.meta.url, main);
