/**
 * `npm run extract -- URL|FILE.html … [--json]`: render pages in Chromium (or read saved files)
 * and print what analyzePage sees: clean title, main text, publish time, links (and the reply
 * thread when the reply extractor recognises one). For checking extraction on real pages.
 *
 * A URL is loaded the crawler's way (src/fetch/page-load.ts): every request through a gate proxy
 * (the inputs' own origins allowed, as a crawl's seeds), sub-requests the analysis never reads
 * not fetched, the document's commit then a bounded settle, and the analysis made from the better
 * of the rendering and the document as served (`analysedFrom`), never from the browser's error page.
 */
import { commandName } from '../util/command-name.js';
import { readFileSync, existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Command } from 'commander';
import { runAsMain } from './run.js';
import { browserLaunchOptions } from '../fetch/browser.js';
import { DEFAULT_SETTLE_CAP_MS, readRendering, trackNetworkActivity } from '../fetch/crawler.js';
import { FetchGate } from '../fetch/gate/gate.js';
import { gateFailure, startGateProxy } from '../fetch/gate/gate-proxy.js';
import { guardPage } from '../fetch/page-guard.js';
import { MainDocument, settlePage, subRequestTimeoutMs, type AnalysedFrom } from '../fetch/page-load.js';
import { UserError } from '../config/errors.js';
import { decodeHtml } from '../extract/encoding.js';
import { analyzePage } from '../extract/page.js';
import type { PageAnalysis } from '../extract/types.js';
import type { XhrCapture } from '../extract/replies/index.js';
import { captureJson, describeThread } from './debug-extract.js';

interface Flags { json?: boolean; timeZone?: string; timeout: string; browser?: string; baseUrl?: string; blockRequests?: boolean; settleCap?: string; allowPrivate?: string[] }

interface Result {
  input: string;
  error?: string;
  contentType?: string;
  /** URLs: the analysis was made from the rendered DOM or from the document as served (and why). */
  analysedFrom?: AnalysedFrom;
  analysedWhy?: string;
  /** URLs: how the page settled before it was read. */
  settled?: string;
  /** URLs: navigations the page's scripts attempted (stopped: the page is analysed where it is). */
  scriptNavigations?: string[];
  analysis?: PageAnalysis;
  thread?: unknown;
}

type ThreadFn = (input: { html: string; url: string; fetchedAt: Date; timeZone?: string; xhr?: XhrCapture[] }) => unknown;

/** The reply extractor, when that module exists and exports extractThread. */
async function loadThreadExtractor(): Promise<ThreadFn | null> {
  try {
    const path = '../extract/replies/index.js';
    const mod = (await import(path)) as { extractThread?: ThreadFn };
    return typeof mod.extractThread === 'function' ? mod.extractThread : null;
  } catch {
    return null;
  }
}

function isLocalFile(arg: string): boolean {
  return !/^[a-z][a-z0-9+.-]*:\/\//i.test(arg) && /\.html?$/i.test(arg);
}

