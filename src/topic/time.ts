/**
 * Topic time intent (METHODS §3.4, seed 003): a window [t_s, t_e] and an optional time
 * distribution {[t_si, t_ei), λ_i} (e.g. a search-trends CSV export).
 */
import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { readStamp } from '../extract/dates.js';
import { TopicError } from './errors.js';

export interface TimePeriod {
  /** Inclusive start, ms since epoch. */
  start: number;
  /** Exclusive end, ms since epoch. */
  end: number;
  value: number;
}

export interface TimeIntentInput {
  start?: string;
  end?: string;
  /** Path to a `period,value` CSV. */
  distribution?: string;
}

export interface TimeIntentOptions {
  /**
   * Fixed UTC offset for dates written without one (`2008-05-12`); default `+08:00` because
   * the crawler targets Chinese sites, whose pages the extract stage dates in Asia/Shanghai.
   */
  defaultOffset?: string;
  /** Base folder for a relative distribution path (the topic file's folder). */
  baseDir?: string;
}

const DAY = 86_400_000;
/** The offset a time intent reads dates written without one in, unless told otherwise. */
export const DEFAULT_INTENT_OFFSET = '+08:00';

function offsetMs(offset: string): number {
  const m = /^([+-])(\d\d):?(\d\d)$/.exec(offset);
  return m ? (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3])) * 60000 : 0;
}

/**
 * A publishTime string as an instant for code that keeps Dates (the scorer): exact when the
 * stamp has an offset; a date or a wall time without one is read in `offset`, the zone the time
 * intent reads its own dates in, so the calendar date the page states is the one compared.
 */
export function publishInstant(iso: string | undefined, offset = DEFAULT_INTENT_OFFSET): Date | undefined {
  const p = iso ? readStamp(iso) : undefined;
  return p ? new Date(p.instant ?? p.wallMs - offsetMs(offset)) : undefined;
}
const DATE_ONLY = /^(\d{4})(?:[-/.](\d{1,2})(?:[-/.](\d{1,2}))?)?$/;

type Granularity = 'year' | 'month' | 'day' | 'instant';

/** Parse `2008`, `2008-05`, `2008-05-12`, `2008/5/12` or a full ISO datetime into [start, naturalEnd). */
function parseMoment(s: string, offset: string): { start: number; end: number; unit: Granularity; exact?: boolean } | undefined {
  const t = s.trim();
  const m = DATE_ONLY.exec(t);
  if (m) {
    const y = m[1];
    const mo = (m[2] ?? '1').padStart(2, '0');
    const d = (m[3] ?? '1').padStart(2, '0');
    const start = Date.parse(`${y}-${mo}-${d}T00:00:00${offset}`);
    if (Number.isNaN(start)) return undefined;
    const unit: Granularity = m[3] ? 'day' : m[2] ? 'month' : 'year';
    let end: number;
    if (unit === 'day') end = start + DAY;
    else {
      const ny = unit === 'year' ? Number(y) + 1 : Number(mo) === 12 ? Number(y) + 1 : Number(y);
      const nm = unit === 'year' ? 1 : Number(mo) === 12 ? 1 : Number(mo) + 1;
      end = Date.parse(`${ny}-${String(nm).padStart(2, '0')}-01T00:00:00${offset}`);
    }
    return { start, end, unit };
  }
  if (!/^\d{4}-\d{2}-\d{2}T/.test(t)) return undefined;
  const hasZone = /(Z|[+-]\d{2}:?\d{2})$/.test(t);
  const ms = Date.parse(hasZone ? t : t + offset);
  return Number.isNaN(ms) ? undefined : { start: ms, end: ms, unit: 'instant', exact: hasZone };
}

/** A trends value: a number, or Google Trends' `<1` (read as 0.5). */
function parseValue(s: string | undefined): number | undefined {
  if (s === undefined) return undefined;
  const t = s.trim();
  if (t === '<1') return 0.5;
  if (!/^[+-]?\d+(\.\d+)?$/.test(t)) return undefined;
  return Number(t);
}

