/** The README documents every CLI flag and every config field: this keeps it true as both grow. */
import { readFileSync } from 'node:fs';
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
