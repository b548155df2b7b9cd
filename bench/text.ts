/**
 * Text pipeline benchmark (not a test): `npm run bench:text`.
 *   tokenizer / vectorizer throughput (chars/s) on real Chinese page text
 *     (zh-content-extraction gold main texts),
 *   per-page cost of TopicModel.relevance on a 5,000-char page (goal < 5 ms), with and without
 *     the Cilin semantic tree,
 *   Spearman correlation of s(x,y) = α/(dist+α) (Cilin) with human ratings, wordsim-240/297.
 * Data is read from ../shared/data (env SHARED_DATA overrides); absent sets are skipped.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TopicSchema } from '../src/config/schema.js';
import { jiebaBinding, jiebaFallbackReason } from '../src/text/jieba.js';
import { tokenize } from '../src/text/tokenize.js';
import { pageVector, TermStatistics } from '../src/text/vector.js';
import { MultiTopicModel } from '../src/topic/multi-topic.js';
import { Cilin, wordSimilarity } from '../src/topic/semantic.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const shared = process.env.SHARED_DATA ?? resolve(root, '../shared/data');
const cleanedDir = join(shared, 'zh-content-extraction', 'cleaned');
const cilinDir = join(shared, 'cilin');

/** Wall time and this process's CPU time: on a shared, loaded machine the CPU time is the stable figure. */
function time<T>(fn: () => T): { ms: number; cpuMs: number; value: T } {
  const c = process.cpuUsage();
  const t = performance.now();
  const value = fn();
  const d = process.cpuUsage(c);
  return { ms: performance.now() - t, cpuMs: (d.user + d.system) / 1000, value };
}

