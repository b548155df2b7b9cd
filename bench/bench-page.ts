/**
 * The benchmark page, `docs/benchmarks.md`: every benchmark command writes its own section of it,
 * so the page always holds the current figures and the command that produced them. A section is
 * the text between `<!-- bench:NAME -->` and `<!-- /bench:NAME -->`; writing one replaces only it
 * (appended at the end when new), so commands that measure different things never overwrite each
 * other.
 */
import { cpus, loadavg, totalmem } from 'node:os';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const BENCH_PAGE = join(dirname(fileURLToPath(import.meta.url)), '..', 'docs', 'benchmarks.md');

const HEADER = `# Benchmarks

Current figures only: each section below is written by the command it names, on this project's
reference machine (2 cores, 24 GB) unless it says otherwise. Run the command to reproduce a
section; it rewrites that section in place.
`;

export interface BenchSection {
  /** Stable key of the section, e.g. \`extract-dates\`. */
  name: string;
  /** Heading shown on the page. */
  title: string;
  /** The command that reproduces the section, shown verbatim. */
  command: string;
  /** The section's Markdown body: tables and a few sentences on what is measured. */
  body: string;
}

/** The machine line printed under each section: cores, memory and the load while it ran. */
export function machineLine(loadBefore?: number[]): string {
  const after = loadavg();
  const load = loadBefore ? `${loadBefore[0].toFixed(1)}–${after[0].toFixed(1)}` : after[0].toFixed(1);
  return `Machine: ${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GB, 1-minute load ${load}; Node ${process.version}.`;
}

/** Replace (or append) one section of a benchmark page's text. */
export function withSection(page: string, s: BenchSection): string {
  const start = `<!-- bench:${s.name} -->`;
  const end = `<!-- /bench:${s.name} -->`;
  const block = `${start}\n## ${s.title}\n\n\`\`\`\n${s.command}\n\`\`\`\n\n${s.body.trim()}\n${end}`;
  const a = page.indexOf(start);
  const b = page.indexOf(end);
  if (a >= 0 && b > a) return page.slice(0, a) + block + page.slice(b + end.length);
  return page.replace(/\n*$/, '\n\n') + block + '\n';
}

/** Write one section of `docs/benchmarks.md` (or of `path`), leaving the others as they are. */
export function writeBenchSection(s: BenchSection, path = BENCH_PAGE): void {
  const page = existsSync(path) ? readFileSync(path, 'utf8') : HEADER;
  writeFileSync(path, withSection(page, s));
}
