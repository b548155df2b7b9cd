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

/** The day exists in that month (no 31 June). */
function validDay(y: number, mo: number, d: number): boolean {
  return new Date(Date.UTC(y, mo - 1, d)).getUTCDate() === d;
}

/**
 * Month names (and their usual abbreviations) in the languages of European news pages: English,
 * German, French, Spanish, Italian, Portuguese, Dutch, Polish (genitive), Swedish/Danish/Norwegian,
 * Turkish. Lower case, accents kept; matched case-insensitively.
 */
const MONTH_NAMES: string[][] = [
  ['january', 'jan', 'januar', 'jänner', 'janvier', 'janv', 'enero', 'ene', 'gennaio', 'genn', 'gen', 'janeiro', 'januari', 'stycznia', 'styczeń', 'ocak', 'tammikuuta'],
  ['february', 'feb', 'februar', 'feber', 'février', 'fevrier', 'févr', 'fevr', 'febrero', 'febbraio', 'fevereiro', 'fev', 'februari', 'lutego', 'luty', 'şubat', 'helmikuuta'],
  ['march', 'mar', 'märz', 'mär', 'maerz', 'mrz', 'mars', 'marzo', 'março', 'marco', 'maart', 'marca', 'marzec', 'mart', 'mars', 'maaliskuuta'],
  ['april', 'apr', 'avril', 'avr', 'abril', 'abr', 'aprile', 'kwietnia', 'kwiecień', 'nisan', 'huhtikuuta'],
  ['may', 'mai', 'mayo', 'maggio', 'mag', 'maio', 'mei', 'maja', 'maj', 'mayıs', 'toukokuuta'],
  ['june', 'jun', 'juni', 'juin', 'junio', 'giugno', 'giu', 'junho', 'czerwca', 'czerwiec', 'haziran', 'kesäkuuta'],
  ['july', 'jul', 'juli', 'juillet', 'juil', 'julio', 'luglio', 'lug', 'julho', 'lipca', 'lipiec', 'temmuz', 'heinäkuuta'],
  ['august', 'aug', 'août', 'aout', 'agosto', 'ago', 'augustus', 'sierpnia', 'sierpień', 'augusti', 'ağustos', 'elokuuta'],
  ['september', 'sep', 'sept', 'septembre', 'septiembre', 'setiembre', 'settembre', 'set', 'setembro', 'września', 'wrzesień', 'eylül', 'syyskuuta'],
  ['october', 'oct', 'oktober', 'okt', 'octobre', 'octubre', 'ottobre', 'ott', 'outubro', 'out', 'października', 'październik', 'ekim', 'lokakuuta'],
  ['november', 'nov', 'novembre', 'noviembre', 'novembro', 'listopada', 'listopad', 'kasım', 'marraskuuta'],
  ['december', 'dec', 'dezember', 'dez', 'décembre', 'decembre', 'déc', 'diciembre', 'dic', 'dicembre', 'dezembro', 'grudnia', 'grudzień', 'aralık', 'joulukuuta'],
];
/** Russian and Ukrainian, genitive (`15 августа 2016`) and nominative. */
const CYRILLIC_MONTHS: string[][] = [
  ['января', 'январь', 'січня', 'січень'], ['февраля', 'февраль', 'лютого', 'лютий'], ['марта', 'март', 'березня', 'березень'],
  ['апреля', 'апрель', 'квітня', 'квітень'], ['мая', 'май', 'травня', 'травень'], ['июня', 'июнь', 'червня', 'червень'],
  ['июля', 'июль', 'липня', 'липень'], ['августа', 'август', 'серпня', 'серпень'], ['сентября', 'сентябрь', 'вересня', 'вересень'],
  ['октября', 'октябрь', 'жовтня', 'жовтень'], ['ноября', 'ноябрь', 'листопада', 'листопад'], ['декабря', 'декабрь', 'грудня', 'грудень'],
];
CYRILLIC_MONTHS.forEach((names, i) => MONTH_NAMES[i]!.push(...names));
const MONTH_OF = new Map<string, number>();
MONTH_NAMES.forEach((names, i) => names.forEach((n) => MONTH_OF.set(n, i + 1)));
/** Longest first, so `june` wins over `jun`. */
export const MONTH_ALTERNATION = [...MONTH_OF.keys()].sort((a, b) => b.length - a.length).join('|');
const L = String.raw`\p{L}`;
/** `2. November 2021`, `15 de septiembre de 2009`, `1er mars 2019`, `15th of March, 2019`. */
const DAY_MONTH_YEAR = new RegExp(String.raw`(?<![\p{L}\d])(\d{1,2})(?:\.|er|º|st|nd|rd|th)?\s*(?:de\s+|of\s+)?(${MONTH_ALTERNATION})\.?(?!${L})[,\s]*(?:de\s+)?((?:19|20)\d\d)(?!\d)`, 'iu');
/** `November 2, 2021`, `Nov. 2nd 2021`. */
const MONTH_DAY_YEAR = new RegExp(String.raw`(?<![\p{L}\d])(${MONTH_ALTERNATION})\.?\s+(\d{1,2})(?:st|nd|rd|th)?(?!\d)[,\s]+((?:19|20)\d\d)(?!\d)`, 'iu');

