/**
 * `npm run debug:extract -- URL [--topic "关键词 …" | --config FILE] [--strategy NAME] [--pause]`:
 * opens one page in a visible Chromium and shows what the crawler sees: the main-text block
 * outlined, links coloured by the score the crawl would give them (its own scorer, strategy and
 * filters; hover for the parts), links it would skip greyed, and a foldable side panel with the
 * extracted title, publish time and reply posts at the page's own UTC offset. The same is
 * printed in the terminal.
 */
import { commandName } from '../util/command-name.js';
import { writeFileSync } from 'node:fs';
import { Command, InvalidArgumentError } from 'commander';
import { chromium, type Page } from 'playwright';
import { UserError } from '../config/errors.js';
import { PageJudge } from '../judge/judge.js';
import { analyzePage } from '../extract/page.js';
import { extractThread, type ThreadExtract, type XhrCapture } from '../extract/replies/index.js';
import type { PageAnalysis } from '../extract/types.js';
import { browserLaunchOptions } from '../fetch/browser.js';
import { buildConfig, checkUrl, loadConfigFile } from './options.js';
import { STRATEGIES, topicName, type CrawlConfig } from '../config/schema.js';
import { crawlScorer, scorerLinks } from '../crawl/scorer.js';
import { parseCommandLine, reportUserErrors, runAsMain } from './run.js';
import { publishInstant } from '../topic/time.js';

export interface DebugLink {
  url: string;
  anchorText: string;
  /** The score the crawl would queue it with (this page as its parent); undefined without a topic or when skipped. */
  priority?: number;
  /** The named parts of that score. */
  components?: Record<string, number>;
  /** Why the crawl would not queue it (image, ad, filtered extension, …). */
  skipped?: string;
}

export interface DebugView {
  url: string;
  title: string;
  publishTime?: { iso: string; source: string; raw: string };
  /** rel(p) of this page for the topic, when one was given. */
  relevance?: number;
  topic?: string;
  /** The crawl strategy the links were scored with. */
  strategy?: string;
  /** UTC offset the page shows its times in (`+08:00`), for reply times. */
  zone: string;
  text: string;
  links: DebugLink[];
  thread: ThreadExtract | null;
  /** Each post's time in the page's zone (`2008-05-13 10:22`), same order as thread.posts. */
  postTimes: string[];
}

/**
 * The UTC offset a page shows its times in: its publish time's offset, else +08:00 for a Chinese
 * page (the extractor's default zone, Asia/Shanghai), else UTC.
 */
export function pageZone(analysis: Pick<PageAnalysis, 'publishTime' | 'lang'>): string {
  const m = /([+-]\d\d:\d\d)$/.exec(analysis.publishTime?.iso ?? '');
  if (m) return m[1];
  return /^zh/i.test(analysis.lang ?? '') || !analysis.lang ? '+08:00' : '+00:00';
}

/** An instant shown at a fixed UTC offset: `2008-05-13 10:22`. */
export function timeInZone(iso: string | undefined, zone: string): string {
  if (!iso) return '';
  const t = Date.parse(iso);
  if (!Number.isFinite(t)) return iso;
  const [, sign, hh, mm] = /([+-])(\d\d):(\d\d)/.exec(zone) ?? ['', '+', '00', '00'];
  const offset = (sign === '-' ? -1 : 1) * (Number(hh) * 60 + Number(mm));
  return new Date(t + offset * 60_000).toISOString().slice(0, 16).replace('T', ' ');
}

/**
 * Score the page's links exactly as the crawl would with this page as their parent: the crawl's
 * scorer for the config's strategy (src/crawl/scorer.ts), its filters included, so links the
 * crawl never queues (images, ads, filtered extensions) are marked skipped rather than ranked.
 */