/** Spearman's rho with average ranks for ties (the similarity scores tie a lot). */
export function spearman(x: number[], y: number[]): number {
  const rank = (v: number[]) => {
    const idx = v.map((_, i) => i).sort((a, b) => v[a] - v[b]);
    const r = new Array<number>(v.length);
    for (let i = 0; i < idx.length; ) {
      let j = i;
      while (j + 1 < idx.length && v[idx[j + 1]] === v[idx[i]]) j++;
      for (let k = i; k <= j; k++) r[idx[k]] = (i + j) / 2 + 1;
      i = j + 1;
    }
    return r;
  };
  const rx = rank(x);
  const ry = rank(y);
  const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
  const mx = mean(rx);
  const my = mean(ry);
  let num = 0, dx = 0, dy = 0;
  for (let i = 0; i < rx.length; i++) {
    num += (rx[i] - mx) * (ry[i] - my);
    dx += (rx[i] - mx) ** 2;
    dy += (ry[i] - my) ** 2;
  }
  return num / Math.sqrt(dx * dy);
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

// ---------------------------------------------------------------- throughput
let texts: string[] = [];
if (existsSync(cleanedDir)) {
  texts = readdirSync(cleanedDir)
    .sort()
    .map((f) => readFileSync(join(cleanedDir, f), 'utf8'))
    .filter((t) => t.length > 200);
} else {
  console.log(`zh-content-extraction not found at ${cleanedDir} (set SHARED_DATA): throughput skipped.`);
}

let cilin: Cilin | undefined;
if (existsSync(join(cilinDir, 'new_cilin.txt'))) {
  const { ms, value } = time(() => Cilin.load(join(cilinDir, 'new_cilin.txt')));
  cilin = value;
  console.log(`load average ${(await import('node:os')).loadavg()[0].toFixed(1)} on ${(await import('node:os')).cpus().length} cores`);
  console.log(`Cilin: ${fmt(cilin.size)} words loaded in ${ms.toFixed(0)} ms`);
} else console.log(`Cilin not found at ${cilinDir}: semantic parts skipped.`);

if (texts.length) {
  const corpus = texts.join('\n');
  tokenize(corpus.slice(0, 2000)); // warm-up (JIT, jieba dictionary)
  const tok = time(() => {
    let n = 0;
    for (let r = 0; r < 3; r++) for (const t of texts) n += tokenize(t).length;
    return n;
  });
  const chars = corpus.length * 3;
  console.log(`tokenizer:  ${fmt(chars / (tok.ms / 1000))} chars/s wall, ${fmt(chars / (tok.cpuMs / 1000))} chars/s CPU (${texts.length} real pages ×3, ${fmt(chars)} chars, ${fmt(tok.value)} terms)`);

  const stats = new TermStatistics();
  for (const t of texts) stats.addDocument(tokenize(t));
  const vec = time(() => {
    for (let r = 0; r < 3; r++) for (const t of texts) pageVector({ body: t }, stats);
  });
  console.log(`vectorizer: ${fmt(chars / (vec.ms / 1000))} chars/s wall, ${fmt(chars / (vec.cpuMs / 1000))} chars/s CPU (tokenize + position-weighted TF × IDF)`);

  // A 5,000-char page with title, headings and URL, scored by a topic with 10 seed pages.
  const body = corpus.slice(10_000, 15_000);
  const page = (i: number) => ({
    url: `http://news.example.cn/2008/0512/${i}.shtml`,
    title: '四川汶川发生8.0级地震 救援工作全面展开',
    headings: ['灾区最新消息', '救援队伍陆续抵达'],
    body,
  });
  // Per-page costs are the median of 7 batches of 50 pages: a batch that meets a GC pause or
  // another process on these 2 cores says little about the page, the median says more.
  const BATCHES = 7;
  const PER_BATCH = 50;
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
  const perPage = (fn: (i: number) => void) => {
    const wall: number[] = [];
    const cpu: number[] = [];
    for (let b = 0; b < BATCHES; b++) {
      const t = time(() => {
        for (let i = 0; i < PER_BATCH; i++) fn(b * PER_BATCH + i);
      });
      wall.push(t.ms / PER_BATCH);
      cpu.push(t.cpuMs / PER_BATCH);
    }
    return `${median(wall).toFixed(2)} ms wall (batches ${Math.min(...wall).toFixed(2)}–${Math.max(...wall).toFixed(2)}), ${median(cpu).toFixed(2)} ms CPU`;
  };
  console.log(
    `per page, tokenizing alone (5,000 chars): ${perPage((i) => tokenize(page(i).title + page(i).headings.join(' ') + body))}`,
  );
  for (const thesaurus of [undefined, cilin]) {
    if (thesaurus === undefined && cilin === undefined) continue;
    // Built as the crawler builds it (src/judge/judge.ts): a MultiTopicModel, here with one topic.
    const model = new MultiTopicModel([TopicSchema.parse({ keywords: ['地震', '救援', { term: '灾区', weight: 0.5 }] })], { thesaurus });
    for (let i = 0; i < 10; i++) model.addSeedDocument({ url: `http://seed/${i}`, body: texts[i % texts.length] });
    for (let i = 0; i < 5; i++) model.relevance(page(-i)); // warm-up
    // Each page has a new URL, so each is counted in the IDF, as in a crawl (N grows 15 → 365).
    const cost = perPage((i) => void model.relevance(page(i)));
    const last = model.relevance(page(-100));
    console.log(
      `per page (5,000 chars, 10 seeds, ${thesaurus ? 'with Cilin sem' : 'cosine + simD only'}): ${cost} ` +
        `(goal < 5 ms; rel ${last.rel.toFixed(3)}, cos ${last.cosine.toFixed(3)}, simD ${last.simD.toFixed(3)}` +
        `${last.sem !== undefined ? `, sem ${last.sem.toFixed(3)}` : ''})`,
    );
  }
  console.log(`jieba binding: ${jiebaBinding}${jiebaFallbackReason ? ` (${jiebaFallbackReason})` : ''}`);
}

// ---------------------------------------------------------------- wordsim
if (cilin) {
  for (const name of ['wordsim-240.txt', 'wordsim-297.txt']) {
    const path = join(cilinDir, name);
    if (!existsSync(path)) continue;
    const pairs = readFileSync(path, 'utf8')
      .split(/\r?\n/)
      .map((l) => l.split('\t').map((c) => c.trim()))
      .filter((c) => c.length >= 3 && c[0] && c[1] && !Number.isNaN(Number(c[2])));
    const human = pairs.map((p) => Number(p[2]));
    const ours = pairs.map((p) => wordSimilarity(p[0], p[1], cilin));
    const covered = pairs.map((p, i) => [cilin!.has(p[0]) && cilin!.has(p[1]), i] as const).filter(([c]) => c).map(([, i]) => i);
    const rhoAll = spearman(ours, human);
    const rhoCov = spearman(covered.map((i) => ours[i]), covered.map((i) => human[i]));
    console.log(
      `${name}: Spearman ρ = ${rhoAll.toFixed(3)} over all ${pairs.length} pairs (unknown words: s = 0); ` +
        `ρ = ${rhoCov.toFixed(3)} over the ${covered.length} pairs with both words in Cilin`,
    );
  }
}
