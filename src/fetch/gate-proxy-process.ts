/**
 * The gate proxy in a process of its own. In the crawler's process it competed for the event
 * loop with page analysis (hundreds of milliseconds of tokenizing at a time), and a page's own
 * XHR waited behind it long enough to miss the settle window. The child runs
 * src/fetch/gate-proxy.ts with the same gate settings; robots.txt verdicts and per-host delays
 * for redirect hops are asked of the parent (which owns the robots cache), decisions are
 * reported back. It exits when the parent goes away (kill -9 included: the IPC channel closes).
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { FetchGate, type GateOptions } from './gate.js';
import { startGateProxy, type GateProxy, type GateProxyOptions } from './gate-proxy.js';

export type GateProxyProcessOptions = Omit<GateProxyOptions, 'gate'> & { gate: Omit<GateOptions, 'resolve'> };

type FromParent = { type: 'init'; opts: Omit<GateProxyProcessOptions, 'robotsBlock' | 'hostDelayMs' | 'onDecision'> & { robots: boolean } } | { type: 'note'; url: string } | { type: 'answer'; id: number; value: unknown } | { type: 'close' };
type FromChild = { type: 'ready'; server: string; username: string; password: string } | { type: 'ask'; id: number; kind: 'robots' | 'delay'; arg: string } | { type: 'decision'; d: Parameters<NonNullable<GateProxyOptions['onDecision']>>[0] };

const CHILD_FLAG = '--gate-proxy-child';

export async function startGateProxyProcess(opts: GateProxyProcessOptions): Promise<GateProxy> {
  const self = fileURLToPath(import.meta.url);
  const child = fork(self, [CHILD_FLAG], {
    // From source (tsx) the child needs tsx's loader too; built code runs as it is.
    execArgv: self.endsWith('.ts') ? ['--import', 'tsx'] : [],
    cwd: fileURLToPath(new URL('../..', import.meta.url)),
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const send = (m: FromParent) => {
    if (child.connected) child.send(m);
  };
  const ready = new Promise<{ server: string; username: string; password: string }>((ok, fail) => {
    child.once('error', fail);
    child.once('exit', (code) => fail(new Error(`the gate proxy process ended (exit ${code}) before it was ready`)));
    child.on('message', async (m: FromChild) => {
      if (m.type === 'ready') ok(m);
      else if (m.type === 'decision') opts.onDecision?.(m.d);
      else if (m.type === 'ask') {
        const value = m.kind === 'robots' ? await opts.robotsBlock?.(m.arg) : ((await opts.hostDelayMs?.(m.arg)) ?? 0);
        send({ type: 'answer', id: m.id, value });
      }
    });
  });
  const { robotsBlock, hostDelayMs, onDecision, ...plain } = opts;
  void hostDelayMs;
  void onDecision;
  send({ type: 'init', opts: { ...plain, robots: !!robotsBlock } });
  const r = await ready;
  return {
    ...r,
    url: `http://${r.username}:${r.password}@${new URL(r.server).host}`,
    noteNavigation: (url) => send({ type: 'note', url }),
    close: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const gone = new Promise<void>((ok) => child.once('exit', () => ok()));
      send({ type: 'close' });
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await gone;
      clearTimeout(timer);
    },
  };
}

function runChild(): void {
  const pending = new Map<number, (v: unknown) => void>();
  let seq = 0;
  const send = (m: FromChild) => {
    if (process.connected) process.send!(m);
  };
  const ask = <T>(kind: 'robots' | 'delay', arg: string) =>
    new Promise<T>((ok) => {
      const id = ++seq;
      pending.set(id, ok as (v: unknown) => void);
      send({ type: 'ask', id, kind, arg });
    });
  let proxy: GateProxy | undefined;
  process.on('disconnect', () => process.exit(0));
  process.on('message', async (m: FromParent) => {
    if (m.type === 'init') {
      const { gate, robots, ...rest } = m.opts;
      proxy = await startGateProxy({
        ...rest,
        gate: new FetchGate(gate),
        robotsBlock: robots ? (url) => ask<string | undefined>('robots', url) : undefined,
        hostDelayMs: (host) => ask<number>('delay', host),
        onDecision: (d) => send({ type: 'decision', d }),
      });
      send({ type: 'ready', server: proxy.server, username: proxy.username, password: proxy.password });
    } else if (m.type === 'note') proxy?.noteNavigation(m.url);
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
