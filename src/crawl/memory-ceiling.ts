/**
 * The memory ceiling (config `maxRssMb`): a crawl whose Node process grows past it stops the way
 * Ctrl-C stops it — pages under way finish, the journal and state are saved, and `--resume`
 * continues — instead of dying in the middle of a write when V8 runs out of heap. Resident
 * memory (RSS) is never below the heap in use, so a ceiling under V8's heap limit is reached
 * before the heap limit is.
 */
import { totalmem } from 'node:os';
import { getHeapStatistics } from 'node:v8';

const MB = 1024 * 1024;

/** The default ceiling: 90% of Node's heap limit, and at most 80% of the machine's memory. */
export function defaultMaxRssMb(): number {
  return Math.floor(Math.min(0.9 * getHeapStatistics().heap_size_limit, 0.8 * totalmem()) / MB);
}

/** The ceiling in MB a config asks for: its own value, the default when absent, 0 = none. */
export function memoryCeilingMb(maxRssMb: number | undefined): number {
  return maxRssMb === undefined ? defaultMaxRssMb() : maxRssMb;
}

export interface MemoryOverrun {
  rssMb: number;
  ceilingMb: number;
}

/** The process's resident memory against a ceiling (0 = none). */
export function memoryOverrun(ceilingMb: number, rssBytes = process.memoryUsage.rss()): MemoryOverrun | undefined {
  if (ceilingMb <= 0) return undefined;
  const rssMb = Math.round(rssBytes / MB);
  return rssMb > ceilingMb ? { rssMb, ceilingMb } : undefined;
}
