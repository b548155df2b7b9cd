import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
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
