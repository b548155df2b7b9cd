/**
 * `npm start`: with no arguments, a demo focused crawl of the local test web; with arguments,
 * a crawl of what the user names. Flags and the config/topic file both go through the one
 * schema in src/config/schema.ts. User mistakes end with one clear line and exit code 2.
 */
import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { relative } from 'node:path';
import { STRATEGIES, type CrawlConfigInput } from '../config/schema.js';
import { UserError } from '../config/errors.js';
import { resolveBrowser } from '../fetch/browser.js';
import { reportUserErrors, runAsMain } from './run.js';
import { loadConfigFile, buildConfig, checkSeedsReachable, type CliFlags } from './options.js';
import type { CrawlResult } from '../crawl/engine.js';
import { observePlugins } from './report.js';
import type { CrawlPlugin } from '../crawl/engine.js';
import type { CrawlConfig } from '../config/schema.js';

/** The CLI's plugins: report/traces, plus reply threads (METHODS §4) unless config.threads.enabled is false. */
async function crawlPlugins(config: CrawlConfig, watch: boolean | undefined, now?: () => Date): Promise<CrawlPlugin[]> {
  const plugins = await observePlugins(config);
  if (!config.threads.enabled) return plugins;
  const { threadsPlugin, loadUserMatchers } = await import('../crawl/threads-plugin.js');
  // Loaded here so a bad --matchers file is one line before any browser starts.
  plugins.push(threadsPlugin({ watch, now, matchers: loadUserMatchers(config.threads.matchers) }));
  return plugins;
}

function intArg(name: string) {
  return (v: string) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError(`${name} must be a whole number, got "${v}"`);
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

export function buildProgram(): Command {
  return new Command()
    .name('npm start --')
    .description('Focused web crawler. With no arguments: a demo crawl of the local test web.')
    .option('-t, --topic <keywords>', 'topic keywords, space separated; "term:2" gives a weight')
    .option('-s, --seeds <urls...>', 'seed URLs (fetched first)')
    .option('-c, --config <file>', 'config or topic file (JSON or YAML), validated by the same schema')
    .option('--strategy <name>', `URL ordering: ${STRATEGIES.join(', ')} (default combined)`)
    .option('-n, --max-pages <n>', 'page budget (the frontier itself is never capped)', intArg('--max-pages'))
    .option('--max-depth <n>', 'link depth limit from the seeds', intArg('--max-depth'))
    .option('--time-limit <secs>', 'stop after this many seconds (0 = none)', numArg('--time-limit'))
    .option('--concurrency <n>', 'pages rendered at once', intArg('--concurrency'))
    .option('--threshold <x>', 'relevance threshold θ_page (0–1)', numArg('--threshold'))
    .option('--delay <ms>', 'minimum delay between requests to one host', intArg('--delay'))
    .option('--per-host <n>', 'concurrent requests per host', intArg('--per-host'))
    .option('--no-robots', 'ignore robots.txt')
    .option('--allow-domain <host>', 'only crawl this host (repeatable)', collect)
    .option('--deny-domain <host>', 'never crawl this host (repeatable)', collect)
    .option('--storage <dir>', 'storage folder (datasets, runs, reports)')
    .option('--browser <path>', 'Chromium/Chrome executable')
    .option('--headed', 'show the browser window (needs a display: xvfb-run -a npm start -- --headed)')
    .option('--slow-mo <ms>', 'slow each browser action down, with --headed', intArg('--slow-mo'))
    .option('--trace [mode]', 'Playwright traces under storage/traces: all (default), failures, or sample:N')
    .option('--report [runId]', 'regenerate the HTML report of the latest run (or RUN_ID) without crawling')
    .option('--search <provider>', 'seed from a search engine results page: baidu, bing, duckduckgo, testweb')
    .option('--search-k <n>', 'how many top organic results become seeds (default 5)', intArg('--search-k'))
    .option('--since <date>', 'time window start: pages published earlier are not relevant')
    .option('--until <date>', 'time window end')
    .option('--time-distribution <csv>', 'period,value CSV (e.g. a search-trends export): hot periods rank higher')
    .option('--cilin <file>', 'Tongyici Cilin file for the semantic tree (METHODS §2)')
    .option('--random-seed <n>', 'seed for every random choice', intArg('--random-seed'))
    .option('--resume [runId]', 'continue the latest run in the storage folder (or RUN_ID) where it stopped')
    .option('--explain <url>', "why a URL was fetched when it was (or is queued, or was dropped), from the latest run's log (or --run)")
    .option('--run <runId>', 'the run --explain reads (default: the latest)')
    .option('--json', 'print the summary as JSON')
    .option('--watch', 'keep crawling and revisiting hot reply threads until Ctrl-C (no page budget)')
    .option('--matchers <file>', 'extra reply templates (JSON or YAML), tried before the built-in ones')
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) });
}

function pct(x: number): string {
  return `${(x * 100).toFixed(1)}%`;
}

