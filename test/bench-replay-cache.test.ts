import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { replayCacheFingerprint } from '../bench/replay-cache.js';

describe('bench:replay cache fingerprint', () => {
  const root = mkdtempSync(join(tmpdir(), 'replay-cache-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  mkdirSync(join(root, 'src/extract/replies'), { recursive: true });
  writeFileSync(join(root, 'src/extract/page.ts'), 'export const a = 1;\n');
  writeFileSync(join(root, 'src/extract/replies/rules.ts'), 'export const b = 2;\n');
  writeFileSync(join(root, 'package-lock.json'), '{"v":1}');
  const inputs = ['src/extract', 'package-lock.json'];

  it('is stable while the analysis sources are unchanged', () => {
    expect(replayCacheFingerprint(root, inputs)).toBe(replayCacheFingerprint(root, inputs));
    expect(replayCacheFingerprint(root, inputs)).toMatch(/^[0-9a-f]{12}$/);
  });

  it('changes with any source under an input folder, a locked library version or a new file', () => {
    const before = replayCacheFingerprint(root, inputs);
    writeFileSync(join(root, 'src/extract/replies/rules.ts'), 'export const b = 3;\n');
    const nested = replayCacheFingerprint(root, inputs);
    expect(nested).not.toBe(before);
    writeFileSync(join(root, 'package-lock.json'), '{"v":2}');
    const locked = replayCacheFingerprint(root, inputs);
    expect(locked).not.toBe(nested);
    writeFileSync(join(root, 'src/extract/dates.ts'), '');
    expect(replayCacheFingerprint(root, inputs)).not.toBe(locked);
  });

  it('leaves out files no cached page depends on', () => {
    const before = replayCacheFingerprint(root, inputs, ['src/extract/server.ts']);
    writeFileSync(join(root, 'src/extract/server.ts'), 'export const s = 1;\n');
    expect(replayCacheFingerprint(root, inputs, ['src/extract/server.ts'])).toBe(before);
    expect(replayCacheFingerprint(root, inputs)).not.toBe(before);
  });

  it('reads the repository by default (its own src/extract exists)', () => {
    expect(replayCacheFingerprint()).toMatch(/^[0-9a-f]{12}$/);
  });
});
