/**
 * The memory a crawl takes is its whole process tree (src/util/process-tree.ts): the tree is read
 * from a procfs, here a fake one with a crawl's shape — Node, its Chromium (browser, zygote,
 * renderers, utility), a gate proxy — beside processes that are not the crawl's.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { memoryOverrun } from '../src/crawl/memory-ceiling.js';
import { cachedTreeMemory, processKind, processTreeMemory } from '../src/util/process-tree.js';

const proc = mkdtempSync(join(tmpdir(), 'fake-proc-'));
afterAll(() => rmSync(proc, { recursive: true, force: true }));

/** A process in the fake procfs: its parent, resident MB, command line. */
function fake(pid: number, ppid: number, mb: number, cmd: string[]) {
  mkdirSync(join(proc, String(pid)));
  const pages = (mb * 1024 * 1024) / 4096;
  // the command name in stat may hold spaces and parentheses; the fields after it count from there
  const fields = ['S', ppid, ...Array(19).fill(0), pages, 0];
  writeFileSync(join(proc, String(pid), 'stat'), `${pid} (${cmd[0].split('/').pop()} (x) y) ${fields.join(' ')}`);
  writeFileSync(join(proc, String(pid), 'cmdline'), cmd.join('\0') + '\0');
}

fake(1, 0, 10, ['/sbin/init']);
fake(100, 1, 300, ['/usr/bin/node', 'crawl.js']); // the crawl
fake(101, 100, 80, ['/usr/bin/node', 'gate-proxy-process.js']);
fake(102, 100, 200, ['/usr/lib/chromium/chromium', '--headless', '--no-sandbox']);
fake(103, 102, 70, ['/usr/lib/chromium/chromium', '--type=zygote']);
fake(104, 103, 120, ['/usr/lib/chromium/chromium', '--type=renderer', '--lang=en-US']);
fake(105, 103, 130, ['/usr/lib/chromium/chromium', '--type=renderer']);
fake(106, 102, 90, ['/usr/lib/chromium/chromium', '--type=utility', '--utility-sub-type=network.mojom.NetworkService']);
fake(200, 1, 5000, ['/usr/lib/chromium/chromium', '--type=renderer']); // someone else's browser
fake(201, 1, 700, ['/usr/bin/node', 'other.js']);
mkdirSync(join(proc, 'self')); // not a process

describe('the process tree of a crawl', () => {
  it('sums the resident memory of the root and every descendant, and nothing else', () => {
    const t = processTreeMemory(100, proc);
    expect(t.totalMb).toBeCloseTo(300 + 80 + 200 + 70 + 120 + 130 + 90, 5);
    expect(t.rootMb).toBeCloseTo(300, 5);
  });

  it('names Chromium processes by their type and counts them per component, largest first', () => {
    const t = processTreeMemory(100, proc);
    expect(t.parts['chromium renderer']).toEqual({ mb: 250, processes: 2 });
    expect(t.parts.node).toEqual({ mb: 380, processes: 2 });
    expect(t.parts['chromium browser']).toEqual({ mb: 200, processes: 1 });
    expect(t.parts['chromium utility NetworkService']).toEqual({ mb: 90, processes: 1 });
    expect(Object.keys(t.parts)[0]).toBe('node');
    expect(processKind('/opt/chrome/headless_shell --type=gpu-process')).toBe('chromium gpu-process');
  });

  it('stops a crawl when the tree passes the ceiling though Node alone is under it', () => {
    const t = processTreeMemory(100, proc);
    // Node 300 MB, the tree 990 MB: a ceiling of 500 MB is passed by the tree only
    expect(memoryOverrun(500, t, 4000)).toEqual({ rssMb: 990, ceilingMb: 500, of: 'process tree' });
    expect(memoryOverrun(1000, t, 4000)).toBeUndefined();
    // Node past its own (heap's) ceiling stops it too, whatever the tree's
    expect(memoryOverrun(1000, t, 250)).toEqual({ rssMb: 300, ceilingMb: 250, of: 'Node process' });
    expect(memoryOverrun(0, t, 250)).toBeUndefined();
  });

  it('sums PSS when asked: shared pages counted once, as the kernel splits them', () => {
    // Chromium's processes share their code: the renderers' RSS holds it twice, their PSS a share each.
    const smaps = (pid: number, pssKb: number) => writeFileSync(join(proc, String(pid), 'smaps_rollup'), `55d0-7ffd ---p 00000000 00:00 0 [rollup]\nRss:  999999 kB\nPss:  ${pssKb} kB\nPss_Anon:  1 kB\n`);
    smaps(104, 40 * 1024);
    smaps(105, 50 * 1024);
    smaps(200, 4000 * 1024); // not the crawl's
    const t = processTreeMemory(100, proc, { pss: true });
    expect(t.parts['chromium renderer'].pssMb).toBeCloseTo(90, 5);
    expect(t.totalPssMb).toBeCloseTo(90, 5); // only processes that gave one
    expect(t.totalMb).toBeCloseTo(990, 5); // RSS unchanged
    expect(processTreeMemory(100, proc).totalPssMb).toBeUndefined(); // not read unless asked
  });

  it('reads the tree at most once per interval when asked after every page', () => {
    let reads = 0;
    const sample = cachedTreeMemory(60_000, () => {
      reads++;
      return processTreeMemory(100, proc);
    });
    for (let i = 0; i < 5; i++) sample();
    expect(reads).toBe(1);
  });
});
