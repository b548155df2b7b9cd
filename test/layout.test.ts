import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const MAX_LINES = 400;
const REASON = /Long because:/;

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? tsFiles(p) : p.endsWith('.ts') ? [p] : [];
  });
}

describe('source layout', () => {
  it(`no module in src/ is over ${MAX_LINES} lines without a "Long because:" reason in its header comment`, () => {
    const offenders = tsFiles('src')
      .map((p) => ({ p, text: readFileSync(p, 'utf8') }))
      .filter(({ text }) => text.split('\n').length > MAX_LINES)
      .filter(({ p, text }) => !REASON.test(text.slice(0, 2000)))
      .map(({ p, text }) => `${p} (${text.split('\n').length} lines)`);
    expect(offenders).toEqual([]);
  });
});

/** Every module `file` imports from src/ (static, re-export or dynamic), as paths relative to src/. */
function srcImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specs = [...text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|^\s*import\s+)['"](\.{1,2}\/[^'"]+)['"]/gm)].map((m) => m[1]);
  return specs.map((s) => relative('src', join(dirname(file), s)).split(sep).join('/'));
}

/** The stage folder of a path relative to src/ (`fetch/adaptive.ts` → `fetch`; `index.ts` → `index.ts`). */
const stageOf = (p: string): string => p.split('/')[0];

describe('imports between stages', () => {
  const files = tsFiles('src').map((p) => ({ p, stage: stageOf(relative('src', p).split(sep).join('/')), imports: srcImports(p) }));

  it('sees imports at all (the pattern matches this code base)', () => {
    const adaptive = files.find((f) => f.p.endsWith(join('fetch', 'adaptive', 'adaptive-policy.ts')))!;
    expect(adaptive.imports).toContain('util/rng.js');
    const main = files.find((f) => f.p.endsWith(join('cli', 'main.ts')))!;
    expect(main.imports).toContain('testweb/index.js'); // a dynamic import
  });

  it('product code does not import the test web (only the CLI demo and the public index may)', () => {
    const allowed = new Set(['testweb', 'cli', 'index.ts']);
    const offenders = files.filter((f) => !allowed.has(f.stage)).flatMap((f) => f.imports.filter((i) => stageOf(i) === 'testweb').map((i) => `${f.p} → ${i}`));
    expect(offenders).toEqual([]);
  });

  it('the test web imports no product stage (only src/util/)', () => {
    const offenders = files.filter((f) => f.stage === 'testweb').flatMap((f) => f.imports.filter((i) => !['testweb', 'util'].includes(stageOf(i))).map((i) => `${f.p} → ${i}`));
    expect(offenders).toEqual([]);
  });

  it('src/util/ is stage-free: it imports nothing from another folder of src/', () => {
    const offenders = files.filter((f) => f.stage === 'util').flatMap((f) => f.imports.filter((i) => stageOf(i) !== 'util').map((i) => `${f.p} → ${i}`));
    expect(offenders).toEqual([]);
  });
});

/**
 * Folders of src/ by rank: a module imports from its own folder or from a folder of lower rank,
 * so the path of one URL reads one way, cli → crawl → cluster → judge → (fetch, frontier, report, store) → config
 * → (extract, score) → topic → text → util. (src/testweb/ has its own rules above; the CLI and
 * the public index sit on top.) BACK_EDGES are today's imports against that direction, each to
 * be removed; the list may only shrink (a listed import that is gone fails too, so it is struck).
 */
const RANK: Record<string, number> = { cli: 9, 'index.ts': 9, crawl: 8, dashboard: 8, plugins: 8, cluster: 7, judge: 6, fetch: 5, frontier: 5, report: 5, store: 5, config: 4, extract: 3, score: 3, topic: 2, text: 1, util: 0, testweb: 0 };
const BACK_EDGES = [
  'fetch/adaptive/adaptive.ts → crawl/polite-fetch.js',
  'topic/errors.ts → config/errors.js',
  'topic/model.ts → config/schema.js',
  'topic/multi-topic.ts → config/schema.js',
  'report/html.ts → crawl/labels.js',
  'report/write.ts → crawl/labels.js',
  'topic/time.ts → extract/dates.js',
];

describe('one-way imports between folders', () => {
  const edges = tsFiles('src').flatMap((p) => {
    const from = relative('src', p).split(sep).join('/');
    return srcImports(p).map((to) => ({ from, to }));
  });

  it('every folder of src/ has a rank', () => {
    expect(readdirSync('src').filter((f) => !(f in RANK))).toEqual([]);
  });

  it('imports go from a higher-ranked folder to a lower one (or within a folder), apart from the listed back edges', () => {
    const against = edges
      .filter(({ from, to }) => stageOf(from) !== stageOf(to) && stageOf(to) !== 'testweb' && RANK[stageOf(to)] > RANK[stageOf(from)])
      .map(({ from, to }) => `${from} → ${to}`);
    expect(against.filter((e) => !BACK_EDGES.includes(e))).toEqual([]);
    expect(BACK_EDGES.filter((e) => !against.includes(e))).toEqual([]);
  });
});

const MAX_FUNCTION_LINES = 120;

