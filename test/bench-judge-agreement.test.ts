import { describe, expect, it } from 'vitest';
import { agreementTableMd, countWithin, formatAgreement, pooledAgreement, verdictAgreement } from '../bench/judge-agreement.js';

const rows = (spec: string) => [...spec].map((c) => ({ truth: c === 'T' || c === 't', verdict: c === 'T' || c === 'F' ? true : c === '-' ? null : false }));

describe('the judge against the truth', () => {
  it('counts judged and true pages, precision and recall (T judged+true, F judged+false, t missed, f rejected, - no verdict)', () => {
    const a = verdictAgreement(rows('TTFttf-f'));
    expect(a).toMatchObject({ judged: 3, truly: 4, both: 2 });
    expect(a.precision).toBeCloseTo(2 / 3);
    expect(a.recall).toBeCloseTo(0.5);
    expect(a.countRatio).toBeCloseTo(0.75);
  });

  it('a count within ±30% of the truth is right, one outside is not, on both sides', () => {
    expect(countWithin(verdictAgreement(rows('TTTttttttt')), 0.3)).toBe(false); // 3 judged of 10
    expect(countWithin(verdictAgreement(rows('TTTTTTTttt')), 0.3)).toBe(true); // 7 of 10
    expect(countWithin(verdictAgreement(rows('TTTTTTTTTTFFF')), 0.3)).toBe(true); // 13 of 10
    expect(countWithin(verdictAgreement(rows('TTTTTTTTTTFFFF')), 0.3)).toBe(false); // 14 of 10
    expect(countWithin(verdictAgreement(rows('ff')))).toBe(true);
    expect(countWithin(verdictAgreement(rows('Ff')))).toBe(false);
  });

  it('pools pages over crawls and counts the crawls whose count is right', () => {
    const p = pooledAgreement([verdictAgreement(rows('TTt')), verdictAgreement(rows('FFFFt'))]);
    expect(p).toMatchObject({ judged: 6, truly: 4, both: 2, within: 0, crawls: 2 });
    expect(p.precision).toBeCloseTo(1 / 3);
    expect(formatAgreement(p)).toBe('judged 6 / true 4 (1.50×) P 0.33 R 0.50');
  });

  it('writes one table row per crawl', () => {
    const md = agreementTableMd([{ topic: 'birds', strategy: 'combined', a: verdictAgreement(rows('TTFt')) }]);
    expect(md.split('\n')[2]).toBe('| birds | combined | 3 | 3 | 1.00 | yes | 0.67 | 0.67 |');
  });
});

describe("npm run bench's harvest tables", () => {
  it('print the judged count against the true count beside precision and recall', async () => {
    const { judgeMd } = await import('../bench/report.js');
    expect(judgeMd({ saved: 109, savedTrue: 15, truthFetched: 18 })).toBe('13.8% / 83.3%, judged 109 of 18 true (6.06×, off by more than 30%)');
    expect(judgeMd({ saved: 20, savedTrue: 16, truthFetched: 18 })).toBe('80.0% / 88.9%, judged 20 of 18 true (1.11×)');
  });
});
