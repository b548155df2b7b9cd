/**
 * Where `bench:replay` keeps its page analyses, and under which name. A cached analysis is what the
 * test web served and what `analyzePage` made of it when the page was first rendered; a page once
 * cached was never rendered again, so after the test web or the extraction changed, a replay read
 * a mix of old and new analyses, and figures measured on one machine's long-lived cache could not
 * be reproduced from a clean one (the test web at 150 pages replayed several points lower from a
 * fresh cache than from an old one). So each cache file
 * is named by a fingerprint of what its contents depend on: the sources of the page analysis
 * (src/extract), of the generated webs (src/testweb, src/util) and the locked library versions
 * (package-lock.json: Readability, linkedom). A change to any of them starts a new file.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const replayCacheDir = process.env.REPLAY_CACHE ?? join(tmpdir(), 'focus-replay-cache');

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const INPUTS = ['src/extract', 'src/testweb', 'src/util', 'package-lock.json'];
/** Servers no replay caches a page of (the hostile web, Redis, the CLI that serves the test web). */
const NOT_INPUTS = ['src/testweb/hostile.ts', 'src/testweb/redis-server.ts', 'src/testweb/serve.ts'];

function filesUnder(path: string): string[] {
  let entries;
  try {
    entries = readdirSync(path, { withFileTypes: true });
  } catch {
    return [path]; // a file
  }
  return entries.flatMap((e) => (e.isDirectory() ? filesUnder(join(path, e.name)) : [join(path, e.name)]));
}

/** 12 hex digits over the inputs' paths and contents (sorted, so the walk order does not matter). */
export function replayCacheFingerprint(root = ROOT, inputs = INPUTS, notInputs = NOT_INPUTS): string {
  const hash = createHash('sha256');
  const skip = new Set(notInputs.map((p) => join(root, p)));
  for (const file of inputs.flatMap((p) => filesUnder(join(root, p))).filter((f) => !skip.has(f)).sort()) {
    hash.update(relative(root, file)).update('\0').update(readFileSync(file)).update('\0');
  }
  return hash.digest('hex').slice(0, 12);
}

/** `testweb-42` or `wikispeedia` → `$REPLAY_CACHE/testweb-42.<fingerprint>.json`. */
export function replayCacheFile(name: string): string {
  return join(replayCacheDir, `${name}.${replayCacheFingerprint()}.json`);
}
