/**
 * How the adaptive fetcher learns a URL pattern (src/fetch/adaptive/adaptive-policy.ts, ./adaptive-learning.ts)
 * on hand-made sequences: the hierarchical prior (crawl → host → pattern) and pages waiting for
 * the learning renders of their pattern already in flight instead of rendering too. No browser:
 * the decisions are plain data (the fetcher's use of them is in test/e2e-adaptive*.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { AdaptivePolicy } from '../src/fetch/adaptive/adaptive.js';
import { LearningRenders } from '../src/fetch/adaptive/adaptive-learning.js';

const equal = { equivalent: true, textF1: 1, linkRecall: 1, differences: [] };
const differs = { equivalent: false, textF1: 0, linkRecall: 1, differences: ['main text differs'] };
// a directory of its own per host: sites of one template (one path pattern) are another rule
const article = (host: string, i: number) => `http://${host}/${host.split(".")[0]}/2008-05-13/content_${1000 + i}.htm`;
/** Learn a host to clean: minSamples equivalent renderings of one pattern. */
const learnClean = (p: AdaptivePolicy, host: string) => {
  for (let i = 0; i < 3; i++) p.record(article(host, i), equal, 300);
};
/** Renders of `host`'s first pattern before it goes over HTTP. */
const rendersToLearn = (p: AdaptivePolicy, host: string) => {
  let n = 0;
  for (let i = 0; n < 10; i++) {
    const d = p.decide(article(host, i));
    if (d.mode === 'http') return n;
    expect(d.learning).toBe(true);
    p.record(article(host, i), equal, 300);
    n++;
  }
  return n;
};

describe('hierarchical prior: crawl → host → pattern', () => {
  it('a new host needs one rendering fewer once two other hosts are clean and clean hosts are the majority', () => {
    const p = new AdaptivePolicy({ recheckShare: 0 });
    expect(rendersToLearn(p, 'a.cn')).toBe(3); // nothing known: minSamples
    expect(rendersToLearn(p, 'b.cn')).toBe(3); // one clean host is no crawl evidence yet
    expect(p.decide(article('c.cn', 0)).why).toMatch(/2 equivalent needed/);
    expect(rendersToLearn(p, 'c.cn')).toBe(2);
    expect(rendersToLearn(p, 'd.cn')).toBe(2);
    // c.cn, learned with 2, is clean: its other patterns need one
    expect(p.decide('http://c.cn/list/page_1.html').why).toMatch(/1 equivalent needed/);
  });

  it('no crawl prior while differing hosts are as many as clean ones, and none on a host that differed', () => {
    const p = new AdaptivePolicy({ recheckShare: 0 });
    learnClean(p, 'a.cn');
    learnClean(p, 'b.cn');
    p.record(article('js1.cn', 0), differs, 300);
    p.record(article('js2.cn', 0), differs, 300);
    expect(rendersToLearn(p, 'c.cn')).toBe(3); // 2 clean vs 2 differing: (2+1)/(4+2) is not over one half
    const q = new AdaptivePolicy({ recheckShare: 0 });
    learnClean(q, 'a.cn');
    learnClean(q, 'b.cn');
    q.record('http://c.cn/live/1.html', differs, 300);
    expect(rendersToLearn(q, 'c.cn')).toBe(3); // a host's own difference outweighs the crawl
  });

  it('a clean host that differs later stops counting for the crawl', () => {
    const p = new AdaptivePolicy({ recheckShare: 0 });
    learnClean(p, 'a.cn');
    learnClean(p, 'b.cn');
    expect(p.decide(article('c.cn', 0)).why).toMatch(/2 equivalent needed/);
    p.record('http://b.cn/live/1.html', differs, 300);
    expect(p.decide(article('c.cn', 0)).why).toMatch(/3 equivalent needed/);
  });
});

/** Settles after the current microtasks: true when `promise` has resolved by then. */
async function resolvedNow(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  await new Promise<void>((r) => setImmediate(r));
  return done;
}

describe('pages wait for the learning renders of their pattern in flight', () => {
  const url = (i: number) => article('s.cn', i);
  const LONG = 60_000; // the wait's own bound; never reached here

  it('a page whose pattern has enough learning renders in flight waits, and goes over HTTP when they agree', async () => {
    const p = new AdaptivePolicy({ recheckShare: 0 });
    const learning = new LearningRenders(p);
    const ends: (() => void)[] = [];
    for (let i = 0; i < 3; i++) {
      const d = await learning.decide(url(i), LONG);
      expect(d.mode).toBe('browser'); // fewer in flight than the pattern needs: render
      ends.push(learning.begin(url(i)));
    }
    const fourth = learning.decide(url(3), LONG);
    expect(await resolvedNow(fourth)).toBe(false); // three in flight are enough to decide it: wait
    for (let i = 0; i < 3; i++) {
      p.record(url(i), equal, 300);
      ends[i]();
    }
    const d = await fourth;
    expect(d.mode).toBe('http');
    expect(d.why).toMatch(/after waiting \d+ ms for the pattern's learning renders in flight/);
    expect(learning.rendering(url(0))).toBe(0);
  });

  it('renders after waiting when the renders in flight differ', async () => {
    const p = new AdaptivePolicy({ recheckShare: 0 });
    const learning = new LearningRenders(p);
    // a clean host: one rendering decides a new pattern, so the second page waits for the first
    learnClean(p, 's.cn');
    const list = (i: number) => `http://s.cn/list/page_${i}.html`;
    expect((await learning.decide(list(1), LONG)).mode).toBe('browser');
    const end = learning.begin(list(1));
    const second = learning.decide(list(2), LONG);
    expect(await resolvedNow(second)).toBe(false);
    p.record(list(1), differs, 0);
    end();
    const d = await second;
    expect(d.mode).toBe('browser');
    expect(d.why).toMatch(/needs the browser/);
  });

  it('a lost render (failed, or read with requests open) wakes the waiting page to render itself', async () => {
    const p = new AdaptivePolicy({ recheckShare: 0 });
    const learning = new LearningRenders(p);
    const ends = [0, 1, 2].map((i) => learning.begin(url(i)));
    const fourth = learning.decide(url(3), LONG);
    expect(await resolvedNow(fourth)).toBe(false);
    ends[0](); // no record: its outcome is lost
    const d = await fourth;
    expect(d.mode).toBe('browser');
    expect(d.learning).toBe(true);
    ends[0](); // ending twice counts once
    expect(learning.rendering(url(0))).toBe(2);
  });

  it('never waits on a pattern that needs the browser, and waits no longer than its bound', async () => {
    const p = new AdaptivePolicy({ recheckShare: 0 });
    const learning = new LearningRenders(p);
    p.record(url(0), differs, 300);
    learning.begin(url(1)); // a render in flight on a pattern that differed
    expect(await resolvedNow(learning.decide(url(2), LONG))).toBe(true);
    const q = new AdaptivePolicy({ recheckShare: 0 });
    const l2 = new LearningRenders(q);
    for (let i = 0; i < 3; i++) l2.begin(url(i)); // never ended
    const d = await l2.decide(url(3), 30);
    expect(d.mode).toBe('browser');
    expect(d.why).toMatch(/after waiting/);
  });
});
