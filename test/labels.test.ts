/**
 * The user's labels inside the judge and the choice of questions (src/crawl/labels.ts,
 * src/topic/label-threshold.ts): a label moves θ to the side the user put the page on, feeds the
 * judge's examples, and survives the judge's snapshot; the labels file's mistakes are one line
 * each; the chooser asks about the page the judge is least sure of, never twice.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UserError } from '../src/config/errors.js';
import { parseConfig } from '../src/config/schema.js';
import { PageJudge, type Verdict } from '../src/judge/judge.js';
import { informs, LabelChooser, readLabelsFile } from '../src/crawl/labels.js';
import { analyzePage } from '../src/extract/page.js';
import { labelledThreshold } from '../src/topic/label-threshold.js';

const page = (url: string, title: string, body: string) => analyzePage({ html: `<html><head><title>${title}</title></head><body><h1>${title}</h1><p>${body}</p></body></html>`, url, fetchedAt: new Date() });

describe('θ from labels', () => {
  it('leaves θ where labels agree with it, and moves it past a labelled page on the wrong side', () => {
    expect(labelledThreshold(0.1, [{ rel: 0.3, relevant: true }, { rel: 0.02, relevant: false }])).toBe(0.1);
    // A negative at 0.15 (above θ 0.1): θ rises just above it.
    const up = labelledThreshold(0.1, [{ rel: 0.15, relevant: false }]);
    expect(up).toBeGreaterThan(0.15);
    expect(up).toBeLessThan(0.1501);
    // A positive at 0.08 (below θ): θ falls to it.
    expect(labelledThreshold(0.1, [{ rel: 0.08, relevant: true }])).toBe(0.08);
    // A label far from θ (a factor 20 away) does not drag θ there: one error costs less than the move.
    expect(labelledThreshold(0.1, [{ rel: 0.005, relevant: true }])).toBe(0.1);
    // Pages with rel 0 say nothing about θ.
    expect(labelledThreshold(0.1, [{ rel: 0, relevant: true }])).toBe(0.1);
  });

  it('a label feeds the judge: θ moves, the page becomes an example, and the state keeps it', async () => {
    const o = 'http://127.0.0.1:9';
    const config = parseConfig({ topics: [{ keywords: ['heron', 'bird'], seeds: [`${o}/seed`] }], strategy: 'combined' });
    const judge = await PageJudge.create(config);
    judge.judge(page(`${o}/seed`, 'Heron', 'The heron is a bird of rivers and lakes that hunts fish and nests in colonies near water.'), { isSeed: true });
    for (let i = 0; i < 5; i++) judge.judge(page(`${o}/p${i}`, `Page ${i}`, `Trains, ships and lorries carry goods between ports ${i}; a bird was seen once.`), { isSeed: false });
    const shipping = page(`${o}/ship`, 'Shipping', 'Ships and lorries carry goods between ports; a bird sat on the mast of a ship in the port.');
    const v = judge.judge(shipping, { isSeed: false });
    const id = v.topicId;
    const before = judge.verdictThreshold(id);
    expect(v.rel).toBeGreaterThan(0);
    // The user says the shipping page is not about herons: θ rises above its rel.
    judge.addLabel(shipping, false, id);
    expect(judge.verdictThreshold(id)).toBeGreaterThan(v.rel);
    expect(judge.labelled).toEqual([{ url: `${o}/ship`, topicId: id, relevant: false, tf: expect.any(Map) }]);
    // And a heron page labelled relevant joins the examples: a page like it scores higher evidence than before.
    const egret = page(`${o}/egret`, 'Egret', 'The egret wades in marshes and rivers, a white bird hunting fish and frogs near water.');
    const egretLike = page(`${o}/egret2`, 'Egret', 'Egret plumes: the egret wades in marshes, a white bird of the marsh.');
    const evidenceBefore = judge.judge(egretLike, { isSeed: false }).evidence!;
    judge.addLabel(egret, true, id);
    const evidenceAfter = judge.judge(page(`${o}/egret3`, 'Egret', 'Egret plumes: the egret wades in marshes, a white bird of the marsh.'), { isSeed: false }).evidence!;
    expect(evidenceAfter).toBeGreaterThan(evidenceBefore);
    expect(before).not.toBe(judge.verdictThreshold(id));
    // Through the snapshot (what --resume restores) the labels and their θ come back.
    const again = await PageJudge.create(config);
    again.restore(JSON.parse(JSON.stringify(judge.state())));
    expect(again.labelled.map((l) => [l.url, l.relevant])).toEqual([[`${o}/ship`, false], [`${o}/egret`, true]]);
    expect(again.verdictThreshold(id)).toBeCloseTo(judge.verdictThreshold(id), 12);
  });
});

describe('the labels file', () => {
  it('reads JSONL labels and says what is wrong with a bad line in one line', () => {
    const dir = mkdtempSync(join(tmpdir(), 'labels-file-'));
    const good = join(dir, 'good.jsonl');
    writeFileSync(good, '{"url":"http://a.example/x","relevant":true}\n\n{"url":"http://a.example/y","relevant":false,"topic":"birds"}\n{"url":"http://a.example/z","source":"terminal"}\n');
    expect(readLabelsFile(good)).toEqual([
      { url: 'http://a.example/x', relevant: true },
      { url: 'http://a.example/y', relevant: false, topic: 'birds' },
    ]);
    const bad = (text: string) => {
      const f = join(dir, `bad${Math.random()}.jsonl`);
      writeFileSync(f, text);
      try {
        readLabelsFile(f);
      } catch (e) {
        expect(e).toBeInstanceOf(UserError);
        return (e as Error).message;
      }
      throw new Error('no error');
    };
    expect(bad('{"url":"http://a.example/x","relevant":true}\nnot json\n')).toMatch(/line 2 is not JSON$/);
    expect(bad('{"url":"nowhere","relevant":true}\n')).toMatch(/line 1: "nowhere" is not a valid URL/);
    expect(bad('{"url":"http://a.example/x","relevant":"yes"}\n')).toMatch(/"relevant" must be true or false/);
    expect(() => readLabelsFile(join(dir, 'missing.jsonl'))).toThrow(/--labels: no file/);
  });
});

describe('which page is asked about', () => {
  const verdict = (rel: number, relevant: boolean, threshold = 0.1): Verdict => ({ rel, cosine: rel, simD: 0, topicId: 't', relevant, threshold });
  it('a page on the judge’s line, or one the ordering expected otherwise, informs more than a clear case', () => {
    expect(informs(verdict(0.1, true), 0.5)).toBeGreaterThan(informs(verdict(0.9, true), 0.5));
    // Fetched at a top score but judged not relevant: the judge and the ordering disagree.
    expect(informs(verdict(0.01, false), 0.95)).toBeGreaterThan(informs(verdict(0.01, false), 0.05));
  });

  it('where the log-odds rank decides, a page on its line informs more than one on the rule\'s line far from the rank\'s', () => {
    // Both pages sit on the rule's line (rel = θ); the first is also on the rank's (a fifth of the pages above it, a fifth called relevant), the second far above it.
    const onRankLine = { ...verdict(0.1, true), rankPlace: { above: 0.2, share: 0.2 } };
    const farFromIt = { ...verdict(0.1, true), rankPlace: { above: 0.01, share: 0.2 } };
    expect(informs(onRankLine, 0.5)).toBeGreaterThan(informs(farFromIt, 0.5) + 0.4);
    // Without a rank place, the rule's line is the judge's.
    expect(informs(verdict(0.1, true), 0.5)).toBeCloseTo(informs(onRankLine, 0.5), 12);
  });

  it('asks after askAfter pages, the most informative first, and never about a page twice', () => {
    const chooser = new LabelChooser({ askAfter: 3 });
    const p = (i: number) => page(`http://a.example/${i}`, `P${i}`, `text of page ${i}`);
    chooser.observe(p(1), verdict(0.5, true), 1);
    chooser.observe(p(2), verdict(0.1, true), 0.5);
    expect(chooser.next()).toBeUndefined();
    chooser.observe(p(3), { ...verdict(0, false), neverRelevant: { reason: 'http-status', detail: '404' } }, 0.2);
    expect(chooser.next()!.analysis.url).toBe('http://a.example/2');
    expect(chooser.next()!.analysis.url).toBe('http://a.example/1');
    expect(chooser.next()).toBeUndefined(); // the 404 is never asked about
    chooser.markAsked('http://a.example/4');
    chooser.observe(p(4), verdict(0.1, false), 0.9);
    expect(chooser.next()).toBeUndefined();
  });
});
