/**
 * Date text → Date, for publish times (METHODS §3.4) and reply times (METHODS §4).
 *
 * chrono-node (with its zh.hans locale) handles most absolute forms; our own rules come first
 * for what it gets wrong or misses: `刚刚`, Chinese relative units (`3小时前` resolves against the
 * host clock's zone in chrono, not the reference instant), `昨天/前天 12:00` in the page's zone,
 * and numeric dates without a year (`05-12 14:28`, common on forums).
 */
import * as chrono from 'chrono-node';

export const DEFAULT_TIME_ZONE = 'Asia/Shanghai';

/**
 * One formatter per zone: building an Intl.DateTimeFormat costs far more than using one (it was
 * most of the date stage on forum pages with many stamps).
 */
const zoneFormats = new Map<string, Intl.DateTimeFormat>();
function zoneFormat(timeZone: string): Intl.DateTimeFormat {
  let f = zoneFormats.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit',
      hour: '2-digit', minute: '2-digit', second: '2-digit',
    });
    zoneFormats.set(timeZone, f);
  }
  return f;
}

/** Offset of `timeZone` from UTC in minutes at instant `at` (positive east), via Intl. */
export function zoneOffsetMinutes(timeZone: string, at: Date): number {
  const parts = zoneFormat(timeZone).formatToParts(at);
  const get = (t: string) => Number(parts.find((p) => p.type === t)?.value);
  const asUtc = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour') % 24, get('minute'), get('second'));
  return Math.round((asUtc - Math.floor(at.getTime() / 1000) * 1000) / 60000);
}

/** The instant at which the wall clock in `timeZone` shows the given fields. */
export function zonedTimeToUtc(
  y: number, mo: number, d: number, h: number, mi: number, s: number, timeZone: string,
): Date {
  const guess = Date.UTC(y, mo - 1, d, h, mi, s);
  let t = guess - zoneOffsetMinutes(timeZone, new Date(guess)) * 60000;
  // A second pass settles instants that straddle a DST change.
  t = guess - zoneOffsetMinutes(timeZone, new Date(t)) * 60000;
  return new Date(t);
}

/** Wall-clock fields of `at` in `timeZone`. */
export function zonedFields(at: Date, timeZone: string): { y: number; mo: number; d: number; h: number; mi: number; s: number } {
  const off = zoneOffsetMinutes(timeZone, at);
  const w = new Date(at.getTime() + off * 60000);
  return {
    y: w.getUTCFullYear(), mo: w.getUTCMonth() + 1, d: w.getUTCDate(),
    h: w.getUTCHours(), mi: w.getUTCMinutes(), s: w.getUTCSeconds(),
  };
}

/** ISO 8601 with the zone's offset, e.g. `2008-05-12T14:28:00+08:00`. */
export function toZonedIso(at: Date, timeZone: string): string {
  const off = zoneOffsetMinutes(timeZone, at);
  const f = zonedFields(at, timeZone);
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  const sign = off >= 0 ? '+' : '-';
  const a = Math.abs(off);
  return `${p(f.y, 4)}-${p(f.mo)}-${p(f.d)}T${p(f.h)}:${p(f.mi)}:${p(f.s)}${sign}${p(Math.floor(a / 60))}:${p(a % 60)}`;
}