/**
 * Read a `period,value` CSV. Periods: a year, month or day, or an explicit range
 * `A - B` / `A/B` (ISO interval) with inclusive end day. Day periods without a range last
 * until the next row (weekly exports) or one day for the last row. Lines before the first
 * data row (Google Trends' `Category:` preamble, the header) are skipped; any later row that
 * is not `period,value` is an error naming the file and line.
 */
export function parseDistributionCsv(text: string, file = 'distribution CSV', options: TimeIntentOptions = {}): TimePeriod[] {
  const offset = options.defaultOffset ?? DEFAULT_INTENT_OFFSET;
  let records: { record: string[]; info: { lines: number } }[];
  try {
    records = parse(text, { relax_column_count: true, skip_empty_lines: true, trim: true, bom: true, info: true }) as unknown as typeof records;
  } catch (e) {
    const line = (e as { lines?: number }).lines;
    throw new TopicError(`not a CSV: ${(e as Error).message}`, file, line);
  }
  const rows: { start: number; end?: number; unit: Granularity; value: number; line: number }[] = [];
  for (const { record, info } of records) {
    const line = info.lines;
    const value = parseValue(record[1]);
    const period = (record[0] ?? '').trim();
    const range = /^(.+?)\s+-\s+(.+)$/.exec(period) ?? /^(\d{4}-\d{2}-\d{2})\/(\d{4}-\d{2}-\d{2})$/.exec(period);
    let p: { start: number; end?: number; unit: Granularity } | undefined;
    if (range) {
      const a = parseMoment(range[1], offset);
      const b = parseMoment(range[2], offset);
      if (a && b) p = { start: a.start, end: b.end, unit: 'instant' };
    } else {
      const a = parseMoment(period, offset);
      // Days and datetimes (hourly exports) last until the next row; months and years end naturally.
      if (a) p = { start: a.start, end: a.unit === 'day' || a.unit === 'instant' ? undefined : a.end, unit: a.unit };
    }
    if (value === undefined && rows.length === 0 && !(p && record.length >= 2)) continue; // preamble / header
    if (!p) throw new TopicError(`bad period "${period}" (expected e.g. 2008-05-12, 2008-05, or 2008-05-11 - 2008-05-17)`, file, line);
    if (value === undefined || value < 0)
      throw new TopicError(`bad value "${record[1] ?? ''}" for period ${period} (expected a number ≥ 0)`, file, line);
    if (p.end !== undefined && p.end <= p.start) throw new TopicError(`period ${period} ends before it starts`, file, line);
    rows.push({ ...p, value, line });
  }
  if (rows.length === 0) throw new TopicError('no `period,value` rows found', file);
  rows.sort((a, b) => a.start - b.start);
  return rows.map((r, i) => {
    let end = r.end;
    if (end === undefined) {
      const next = rows[i + 1];
      const prevGap = i > 0 ? r.start - rows[i - 1].start : DAY;
      end = next ? next.start : r.start + (r.unit === 'instant' ? prevGap : Math.max(DAY, prevGap));
    }
    return { start: r.start, end, value: r.value };
  });
}

/**
 * Time relevance and `Pr(t|T)` of a topic. Built from config strings; `start`/`end` accept the
 * same forms as CSV periods (a date-only `end` includes that whole day).
 *
 * A page's time is its publishTime string (docs/output-formats.md) or a Date (an instant). The
 * window compares calendar dates as the page states them: a page dated `2023-11-02T00:01:00+01:00`
 * is on 2 November whatever the window's offset; a date-only page is inside when its day is. Only
 * when both the page and the bound carry an offset (a bound written with a time and zone) are
 * instants compared.
 */
export class TimeIntent {
  readonly start?: number;
  readonly end?: number;
  readonly periods: TimePeriod[];
  private readonly maxValue: number;
  /** ms to add to an instant to read its wall clock in the intent's offset. */
  private readonly offsetMs: number;
  private readonly startExact: boolean;
  private readonly endExact: boolean;

