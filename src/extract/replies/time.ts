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

/** Resolve a time string shown on a page (absolute, relative, or a Unix stamp) to a Date. */
export function resolveTimeText(raw: string, ref: Date, timeZone: string): Date | null {
  const text = raw.replace(/\s+/g, ' ').trim();
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
  const normal = text.replace(/(\d{1,2})h(\d\d)\b/g, '$1:$2').replace(/\bum\s+(?=\d)/g, '');
  const reference = { instant: ref, timezone: zoneOffsetMinutes(timeZone, ref) };
  for (const p of PARSERS) {
    const r = p.parse(normal, reference)[0];
    if (!r) continue;
    const len = r.text.length;
    if (!best || len > best.len) best = { len, date: r.date() };
  }
  return best ? best.date : null;
}
