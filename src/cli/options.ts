/**
 * Turn CLI flags and a config/topic file into one validated CrawlConfig (flags win over the
 * file), and pre-flight checks that catch user mistakes before a browser starts.
 */
import { readFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { dirname, extname, isAbsolute, join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { UserError } from '../config/errors.js';
import { FetchGate, gateOptionsOf, type GateOptions } from '../fetch/gate/gate.js';
import { parseConfig, type CrawlConfig, type CrawlConfigInput } from '../config/schema.js';

export interface CliFlags {
  topic?: string;
  seeds?: string[];
  /** --negative: the topic's negative example pages. */
  negative?: string[];
  config?: string;
  strategy?: string;
  maxPages?: number;
  maxDepth?: number;
  timeLimit?: number;
  concurrency?: number;
  threshold?: number;
  delay?: number;
  perHost?: number;
  robots?: boolean;
  allowDomain?: string[];
  denyDomain?: string[];
  storage?: string;
  browser?: string;
  headed?: boolean;
  slowMo?: number;
  trace?: string | boolean;
  fetcher?: string;
  /** --fetch-order: fixed (reproducible) or as-finished. */
  fetchOrder?: string;
  cilin?: string;
  wordVectors?: boolean;
  search?: string;
  searchK?: number;
  since?: string;
  until?: string;
  timeDistribution?: string;
  randomSeed?: number;
  /** Extra reply templates (config.threads.matchers). */
  matchers?: string;
  /** Hot lists take threads at this confidence or above (config.threads.minConfidence). */
  threadConfidence?: number;
  /** `--allow-private` alone: every private address; with origins: these exact ones. */
  allowPrivate?: boolean | string[];
  maxBody?: number;
  maxLinks?: number;
  maxRssMb?: number;
  maxUrlLength?: number;
  maxRedirects?: number;
  /** `--no-block-requests`: fetch every sub-request of a rendering; `--block-pattern`: more to leave out. */
  blockRequests?: boolean;
  blockPattern?: string[];
  settleCap?: number;
  /** Shared frontier (config.frontier): redis://HOST:PORT/DB, the crawl's id, join as a worker. */
  frontier?: string;
  crawlId?: string;
  worker?: boolean;
  /** The user's labels (config.labels): a labels file, questions in the terminal, pages before the first. */
  labels?: string;
  ask?: number;
  askAfter?: number;
  /** `--dashboard [port]`: true without a port (any free one). */
  dashboard?: number | boolean;
}

/**
 * Read a JSON or YAML file. It may be a whole config (with `topics`) or a single topic
 * (with `keywords`), which becomes `topics: [it]`.
 */
export async function loadConfigFile(path: string): Promise<Partial<CrawlConfigInput>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    throw new UserError(`cannot read config file ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  let value: unknown;
  try {
    value = extname(path).toLowerCase() === '.json' ? JSON.parse(text) : parseYaml(text);
  } catch (e) {
    // The parser's first line ends "at line L, column C:" before a code excerpt left out here.
    const msg = (e as Error).message.split('\n')[0].replace(/\s*:\s*$/, '');
    throw new UserError(`${path}: not valid ${extname(path).toLowerCase() === '.json' ? 'JSON' : 'YAML'}: ${msg}`);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new UserError(`${path}: expected an object with "topics" or "keywords"`);
  const obj = value as Record<string, unknown>;
  const config = ('keywords' in obj && !('topics' in obj) ? { topics: [obj as never] } : obj) as Partial<CrawlConfigInput>;
  // A time-distribution CSV named in the file is found beside the file, wherever the crawl runs from.
  for (const t of (Array.isArray(config.topics) ? config.topics : []) as { time?: { distribution?: unknown } }[]) {
    const d = t?.time?.distribution;
    if (typeof d === 'string' && !isAbsolute(d)) t.time!.distribution = join(dirname(path), d);
  }
  return config;
}

/** `地震 救援:2` → keyword entries; weights after a colon. */
export function parseKeywords(topic: string): ({ term: string; weight: number } | string)[] {
  const parts = topic.split(/[\s,，]+/).filter(Boolean);
  if (parts.length === 0) throw new UserError('the topic is empty: give keywords, e.g. --topic "汶川地震 救援"');
  return parts.map((p) => {
    const m = /^(.+):(\d+(?:\.\d+)?)$/.exec(p);
    return m ? { term: m[1], weight: Number(m[2]) } : p;
  });
}

export function checkUrl(url: string, what = 'seed'): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new UserError(`${what} "${url}" is not a valid URL (expected http://… or https://…)`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new UserError(`${what} "${url}" is not an http(s) URL`);
  return u.href;
}

export function buildConfig(flags: CliFlags, file: Partial<CrawlConfigInput>, source = flags.config ?? 'command line'): CrawlConfig {
  const input: Record<string, unknown> = { ...file };
  const time = {
    ...(flags.since ? { start: flags.since } : {}),
    ...(flags.until ? { end: flags.until } : {}),
    ...(flags.timeDistribution ? { distribution: flags.timeDistribution } : {}),
  };
  const search = flags.search ? { provider: flags.search, ...(flags.searchK ? { topK: flags.searchK } : {}) } : undefined;
  if (flags.topic !== undefined || flags.seeds || flags.negative || search || Object.keys(time).length) {
    const fileTopic = (file.topics?.[0] ?? {}) as Record<string, unknown>;
    input.topics = [
      {
        ...fileTopic,
        ...(flags.topic !== undefined ? { keywords: parseKeywords(flags.topic) } : {}),
        ...(flags.seeds ? { seeds: flags.seeds.map((s) => checkUrl(s)) } : {}),
        ...(flags.negative ? { negativeSeeds: flags.negative.map((s) => checkUrl(s, 'negative page')) } : {}),
        ...(search ? { search } : {}),
        ...(Object.keys(time).length ? { time: { ...((fileTopic.time as object) ?? {}), ...time } } : {}),
      },
    ];
  }
  const set = (key: string, v: unknown) => {
    if (v !== undefined) input[key] = v;
  };
  set('strategy', flags.strategy);
  set('maxPages', flags.maxPages);
  set('maxDepth', flags.maxDepth);
  set('timeLimitSecs', flags.timeLimit);
  set('maxConcurrency', flags.concurrency);
  set('pageThreshold', flags.threshold);
  set('perHostDelayMs', flags.delay);
  set('perHostConcurrency', flags.perHost);
  if (flags.robots === false) input.respectRobotsTxt = false;
  set('allowDomains', flags.allowDomain);
  set('denyDomains', flags.denyDomain);
  set('storageDir', flags.storage);
  set('browser', flags.browser);
  set('headed', flags.headed);
  set('slowMoMs', flags.slowMo);
  set('fetcher', flags.fetcher);
  set('fetchOrder', flags.fetchOrder);
  set('trace', flags.trace === true ? 'all' : flags.trace || undefined);
  set('cilinPath', flags.cilin);
  set('wordVectors', flags.wordVectors);
  set('randomSeed', flags.randomSeed);
  set('allowPrivate', Array.isArray(flags.allowPrivate) ? flags.allowPrivate.map((o) => checkUrl(o, '--allow-private origin')) : flags.allowPrivate);
  set('maxBodyBytes', flags.maxBody);
  set('maxLinksPerPage', flags.maxLinks);
  set('maxUrlLength', flags.maxUrlLength);
  set('maxRedirects', flags.maxRedirects);
  set('maxRssMb', flags.maxRssMb);
  set('dashboard', flags.dashboard === true ? 0 : flags.dashboard === false ? undefined : flags.dashboard);
  if (flags.blockRequests === false) input.blockRequests = false;
  set('blockUrlPatterns', flags.blockPattern);
  set('settleCapSecs', flags.settleCap);
  if (flags.frontier !== undefined || flags.crawlId !== undefined || flags.worker) {
    input.frontier = {
      ...((file.frontier as object | undefined) ?? {}),
      ...(flags.frontier !== undefined ? { url: flags.frontier } : {}),
      ...(flags.crawlId !== undefined ? { crawlId: flags.crawlId } : {}),
      ...(flags.worker ? { worker: true } : {}),
    };
  }
  if (flags.labels !== undefined || flags.ask !== undefined || flags.askAfter !== undefined) {
    input.labels = {
      ...((file.labels as object | undefined) ?? {}),
      ...(flags.labels !== undefined ? { file: flags.labels } : {}),
      ...(flags.ask !== undefined ? { ask: flags.ask } : {}),
      ...(flags.askAfter !== undefined ? { askAfter: flags.askAfter } : {}),
    };
  }
  if (flags.matchers !== undefined) input.threads = { ...((file.threads as object | undefined) ?? {}), ...((input.threads as object | undefined) ?? {}), matchers: flags.matchers };
  if (flags.threadConfidence !== undefined) input.threads = { ...((file.threads as object | undefined) ?? {}), ...((input.threads as object | undefined) ?? {}), minConfidence: flags.threadConfidence };
  const config = parseConfig(input, source);
  for (const t of config.topics) {
    // A worker joins a crawl seeded by its first run: it needs the topic, not seeds.
    if (t.seeds.length === 0 && !t.search && !config.frontier.worker) {
      throw new UserError(`${source}: topic "${t.name ?? t.keywords.join(' ')}" has no seeds: give --seeds URL… or a search provider`);
    }
  }
  return config;
}

/**
 * Fail early, in one line, when no seed can be reached at all; a crawl that cannot start should
 * not launch a browser first. The check sends no request: every fetch of a seed goes through the
 * crawl's gate, robots and per-host schedule, so this only asks the same gate about the seed
 * (a refused seed is left to the crawl, which logs why) and opens a TCP connection to the
 * address the gate checked, closed at once. A seed whose port accepts counts as reachable.
 * `resolve` replaces the system's DNS (tests: a name with no address, whatever the resolver).
 */
export async function checkSeedsReachable(config: CrawlConfig, opts: { timeoutMs?: number; resolve?: GateOptions['resolve'] } = {}): Promise<void> {
  const seeds = config.topics.flatMap((t) => t.seeds);
  if (seeds.length === 0) return;
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const gate = new FetchGate({ ...gateOptionsOf(config), ...(opts.resolve ? { resolve: opts.resolve } : {}) });
  const failures: string[] = [];
  let refused = 0;
  await Promise.all(
    seeds.map(async (url) => {
      const verdict = await gate.check(url);
      if (!verdict.ok) {
        // A host with no address cannot be reached at all: said as such, not left to robots.txt.
        const dns = /^dns: [^:]+: (\S+)/.exec(verdict.reason);
        if (dns) failures.push(`${url} (host not found: ${dns[1]})`);
        else refused++;
        return;
      }
      const u = new URL(url);
      const port = Number(u.port) || (u.protocol === 'https:' ? 443 : 80);
      const address = verdict.addresses?.[0] ?? u.hostname.replace(/^\[|\]$/g, '');
      const problem = await tcpConnect(address, port, timeoutMs);
      if (problem) failures.push(`${url} (${problem})`);
    }),
  );
  if (refused === 0 && failures.length === seeds.length) {
    throw new UserError(`no seed is reachable: ${failures.join(', ')}`);
  }
  for (const f of failures) process.stderr.write(`warning: seed unreachable, skipped: ${f}\n`);
}

/** Open and close a TCP connection: undefined when the port accepted, else the error code. */
function tcpConnect(host: string, port: number, timeoutMs: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (problem?: string) => {
      socket.destroy();
      resolve(problem);
    };
    socket.setTimeout(timeoutMs, () => done('timed out'));
    socket.once('connect', () => done());
    socket.once('error', (e: NodeJS.ErrnoException) => done(e.code ?? e.message));
  });
}