const FULLWIDTH = /[０-９：－／]/g;
function normalise(text: string): string {
  return text
    .replace(FULLWIDTH, (c) => String.fromCharCode(c.charCodeAt(0) - 0xfee0))
    .replace(/[\u00a0\u3000]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

const UNIT_MS: Record<string, number> = {
  s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000,
};
function unitKey(u: string): string | null {
  u = u.toLowerCase();
  if (/^(秒|秒钟|sec|second)/.test(u)) return 's';
  if (/^(分|分钟|min|minute)/.test(u)) return 'm';
  if (/^(小时|個小時|个小时|小時|钟头|hour|hr)/.test(u)) return 'h';
  if (/^(天|日|day)/.test(u)) return 'd';
  if (/^(周|週|星期|礼拜|week)/.test(u)) return 'w';
  if (/^(个月|個月|月|month)/.test(u)) return 'mo';
  if (/^(年|year)/.test(u)) return 'y';
  return null;
}

function validFields(y: number, mo: number, d: number, h = 0, mi = 0, s = 0): boolean {
  return y >= 1970 && y <= 2100 && mo >= 1 && mo <= 12 && d >= 1 && d <= 31 && h <= 23 && mi <= 59 && s <= 60;
}

const CN_NUM: Record<string, number> = { 一: 1, 两: 2, 二: 2, 三: 3, 四: 4, 五: 5, 六: 6, 七: 7, 八: 8, 九: 9, 十: 10, 半: 0.5 };

/** Our own rules; null when none applies. */
function ownRules(text: string, ref: Date, tz: string): Date | null {
  if (/^(刚刚|刚才|剛剛|just now|now)$/i.test(text) || /(^|\s)(刚刚|剛剛)(\s|$)/.test(text)) return new Date(ref);

  // ISO with explicit offset: exact instant, zone irrelevant.
  const iso = /\d{4}-\d\d-\d\d[T ]\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:Z|[+-]\d\d:?\d\d)/.exec(text);
  if (iso) {
    const d = new Date(iso[0].replace(' ', 'T').replace(/([+-]\d\d)(\d\d)$/, '$1:$2'));
    if (!Number.isNaN(d.getTime())) return d;
  }

  // Relative: `3小时前`, `3 小时前`, `半小时前`, `2 hours ago`.
  const rel = /(?<![月\d])(\d{1,3}|[一两二三四五六七八九十半])\s*(秒钟?|分钟|分|个?小时|小時|個小時|钟头|天|日|周|週|星期|个月|個月|月|年)\s*(?:之)?前/.exec(text)
    ?? /(\d+|an?)\s*(seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?)\s+ago/i.exec(text);
  if (rel) {
    const n = /^\d+$/.test(rel[1]!) ? Number(rel[1]) : /^an?$/i.test(rel[1]!) ? 1 : (CN_NUM[rel[1]!] ?? 1);
    const k = unitKey(rel[2]!);
    // `2008年前` means "before 2008", not 2008 years ago.
    if (k === 'y' && n > 50) return null;
    if (k === 'mo' || k === 'y') {
      const f = zonedFields(ref, tz);
      const months = k === 'mo' ? n : n * 12;
      const total = f.y * 12 + (f.mo - 1) - months;
      return zonedTimeToUtc(Math.floor(total / 12), (total % 12) + 1, f.d, f.h, f.mi, f.s, tz);
    }
    if (k) return new Date(ref.getTime() - n * UNIT_MS[k]!);
  }

  // 今天 / 昨天 / 前天 [HH:MM[:SS]] (also `yesterday 12:00`).
  const day = /(今天|今日|昨天|昨日|前天|today|yesterday)\s*(?:(上午|下午|晚上|凌晨|中午)?\s*(\d{1,2})[:：时點点](\d{1,2})?(?:[:：分](\d{1,2}))?\s*(am|pm)?)?/i.exec(text);
  if (day) {
    const back = /今/.test(day[1]!) || /today/i.test(day[1]!) ? 0 : /前天/.test(day[1]!) ? 2 : 1;
    const f = zonedFields(ref, tz);
    const base = new Date(Date.UTC(f.y, f.mo - 1, f.d - back));
    let h = day[3] ? Number(day[3]) : 0;
    if (((day[2] && /下午|晚上/.test(day[2])) || /pm/i.test(day[6] ?? '')) && h < 12) h += 12;
    if (/am/i.test(day[6] ?? '') && h === 12) h = 0;
    return zonedTimeToUtc(base.getUTCFullYear(), base.getUTCMonth() + 1, base.getUTCDate(),
      h, day[4] ? Number(day[4]) : 0, day[5] ? Number(day[5]) : 0, tz);
  }

  // Numeric with year: 2008-5-12, 2008/05/12, 2008.5.12, 2008年5月12日, optional time.
  const full = /(?<!\d)(\d{4})\s*(?:[-/.]|年)\s*(\d{1,2})\s*(?:[-/.]|月)\s*(\d{1,2})(?!\d)\s*日?\s*(?:[T ,]\s*)?(?:(上午|下午|晚上|凌晨|中午)?\s*(\d{1,2})\s*[:：时點点]\s*(\d{1,2})(?:\s*[:：分]\s*(\d{1,2}))?\s*(am|pm)?)?/i.exec(text);
  if (full) {
    const [y, mo, d] = [Number(full[1]), Number(full[2]), Number(full[3])];
    let h = full[5] ? Number(full[5]) : 0;
    if (((full[4] && /下午|晚上/.test(full[4])) || /pm/i.test(full[8] ?? '')) && h < 12) h += 12;
    if (/am/i.test(full[8] ?? '') && h === 12) h = 0;
    const mi = full[6] ? Number(full[6]) : 0;
    const s = full[7] ? Number(full[7]) : 0;
    if (validFields(y, mo, d, h, mi, s)) return zonedTimeToUtc(y, mo, d, h, mi, s, tz);
  }

  // US order M/D/YYYY (`9/17/2004 5:54:13 AM`); D/M when the first number cannot be a month.
  const us = /(?<![\d/])(\d{1,2})\/(\d{1,2})\/(\d{4})(?:\s+(\d{1,2}):(\d{2})(?::(\d{2}))?\s*(am|pm)?)?/i.exec(text);
  if (us) {
    let [a, b] = [Number(us[1]), Number(us[2])];
    if (a > 12) [a, b] = [b, a];
    let h = us[4] ? Number(us[4]) : 0;
    if (/pm/i.test(us[7] ?? '') && h < 12) h += 12;
    if (/am/i.test(us[7] ?? '') && h === 12) h = 0;
    const [y, mi, s] = [Number(us[3]), us[5] ? Number(us[5]) : 0, us[6] ? Number(us[6]) : 0];
    if (validFields(y, a, b, h, mi, s)) return zonedTimeToUtc(y, a, b, h, mi, s, tz);
  }

  // Compact 20080512 (optionally followed by time) only when the whole text is that.
  const compact = /^(\d{4})(\d{2})(\d{2})(?:\s*(\d{1,2}):(\d{2})(?::(\d{2}))?)?$/.exec(text);
  if (compact) {
    const v = compact.slice(1).map((x) => (x ? Number(x) : 0)) as number[];
    if (validFields(v[0]!, v[1]!, v[2]!, v[3], v[4], v[5])) return zonedTimeToUtc(v[0]!, v[1]!, v[2]!, v[3]!, v[4]!, v[5]!, tz);
  }

  // Without a year: `05-12 14:28`, `5月12日 14:28` → the latest such date not after ref.
  const noYear = /(?<![\d/.-])(\d{1,2})\s*(?:-|\/|月)\s*(\d{1,2})\s*日?\s+(\d{1,2})[:：](\d{2})(?::(\d{2}))?/.exec(text)
    ?? /(?<![\d/.-])(\d{1,2})月(\d{1,2})日()()()/.exec(text);
  if (noYear) {
    const f = zonedFields(ref, tz);
    const [mo, d] = [Number(noYear[1]), Number(noYear[2])];
    const h = noYear[3] ? Number(noYear[3]) : 0;
    const mi = noYear[4] ? Number(noYear[4]) : 0;
    const s = noYear[5] ? Number(noYear[5]) : 0;
    if (validFields(f.y, mo, d, h, mi, s)) {
      let out = zonedTimeToUtc(f.y, mo, d, h, mi, s, tz);
      if (out.getTime() > ref.getTime() + 86_400_000) out = zonedTimeToUtc(f.y - 1, mo, d, h, mi, s, tz);
      return out;
    }
  }
  return null;
}

/**
 * Parse a date shown on a page. Absolute dates without an offset are wall times in `timeZone`;
 * relative ones (`3小时前`, `昨天 12:00`, `刚刚`, `2 hours ago`) resolve against `ref`.
 * Returns null when the text holds no date.
 */
export function parseDateText(text: string, ref: Date, timeZone: string = DEFAULT_TIME_ZONE): Date | null {
  const t = normalise(text);
  if (!t) return null;
  const own = ownRules(t, ref, timeZone);
  if (own) return own;
  // chrono's `timezone` takes minutes; the offset at ref is right for all but DST-edge dates.
  const refOpt = { instant: ref, timezone: zoneOffsetMinutes(timeZone, ref) };
  for (const parser of [chrono.en, chrono.zh.hans]) {
    const r = parser.parse(t, refOpt)[0];
    // A bare time (`14:28`) is not a date: require a day, month or year in the match.
    if (r && (r.start.isCertain('day') || r.start.isCertain('month') || r.start.isCertain('year') || /ago|前|later/i.test(r.text))) {
      const d = r.start.date();
      const y = d.getUTCFullYear();
      if (!Number.isNaN(d.getTime()) && y >= 1970 && y <= 2100) return d;
    }
  }
  return null;
}
