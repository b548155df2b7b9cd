/**
 * Resident memory of a process and all its descendants (Linux /proc): a crawl is Node plus the
 * Chromium it launched (a browser process, a zygote, GPU and utility processes, one renderer per
 * site shown) plus the gate proxy process, and Chromium is most of it. RSS is summed per
 * process, so pages two processes share (Chromium's code) count once per process: the figure is
 * what `ps` and `top` show added up, an upper bound of what the tree takes from the machine.
 * PSS (proportional set size, from smaps_rollup: each shared page split among the processes that
 * share it) sums to what the tree really holds, as `smem` reports it; it costs a walk of each
 * process's page tables, so it is read only when asked for. Where /proc cannot be read (not
 * Linux), only this process is counted.
 */
import { readdirSync, readFileSync } from 'node:fs';

const MB = 1024 * 1024;
const PAGE = 4096;

/** One component of the tree (`node`, `chromium renderer`, `chromium gpu-process`, …): its processes' RSS summed. */
export interface TreePart {
  mb: number;
  processes: number;
  /** Proportional set size of the component's processes, MB (when asked for). */
  pssMb?: number;
}

export interface TreeMemory {
  /** RSS of the root and every live descendant, in MB. */
  totalMb: number;
  /** The root process alone (this Node process by default). */
  rootMb: number;
  /** By component (processKind), largest first. */
  parts: Record<string, TreePart>;
  /** PSS of the root and every live descendant, in MB: what the tree holds, shared pages counted once (when asked for). */
  totalPssMb?: number;
}

/** A process's proportional set size in MB (smaps_rollup), or undefined where the kernel gives none. */
function pssOf(proc: string, pid: number): number | undefined {
  try {
    const m = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`${proc}/${pid}/smaps_rollup`, 'utf8'));
    return m ? Number(m[1]) / 1024 : undefined;
  } catch {
    return undefined; // exited meanwhile, or a kernel without smaps_rollup
  }
}

/**
 * What a process of the tree is, from its command line: Chromium's processes by their `--type`
 * (a renderer, the GPU process, a utility process by its service name), the browser process
 * itself, Node processes, else the executable's name.
 */
export function processKind(cmdline: string): string {
  const exe = cmdline.split(/\s/)[0] ?? '';
  const name = exe.split('/').pop() ?? exe;
  if (/chrom|headless_shell/i.test(name)) {
    const type = /--type=([\w-]+)/.exec(cmdline)?.[1];
    if (!type) return 'chromium browser';
    const service = /--utility-sub-type=([\w.]+)/.exec(cmdline)?.[1];
    return `chromium ${type}${service ? ` ${service.split('.').pop()}` : ''}`;
  }
  if (/^node(js)?$/.test(name)) return 'node';
  return name || 'unknown';
}

/** RSS (and with `pss`, PSS) of `root` and its descendants, by component. `proc` is the procfs root (tests give a fake one). */
export function processTreeMemory(root = process.pid, proc = '/proc', opts: { pss?: boolean } = {}): TreeMemory {
  const parent = new Map<number, number>();
  const rss = new Map<number, number>();
  let entries: string[];
  try {
    entries = readdirSync(proc);
  } catch {
    const mb = process.memoryUsage.rss() / MB;
    return { totalMb: mb, rootMb: mb, parts: { node: { mb, processes: 1 } } };
  }
  for (const d of entries) {
    if (!/^\d+$/.test(d)) continue;
    try {
      // fields after the command name (which may hold spaces and parentheses): state ppid … rss is the 22nd
      const stat = readFileSync(`${proc}/${d}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
      parent.set(Number(d), Number(f[1]));
      rss.set(Number(d), (Number(f[21]) * PAGE) / MB);
    } catch {
      // exited meanwhile
    }
  }
  const inTree = (pid: number) => {
    for (let p: number | undefined = pid, hops = 0; p !== undefined && p > 0 && hops < 64; p = parent.get(p), hops++) if (p === root) return true;
    return false;
  };
  const parts: Record<string, TreePart> = {};
  let totalMb = 0;
  let totalPssMb: number | undefined;
  for (const [pid, mb] of rss) {
    if (!inTree(pid)) continue;
    let cmdline = '';
    try {
      cmdline = readFileSync(`${proc}/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
    } catch {
      continue; // exited meanwhile
    }
    const kind = processKind(cmdline);
    const part = (parts[kind] ??= { mb: 0, processes: 0 });
    part.mb += mb;
    part.processes++;
    totalMb += mb;
    if (opts.pss) {
      const pss = pssOf(proc, pid);
      if (pss !== undefined) {
        part.pssMb = (part.pssMb ?? 0) + pss;
        totalPssMb = (totalPssMb ?? 0) + pss;
      }
    }
  }
  const sorted = Object.fromEntries(Object.entries(parts).sort((a, b) => b[1].mb - a[1].mb));
  return { totalMb, rootMb: rss.get(root) ?? 0, parts: sorted, ...(totalPssMb !== undefined ? { totalPssMb } : {}) };
}

/** `processTreeMemory` at most once per `maxAgeMs` (a crawl asks after every page; a scan reads every process's stat). */
export function cachedTreeMemory(maxAgeMs = 500, sample: () => TreeMemory = () => processTreeMemory()): () => TreeMemory {
  let last: { at: number; value: TreeMemory } | undefined;
  return () => {
    const now = Date.now();
    if (!last || now - last.at >= maxAgeMs) last = { at: now, value: sample() };
    return last.value;
  };
}