export function buildDebugView(analysis: PageAnalysis, thread: ThreadExtract | null, judge?: PageJudge, topic?: string, config?: CrawlConfig): DebugView {
  const verdict = judge?.judge(analysis, { isSeed: false });
  let links: DebugLink[] = analysis.links.map((l) => ({ url: l.url, anchorText: l.anchorText }));
  if (judge && verdict && config) {
    const updates = crawlScorer(config, judge).onPageFetched({
      url: analysis.url,
      depth: 1,
      rel: verdict.rel,
      relevant: verdict.relevant,
      publishTime: publishInstant(analysis.publishTime?.iso),
      links: scorerLinks(analysis, judge),
    });
    const byUrl = new Map(updates.map((u) => [u.url, u]));
    links = analysis.links.map((l) => {
      const u = byUrl.get(l.url);
      if (!u) return { url: l.url, anchorText: l.anchorText, skipped: l.tag === 'img' ? 'an image: in the link graph, never fetched' : 'filtered: the crawl does not queue it' };
      if (u.drop) return { url: l.url, anchorText: l.anchorText, skipped: u.reason ?? 'dropped' };
      return { url: l.url, anchorText: l.anchorText, priority: u.score, components: u.breakdown.components };
    });
  }
  const zone = pageZone(analysis);
  return {
    url: analysis.url,
    title: analysis.title,
    publishTime: analysis.publishTime,
    relevance: verdict?.rel,
    topic,
    strategy: config?.strategy,
    zone,
    text: analysis.text,
    links,
    thread,
    postTimes: (thread?.posts ?? []).map((p) => timeInZone(p.time, zone)),
  };
}

/** One wording of a thread's counts for `extract` and `debug:extract` alike. */
export function describeThread(t: Pick<ThreadExtract, 'posts' | 'replyCount'>): string {
  return `${t.posts.length} posts on this page, ${t.replyCount} replies in the thread`;
}

const f3 = (x: number | undefined) => (x === undefined ? '–' : x.toFixed(3));
const parts = (c: Record<string, number> | undefined) =>
  Object.entries(c ?? {})
    .map(([k, v]) => `${k}=${v.toFixed(3)}`)
    .join(' ');

/** The URLs the crawl would queue, best first, each once (a page often links one URL several times). */
export function rankedLinks(v: Pick<DebugView, 'links'>): DebugLink[] {
  const seen = new Set<string>();
  return v.links
    .filter((l) => l.priority !== undefined && !seen.has(l.url) && seen.add(l.url))
    .sort((a, b) => b.priority! - a.priority!);
}