  constructor(init: { start?: number; end?: number; periods?: TimePeriod[]; offset?: string; startExact?: boolean; endExact?: boolean }) {
    this.periods = init.periods ?? [];
    this.maxValue = this.periods.reduce((m, p) => Math.max(m, p.value), 0);
    this.offsetMs = offsetMs(init.offset ?? DEFAULT_INTENT_OFFSET);
    this.startExact = !!init.startExact;
    this.endExact = !!init.endExact;
    let start = init.start;
    // METHODS §3.4: with only a distribution, t_s = first period with λ > 0 if the series starts at 0.
    if (start === undefined && this.periods.length && this.periods[0].value === 0) {
      start = this.periods.find((p) => p.value > 0)?.start;
    }
    this.start = start;
    this.end = init.end;
  }

  /** From the topic's `time` block; reads the distribution CSV (relative to `baseDir`). */
  static fromConfig(input: TimeIntentInput, options: TimeIntentOptions = {}): TimeIntent {
    const offset = options.defaultOffset ?? DEFAULT_INTENT_OFFSET;
    const exact = { start: false, end: false };
    const bound = (s: string | undefined, which: 'start' | 'end') => {
      if (s === undefined) return undefined;
      const m = parseMoment(s, offset);
      if (!m) throw new TopicError(`time.${which}: cannot read "${s}" as a date (use e.g. 2008-05-12 or 2008-05-12T08:00:00+08:00)`);
      exact[which] = !!m.exact;
      // End bounds are inclusive of a whole day/month/year written without a time.
      return which === 'start' || m.unit === 'instant' ? m.start : m.end - 1;
    };
    let periods: TimePeriod[] | undefined;
    if (input.distribution) {
      const path = options.baseDir && !input.distribution.startsWith('/') ? `${options.baseDir}/${input.distribution}` : input.distribution;
      let text: string;
      try {
        text = readFileSync(path, 'utf8');
      } catch (e) {
        throw new TopicError(`cannot read the time distribution (${(e as NodeJS.ErrnoException).code ?? String(e)})`, path);
      }
      periods = parseDistributionCsv(text, path, options);
    }
    const start = bound(input.start, 'start');
    const end = bound(input.end, 'end');
    if (start !== undefined && end !== undefined && end < start) throw new TopicError(`time.end (${input.end}) is before time.start (${input.start})`);
    return new TimeIntent({ start, end, periods, offset, startExact: exact.start, endExact: exact.end });
  }

  /**
   * The page's time as [earliest, latest] on the intent's clock (an instant whose wall clock in the
   * intent's offset is the page's wall clock; a date-only page spans its day) and its instant when known.
   */
  private span(t: Date | string | undefined): { lo: number; hi: number; instant?: number } | undefined {
    if (t === undefined) return undefined;
    if (t instanceof Date) {
      const ms = t.getTime();
      return Number.isNaN(ms) ? undefined : { lo: ms, hi: ms, instant: ms };
    }
    const p = readStamp(t);
    if (!p) return undefined;
    const lo = p.wallMs - this.offsetMs;
    return { lo, hi: p.hasTime ? lo : lo + DAY - 1, instant: p.instant };
  }

  /** Page time relevance: 0 before t_s or after t_e, else 1; an unknown date keeps the page (1). */
  timeRelevance(date: Date | string | undefined): 0 | 1 {
    const s = this.span(date);
    if (!s) return 1;
    const at = (exact: boolean, fallback: number) => (exact && s.instant !== undefined ? s.instant : fallback);
    if (this.start !== undefined && at(this.startExact, s.hi) < this.start) return 0;
    if (this.end !== undefined && at(this.endExact, s.lo) > this.end) return 0;
    return 1;
  }

  /** `Pr(t|T)` = λ of the period containing t / max λ; 0 outside every period or without a distribution. */
  Pr(date: Date | string | undefined): number {
    const s = this.span(date);
    if (!s || this.maxValue === 0) return 0;
    const t = s.lo;
    for (const p of this.periods) if (t >= p.start && t < p.end) return p.value / this.maxValue;
    return 0;
  }
}
