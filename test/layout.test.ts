import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
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
    const adaptive = files.find((f) => f.p.endsWith(join('fetch', 'adaptive-policy.ts')))!;
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
