/**
 * The README and docs/ are the manual: this keeps them true as the code grows. The README stays
 * short; every flag is in docs/cli.md and every config field, with its type and default, in
 * docs/configuration.md (each read from the code, so a new one fails here with what to add); the
 * command examples still run; local links resolve; and no development history (commit hashes,
 * work sessions, handles, issue numbers) is in the README, the docs or the comments of src/.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../src/cli/main.js';
import { configFields, fieldRow } from './helpers/config-fields.js';
import { commentsOf, historyIn } from './helpers/history.js';

const ROOT = join(import.meta.dirname, '..');
const read = (p: string) => readFileSync(join(ROOT, p), 'utf8');
const readme = read('README.md');
const DOCS = readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`);
const cliDoc = read('docs/cli.md');
const configDoc = read('docs/configuration.md');

describe('README', () => {
  it('is a short manual: at most 400 lines', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(400);
  });

  it('shows the two set-up commands, the test command and the demo', () => {
    expect(readme).toContain('npm install && npm start');
    expect(readme).toContain('npm install && npm test');
  });

  it('links every guide in docs/', () => {
    const missing = DOCS.filter((d) => !readme.includes(`(${d})`) && !readme.includes(`(${d}#`));
    expect(missing, `guides the README does not link`).toEqual([]);
  });
});

/** The long flags of a commander program written in a source file (`.option('-x, --name <v>', …)`). */
function sourceFlags(file: string): string[] {
  return [...read(file).matchAll(/\.option\(\s*'([^']+)'/g)].map((m) => /--[a-z][\w-]*/.exec(m[1])![0]);
}

describe('docs/cli.md', () => {
  it('documents every npm start flag (read from the program itself)', () => {
    const flags = buildProgram().options.map((o) => o.long!).filter(Boolean);
    expect(flags.length).toBeGreaterThan(10);
    const missing = flags.filter((f) => !cliDoc.includes(`\`${f}`));
    // A flag added to src/cli without its row: add it to a table of docs/cli.md as `--flag …`.
    expect(missing, `npm start flags missing from docs/cli.md:\n  ${missing.join('\n  ')}\n`).toEqual([]);
  });

  it('documents every flag of the other commands (extract, debug:extract, trace, testweb)', () => {
    const files = ['src/cli/extract.ts', 'src/cli/debug-extract.ts', 'src/cli/trace.ts', 'src/testweb/serve.ts'];
    const missing = files.flatMap((f) => {
      const flags = sourceFlags(f);
      expect(flags.length, f).toBeGreaterThan(0);
      return flags.filter((flag) => !cliDoc.includes(`\`${flag}`)).map((flag) => `${flag} (${f})`);
    });
    expect(missing, `flags missing from docs/cli.md:\n  ${missing.join('\n  ')}\n`).toEqual([]);
  });

  it('lists every npm script', () => {
    const scripts = Object.keys((JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts);
    const internal = new Set(['prepack', 'postinstall', 'test:report']);
    const missing = scripts.filter((s) => !internal.has(s) && !cliDoc.includes(s === 'start' || s === 'test' ? `npm ${s}` : `npm run ${s}`));
    expect(missing, 'npm scripts missing from docs/cli.md').toEqual([]);
  });
});

describe('docs/configuration.md', () => {
  const rows = new Map(
    [...configDoc.matchAll(/^\| `([^`]+)` \| ([^|]+) \| (.+?) \| .+\|$/gm)].map((m) => [m[1], { type: m[2].trim(), default: m[3].trim() }]),
  );

  it('has a row for every config field, walked from the zod schema', () => {
    const fields = configFields();
    expect(fields.length).toBeGreaterThan(100);
    const missing = fields.filter((f) => !rows.has(f.path));
    // Paste these rows into the right table and write their meaning.
    expect(missing.map((f) => fieldRow(f)), `config fields missing from docs/configuration.md`).toEqual([]);
  });

  it("gives each field the schema's type and default", () => {
    const wrong = configFields()
      .filter((f) => rows.has(f.path))
      .filter((f) => rows.get(f.path)!.type !== f.type || rows.get(f.path)!.default !== f.default)
      .map((f) => `${f.path}: docs say ${rows.get(f.path)!.type} / ${rows.get(f.path)!.default}, the schema ${f.type} / ${f.default}`);
    expect(wrong).toEqual([]);
  });

  it('documents no field the schema does not have', () => {
    const paths = new Set(configFields().map((f) => f.path));
    expect([...rows.keys()].filter((p) => !paths.has(p))).toEqual([]);
  });
});

/** Shell lines of the ```sh blocks of a Markdown text, comments dropped. */
function shellLines(md: string): string[] {
  return [...md.matchAll(/```sh\n([\s\S]*?)```/g)]
    .flatMap((m) => m[1].split('\n'))
    .map((l) => l.replace(/\s+#.*$/, '').trim())
    .filter(Boolean);
}

/** `npm start -- …` examples (also `npm start -s --`, and under `xvfb-run -a`), split as a shell would. */
function startExamples(md: string): string[][] {
  return shellLines(md)
    .map((l) => l.replace(/^xvfb-run -a /, '').replace(/\s*\|.*$/, ''))
    .map((l) => /^npm start(?: -s)? -- (.*)$/.exec(l)?.[1])
    .filter((rest): rest is string => rest !== undefined)
    .map((rest) => [...rest.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]));
}

describe('command examples in the README and docs run', () => {
  it('the config example is docs/examples/quake.yaml and loads: schema, both topics, the trends CSV', async () => {
    const { loadConfigFile, buildConfig } = await import('../src/cli/options.js');
    const { PageJudge } = await import('../src/judge/judge.js');
    const file = join(ROOT, 'docs', 'examples', 'quake.yaml');
    const block = /```yaml\n([\s\S]*?)```/.exec(configDoc)![1];
    expect(block).toBe(readFileSync(file, 'utf8'));
    // Its hosts are placeholders: the file and every command that runs it say it is an online template.
    expect(block).toMatch(/^# ONLINE TEMPLATE/);
    const runs = ['README.md', ...DOCS].flatMap((f) => read(f).split('\n')).filter((l) => /^npm start .*quake\.yaml/.test(l));
    expect(runs.length).toBeGreaterThan(0);
    for (const l of runs) expect(l).toMatch(/#.*online/);
    // From another working folder: the CSV is found beside the file.
    const cwd = process.cwd();
    process.chdir(tmpdir());
    try {
      const config = buildConfig({ config: file }, await loadConfigFile(file));
      expect(config.topics.map((t) => t.name)).toEqual(['quake', 'olympics']);
      const judge = await PageJudge.create(config, () => undefined);
      expect(judge.model.topics.map((t) => t.id)).toEqual(['quake', 'olympics']);
      // The trends CSV was read: May 12th is the peak of the distribution.
      expect(judge.model.topics[0].time!.Pr(new Date('2008-05-14T00:00:00+08:00'))).toBe(1);
    } finally {
      process.chdir(cwd);
    }
  });

  it('every `npm start -- …` example parses and, where it crawls, builds a valid config', async () => {
    const { buildConfig, loadConfigFile } = await import('../src/cli/options.js');
    const examples = ['README.md', ...DOCS].flatMap((f) => startExamples(read(f)).map((args) => ({ f, args })));
    expect(examples.length).toBeGreaterThanOrEqual(15);
    expect(examples.filter((e) => e.f === 'README.md').length).toBeGreaterThanOrEqual(8);
    for (const { f, args } of examples) {
      const program = buildProgram().exitOverride();
      program.parse(args, { from: 'user' });
      const flags = program.opts();
      if (flags.topic || flags.seeds || flags.config) {
        const file = flags.config ? await loadConfigFile(join(ROOT, flags.config)) : {};
        expect(() => buildConfig(flags, file), `${f}: ${args.join(' ')}`).not.toThrow();
      }
    }
  });

  it('every `npm run SCRIPT` in the README and docs names a script of package.json', () => {
    const scripts = new Set(Object.keys((JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts));
    const used = ['README.md', ...DOCS].flatMap((f) => [...read(f).matchAll(/npm run ([\w:-]+)/g)].map((m) => `${m[1]} (${f})`));
    expect(used.length).toBeGreaterThan(10);
    expect(used.filter((u) => !scripts.has(u.split(' ')[0]))).toEqual([]);
  });

  it("library.md's analyzePage example runs against the package's source and prints what it says", () => {
    const doc = read('docs/library.md');
    const block = [...doc.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]).find((b) => b.includes('analyzePage('))!;
    expect(block).toContain("from 'focused-crawler'");
    const file = join(mkdtempSync(join(tmpdir(), 'library-doc-')), 'example.mjs');
    writeFileSync(file, block.replace("'focused-crawler'", JSON.stringify(join(ROOT, 'src', 'index.ts'))));
    const out = execFileSync(process.execPath, ['--import', 'tsx', file], { cwd: ROOT, encoding: 'utf8' });
    expect(out).toContain('汶川地震救援进展 2008-05-13T09:38:00 [');
    expect(out).toContain('https://news.example.cn/2008/0514/n2.shtml');
  });
});

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsOf(md: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of md.replace(/```[\s\S]*?```/g, '').matchAll(/^#{1,6} (.+)$/gm)) {
    const s = slug(m[1].trim());
    const n = seen.get(s) ?? 0;
    seen.set(s, n + 1);
    out.add(n ? `${s}-${n}` : s);
  }
  return out;
}

describe('links', () => {
  it('every local link of the README and docs points to a file (and heading) that exists', () => {
    const broken: string[] = [];
    for (const f of ['README.md', ...DOCS, 'CHANGELOG.md']) {
      const md = read(f).replace(/```[\s\S]*?```/g, '');
      for (const [, target] of md.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target)) continue;
        const [path, anchor] = target.split('#');
        const abs = path ? resolve(dirname(join(ROOT, f)), path) : join(ROOT, f);
        if (!existsSync(abs)) broken.push(`${f}: ${target} (no such file)`);
        else if (anchor && statSync(abs).isFile() && abs.endsWith('.md') && !anchorsOf(readFileSync(abs, 'utf8')).has(decodeURIComponent(anchor)))
          broken.push(`${f}: ${target} (no such heading in ${relative(ROOT, abs)})`);
      }
    }
    expect(broken).toEqual([]);
  });
});

const sourceFiles = (dir: string): string[] =>
  readdirSync(join(ROOT, dir)).flatMap((f) => {
    const p = join(dir, f);
    return statSync(join(ROOT, p)).isDirectory() ? sourceFiles(p) : p.endsWith('.ts') ? [p] : [];
  });

describe('no development history in the product', () => {
  it('finds it where it is (the patterns are not blind)', () => {
    const say = (...parts: string[]) => parts.join('');
    expect(historyIn(say('measured on ', 'b6e5761', ' at load 4'))).toHaveLength(1);
    expect(historyIn(say('in the ninth ', 'session'))).toHaveLength(1);
    expect(historyIn(say('run by ', 'redis', '9'))).toHaveLength(1);
    expect(historyIn(say('see ', 'issue', ' #15'))).toHaveLength(1);
    expect(historyIn(say('set ', 'F on 543e', '261'))).toHaveLength(2);
    // Ordinary words and numbers pass: colours, dates of the test data, CDP sessions, the seed set D.
    expect(historyIn('colour #a1b2c3d, 0x7f000001, 20080512, 2008-05-12, a DevTools session, the seed set D (METHODS §1)')).toEqual([]);
  });

  it('none in README.md, CHANGELOG.md or docs/*.md', () => {
    const found = ['README.md', 'CHANGELOG.md', ...DOCS].flatMap((f) =>
      read(f)
        .split('\n')
        .flatMap((line, i) => historyIn(line).map((h) => `${f}:${i + 1}: ${h}`)),
    );
    expect(found).toEqual([]);
  });

  it('none in the comments of src/', () => {
    const found = sourceFiles('src').flatMap((f) => commentsOf(f, read(f)).flatMap((c) => historyIn(c.text).map((h) => `${f}:${c.line}: ${h}`)));
    expect(found).toEqual([]);
  });

  it('none in test titles', () => {
    const found = sourceFiles('test').flatMap((f) =>
      [...read(f).matchAll(/\b(?:describe|it|test)\(\s*(['"`])(.*?)\1/g)].flatMap((m) => historyIn(m[2]).map((h) => `${f}: "${m[2]}": ${h}`)),
    );
    expect(found).toEqual([]);
  });
});