/** Functions (declarations, methods, arrows, function expressions) of a module over `max` lines, with the comments before them. */
function longFunctions(file: string, max: number): { name: string; lines: number; comments: string }[] {
  const text = readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true);
  const found: { name: string; lines: number; comments: string }[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && (node as ts.FunctionLikeDeclaration).body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart()).line;
      const lines = source.getLineAndCharacterOfPosition(node.getEnd()).line - first + 1;
      if (lines > max) {
        // The comments before the function, or before the statement that names it (`const f = () => …`).
        let holder: ts.Node = node;
        while (holder.parent && (ts.isVariableDeclaration(holder.parent) || ts.isVariableDeclarationList(holder.parent) || ts.isVariableStatement(holder.parent) || ts.isPropertyAssignment(holder.parent))) holder = holder.parent;
        const comments = (ts.getLeadingCommentRanges(text, holder.getFullStart()) ?? []).map((r) => text.slice(r.pos, r.end)).join('\n');
        found.push({ name: `${file}:${first + 1} ${text.split('\n')[first].trim().slice(0, 60)}`, lines, comments });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('function length', () => {
  it('finds long functions at all (the walk matches this code base)', () => {
    expect(longFunctions(join('test', 'layout.test.ts'), 10).map((f) => f.name)).toContainEqual(expect.stringContaining('function longFunctions'));
  });

  it(`no function in src/ is over ${MAX_FUNCTION_LINES} lines without a one-line "Long because:" reason just before it`, () => {
    const offenders = tsFiles('src')
      .flatMap((p) => longFunctions(p, MAX_FUNCTION_LINES))
      .filter((f) => !/Long because: \S/.test(f.comments))
      .map((f) => `${f.name} (${f.lines} lines)`);
    expect(offenders).toEqual([]);
  });
});

/** The engine's modules: a crawl's lifecycle, each page's way, its stops and its record. */
const ENGINE = ['engine.ts', 'session.ts', 'page-handler.ts', 'stop-controller.ts', 'crawl-record.ts'].map((f) => join('src', 'crawl', f));

describe('plugins', () => {
  it('src/plugins/ imports from src/crawl/ only the plugin types (crawl/types.ts), never the engine', () => {
    const plugins = tsFiles(join('src', 'plugins'));
    expect(plugins.length).toBeGreaterThan(0);
    const offenders = plugins.flatMap((p) => srcImports(p).filter((i) => stageOf(i) === 'crawl' && i !== 'crawl/types.js').map((i) => `${p} → ${i}`));
    expect(offenders).toEqual([]);
  });

  it('no module outside src/crawl/ and src/cli/ imports the engine (plugin types come from crawl/types.ts)', () => {
    const offenders = tsFiles('src')
      .filter((p) => !p.startsWith(join('src', 'crawl') + sep) && !p.startsWith(join('src', 'cli') + sep))
      .flatMap((p) => srcImports(p).filter((i) => i === 'crawl/engine.js').map((i) => `${p} → ${i}`));
    expect(offenders).toEqual([]);
  });
});

describe('the engine and the cluster', () => {
  it('the engine modules import nothing Redis-specific: no Redis client, no Redis module of src/cluster/ (only its CrawlSharing interface)', () => {
    const offenders = ENGINE.flatMap((p) => {
      const text = readFileSync(p, 'utf8');
      const redisClient = /(?:\bfrom\s+|\bimport\s*\(\s*)['"]ioredis['"]/.test(text) ? [`${p} → ioredis`] : [];
      return [...redisClient, ...srcImports(p).filter((i) => /redis/i.test(i)).map((i) => `${p} → ${i}`)];
    });
    expect(offenders).toEqual([]);
  });

  it('crawl/engine.ts imports nothing from src/cluster/ (the session receives a CrawlSharing from its caller)', () => {
    expect(srcImports(join('src', 'crawl', 'engine.ts')).filter((i) => stageOf(i) === 'cluster')).toEqual([]);
  });

  it('the engine modules hold no Redis branch: no name in their code says Redis', () => {
    // Comments may say what a shared crawl does; the code calls CrawlSharing's hooks only.
    expect(ENGINE.flatMap(redisNames)).toEqual([]);
  });

  it('the checks see what they look for (the Redis side of src/cluster/ names Redis in its imports and code)', () => {
    expect(srcImports(join('src', 'cluster', 'redis-sharing.ts')).filter((i) => /redis/i.test(i)).length).toBeGreaterThan(0);
    expect(redisNames(join('src', 'cluster', 'redis-sharing.ts'))).toContainEqual(expect.stringContaining('RedisFrontier'));
  });
});

/** Identifiers and string literals of a module's code (not its comments) that say Redis. */
function redisNames(p: string): string[] {
  const source = ts.createSourceFile(p, readFileSync(p, 'utf8'), ts.ScriptTarget.ES2022, true);
  const names: string[] = [];
  const visit = (node: ts.Node) => {
    if ((ts.isIdentifier(node) || ts.isStringLiteral(node)) && /redis/i.test(node.text)) names.push(`${p}: ${node.text}`);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return names;
}
