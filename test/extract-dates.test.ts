import { describe, expect, it } from 'vitest';
import { parseDateText, toZonedIso, zonedTimeToUtc } from '../src/extract/dates.js';

// 2024-03-10 16:00 in Shanghai.
const REF = new Date('2024-03-10T08:00:00Z');
const SH = 'Asia/Shanghai';
const iso = (d: Date | null) => (d ? toZonedIso(d, SH) : null);

describe('parseDateText', () => {
  it.each([
    ['2008年5月12日 14:28', '2008-05-12T14:28:00+08:00'],
    ['2008年05月12日14:28', '2008-05-12T14:28:00+08:00'],
    ['2008-05-12 14:28', '2008-05-12T14:28:00+08:00'],
    ['发表于 2008-5-13 10:22', '2008-05-13T10:22:00+08:00'],
    ['2008/09/05', '2008-09-05T00:00:00+08:00'],
    ['２００８年５月１２日', '2008-05-12T00:00:00+08:00'],
    ['2008年5月12日 下午2:28', '2008-05-12T14:28:00+08:00'],
    ['May 12, 2008 2:28 pm', '2008-05-12T14:28:00+08:00'],
    ['2008-05-12T14:28:00Z', '2008-05-12T22:28:00+08:00'],
    ['发布日期： 9/17/2004 5:54:13 AM', '2004-09-17T05:54:13+08:00'],
    ['17/9/2004', '2004-09-17T00:00:00+08:00'],
  ])('absolute %s', (text, want) => {
    expect(iso(parseDateText(text, REF, SH))).toBe(want);
  });

  it.each([
    ['刚刚', '2024-03-10T16:00:00+08:00'],
    ['3小时前', '2024-03-10T13:00:00+08:00'],
    ['3 小时前', '2024-03-10T13:00:00+08:00'],
    ['5分钟前', '2024-03-10T15:55:00+08:00'],
    ['2 hours ago', '2024-03-10T14:00:00+08:00'],
    ['2天前', '2024-03-08T16:00:00+08:00'],
    ['昨天 12:00', '2024-03-09T12:00:00+08:00'],
    ['前天 08:30', '2024-03-08T08:30:00+08:00'],
    ['今天 09:05', '2024-03-10T09:05:00+08:00'],
    ['yesterday', '2024-03-09T00:00:00+08:00'],
    ['05-12 14:28', '2023-05-12T14:28:00+08:00'],
    ['03-09 14:28', '2024-03-09T14:28:00+08:00'],
  ])('relative %s', (text, want) => {
    expect(iso(parseDateText(text, REF, SH))).toBe(want);
  });

  it('uses the given zone for wall times', () => {
    expect(parseDateText('2008-05-12 14:28', REF, 'America/New_York')?.toISOString()).toBe('2008-05-12T18:28:00.000Z');
    expect(zonedTimeToUtc(2024, 7, 1, 12, 0, 0, 'Europe/Berlin').toISOString()).toBe('2024-07-01T10:00:00.000Z');
  });

  it('returns null for text without a date', () => {
    expect(parseDateText('新华网 北京 报道', REF, SH)).toBeNull();
    expect(parseDateText('14:28', REF, SH)).toBeNull();
    expect(parseDateText('2008年前的政策', REF, SH)).toBeNull();
    expect(parseDateText('', REF, SH)).toBeNull();
  });
});