function checkUrl(arg: string): string {
  let u: URL;
  try {
    u = new URL(arg);
  } catch {
    throw new UserError(`${arg}: not a URL or a local .html file`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new UserError(`${arg}: only http(s) URLs or local .html files`);
  return u.href;
}

function analyse(html: string, url: string, flags: Flags, fetchedAt: Date, extractThread: ThreadFn | null, xhr: XhrCapture[] = [], made?: PageAnalysis): Pick<Result, 'analysis' | 'thread'> {
  const analysis = made && !flags.timeZone ? made : analyzePage({ html, url, fetchedAt, timeZone: flags.timeZone });
  let thread: unknown;
  if (extractThread) {
    try {
      // With the comment JSON the page loaded, as the crawler and debug:extract see it.
      thread = extractThread({ html, url, fetchedAt, timeZone: flags.timeZone, xhr }) ?? undefined;
    } catch (e) {
      thread = { error: `reply extraction failed: ${(e as Error).message}` };
    }
  }
  return thread === undefined ? { analysis } : { analysis, thread };
}

/**
 * `--json` (docs/output-formats.md): publishTime is one ISO string as in the dataset and the
 * crawl log; where it was read goes beside it.
 */
export function jsonShape(r: Result): unknown {
  if (!r.analysis) return r;
  const { publishTime, ...rest } = r.analysis;
  const analysis = { ...rest, publishTime: publishTime?.iso, publishTimeSource: publishTime?.source, publishTimeRaw: publishTime?.raw };
  return { ...r, analysis };
}

function formatText(r: Result): string {
  const out = [`== ${r.input}`];
  if (r.error) return [...out, `error: ${r.error}`].join('\n');
  if (!r.analysis) return [...out, `not HTML (${r.contentType ?? 'no content type'}): recorded by type, not analysed`].join('\n');
  const a = r.analysis;
  const text = a.text.length > 600 ? `${a.text.slice(0, 600)}… (${a.text.length} chars)` : a.text;
  out.push(`url:       ${a.url}`);
  if (r.settled) out.push(`settled:   ${r.settled}`);
  if (r.analysedFrom === 'served') out.push(`analysed:  the document as served (${r.analysedWhy ?? 'not the rendering'})`);
  for (const n of r.scriptNavigations ?? []) out.push(`stopped:   script navigation to ${n}`);
  if (a.canonicalUrl) out.push(`canonical: ${a.canonicalUrl}`);
  if (a.metaRefresh) out.push(`refresh:   ${a.metaRefresh}`);
  out.push(`title:     ${a.title}`);
  out.push(`published: ${a.publishTime ? `${a.publishTime.iso} (from ${a.publishTime.source}: ${a.publishTime.raw.slice(0, 80)})` : '(unknown)'}`);
  out.push(`text:\n${text.replace(/^/gm, '  ')}`);
  out.push(`links:     ${a.links.length}${a.links.length > 20 ? ' (first 20)' : ''}`);
  for (const l of a.links.slice(0, 20)) {
    const meta = [l.anchorText && `"${l.anchorText.slice(0, 40)}"`, l.title && `title="${l.title.slice(0, 40)}"`].filter(Boolean).join(' ');
    out.push(`  [${l.tag}] ${l.url}${meta ? `  ${meta}` : ''}`);
  }
  if (r.thread) {
    const t = r.thread as { matcher?: string; posts?: unknown[]; replyCount?: number; error?: string };
    out.push(`thread:    ${t.error ?? `${t.matcher ?? '?'}: ${describeThread({ posts: (t.posts ?? []) as never[], replyCount: t.replyCount ?? 0 })}`}`);
  }
  return out.join('\n');
}

/** One URL, loaded and read as the crawler's browser fetcher does (src/fetch/crawler.ts). */
async function renderOne(
  context: import('playwright').BrowserContext,
  url: string,
  o: { timeout: number; settleCap: number; block: boolean; noteNavigation(url: string): void },
  flags: Flags,
  extractThread: ThreadFn | null,
): Promise<Partial<Result>> {
  const page = await context.newPage();
  const doc = new MainDocument(page);
  try {
    await guardPage(page, { block: { enabled: o.block }, doc });
    const net = trackNetworkActivity(page);
    const xhr = captureJson(page);
    o.noteNavigation(url);
    let resp: import('playwright').Response | null;
    try {
      resp = await page.goto(url, { waitUntil: 'commit', timeout: o.timeout });
    } catch (e) {
      // The page's own document never came: the one way a page is lost.
      return { error: `unreachable: ${(e as Error).message.split('\n')[0]!.replace(/^page\.goto:\s*/, '')}` };
    }
    const committedAt = Date.now();
    const refused = resp && gateFailure(resp.headers());
    if (refused) return { error: refused };
    const contentType = resp?.headers()['content-type'];
    if (contentType && !/html|xml/i.test(contentType)) return { contentType };
    doc.fromResponse(resp);
    const settled = await settlePage(page, net, committedAt, { capMs: o.settleCap, settleMs: Math.min(3000, o.settleCap) });
    const fetchedAt = new Date();
    let read: Awaited<ReturnType<typeof readRendering>>;
    try {
      read = await readRendering(page, doc, { fetchedAt });
    } catch (e) {
      return { error: (e as Error).message.split('\n')[0], settled: settled.how };
    }
    const { thread } = analyse(read.html, read.url, flags, fetchedAt, extractThread, xhr, read.analysis);
    return {
      analysedFrom: read.analysedFrom,
      ...(read.why ? { analysedWhy: read.why } : {}),
      settled: settled.how,
      ...(doc.scriptNavigations.length ? { scriptNavigations: doc.scriptNavigations } : {}),
      analysis: read.analysis ?? analyse(read.html, read.url, flags, fetchedAt, null).analysis,
      ...(thread === undefined ? {} : { thread }),
    };
  } finally {
    doc.detach();
    await page.close();
  }
}

export async function main(argv: string[]): Promise<number> {
  const program = new Command()
    .name(commandName('extract'))
    .description('Show what the crawler extracts from pages: title, main text, publish time, links.')
    .argument('<inputs...>', 'http(s) URLs (rendered in Chromium) or local .html files')
    .option('--json', 'print JSON (all links, full text)')
    .option('--base-url <url>', 'the URL saved .html files were served from (resolves their links, URL date and site name; default: their file:// URL)')
    .option('--time-zone <zone>', 'IANA zone for dates without an offset (default: Asia/Shanghai for Chinese pages, else UTC)')
    .option('--timeout <ms>', 'navigation timeout: the longest wait for the document itself', '30000')
    .option('--settle-cap <ms>', 'after the document arrives, the longest wait for its load and a quiet network; then it is analysed as it stands', String(DEFAULT_SETTLE_CAP_MS))
    .option('--allow-private <origins...>', 'other private or loopback origins the pages may load from (the inputs\' own origins always)')
    .option('--no-block-requests', 'fetch every sub-request (default: images, media, fonts, style sheets, beacons and ad/analytics hosts are not fetched)')
    .option('--browser <path>', 'Chromium executable')
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) });
  let inputs: string[];
  let flags: Flags;
  try {
    program.parse(argv, { from: 'user' });
    inputs = program.args;
    flags = program.opts<Flags>();
  } catch (e) {
    const code = (e as { exitCode?: number }).exitCode;
    return code === 0 ? 0 : 2; // commander already printed its message
  }
  if (flags.timeZone) {
    try {
      new Intl.DateTimeFormat('en', { timeZone: flags.timeZone });
    } catch {
      process.stderr.write(`error: --time-zone ${flags.timeZone}: not an IANA time zone (e.g. Asia/Shanghai)\n`);
      return 2;
    }
  }
  let baseUrl: string | undefined;
  if (flags.baseUrl !== undefined) {
    try {
      baseUrl = new URL(flags.baseUrl).href;
      if (!/^https?:$/.test(new URL(baseUrl).protocol)) throw new Error('not http(s)');
    } catch {
      process.stderr.write(`error: --base-url ${flags.baseUrl}: expected an http(s) URL (e.g. https://news.example.com/2024/05/a.html)\n`);
      return 2;
    }
  }
  const timeout = Number(flags.timeout);
  if (!Number.isFinite(timeout) || timeout <= 0) {
    process.stderr.write(`error: --timeout ${flags.timeout}: expected milliseconds > 0\n`);
    return 2;
  }
  const allowPrivate: string[] = [];
  for (const o of flags.allowPrivate ?? []) {
    try {
      allowPrivate.push(checkUrl(o));
    } catch {
      process.stderr.write(`error: --allow-private ${o}: expected an http(s) origin (e.g. http://127.0.0.1:8080)\n`);
      return 2;
    }
  }
  const settleCap = Number(flags.settleCap);
  if (!Number.isFinite(settleCap) || settleCap <= 0) {
    process.stderr.write(`error: --settle-cap ${flags.settleCap}: expected milliseconds > 0\n`);
    return 2;
  }

  const extractThread = await loadThreadExtractor();
  const results: Result[] = [];
  const urls: { input: string; url: string }[] = [];
  for (const input of inputs) {
    try {
      if (isLocalFile(input)) {
        const path = resolve(input);
        if (!existsSync(path) || !statSync(path).isFile()) throw new UserError(`${input}: no such file`);
        const html = decodeHtml(readFileSync(path));
        results.push({ input, ...analyse(html, baseUrl ?? pathToFileURL(path).href, flags, new Date(), extractThread) });
      } else {
        urls.push({ input, url: checkUrl(input) });
        results.push({ input }); // filled in below, keeping the order of the arguments
      }
    } catch (e) {
      if (!(e instanceof UserError)) throw e;
      results.push({ input, error: e.message });
    }
  }

  if (urls.length > 0) {
    let launch: Awaited<ReturnType<typeof browserLaunchOptions>>;
    try {
      launch = await browserLaunchOptions({ browser: flags.browser });
    } catch (e) {
      process.stderr.write(`error: ${(e as Error).message}\n`);
      return 2;
    }
    const { chromium } = await import('playwright');
    // The inputs' origins are allowed as a crawl's seeds are (loopback too); everything else the
    // pages ask for passes the crawl's gate: private addresses refused, a host that cannot be
    // resolved or refuses fails at once, and a sub-request gets a third of the settle cap to answer.
    const gate = new FetchGate({ seedUrls: urls.map((u) => u.url), allowPrivate: allowPrivate });
    const proxy = await startGateProxy({ gate, timeoutMs: timeout, subRequestTimeoutMs: subRequestTimeoutMs(settleCap) });
    const browser = await chromium.launch({ ...launch.launchOptions, proxy: { server: proxy.server, username: proxy.username, password: proxy.password, bypass: '<-loopback>' } });
    try {
      const context = await browser.newContext();
      for (const { input, url } of urls) {
        const slot = results.find((r) => r.input === input && !r.analysis && !r.error && !r.contentType)!;
        Object.assign(slot, await renderOne(context, url, { timeout, settleCap, block: flags.blockRequests !== false, noteNavigation: proxy.noteNavigation }, flags, extractThread));
      }
    } finally {
      await browser.close();
      await proxy.close();
    }
  }

  if (flags.json) console.log(JSON.stringify(results.map(jsonShape), null, 2));
  else console.log(results.map(formatText).join('\n\n'));
  return results.some((r) => r.error) ? 2 : 0;
}

runAsMain(import.meta.url, main);
