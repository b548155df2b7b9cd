/**
 * A real `redis-server` (Debian's package, installed by `npm install`'s set-up) on a free
 * loopback port, for the tests and benchmarks of the Redis frontier. Never mocked: the Lua
 * scripts, persistence and restarts are what is tested.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The redis-server executable, or undefined when it is not installed. */
export function findRedisServer(): string | undefined {
  for (const p of [process.env.REDIS_SERVER, '/usr/bin/redis-server', '/usr/local/bin/redis-server']) {
    if (p && spawnSync(p, ['--version'], { stdio: 'ignore' }).status === 0) return p;
  }
  const r = spawnSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' });
  return r.status === 0 && r.stdout.trim() ? r.stdout.trim() : undefined;
}

/** Why Redis tests skip, in one line (undefined: they run). */
export function redisMissing(): string | undefined {
  return findRedisServer() ? undefined : 'redis-server is not installed (npm install installs it on Debian as root; or apt-get install redis-server): Redis frontier tests skipped';
}

export interface LocalRedis {
  url: string;
  port: number;
  /** The data folder (AOF/RDB files). */
  dir: string;
  /** `kill -9` the server (an unclean crash). */
  kill(): Promise<void>;
  /** Start it again on the same port and data folder (after kill()). */
  restart(): Promise<void>;
  /** Stop it and delete its data folder. */
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((ok, no) => {
    const s = createServer();
    s.once('error', no);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => ok(port));
    });
  });
}

function ping(port: number): Promise<boolean> {
  return new Promise((ok) => {
    const c = createConnection({ host: '127.0.0.1', port }, () => c.write('PING\r\n'));
    c.setTimeout(1000, () => (c.destroy(), ok(false)));
    c.once('data', (d) => (c.destroy(), ok(d.toString().startsWith('+PONG'))));
    c.once('error', () => ok(false));
  });
}

/**
 * Start redis-server on 127.0.0.1 and a free port. `appendonly`: every write fsynced to the AOF
 * before it is answered (survives kill -9); otherwise no persistence at all.
 */
export async function startRedis(opts: { appendonly?: boolean } = {}): Promise<LocalRedis> {
  const bin = findRedisServer();
  if (!bin) throw new Error(redisMissing());
  const dir = mkdtempSync(join(tmpdir(), 'redis-'));
  const port = await freePort();
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--protected-mode', 'yes', '--loglevel', 'warning', '--logfile', join(dir, 'redis.log')];
  if (opts.appendonly) args.push('--appendonly', 'yes', '--appendfsync', 'always');
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn(bin, args, { stdio: 'ignore' });
    const deadline = Date.now() + 30_000;
    while (!(await ping(port))) {
      if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode} (log: ${join(dir, 'redis.log')})`);
      if (Date.now() > deadline) throw new Error('redis-server did not answer within 30 s');
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const kill = async () => {
    const c = child;
    if (!c || c.exitCode !== null) return;
    const gone = new Promise((r) => c.once('exit', r));
    c.kill('SIGKILL');
    await gone;
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}/0`,
    port,
    dir,
    kill,
    restart: start,
    stop: async () => {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
