/**
 * Nothing the crawler starts listens beyond loopback. During a real browser crawl of the test
 * web, the TCP sockets in LISTEN state owned by this process and every process it started (the
 * gate proxy's child, Chromium and its helpers) are read from /proc (/proc/net/tcp and tcp6,
 * matched to processes through /proc/<pid>/fd), and each must be bound to a loopback address.
 * Crawlee's browser pool opens a proxy of its own at load time on every interface unless
 * src/fetch/loopback-only.ts binds it to 127.0.0.1; this is the check that it does.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config/schema.js';
import { runCrawl, type CrawlPlugin, type CrawlResult } from '../src/crawl/engine.js';
import { ProgressReporter } from '../src/report/progress.js';
import { startTestWeb, type TestWeb } from '../src/testweb/index.js';

interface ListeningSocket {
  pid: number;
  command: string;
  address: string;
  port: number;
}

/** `0100007F` (little-endian) → 127.0.0.1; 32 hex digits of tcp6 → the IPv6 address in full. */
function decodeAddress(hex: string): string {
  if (hex.length === 8) return [3, 2, 1, 0].map((i) => parseInt(hex.slice(i * 2, i * 2 + 2), 16)).join('.');
  const words = [0, 1, 2, 3].map((w) => hex.slice(w * 8, w * 8 + 8).match(/../g)!.reverse().join(''));
  const groups = words.flatMap((w) => [w.slice(0, 4), w.slice(4)]);
  return groups.map((g) => parseInt(g, 16).toString(16)).join(':');
}

function isLoopback(address: string): boolean {
  if (/^127\./.test(address)) return true;
  if (address === '0:0:0:0:0:0:0:1') return true;
  const mapped = /^0:0:0:0:0:ffff:([0-9a-f]+):([0-9a-f]+)$/.exec(address); // ::ffff:127.x.y.z
  return !!mapped && parseInt(mapped[1], 16) >> 8 === 127;
}

/** This process and all its descendants. */
function processTree(root = process.pid): Set<number> {
  const parent = new Map<number, number>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      parent.set(Number(d), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  const tree = new Set([root]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [pid, ppid] of parent) if (!tree.has(pid) && tree.has(ppid)) (tree.add(pid), (grew = true));
  }
  return tree;
}

/** TCP sockets in LISTEN state owned by these processes. */
function listeningSockets(pids: Set<number>): ListeningSocket[] {
  const byInode = new Map<string, { address: string; port: number }>();
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    if (!existsSync(file)) continue;
    for (const line of readFileSync(file, 'utf8').split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 10 || f[3] !== '0A') continue; // 0A = LISTEN
      const [addr, port] = f[1].split(':');
      byInode.set(f[9], { address: decodeAddress(addr), port: parseInt(port, 16) });
    }
  }
  const out: ListeningSocket[] = [];
  for (const pid of pids) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    const command = (() => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').slice(0, 3).join(' ').slice(0, 120);
      } catch {
        return '?';
      }
    })();
    for (const fd of fds) {
      let target: string;
      try {
        target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {
        continue;
      }
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
      const s = inode ? byInode.get(inode) : undefined;
      if (s) out.push({ pid, command, ...s });
    }
  }
  return out;
}

let web: TestWeb;
let dir: string;
let result: CrawlResult;
const seen: ListeningSocket[] = [];
let scans = 0;
let chromiumSeen = 0;

beforeAll(async () => {
  web = await startTestWeb({});
  dir = mkdtempSync(join(tmpdir(), 'listen-'));
  const scan: CrawlPlugin = {
    name: 'socket-scan',
    // While a page is being handled the browser, the gate proxy and Crawlee's pool are all up.
    onPage() {
      const tree = processTree();
      chromiumSeen = Math.max(chromiumSeen, [...tree].filter((p) => {
        try {
          return /chrom/i.test(readFileSync(`/proc/${p}/comm`, 'utf8'));
        } catch {
          return false;
        }
      }).length);
      seen.push(...listeningSockets(tree));
      scans++;
    },
  };
  const config = parseConfig({
    topics: [{ keywords: web.demo.keywords, seeds: web.demo.seeds }],
    allowPrivate: web.sites.map((s) => s.origin),
    fetcher: 'browser',
    maxPages: 6,
    storageDir: dir,
  });
  result = await runCrawl({ config, plugins: [scan], progress: new ProgressReporter({ quiet: true }) });
}, 300_000);

afterAll(async () => {
  await web?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('listening sockets during a browser crawl', () => {
  it('the scan sees a socket on every interface when there is one (the check can fail)', async () => {
    const open = http.createServer();
    await new Promise<void>((ok) => open.listen(0, '0.0.0.0', ok));
    const port = (open.address() as AddressInfo).port;
    try {
      const mine = listeningSockets(new Set([process.pid])).filter((s) => s.port === port);
      expect(mine).toHaveLength(1);
      expect(mine[0].address).toBe('0.0.0.0');
      expect(isLoopback(mine[0].address)).toBe(false);
    } finally {
      await new Promise<void>((ok) => open.close(() => ok()));
    }
  });

  it('every socket the crawler and its children listen on is bound to loopback', () => {
    expect(result.fetched).toBe(6);
    expect(scans).toBe(6);
    expect(chromiumSeen).toBeGreaterThan(0); // the browser was running when the sockets were read
    // Some are ours: the test web, the gate proxy (a child process), Crawlee's pool proxy.
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.some((s) => s.pid !== process.pid)).toBe(true); // the gate proxy's own process
    const open = seen.filter((s) => !isLoopback(s.address));
    expect(open, JSON.stringify(open)).toEqual([]);
  });
});
