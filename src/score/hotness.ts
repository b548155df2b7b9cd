/** Reply-thread hotness and the revisit rule (METHODS §4). Pure functions; time in days. */

const DAY_MS = 86_400_000;

export interface HotnessOptions {
  /** Exponent on reply count, 0 < α < 1 (METHODS §4 default 0.5). */
  alpha?: number;
  /** Decay constant in days, β > 2 (METHODS §4 default 3). */
  beta?: number;
}

export const HOT_THRESHOLD = 15;

type TimeLike = Date | number | string;
const ms = (t: TimeLike): number => (t instanceof Date ? t.getTime() : typeof t === 'number' ? t : Date.parse(t));

/** Active time point t̄ = (1/n) Σ t_i (METHODS §4). Null when no reply time is known. */
export function activeTimePoint(replyTimes: readonly TimeLike[]): Date | null {
  const v = replyTimes.map(ms).filter((x) => Number.isFinite(x));
  if (!v.length) return null;
  // Sum of offsets from the first time: keeps precision with epoch-sized numbers.
  const base = v[0];
  return new Date(base + v.reduce((s, x) => s + (x - base), 0) / v.length);
}

/** H(t) = (n + 1)^α · e^{-(t - t̄)/β}, t and t̄ in days (METHODS §4). */
export function hotness(n: number, tBar: TimeLike, t: TimeLike, opts: HotnessOptions = {}): number {
  const alpha = opts.alpha ?? 0.5;
  const beta = opts.beta ?? 3;
  if (!(alpha > 0 && alpha < 1)) throw new RangeError(`hotness: alpha must be in (0, 1), got ${alpha}`);
  if (!(beta > 2)) throw new RangeError(`hotness: beta must be > 2 days, got ${beta}`);
  if (!(n >= 0)) throw new RangeError(`hotness: reply count must be ≥ 0, got ${n}`);
  const days = (ms(t) - ms(tBar)) / DAY_MS;
  return Math.pow(n + 1, alpha) * Math.exp(-days / beta);
}

/** H > threshold (default 15) marks a hot thread (METHODS §4). */
export function isHot(h: number, threshold = HOT_THRESHOLD): boolean {
  return h > threshold;
}

export interface RevisitOptions {
  /** Interval for a thread exactly at the hot threshold. */
  baseIntervalMs?: number;
  minIntervalMs?: number;
  maxIntervalMs?: number;
  hotThreshold?: number;
  /** Below this hotness a thread is no longer revisited. */
  floor?: number;
}

export const REVISIT_DEFAULTS: Required<RevisitOptions> = {
  baseIntervalMs: DAY_MS,
  minIntervalMs: DAY_MS / 24,
  maxIntervalMs: 14 * DAY_MS,
  hotThreshold: HOT_THRESHOLD,
  floor: 1,
};

/**
 * Revisit interval rule (our choice; METHODS §4 only says hot threads are re-fetched and cold
 * ones dropped): interval = base · threshold / H, clamped to [min, max]. A thread at the hot
 * threshold comes back after `base` (1 day); twice as hot, twice as often; half as hot, half as
 * often. Below `floor` (default 1, i.e. a thread whose decay has eaten its reply count) it
 * returns null: stop revisiting.
 */
export function revisitIntervalMs(h: number, opts: RevisitOptions = {}): number | null {
  const o = { ...REVISIT_DEFAULTS, ...opts };
  if (!(h >= o.floor) || h <= 0) return null;
  const raw = (o.baseIntervalMs * o.hotThreshold) / h;
  return Math.min(o.maxIntervalMs, Math.max(o.minIntervalMs, raw));
}

/** When to revisit a thread last seen at `lastVisit` with hotness h; null = never again. */
export function nextRevisitAt(h: number, lastVisit: TimeLike, opts: RevisitOptions = {}): Date | null {
  const iv = revisitIntervalMs(h, opts);
  return iv === null ? null : new Date(ms(lastVisit) + iv);
}