/** The terminal version of the panel. */
export function formatDebugView(v: DebugView, topLinks = 10): string {
  const lines = [
    `URL          ${v.url}`,
    `title        ${v.title || '(none)'}`,
    `published    ${v.publishTime ? `${v.publishTime.iso} (from ${v.publishTime.source}: "${v.publishTime.raw}")` : '(not found)'}`,
  ];
  if (v.topic !== undefined) lines.push(`relevance    ${f3(v.relevance)} to "${v.topic}"`);
  lines.push(`main text    ${v.text.length} characters: ${v.text.slice(0, 120).replace(/\s+/g, ' ')}${v.text.length > 120 ? '…' : ''}`);
  const ranked = rankedLinks(v);
  const skipped = v.links.filter((l) => l.skipped).length;
  lines.push(
    `links        ${v.links.length}${v.topic !== undefined ? `, ${skipped} the crawl would skip; best ${Math.min(topLinks, ranked.length)} by the crawl's own score (strategy ${v.strategy}):` : ' (give --topic to score them)'}`,
  );
  for (const l of ranked.slice(0, topLinks)) lines.push(`  ${f3(l.priority)}  ${l.anchorText.slice(0, 30) || '(no text)'}  ${l.url}  [${parts(l.components)}]`);
  if (v.thread) {
    lines.push(`reply thread ${v.thread.matcher}, id ${v.thread.threadId}: ${describeThread(v.thread)} (times at UTC${v.zone})`);
    v.thread.posts.forEach((p, i) => lines.push(`  ${p.floor !== undefined ? `#${p.floor} ` : ''}${p.author} ${v.postTimes[i] || '(no time)'}: ${p.text.slice(0, 60).replace(/\s+/g, ' ')}`));
  } else lines.push('reply thread (none recognised)');
  return lines.join('\n');
}

/**
 * Runs inside the page (a string, so no bundler helper leaks into page.evaluate). Finds the
 * element whose text best matches the extracted main text (F1 over text chunks, whitespace
 * ignored), outlines it, colours links by priority, and adds the side panel.
 */
export const INJECT = String.raw`(view) => {
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
  // Colour by the score's place between the lowest and highest score on this page (red → green).
  const scores = view.links.filter((l) => l.priority !== undefined).map((l) => l.priority);
  const lo = Math.min(...scores), hi = Math.max(...scores);
  const hueOf = (p) => Math.round((hi > lo ? (p - lo) / (hi - lo) : 1) * 120);
  const parts = (c) => Object.entries(c || {}).map(([k, v]) => k + '=' + v.toFixed(3)).join(', ');
  let coloured = 0;
  for (const a of document.querySelectorAll('a[href], area[href]')) {
    let u;
    try { u = new URL(a.getAttribute('href'), document.baseURI); u.hash = ''; u = u.href; } catch { continue; }
    const l = byUrl.get(u);
    if (!l) continue;
    coloured++;
    if (l.skipped) { a.setAttribute('data-fc-link', 'skipped'); a.style.outline = '1px dashed #999'; a.style.opacity = '0.6'; a.title = 'skipped by the crawl: ' + l.skipped; continue; }
    a.setAttribute('data-fc-link', l.priority === undefined ? '' : l.priority.toFixed(3));
    if (l.priority === undefined) { a.style.outline = '1px dashed #888'; a.title = 'link (give --topic to score it)'; continue; }
    const hue = hueOf(l.priority);
    a.setAttribute('data-fc-hue', String(hue));
    a.style.outline = '2px solid hsl(' + hue + ',85%,40%)';
    a.style.backgroundColor = 'hsla(' + hue + ',85%,45%,0.12)';
    a.title = 'score ' + l.priority.toFixed(3) + ' (strategy ' + view.strategy + '): ' + parts(l.components);
  }
  const panel = document.createElement('aside');
  panel.id = 'fc-debug-panel';
  const WIDE = 360;
  panel.setAttribute('style', 'position:fixed;top:0;right:0;width:' + WIDE + 'px;max-height:100vh;overflow:auto;z-index:2147483647;background:#fff;color:#111;border-left:3px solid #1f3a5f;box-shadow:-4px 0 12px rgba(0,0,0,.2);font:13px/1.45 system-ui,"Noto Sans CJK SC",sans-serif;padding:8px 10px;box-sizing:border-box;text-align:left');
  const ranked = view.ranked;
  const skipped = view.links.filter((l) => l.skipped).length;
  const posts = view.thread ? view.thread.posts : [];
  panel.innerHTML =
    '<button id="fc-debug-toggle" type="button" title="fold the panel away to read the page" style="float:right;border:1px solid #1f3a5f;background:#eef3fb;border-radius:4px;cursor:pointer">⟩ hide</button>' +
    '<div id="fc-debug-body"><h2 style="font-size:15px;margin:0 0 6px;color:#1f3a5f">What the crawler sees</h2>' +
    '<div><b>Title</b><div data-field="title">' + esc(view.title || '(none)') + '</div></div>' +
    '<div style="margin-top:6px"><b>Published</b><div data-field="publishTime">' + (view.publishTime ? esc(view.publishTime.iso) + ' <small>(' + esc(view.publishTime.source) + ')</small>' : '(not found)') + '</div></div>' +
    (view.topic !== undefined ? '<div style="margin-top:6px"><b>Relevance</b> to “' + esc(view.topic) + '”: <span data-field="relevance">' + (view.relevance ?? 0).toFixed(3) + '</span></div>' : '') +
    '<div style="margin-top:6px"><b>Main text</b> <span data-field="textLength">' + view.text.length + '</span> chars' + (best ? ' (outlined in green)' : ' (block not found in the DOM)') + '<div style="color:#555;max-height:80px;overflow:hidden">' + esc(view.text.slice(0, 200)) + '</div></div>' +
    '<div style="margin-top:6px"><b>Links</b> <span data-field="linkCount">' + view.links.length + '</span> (' + coloured + ' outlined, <span data-field="skipped">' + skipped + '</span> the crawl skips; hover one for its score)' +
    (view.topic !== undefined ? '<div><small>scored as the crawl scores them, strategy <span data-field="strategy">' + esc(view.strategy) + '</span>; colour: red lowest → green highest on this page</small></div><ol data-field="topLinks" style="margin:2px 0;padding-left:20px">' + ranked.map((l) => '<li title="' + esc(parts(l.components)) + '"><span style="color:hsl(' + hueOf(l.priority) + ',85%,35%)">' + l.priority.toFixed(3) + '</span> ' + esc(l.anchorText.slice(0, 40) || l.url) + '</li>').join('') + '</ol>' : '') + '</div>' +
    '<div style="margin-top:6px"><b>Reply thread</b> ' + (view.thread ? '<span data-field="matcher">' + esc(view.thread.matcher) + '</span>: <span data-field="postCount">' + posts.length + '</span> posts on this page, <span data-field="replyCount">' + view.thread.replyCount + '</span> replies in the thread <small>(times at UTC' + esc(view.zone) + ', as the page shows them)</small>' : '<span data-field="matcher">none recognised</span>') +
    '<ul data-field="posts" style="margin:2px 0;padding-left:18px">' + posts.map((p, i) => '<li data-post><b data-author>' + esc(p.author) + '</b> <small data-time>' + esc(view.postTimes[i] || '') + '</small><div>' + esc(p.text.slice(0, 80)) + '</div></li>').join('') + '</ul></div></div>';
  // The page keeps room for the panel, and the panel folds to a tab: the article stays readable.
  const pad = document.body.style.marginRight;
  const setOpen = (open) => {
    panel.querySelector('#fc-debug-body').style.display = open ? '' : 'none';
    panel.style.width = open ? WIDE + 'px' : 'auto';
    panel.querySelector('#fc-debug-toggle').textContent = open ? '⟩ hide' : '⟨ crawler view';
    panel.dataset.open = open ? 'true' : 'false';
    document.body.style.marginRight = open ? WIDE + 'px' : pad;
  };
  panel.querySelector('#fc-debug-toggle').addEventListener('click', () => setOpen(panel.dataset.open !== 'true'));
  setOpen(true);
  document.body.appendChild(panel);
  return { mainFound: !!best, f1: bestF, coloured };
}`;

/** Everything the page loads by XHR as JSON (comment widgets), for extractThread; `extract` uses it too. */
export function captureJson(page: Page): XhrCapture[] {
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
  /** Strategy to score links with (default: the config's, else the crawl's default). */
  strategy?: string;
  /** A crawl config/topic file: score links as that crawl would. */
  config?: string;
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
    throw new UserError(`debug:extract shows a browser window and $DISPLAY is not set: run it under a virtual display, e.g. xvfb-run -a ${commandName('debug-extract')} ${o.url}`);
  }
  const file = o.config ? await loadConfigFile(o.config) : {};
  const config = o.topic || o.config ? buildConfig({ topic: o.topic, seeds: o.topic ? [url] : undefined, strategy: o.strategy, config: o.config }, file) : undefined;
  const judge = config ? await PageJudge.create(config) : undefined;
  const topic = config ? (o.topic ?? config.topics.map((t) => topicName(t)).join(' | ')) : undefined;
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
    const view = buildDebugView(analysis, thread, judge, topic, config);
    console.log(formatDebugView(view));
    const r = (await page.evaluate(`(${INJECT})(${JSON.stringify({ ...view, ranked: rankedLinks(view).slice(0, 10) })})`)) as { mainFound: boolean; f1: number; coloured: number };
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
    .name(commandName('debug-extract'))
    .description('Open one page in a visible browser and show what the crawler extracts from it.')
    .argument('<url>', 'page to open')
    .option('-t, --topic <keywords>', 'topic keywords: links are scored as a crawl of this topic would score them')
    .option('-c, --config <file>', "a crawl's config or topic file: its topic, strategy and filters")
    .option('--strategy <name>', `the strategy to score links with: ${STRATEGIES.join(', ')} (default combined, or the config's)`)
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
  const o = program.opts<{ topic?: string; config?: string; strategy?: string; pause?: boolean; slowMo?: number; browser?: string; screenshot?: string; savePanel?: string; wait: boolean }>();
  return reportUserErrors(async () => {
    await debugExtract({ url: program.args[0], ...o, wait: o.wait === false ? false : undefined });
    return 0;
  });
}

runAsMain(import.meta.url, main);
