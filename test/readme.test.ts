/** The README documents every CLI flag and every config field: this keeps it true as both grow. */
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../src/cli/main.js';
import { CrawlConfigSchema } from '../src/config/schema.js';

const readme = readFileSync(join(import.meta.dirname, '..', 'README.md'), 'utf8');

describe('README', () => {
  it('shows the two set-up commands', () => {
    expect(readme).toContain('npm install && npm start');
    expect(readme).toContain('npm install && npm test');
  });

  it('documents every npm start flag', () => {
    const flags = buildProgram().options.map((o) => o.long!).filter(Boolean);
    expect(flags.length).toBeGreaterThan(10);
    const missing = flags.filter((f) => !readme.includes(`\`${f}`));
    expect(missing).toEqual([]);
  });

  it('documents every config field', () => {
    const fields = Object.keys(CrawlConfigSchema.shape);
    const missing = fields.filter((f) => !readme.includes(`\`${f}\``));
    expect(missing).toEqual([]);
  });
});

/** `npm start -- …` lines of the README's shell blocks, split as a shell would (quotes, comments). */
function startExamples(): string[][] {
  const blocks = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]);
  return blocks
    .flatMap((b) => b.split('\n'))
    .map((l) => l.replace(/\s+#.*$/, '').trim())
    .filter((l) => l.startsWith('npm start -- '))
    .map((l) => [...l.slice('npm start -- '.length).matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]));
}

describe('README examples run', () => {
  it('the config example is docs/examples/quake.yaml and loads: schema, both topics, the trends CSV', async () => {
    const { loadConfigFile, buildConfig } = await import('../src/cli/options.js');
    const { PageJudge } = await import('../src/crawl/judge.js');
    const file = join(import.meta.dirname, '..', 'docs', 'examples', 'quake.yaml');
    const block = /```yaml\n([\s\S]*?)```/.exec(readme)![1];
    expect(block).toBe(readFileSync(file, 'utf8'));
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
    const examples = startExamples();
    expect(examples.length).toBeGreaterThanOrEqual(5);
    const root = join(import.meta.dirname, '..');
    for (const args of examples) {
      const program = buildProgram().exitOverride();
      program.parse(args, { from: 'user' });
      const flags = program.opts();
      if (flags.topic || flags.seeds || flags.config) {
        const file = flags.config ? await loadConfigFile(join(root, flags.config)) : {};
        expect(() => buildConfig(flags, file), args.join(' ')).not.toThrow();
      }
    }
  });
});
