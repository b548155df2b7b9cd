/**
 * A clock for time limits on remote answers that does not run while our own process is stalled.
 * A fetch's time limit is there to measure the remote's slowness. When our own synchronous work
 * (a huge page's analysis) holds the event loop, a plain setTimeout fires the moment the loop is
 * free — and Node runs expired timers before it reads the sockets, so an answer that arrived
 * during the stall is never seen and the remote is blamed (the hostile crawl's
 * /long-url.html "timeout: no complete answer within 15 s" on CI). Hand-written: what is ours is
 * the rule of what counts as a stall.
 *
 * A ticker every TICK_MS notes the loop's gaps; a gap beyond TICK_MS + STALL_TOLERANCE_MS is a
 * stall and its excess does not count. The gap since the last tick counts the same way before the
 * ticker has seen it (a timer can run first after a stall).
 */

const TICK_MS = 100;
/** Lateness of a tick that is still ordinary scheduling on a loaded machine, not a stall. */
const STALL_TOLERANCE_MS = 250;

let lastTick = 0;
let stalledMs = 0;
let ticker: NodeJS.Timeout | undefined;

const excess = (now: number) => Math.max(0, now - lastTick - TICK_MS - STALL_TOLERANCE_MS);

function startTicker(): void {
  lastTick = performance.now();
  ticker = setInterval(() => {
    const now = performance.now();
    stalledMs += excess(now);
    lastTick = now;
  }, TICK_MS);
  ticker.unref(); // never keeps the process alive
}

/** Milliseconds of loop time: monotonic, without the event loop's stalls (beyond ordinary lateness). */
export function loopTime(): number {
  if (!ticker) startTicker();
  const now = performance.now();
  return now - stalledMs - excess(now);
}

/** Milliseconds of stall the loop clock has left out since the process started using it. */
export function loopStalledMs(): number {
  loopTime();
  return stalledMs + excess(performance.now());
}

export interface LoopTimer {
  clear(): void;
}

/**
 * setTimeout on loop time: when it comes due after a stall it waits again for the loop time still
 * owed, so the sockets are read first and only the remote's own slowness runs the limit out.
 */
export function loopTimeout(fn: () => void, ms: number): LoopTimer {
  const deadline = loopTime() + ms;
  let timer: NodeJS.Timeout;
  const check = () => {
    const left = deadline - loopTime();
    if (left > 0) timer = setTimeout(check, Math.ceil(left));
    else fn();
  };
  timer = setTimeout(check, ms);
  return { clear: () => clearTimeout(timer) };
}
