/**
 * Reply-time resolution (METHODS §4: reply times t_i). The project's parseDateText handles the
 * Chinese and common English forms; forum software abroad prints German/French/British dates
 * too, so chrono-node's locale parsers are tried as well and the longest match wins (a shorter
 * match is usually a misreading, e.g. the English parser reads `10. April 2020` as `April 2020`).
 */
import * as chrono from 'chrono-node';
import { parseDateText, zoneOffsetMinutes } from '../dates.js';

const PARSERS: chrono.Chrono[] = [chrono.en.casual, chrono.en.GB, chrono.de.casual, chrono.fr.casual];

const MAX_TEXT = 120;

// German month names English parsers miss (the rest — April, August, … — are spelt alike).
const GERMAN_MONTHS: Record<string, string> = {
  januar: 'January', jänner: 'January', februar: 'February', märz: 'March', mai: 'May', juni: 'June',
  juli: 'July', oktober: 'October', okt: 'Oct', dezember: 'December', dez: 'Dec',
};
const GERMAN_MONTH = /(?<!\p{L})(januar|jänner|februar|märz|mai|juni|juli|oktober|okt|dezember|dez)(?!\p{L})/giu;

const NUMERIC_DATE = /(?<![\d./-])(\d{1,2})([./-])(\d{1,2})\2(\d{4}|\d{2})(?![\d./-]*\d)/;

/**
 * Rewrite a numeric day/month date to ISO so no parser has to guess the order. Dots are always
 * day-first (German `21.04.20`); a part above 12 settles the order; otherwise the page's order
 * (`dayFirst`, see pageDayFirst) decides, and without one the text is left to the parsers.
 * Two-digit years are 19xx from 70, else 20xx.
 */
export function normaliseNumericDate(text: string, dayFirst?: boolean): string {
  const m = NUMERIC_DATE.exec(text);
  if (!m) return text;
  const a = Number(m[1]);
  const b = Number(m[3]);
  let df: boolean | undefined;
  if (a > 12 && b <= 12) df = true;
  else if (b > 12 && a <= 12) df = false;
  else if (a <= 12 && b <= 12) df = m[2] === '.' ? true : dayFirst;
  if (df === undefined) return text;
  const day = df ? a : b;
  const month = df ? b : a;
  let year = Number(m[4]);
  if (m[4].length === 2) year += year >= 70 ? 1900 : 2000;
  const pad = (n: number) => String(n).padStart(2, '0');
  // A space after the date keeps a following time (`, 12h25`, ` 13:39`) apart from it.
  return `${text.slice(0, m.index)}${year}-${pad(month)}-${pad(day)}${text.slice(m.index + m[0].length)}`;
}

/**
 * Whether a page writes numeric dates day-first: any date on it with a first part above 12
 * says yes, a second part above 12 says no; else the page language (English outside
 * GB/IE/AU/NZ/IN is month-first, other languages day-first). Undefined when nothing tells.
 */
export function pageDayFirst(text: string, lang: string | null | undefined): boolean | undefined {
  let dayFirst = 0;
  let monthFirst = 0;
  for (const m of text.matchAll(/(?<![\d./-])(\d{1,2})[/-](\d{1,2})[/-](?:\d{4}|\d{2})(?![\d./-]*\d)/g)) {
    const a = Number(m[1]);
    const b = Number(m[2]);
    if (a > 12 && a <= 31 && b <= 12) dayFirst++;
    else if (b > 12 && b <= 31 && a <= 12) monthFirst++;
  }
  if (dayFirst !== monthFirst) return dayFirst > monthFirst;
  const l = (lang ?? '').toLowerCase();
  if (!l) return undefined;
  if (l.startsWith('en')) return /^en[-_](gb|ie|au|nz|in|za)/.test(l);
  return true;
}

/**
 * Resolve a time string shown on a page (absolute, relative, or a Unix stamp) to a Date.
 * `dayFirst` is the page's numeric date order (pageDayFirst), when known.
 */
export function resolveTimeText(raw: string, ref: Date, timeZone: string, dayFirst?: boolean): Date | null {
  // German `10. April 2020 um 07:38 Uhr`: English parsers read `10. April 2020` as 1 April,
  // 10:00, so the ordinal dot and the `um`/`Uhr` words go before any parser sees the text.
  const text = normaliseNumericDate(
    raw
      .replace(/\s+/g, ' ')
      .replace(/\b(\d{1,2})\.\s+(?=\p{L}{3})/gu, '$1 ')
      .replace(GERMAN_MONTH, (m) => GERMAN_MONTHS[m.toLowerCase()] ?? m)
      .replace(/\bum\s+(?=\d)|\s+Uhr\b/g, '')
      .trim(),
    dayFirst,
  );
  if (!text || text.length > MAX_TEXT) return null;
  if (/^\d{10}(\d{3})?$/.test(text)) {
    // Unix seconds or milliseconds (data-time attributes, JSON APIs).
    const n = Number(text);
    return new Date(text.length === 10 ? n * 1000 : n);
  }
  if (/^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:?\d\d)$/.test(text)) {
    const d = new Date(text);
    if (!Number.isNaN(d.getTime())) return d;
  }
  let best: { len: number; date: Date } | null = null;
  try {
    const own = parseDateText(text, ref, timeZone);
    if (own && !Number.isNaN(own.getTime())) best = { len: text.length * 0.9, date: own };
  } catch {
    // fall through to chrono
  }
  // Localised "10. April 2020, 19h46" style: French `19h46` is not known to chrono.
  const normal = text.replace(/(\d{1,2})h(\d\d)\b/g, '$1:$2');
  const reference = { instant: ref, timezone: zoneOffsetMinutes(timeZone, ref) };
  for (const p of PARSERS) {
    const r = p.parse(normal, reference)[0];
    if (!r) continue;
    const len = r.text.length;
    if (!best || len > best.len) best = { len, date: r.date() };
  }
  return best ? best.date : null;
}
