/**
 * The memory ceiling (config `maxRssMb`): a crawl whose process tree grows past it stops the way
 * Ctrl-C stops it — pages under way finish, the journal and state are saved, and `--resume`
 * continues — instead of being killed by the machine's out-of-memory killer or dying in the
 * middle of a write when V8 runs out of heap. The tree is Node, the Chromium it launched (most
 * of a browser crawl's memory) and the gate proxy process (../util/process-tree.ts), so the
 * ceiling is what the crawl takes from the machine. Node's own resident memory is also held
 * under 90% of V8's heap limit (RSS is never below the heap in use, so that ceiling is reached
 * before the heap limit is).
 */
import { totalmem } from 'node:os';
import { getHeapStatistics } from 'node:v8';
import { cachedTreeMemory, type TreeMemory } from '../util/process-tree.js';

const MB = 1024 * 1024;

/** The default ceiling of the process tree: 80% of the machine's memory. */
export function defaultMaxRssMb(): number {
  return Math.floor((0.8 * totalmem()) / MB);
}

/** Node's own ceiling: 90% of its heap limit (and at most 80% of the machine's memory). */
export function nodeCeilingMb(): number {
  return Math.floor(Math.min(0.9 * getHeapStatistics().heap_size_limit, 0.8 * totalmem()) / MB);
}

/** The tree's ceiling in MB a config asks for: its own value, the default when absent, 0 = none. */
export function memoryCeilingMb(maxRssMb: number | undefined): number {
  return maxRssMb === undefined ? defaultMaxRssMb() : maxRssMb;
}

export interface MemoryOverrun {
  /** Resident MB of what passed its ceiling. */
  rssMb: number;
  ceilingMb: number;
  /** What passed it: the whole process tree (the configured ceiling) or Node's own process (its heap's). */
  of: 'process tree' | 'Node process';
}

/** A crawl asks after every page; the tree is read at most twice a second. */
const sampleTree = cachedTreeMemory(500);

/** The process tree's resident memory against a ceiling (0 = none), and Node's own against its heap's. */
export function memoryOverrun(ceilingMb: number, tree: Pick<TreeMemory, 'totalMb' | 'rootMb'> = sampleTree(), nodeMb = nodeCeilingMb()): MemoryOverrun | undefined {
  if (ceilingMb <= 0) return undefined;
  const total = Math.round(tree.totalMb);
  if (total > ceilingMb) return { rssMb: total, ceilingMb, of: 'process tree' };
  const own = Math.round(tree.rootMb);
  return own > nodeMb ? { rssMb: own, ceilingMb: nodeMb, of: 'Node process' } : undefined;
}
