/**
 * The gate proxy in a process of its own. In the crawler's process it competed for the event
 * loop with page analysis (hundreds of milliseconds of tokenizing at a time), and a page's own
 * XHR waited behind it long enough to miss the settle window. The child runs
 * src/fetch/gate/gate-proxy.ts with the same gate settings; robots.txt verdicts and per-host delays
 * for redirect hops are asked of the parent (which owns the robots cache), decisions are
 * reported back. It exits when the parent goes away (kill -9 included: the IPC channel closes).
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { FetchGate, type GateOptions } from './gate.js';
import { startGateProxy, type GateProxy, type GateProxyOptions } from './gate-proxy.js';

export type GateProxyProcessOptions = Omit<GateProxyOptions, 'gate'> & { gate: Omit<GateOptions, 'resolve'> };

type FromParent = { type: 'init'; opts: Omit<GateProxyProcessOptions, 'robotsBlock' | 'hostDelayMs' | 'holdHop' | 'onDecision'> & { robots: boolean; holdHop: boolean } } | { type: 'note'; url: string } | { type: 'block'; pattern: string } | { type: 'answer'; id: number; value: unknown } | { type: 'close' };
type Ask = { kind: 'robots'; arg: string } | { kind: 'delay'; arg: string } | { kind: 'hold'; arg: { host: string; own: number; maxWaitMs: number } } | { kind: 'release'; arg: number };
type FromChild = { type: 'ready'; server: string; username: string; password: string } | ({ type: 'ask'; id: number } & Ask) | { type: 'decision'; d: Parameters<NonNullable<GateProxyOptions['onDecision']>>[0] };

const CHILD_FLAG = '--gate-proxy-child';

/** The proxy's handle, and the process it runs in. */
export type GateProxyProcess = GateProxy & { pid: number };

export async function startGateProxyProcess(opts: GateProxyProcessOptions): Promise<GateProxyProcess> {
  const self = fileURLToPath(import.meta.url);
  const child = fork(self, [CHILD_FLAG], {
    // From source (tsx) the child needs tsx's loader too; built code runs as it is.
    execArgv: self.endsWith('.ts') ? ['--import', 'tsx'] : [],
    cwd: fileURLToPath(new URL('../../..', import.meta.url)),
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  // With a callback a failed send is reported to it instead of as an 'error' event: when Ctrl-C
  // reaches the whole process group the child may be gone while the crawl still hands out URLs,
  // and a note to a proxy that no longer exists is moot (the crawl is stopping).
  const send = (m: FromParent) => {
    if (child.connected) child.send(m, () => {});
  };
  // A redirect hop's slot in the crawl-wide schedule (holdHop), held here until the child releases it.
  const holds = new Map<number, () => void>();
  let holdSeq = 0;
  const answerAsk = async (m: Ask): Promise<unknown> => {
    if (m.kind === 'robots') return opts.robotsBlock?.(m.arg);
    if (m.kind === 'delay') return (await opts.hostDelayMs?.(m.arg)) ?? 0;
    if (m.kind === 'release') {
      holds.get(m.arg)?.();
      holds.delete(m.arg);
      return null;
    }
    const release = await opts.holdHop?.(m.arg.host, m.arg.own, m.arg.maxWaitMs);
    if (!release) return null;
    holds.set(++holdSeq, release);
    return holdSeq;
  };
  const ready = new Promise<{ server: string; username: string; password: string }>((ok, fail) => {
    child.once('error', fail);
    child.once('exit', (code) => fail(new Error(`the gate proxy process ended (exit ${code}) before it was ready`)));
    child.on('message', async (m: FromChild) => {
      if (m.type === 'ready') ok(m);
      else if (m.type === 'decision') opts.onDecision?.(m.d);
      else if (m.type === 'ask') send({ type: 'answer', id: m.id, value: await answerAsk(m) });
    });
  });
  const { robotsBlock, hostDelayMs, holdHop, onDecision, ...plain } = opts;
  void hostDelayMs;
  void onDecision;
  send({ type: 'init', opts: { ...plain, robots: !!robotsBlock, holdHop: !!holdHop } });
  const r = await ready;
  return {
    ...r,
    pid: child.pid!,
    url: `http://${r.username}:${r.password}@${new URL(r.server).host}`,
    noteNavigation: (url) => send({ type: 'note', url }),
    block: (pattern) => send({ type: 'block', pattern }),
    close: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const gone = new Promise<void>((ok) => child.once('exit', () => ok()));
      send({ type: 'close' });
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await gone;
      clearTimeout(timer);
      for (const release of holds.values()) release();
      holds.clear();
    },
  };
}

function runChild(): void {
  const pending = new Map<number, (v: unknown) => void>();
  let seq = 0;
  const send = (m: FromChild) => {
    if (process.connected) process.send!(m, undefined, undefined, () => {});
  };
  const ask = <T>(a: Ask) =>
    new Promise<T>((ok) => {
      const id = ++seq;
      pending.set(id, ok as (v: unknown) => void);
      send({ type: 'ask', id, ...a });
    });
  let proxy: GateProxy | undefined;
  process.on('disconnect', () => process.exit(0));
  process.on('message', async (m: FromParent) => {
    if (m.type === 'init') {
      const { gate, robots, holdHop, ...rest } = m.opts;
      proxy = await startGateProxy({
        ...rest,
        gate: new FetchGate(gate),
        robotsBlock: robots ? (url) => ask<string | undefined>({ kind: 'robots', arg: url }) : undefined,
        hostDelayMs: (host) => ask<number>({ kind: 'delay', arg: host }),
        holdHop: holdHop
          ? async (host, own, maxWaitMs) => {
              const id = await ask<number | null>({ kind: 'hold', arg: { host, own, maxWaitMs } });
              return id === null ? undefined : () => void ask({ kind: 'release', arg: id });
            }
          : undefined,
        onDecision: (d) => send({ type: 'decision', d }),
      });
      send({ type: 'ready', server: proxy.server, username: proxy.username, password: proxy.password });
    } else if (m.type === 'note') proxy?.noteNavigation(m.url);
    else if (m.type === 'block') proxy?.block(m.pattern);
    else if (m.type === 'answer') {
      pending.get(m.id)?.(m.value);
      pending.delete(m.id);
    } else if (m.type === 'close') {
      await proxy?.close();
      process.exit(0);
    }
  });
}

if (process.argv.includes(CHILD_FLAG) && process.send) runChild();