export function formatSummary(r: CrawlResult, heading: string): string {
  const lines = [
    heading,
    `  pages fetched     ${r.fetched} in ${(r.elapsedMs / 1000).toFixed(1)} s (${r.pagesPerSecond.toFixed(2)} pages/s)`,
    `  relevant (judged) ${r.relevant}  harvest rate ${pct(r.harvestRate)}`,
  ];
  if (r.truthHarvestRate !== undefined) {
    lines.push(`  relevant (truth)  harvest rate ${pct(r.truthHarvestRate)} against the test web's ground truth`);
  }
  lines.push(
    `  failed            ${r.failed}`,
    `  frontier left     ${r.frontierSize} URLs`,
    `  results           ${relative(process.cwd(), r.datasetDir) || r.datasetDir}/ (one JSON file per relevant page)`,
    `  crawl log         ${relative(process.cwd(), r.logPath)} (every fetched URL with its score and decision)`,
  );
  return [...lines, ...r.summaryLines].join('\n');
}

export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    program.parse(argv, { from: 'user' });
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : 2;
    throw e;
  }
  const flags = program.opts<CliFlags & { json?: boolean; resume?: boolean | string; explain?: string; run?: string; watch?: boolean }>();
  return reportUserErrors(async () => {
    const report = program.opts<{ report?: boolean | string }>().report;
    if (report !== undefined) return (await import('./report.js')).runReportCommand(flags.storage ?? 'storage', typeof report === 'string' ? report : undefined);
    if (flags.explain !== undefined) {
      const { explainUrl } = await import('./explain.js');
      console.log(explainUrl(flags.storage ?? 'storage', flags.explain, flags.run));
      return 0;
    }
    if (flags.resume !== undefined) return await runResume(flags);
    const demo = !flags.topic && !flags.seeds && !flags.config;
    if (demo) return await runDemo(flags);
    const fileInput: Partial<CrawlConfigInput> = flags.config ? await loadConfigFile(flags.config) : {};
    const config = buildConfig(flags, fileInput);
    await resolveBrowser(config.browser); // a missing browser is reported before anything starts
    await checkSeedsReachable(config.topics.flatMap((t) => t.seeds));
    const { runCrawl } = await import('../crawl/engine.js'); // loaded only once the input is valid
    const result = await runCrawl({ config, plugins: await crawlPlugins(config, flags.watch), watch: flags.watch });
    const kw = config.topics.map((t) => t.name ?? t.keywords.map((k) => (typeof k === 'string' ? k : k.term)).join(' ')).join(' | ');
    console.log(flags.json ? JSON.stringify(result, null, 2) : formatSummary(result, `Focused crawl for "${kw}" (strategy ${config.strategy})`));
    return 0;
  });
}

/** `--resume [RUN_ID]`: the run's own saved config, with any flags given now on top. */
async function runResume(flags: CliFlags & { json?: boolean; resume?: boolean | string; watch?: boolean }): Promise<number> {
  const { readFile } = await import('node:fs/promises');
  const { join, resolve } = await import('node:path');
  const { findRunToResume } = await import('../crawl/resume.js');
  const storage = resolve(flags.storage ?? 'storage');
  const runId = findRunToResume(storage, typeof flags.resume === 'string' ? flags.resume : undefined);
  let saved: Partial<CrawlConfigInput>;
  try {
    saved = (JSON.parse(await readFile(join(storage, 'runs', runId, 'state.json'), 'utf8')) as { config: Partial<CrawlConfigInput> }).config;
  } catch (e) {
    throw new UserError(`--resume: cannot read the state of run ${runId}: ${(e as Error).message}`);
  }
  const config = buildConfig({ ...flags, storage }, { ...saved, storageDir: storage }, `run ${runId}`);
  await resolveBrowser(config.browser);
  const { runCrawl } = await import('../crawl/engine.js');
  const result = await runCrawl({ config, resume: runId, plugins: await crawlPlugins(config, flags.watch), watch: flags.watch });
  console.log(flags.json ? JSON.stringify(result, null, 2) : formatSummary(result, `Resumed run ${runId} (strategy ${config.strategy})`));
  return 0;
}

async function runDemo(flags: CliFlags & { json?: boolean; watch?: boolean }): Promise<number> {
  const { startTestWeb } = await import('../testweb/index.js');
  const { runCrawl } = await import('../crawl/engine.js');
  const web = await startTestWeb({});
  try {
    process.stderr.write(`Started the local test web: ${web.sites.map((s) => `${s.name} ${s.origin}`).join(', ')}\n`);
    // With --search the demo seeds from the test web's results page instead of the portal home pages.
    const config = buildConfig({ ...flags, topic: web.demo.keywords.join(' '), seeds: flags.search ? undefined : web.demo.seeds }, {});
    const topicId = web.demo.topic;
    const testwebOrigin = web.sites.find((s) => s.kind === 'search')?.origin;
    // Reply times on the test web follow its own clock.
    const plugins = await crawlPlugins(config, flags.watch, () => web.clock.now());
    const result = await runCrawl({ config, testwebOrigin, truth: (url) => web.isRelevant(url, topicId), plugins, watch: flags.watch });
    const heading = `Demo: focused crawl of the local test web for "${web.demo.keywords.join(' ')}" (strategy ${config.strategy}, budget ${config.maxPages})`;
    console.log(flags.json ? JSON.stringify(result, null, 2) : formatSummary(result, heading));
    return 0;
  } finally {
    await web.close();
  }
}

runAsMain(import.meta.url, main);