export function monthNameDate(text: string): { y: number; mo: number; d: number; end: number } | null {
  const a = DAY_MONTH_YEAR.exec(text);
  const b = MONTH_DAY_YEAR.exec(text);
  const m = a && (!b || a.index <= b.index) ? { d: a[1]!, mo: a[2]!, y: a[3]!, at: a.index, len: a[0].length } : b ? { d: b[2]!, mo: b[1]!, y: b[3]!, at: b.index, len: b[0].length } : null;
  if (!m) return null;
  const mo = MONTH_OF.get(m.mo.toLowerCase());
  return mo ? { y: Number(m.y), mo, d: Number(m.d), end: m.at + m.len } : null;
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

  // Day first with dots (`25.01.2022`, `22.04.2020 / 06:15`, `Di., 25.01.2022 - 14:45 Uhr`): European.
  const dmy = /(?<![\d.])(\d{1,2})\.\s?(\d{1,2})\.\s?((?:19|20)\d\d)(?!\d)(?:[^\d]{0,8}?(\d{1,2})[:.h](\d{2})(?::(\d{2}))?(?!\d))?/.exec(text);
  if (dmy) {
    const [d, mo, y] = [Number(dmy[1]), Number(dmy[2]), Number(dmy[3])];
    const [h, mi, s] = [dmy[4] ? Number(dmy[4]) : 0, dmy[5] ? Number(dmy[5]) : 0, dmy[6] ? Number(dmy[6]) : 0];
    if (validFields(y, mo, d, h, mi, s) && validDay(y, mo, d)) return zonedTimeToUtc(y, mo, d, h, mi, s, tz);
  }

  // A month's name in a European language (`2. November 2021`, `15 de septiembre de 2009`, `March 5th, 2019`).
  const named = monthNameDate(text);
  if (named) {
    const clock = /(?<!\d)(\d{1,2})[:h](\d{2})(?::(\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)?/i.exec(text.slice(named.end, named.end + 24));
    let h = clock ? Number(clock[1]) : 0;
    if (clock && /p/i.test(clock[4] ?? '') && h < 12) h += 12;
    if (clock && /a/i.test(clock[4] ?? '') && h === 12) h = 0;
    const [mi, s] = [clock ? Number(clock[2]) : 0, clock?.[3] ? Number(clock[3]) : 0];
    if (validFields(named.y, named.mo, named.d, h, mi, s) && validDay(named.y, named.mo, named.d)) return zonedTimeToUtc(named.y, named.mo, named.d, h, mi, s, tz);
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

/** What a parse found beside the instant: whether the text gave a time of day and a zone. */
interface ParsedDate { date: Date; hasTime: boolean; offsetMinutes?: number; relative: boolean }

const ISO_WITH_OFFSET = /\d{4}-\d\d-\d\d[T ]\d\d:\d\d(?::\d\d(?:\.\d+)?)?\s*(Z|[+-]\d\d:?\d\d)(?![\d:])/;
const RELATIVE = /前|ago|刚刚|剛剛|刚才|just now|^now$|今天|今日|昨天|昨日|前天|today|yesterday/i;
const CLOCK = /\d{1,2}\s*[:：时點点]\s*\d{1,2}|\d{1,2}h\d\d|\d\s*[ap]\.?m\b/i;
/** A zone written after a clock time: `12:00:00 GMT`, `14:45 +0100`, `10:00 CET`, `UTC+2`. */
const ZONE_AFTER_CLOCK = /\d{1,2}:\d{2}(?::\d{2})?(?:\.\d+)?\s*(?:[ap]\.?m\.?\s*)?(?:(GMT|UTC|Z|CEST|CET|MESZ|MEZ|BST|EDT|EST|PDT|PST)(?![A-Za-z])\s*(?:([+-])(\d{1,2})(?::?(\d{2}))?)?|([+-])(\d{2}):?(\d{2})(?!\d))/;
const ZONE_MINUTES: Record<string, number> = { GMT: 0, UTC: 0, Z: 0, CET: 60, MEZ: 60, CEST: 120, MESZ: 120, BST: 60, EST: -300, EDT: -240, PST: -480, PDT: -420 };

function parseDetailed(t: string, ref: Date, timeZone: string): ParsedDate | null {
  const relative = RELATIVE.test(t);
  const own = ownRules(t, ref, timeZone);
  if (own) {
    const z = ISO_WITH_OFFSET.exec(t);
    if (z) return { date: own, hasTime: true, offsetMinutes: z[1] === 'Z' ? 0 : offsetOf(z[1]!), relative };
    const zone = relative ? null : ZONE_AFTER_CLOCK.exec(t);
    if (zone) {
      const off = zone[1] !== undefined
        ? ZONE_MINUTES[zone[1]]! + (zone[2] ? (zone[2] === '-' ? -1 : 1) * (Number(zone[3]) * 60 + Number(zone[4] ?? 0)) : 0)
        : (zone[5] === '-' ? -1 : 1) * (Number(zone[6]) * 60 + Number(zone[7]));
      const wall = ownRules(t, ref, 'UTC');
      if (wall && Math.abs(off) <= 14 * 60) return { date: new Date(wall.getTime() - off * 60000), hasTime: true, offsetMinutes: off, relative };
    }
    return { date: own, hasTime: CLOCK.test(t), offsetMinutes: undefined, relative };
  }
  // chrono's `timezone` takes minutes; the offset at ref is right for all but DST-edge dates.
  const refOpt = { instant: ref, timezone: zoneOffsetMinutes(timeZone, ref) };
  for (const parser of [chrono.en, chrono.zh.hans]) {
    const r = parser.parse(t, refOpt)[0];
    // A bare time (`14:28`) is not a date: require a day, month or year in the match.
    if (r && (r.start.isCertain('day') || r.start.isCertain('month') || r.start.isCertain('year') || /ago|前|later/i.test(r.text))) {
      const d = r.start.date();
      const y = d.getUTCFullYear();
      if (!Number.isNaN(d.getTime()) && y >= 1970 && y <= 2100) {
        const certainZone = r.start.isCertain('timezoneOffset');
        return { date: d, hasTime: r.start.isCertain('hour'), offsetMinutes: certainZone ? (r.start.get('timezoneOffset') ?? undefined) : undefined, relative: relative || /ago|later/i.test(r.text) };
      }
    }
  }
  return null;
}

function offsetOf(z: string): number {
  const m = /([+-])(\d\d):?(\d\d)/.exec(z)!;
  return (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3]));
}

/**
 * Parse a date shown on a page. Absolute dates without an offset are wall times in `timeZone`;
 * relative ones (`3小时前`, `昨天 12:00`, `刚刚`, `2 hours ago`) resolve against `ref`.
 * Returns null when the text holds no date.
 */
export function parseDateText(text: string, ref: Date, timeZone: string = DEFAULT_TIME_ZONE): Date | null {
  const t = normalise(text);
  if (!t) return null;
  return parseDetailed(t, ref, timeZone)?.date ?? null;
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** ISO 8601 of `at` with a fixed offset in minutes, e.g. `2023-11-02T00:01:00+01:00`. */
export function isoWithOffset(at: Date, offsetMinutes: number): string {
  const w = new Date(at.getTime() + offsetMinutes * 60000);
  const a = Math.abs(offsetMinutes);
  return `${wallIso(w, true)}${offsetMinutes >= 0 ? '+' : '-'}${pad(Math.floor(a / 60))}:${pad(a % 60)}`;
}

/** The UTC fields of `w` as `YYYY-MM-DD` or `YYYY-MM-DDTHH:MM:SS`. */
function wallIso(w: Date, withTime: boolean): string {
  const day = `${pad(w.getUTCFullYear(), 4)}-${pad(w.getUTCMonth() + 1)}-${pad(w.getUTCDate())}`;
  return withTime ? `${day}T${pad(w.getUTCHours())}:${pad(w.getUTCMinutes())}:${pad(w.getUTCSeconds())}` : day;
}

/**
 * A publish time as the page states it (METHODS §3.4, docs/output-formats.md):
 * - `2023-11-02T00:01:00+01:00` when the page gave a time with a zone (the page's own offset is kept,
 *   so its calendar date is the one it shows); also for relative stamps (`3小时前`), which are
 *   instants, written in `timeZone`;
 * - `2023-11-02T10:00:00` (no offset) for a time of day the page gave without a zone: its wall clock;
 * - `2023-11-02` for a date without a time: no invented midnight or zone.
 * `approx` is an instant for bounds and ordering: exact with an offset, else the wall time read in
 * `timeZone` (good to a day).
 */
export interface DateStamp { iso: string; approx: Date }

export function stampFromDate(at: Date, kind: 'instant' | 'wall' | 'day', timeZone: string): DateStamp {
  if (kind === 'instant') return { iso: toZonedIso(at, timeZone), approx: at };
  const f = zonedFields(at, timeZone);
  return { iso: wallIso(new Date(Date.UTC(f.y, f.mo - 1, f.d, f.h, f.mi, f.s)), kind === 'wall'), approx: at };
}

/** A date-only stamp for y-m-d (a URL's date, a month heading). */
export function dayStamp(y: number, mo: number, d: number, timeZone: string): DateStamp {
  return { iso: `${pad(y, 4)}-${pad(mo)}-${pad(d)}`, approx: zonedTimeToUtc(y, mo, d, 0, 0, 0, timeZone) };
}

/** Parse page text into a stamp that keeps what the page stated (see DateStamp); null when no date. */
export function parseDateStamp(text: string, ref: Date, timeZone: string = DEFAULT_TIME_ZONE): DateStamp | null {
  const t = normalise(text);
  if (!t) return null;
  const p = parseDetailed(t, ref, timeZone);
  if (!p) return null;
  if (p.offsetMinutes !== undefined) return { iso: isoWithOffset(p.date, p.offsetMinutes), approx: p.date };
  if (p.relative) {
    // `昨天 12:00` names a wall clock on a day counted from the fetch; `3小时前` is an instant.
    const wallClock = /今天|今日|昨天|昨日|前天|today|yesterday/i.test(t) && p.hasTime;
    return stampFromDate(p.date, wallClock ? 'wall' : /前|ago|刚|just now|now/i.test(t) && !/^(今天|今日|昨天|昨日|前天|today|yesterday)$/i.test(t) ? 'instant' : 'day', timeZone);
  }
  return stampFromDate(p.date, p.hasTime ? 'wall' : 'day', timeZone);
}

/** A stamp's parts: its calendar date as stated, its wall clock (ms, read as UTC) and its instant when it has an offset. */
export interface StampParts { date: string; wallMs: number; hasTime: boolean; instant?: number }

/** Read a publishTime string (any of the DateStamp shapes, or any ISO 8601 with `Z`); undefined when not one. */
export function readStamp(iso: string): StampParts | undefined {
  const m = /^(\d{4})-(\d\d)-(\d\d)(?:[T ](\d\d):(\d\d)(?::(\d\d)(?:\.\d+)?)?)?\s*(Z|[+-]\d\d:?\d\d)?$/.exec(iso.trim());
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = [1, 2, 3, 4, 5, 6].map((i) => Number(m[i] ?? 0)) as [number, number, number, number, number, number];
  const wallMs = Date.UTC(y, mo - 1, d, h, mi, s);
  if (Number.isNaN(wallMs)) return undefined;
  const hasTime = m[4] !== undefined;
  const out: StampParts = { date: `${m[1]}-${m[2]}-${m[3]}`, wallMs, hasTime };
  if (hasTime && m[7]) out.instant = wallMs - (m[7] === 'Z' ? 0 : offsetOf(m[7])) * 60000;
  return out;
}

/**
 * Order of two publishTime strings: by instant when both have one, else by calendar date, then
 * by wall clock (a date-only stamp before timed ones of its day). Unreadable strings go last.
 */
export function compareStamps(a: string | undefined, b: string | undefined): number {
  const x = a ? readStamp(a) : undefined;
  const y = b ? readStamp(b) : undefined;
  if (!x || !y) return x ? -1 : y ? 1 : 0;
  if (x.instant !== undefined && y.instant !== undefined) return x.instant - y.instant;
  if (x.date !== y.date) return x.date < y.date ? -1 : 1;
  return x.wallMs - y.wallMs;
}
