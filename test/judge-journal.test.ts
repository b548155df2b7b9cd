/**
 * The page judge across `--resume` (src/judge/judge-journal.ts): a judge restored from
 * the run folder (snapshot + inputs since) judges the pages after the stop exactly as the judge
 * of an uninterrupted crawl does; a judge rebuilt from scratch does not.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config/schema.js';
import { PageJudge, type Verdict } from '../src/judge/judge.js';
import { JUDGE_FILES, JudgeJournal } from '../src/judge/judge-journal.js';
import type { PageAnalysis } from '../src/extract/types.js';

const A = (url: string, title: string, text: string): PageAnalysis => ({ url, title, text, headings: [], links: [] });
const words = ['rescue', 'rubble', 'survivors', 'school', 'tent', 'aftershock', 'magnitude', 'bank', 'shares', 'market', 'funds', 'film', 'premiere', 'league', 'goal'];
/** A varied stream: quake articles (some never saying the keyword), market and sport pages, an error page, a list page. */
function pages(): { a: PageAnalysis; status: number; isSeed: boolean }[] {
  const out: { a: PageAnalysis; status: number; isSeed: boolean }[] = [];
  for (let i = 0; i < 60; i++) {
    const pick = (k: number) => words[(i * 7 + k * 3) % words.length];
    const kind = i % 5;
    const text =
      kind === 0 ? `Quake ${pick(0)} teams reached the ${pick(1)} of school ${i} and searched for survivors; quake aftershock ${pick(2)}.`
      : kind === 1 ? `Rescue teams searched the rubble of the collapsed school ${i} for survivors under a ${pick(3)} tent.`
      : kind === 2 ? `Stock markets closed higher on day ${i} as ${pick(4)} shares and ${pick(5)} funds rallied.`
      : kind === 3 ? `The ${pick(6)} league match ended with a late goal ${i} and a ${pick(7)} premiere.`
      : i % 10 === 4 ? '' : `Quake magnitude ${i} recorded; ${pick(8)} ${pick(9)} ${pick(10)} reported.`;
    out.push({ a: A(`http://n/p${i}`, `Page ${i} ${pick(11)}`, text), status: i === 17 ? 404 : 200, isSeed: i < 2 });
  }
  return out;
}

async function judgeOf(mode: 'cosine' | 'learned'): Promise<PageJudge> {
  return PageJudge.create(parseConfig({ topics: [{ keywords: ['quake', 'rescue'] }], judge: mode }));
}
const judgeAll = (j: PageJudge, ps: ReturnType<typeof pages>): Verdict[] => ps.map((p) => j.judge(p.a, { isSeed: p.isSeed, status: p.status, key: p.a.url }));
const essence = (v: Verdict) => ({ rel: v.rel, simD: v.simD, relevant: v.relevant, probability: v.probability, evidence: v.evidence });

let dirs: string[] = [];
afterEach(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs = [];
});
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), 'judge-journal-'));
  dirs.push(d);
  return d;
};

describe('the judge across --resume', () => {
  for (const mode of ['cosine', 'learned'] as const) {
    it(`${mode}: restored from snapshot + inputs, it judges the rest as without the stop`, async () => {
      const ps = pages();
      const whole = await judgeOf(mode);
      const expected = judgeAll(whole, ps).map(essence);

      const dir = tmp();
      const first = await judgeOf(mode);
      const journal = new JudgeJournal(dir, first);
      judgeAll(first, ps.slice(0, 25));
      journal.snapshot(); // a snapshot mid-crawl, then inputs after it; then "kill -9" (no close)
      judgeAll(first, ps.slice(25, 40));

      const resumed = await judgeOf(mode);
      expect(JudgeJournal.resume(dir, resumed, () => true)).toBeDefined();
      const after = judgeAll(resumed, ps.slice(40)).map(essence);
      expect(after).toEqual(expected.slice(40));
      expect(resumed.harvestEstimate(60)).toEqual(whole.harvestEstimate(60));

      // Rebuilt from scratch (the old --resume), the same pages are judged otherwise.
      const fresh = await judgeOf(mode);
      expect(judgeAll(fresh, ps.slice(40)).map(essence)).not.toEqual(expected.slice(40));
    });
  }

  it('skips an input whose page never reached the crawl log (fetched again after the resume), and never replays it later', async () => {
    const ps = pages();
    const dir = tmp();
    const first = await judgeOf('cosine');
    new JudgeJournal(dir, first);
    judgeAll(first, ps.slice(0, 30));
    const lost = ps[29].a.url;
    const notLost = (key: string) => key !== lost;

    // Uninterrupted equivalent: the lost page is judged again after the others.
    const whole = await judgeOf('cosine');
    judgeAll(whole, ps.slice(0, 29));
    const expected = judgeAll(whole, [ps[29], ...ps.slice(30)]).map(essence);

    const resumed = await judgeOf('cosine');
    const j2 = JudgeJournal.resume(dir, resumed, notLost)!;
    expect(judgeAll(resumed, [ps[29], ...ps.slice(30)]).map(essence)).toEqual(expected);
    j2.close();
    // A second resume: the page is in the log now; its first, lost judgement must not come back.
    const again = await judgeOf('cosine');
    JudgeJournal.resume(dir, again, () => true);
    expect(again.harvestEstimate()).toEqual(resumed.harvestEstimate());
  });

  it('compacts by itself once the inputs outweigh the snapshot, and resumes exactly from what is left', async () => {
    const ps = pages();
    const whole = await judgeOf('learned');
    const expected = judgeAll(whole, ps).map(essence);
    const dir = tmp();
    const first = await judgeOf('learned');
    new JudgeJournal(dir, first, 0, 1); // compact as soon as the inputs outweigh the last snapshot
    judgeAll(first, ps.slice(0, 45));
    const snapshotSeq = (JSON.parse(readFileSync(join(dir, JUDGE_FILES.snapshot), 'utf8')) as { seq: number }).seq;
    const inputs = readFileSync(join(dir, JUDGE_FILES.inputs), 'utf8').split('\n').filter(Boolean);
    expect(snapshotSeq).toBeGreaterThan(0);
    expect(inputs.length).toBe(45 - snapshotSeq); // only the inputs after the snapshot are kept
    expect(inputs.length).toBeLessThan(45);
    const resumed = await judgeOf('learned');
    JudgeJournal.resume(dir, resumed, () => true);
    expect(judgeAll(resumed, ps.slice(45)).map(essence)).toEqual(expected.slice(45));
  });

  it('a run from before the journal has no judge state to restore', async () => {
    expect(JudgeJournal.resume(tmp(), await judgeOf('cosine'), () => true)).toBeUndefined();
  });
});
