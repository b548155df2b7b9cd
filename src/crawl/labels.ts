/**
 * Labels from the user: when the judge is unsure, ask. After the first pages the crawl picks,
 * one at a time, the fetched page whose label would teach its judge most and asks the user (in
 * the terminal, `--ask N`; through the library, `onLabelRequest`); pages can also be labelled
 * beforehand in a file (`--labels FILE`, JSONL `{"url": …, "relevant": true|false}`). A label is
 * a positive or a negative example of the judge at once (src/judge/judge.ts `addLabel`). The
 * crawl never waits for an answer: the question stands while pages are fetched, and the label is
 * learned when it comes.
 *
 * Which page: the one the judge is least sure of, or on which the judge and the ordering disagree
 * most (uncertainty sampling, Lewis & Gale 1994; disagreement between two learners, after
 * query-by-committee). For a fetched page with content,
 *
 *   uncertain  = 1 − min(1, |ln(rel/θ)| / ln 3)     1 on the judge's line, 0 a factor 3 away
 *   disagree   = q if judged not relevant, else 1 − q, q = the share of pages fetched so far the
 *                ordering scored below this one (it fetched this one expecting it on topic, or not)
 *   informs    = (uncertain + disagree) / 2, + ¼ when the rule (rel ≥ θ) and the verdict differ
 *
 * and the question goes to the candidate that informs most among the last `POOL` candidates not
 * asked yet. Labels are logged in the run folder (labels.jsonl: what was asked, the answer, who
 * answered) and reach the judge's own journal (judge-inputs.jsonl), so `--resume` keeps them and
 * asks no page twice; the report and `--explain` show them.
 */
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface, type Interface } from 'node:readline';
import { UserError } from '../config/errors.js';
import { topicName as nameOfTopic } from '../config/schema.js';
import { decodeHtml } from '../extract/encoding.js';
import { analyzePage } from '../extract/page.js';
import type { PageAnalysis } from '../extract/types.js';
import { readJsonLines } from '../store/jsonl.js';
import { lowerBound } from '../topic/sorted.js';
import type { JudgeState, PageJudge, Verdict } from '../judge/judge.js';
import { JUDGE_FILES } from '../judge/judge-journal.js';
import type { CrawlContext, CrawlPlugin } from './types.js';

export const LABELS_FILE = 'labels.jsonl';

/** Candidates kept to choose a question from (the most recent pages with content). */
export const LABEL_POOL = 200;

/** What the user is asked about a page. */
export interface LabelQuestion {
  url: string;
  title: string;
  /** The start of the page's main text. */
  snippet: string;
  /** The topic (its name, else its keywords) the judge put the page in. */
  topic: string;
  /** The judge's verdict when it was fetched. */
  judgedRelevant: boolean;
  rel: number;
  threshold?: number;
  /** Share of the pages fetched so far the ordering scored below this one. */
  scoreRank: number;
  /** 1-based, and how many may be asked in all. */
  number: number;
  of: number;
}

/** The answer: relevant, not relevant, or undefined to skip the page. */
export type LabelAnswer = boolean | undefined;

export type LabelSource = 'terminal' | 'file' | 'library' | 'simulated' | 'dashboard';

/** One line of the run folder's labels.jsonl (a labels file's lines need only `url` and `relevant`). */
export interface LabelRecord {
  time: string;
  url: string;
  /** Absent: asked and skipped. */
  relevant?: boolean;
  source: LabelSource;
  topic?: string;
  title?: string;
  /** The judge's verdict when the page was fetched (asked pages). */
  judgedRelevant?: boolean;
}

/** A fetched page that may be asked about, with how much its label would teach. */
interface Candidate {
  analysis: PageAnalysis;
  verdict: Verdict;
  informs: number;
  scoreRank: number;
}

/**
 * The choice of questions, apart from how they are asked (the crawl's plugin below; bench:replay
 * answers from the ground truth). `observe` each judged page with the score it was fetched at,
 * `next` for the page to ask about now (undefined: none worth asking yet).
 */
export class LabelChooser {
  private readonly scores: number[] = [];
  private readonly pool: Candidate[] = [];
  private readonly asked = new Set<string>();
  private seen = 0;

  constructor(private readonly opts: { askAfter: number; pool?: number } = { askAfter: 20 }) {}

  /** Pages already asked about (a resumed run's labels): never asked again. */
  markAsked(url: string): void {
    this.asked.add(url);
  }

  observe(analysis: PageAnalysis, verdict: Verdict, score: number | undefined): void {
    this.seen++;
    const s = score ?? 0;
    const scoreRank = this.scores.length ? lowerBound(this.scores, s) / this.scores.length : 0.5;
    this.scores.splice(lowerBound(this.scores, s), 0, s);
    if (verdict.neverRelevant || verdict.listPage || verdict.outOfWindow || (verdict as { nearDuplicateOf?: string }).nearDuplicateOf) return;
    if (this.asked.has(analysis.url) || !analysis.text.trim()) return;
    this.pool.push({ analysis, verdict, scoreRank, informs: informs(verdict, scoreRank) });
    if (this.pool.length > (this.opts.pool ?? LABEL_POOL)) this.pool.shift();
  }

  /** The candidate that informs most, taken out of the pool (undefined before `askAfter` pages or with none). */
  next(): Candidate | undefined {
    if (this.seen < this.opts.askAfter || this.pool.length === 0) return undefined;
    let best = 0;
    for (let i = 1; i < this.pool.length; i++) if (this.pool[i].informs > this.pool[best].informs) best = i;
    const [c] = this.pool.splice(best, 1);
    this.asked.add(c.analysis.url);
    return c;
  }
}

/** How much a page's label would teach the judge (module comment). */
export function informs(verdict: Pick<Verdict, 'rel' | 'threshold' | 'relevant' | 'probability' | 'rankPlace'>, scoreRank: number): number {
  const theta = verdict.threshold ?? 0;
  const place = verdict.rankPlace;
  // Where the log-odds rank decided, its line is the one the label should place: the distance
  // from it as for θ, by the share above the page against the share called relevant. The learned
  // verdict has no θ: its probability's distance from ½ instead.
  const uncertain =
    place && place.share > 0
      ? 1 - Math.min(1, Math.abs(Math.log(Math.max(place.above, 1e-3) / place.share)) / Math.log(3))
      : verdict.rel > 0 && theta > 0
        ? 1 - Math.min(1, Math.abs(Math.log(verdict.rel / theta)) / Math.log(3))
        : verdict.probability !== undefined && theta === 0
          ? 1 - Math.abs(2 * verdict.probability - 1)
          : 0;
  const disagree = verdict.relevant ? 1 - scoreRank : scoreRank;
  const ruleDiffers = !place && theta > 0 && verdict.rel >= theta !== verdict.relevant ? 0.25 : 0;
  return (uncertain + disagree) / 2 + ruleDiffers;
}

/** A labels file (`--labels FILE`): JSONL, one `{"url": …, "relevant": true|false}` a line (a run's labels.jsonl is one). */
export function readLabelsFile(path: string): { url: string; relevant: boolean; topic?: string }[] {
  if (!existsSync(path)) throw new UserError(`--labels: no file ${path}`);
  const out: { url: string; relevant: boolean; topic?: string }[] = [];
  readFileSync(path, 'utf8')
    .split('\n')
    .forEach((line, i) => {
      if (!line.trim()) return;
      let r: unknown;
      try {
        r = JSON.parse(line);
      } catch {
        throw new UserError(`--labels: ${path} line ${i + 1} is not JSON`);
      }
      const o = r as { url?: unknown; relevant?: unknown; topic?: unknown };
      if (typeof o !== 'object' || o === null || typeof o.url !== 'string') throw new UserError(`--labels: ${path} line ${i + 1}: expected {"url": "…", "relevant": true|false}`);
      try {
        new URL(o.url);
      } catch {
        throw new UserError(`--labels: ${path} line ${i + 1}: "${o.url}" is not a valid URL`);
      }
      if (o.relevant === undefined) return; // a skipped question of a run's labels.jsonl
      if (typeof o.relevant !== 'boolean') throw new UserError(`--labels: ${path} line ${i + 1}: "relevant" must be true or false`);
      out.push({ url: new URL(o.url).href, relevant: o.relevant, ...(typeof o.topic === 'string' ? { topic: o.topic } : {}) });
    });
  return out;
}

/** The run folder's labels, oldest first (empty when there are none). */
export function readRunLabels(runDir: string): LabelRecord[] {
  return readJsonLines<LabelRecord>(join(runDir, LABELS_FILE));
}

/**
 * The labels the run's judge has learned, as its journal holds them (the snapshot, then the
 * inputs after it): what `--resume` restores, so what `--explain` shows is what the judge knows.
 */
export function judgeLabels(runDir: string): { url: string; relevant: boolean; topicId?: string }[] {
  const sp = join(runDir, JUDGE_FILES.snapshot);
  const snapshot = existsSync(sp) ? (JSON.parse(readFileSync(sp, 'utf8')) as { seq: number; state: JudgeState }) : undefined;
  const out: { url: string; relevant: boolean; topicId?: string }[] = (snapshot?.state.labels ?? []).map((l) => ({ url: l.url, relevant: l.relevant, topicId: l.topicId }));
  for (const r of readJsonLines<{ seq: number; kind: string; url?: string; relevant?: boolean; topicId?: string }>(join(runDir, JUDGE_FILES.inputs)))
    if (r.kind === 'label' && r.seq > (snapshot?.seq ?? 0) && r.url) out.push({ url: r.url, relevant: !!r.relevant, topicId: r.topicId });
  return out;
}

/**
 * One label learned: a positive or negative example of the judge (its journal keeps it for
 * --resume), and a line of the run's labels.jsonl. Every way of labelling goes through here.
 */
export function learnLabel(
  judge: PageJudge,
  runDir: string,
  l: { analysis: PageAnalysis; relevant: boolean; source: LabelSource; topicId?: string; topic?: string; judgedRelevant?: boolean },
): void {
  judge.addLabel(l.analysis, l.relevant, l.topicId);
  appendFileSync(
    join(runDir, LABELS_FILE),
    JSON.stringify({ time: new Date().toISOString(), url: l.analysis.url, relevant: l.relevant, source: l.source, topic: l.topic, title: l.analysis.title, ...(l.judgedRelevant !== undefined ? { judgedRelevant: l.judgedRelevant } : {}) } satisfies LabelRecord) + '\n',
  );
}

/** Who answers the questions: returns the answer whenever it comes (the crawl does not wait for it). */
export type LabelAsker = (q: LabelQuestion) => LabelAnswer | Promise<LabelAnswer>;

export interface LabelsPluginOptions {
  /** Questions asked at most (0: none). */
  ask: number;
  /** Pages fetched before the first question. */
  askAfter: number;
  /** Labels given beforehand (`--labels FILE`). */
  file?: string;
  /** Who answers, and how the answers are logged; none: no questions. */
  asker?: LabelAsker;
  source?: LabelSource;
}

/** The labels as a crawl plugin: the file's labels learned first, then questions as the crawl goes. */
export function labelsPlugin(o: LabelsPluginOptions): CrawlPlugin & { pending(): number } {
  const chooser = new LabelChooser({ askAfter: o.askAfter });
  let judge: PageJudge | undefined;
  let runDir = '';
  let asked = 0;
  let waiting = false;
  let ended = false;
  const learned = { yes: 0, no: 0, skipped: 0 };
  let fromFile: { analysis: PageAnalysis; relevant: boolean; topic?: string }[] = [];
  // Topic id → the name users know it by (its name, else its keywords).
  let names = new Map<string, string>();
  const topicName = (id: string) => names.get(id) ?? id;
  const log = (r: LabelRecord) => appendFileSync(join(runDir, LABELS_FILE), JSON.stringify(r) + '\n');
  const learn = (analysis: PageAnalysis, relevant: boolean, source: LabelSource, topicId?: string, judgedRelevant?: boolean) => {
    relevant ? learned.yes++ : learned.no++;
    learnLabel(judge!, runDir, { analysis, relevant, source, topicId, topic: topicId === undefined ? undefined : topicName(topicId), judgedRelevant });
  };
  const askNext = (ctx: CrawlContext) => {
    if (!o.asker || waiting || ended || asked >= o.ask) return;
    const c = chooser.next();
    if (!c) return;
    asked++;
    waiting = true;
    const q: LabelQuestion = {
      url: c.analysis.url,
      title: c.analysis.title,
      snippet: c.analysis.text.replace(/\s+/g, ' ').trim().slice(0, 240),
      topic: topicName(c.verdict.topicId),
      judgedRelevant: c.verdict.relevant,
      rel: c.verdict.rel,
      threshold: c.verdict.threshold,
      scoreRank: c.scoreRank,
      number: asked,
      of: o.ask,
    };
    // Not awaited: the crawl goes on while the question stands.
    void (async () => {
      let answer: LabelAnswer;
      try {
        answer = await o.asker!(q);
      } catch (e) {
        ctx.progress.log(`label question: ${(e as Error).message.split('\n')[0]}`);
        answer = undefined;
      }
      waiting = false;
      if (ended) return; // the crawl ended (and its journals closed) before the answer came
      if (answer === undefined) {
        learned.skipped++;
        log({ time: new Date().toISOString(), url: q.url, source: o.source ?? 'library', topic: q.topic, title: q.title, judgedRelevant: q.judgedRelevant });
      } else learn(c.analysis, answer, o.source ?? 'library', c.verdict.topicId, q.judgedRelevant);
      askNext(ctx);
    })();
  };
  return {
    name: 'labels',
    async beforeRun(ctx) {
      judge = ctx.judge;
      runDir = ctx.runDir;
      if (!judge) return;
      names = new Map(judge.model.topics.map((t, i) => [t.id, nameOfTopic(ctx.config.topics[i])]));
      const before = readRunLabels(runDir);
      for (const r of before) chooser.markAsked(r.url);
      const done = new Set(before.filter((r) => r.source === 'file').map((r) => r.url));
      // The file's pages, fetched once through the crawl's polite, gated fetch; learned at the first page (once the judge's journal is open).
      for (const l of o.file ? readLabelsFile(o.file) : []) {
        if (done.has(l.url)) continue;
        chooser.markAsked(l.url);
        const got = ctx.fetch ? await ctx.fetch({ url: l.url, kind: 'label' }) : undefined;
        if (!got?.ok || got.status < 200 || got.status >= 300) {
          ctx.progress.log(`label skipped: ${l.url} (${got && !got.ok ? got.reason : got ? `HTTP ${got.status}` : 'no fetch'})`);
          continue;
        }
        const topic = l.topic === undefined ? undefined : judge.model.topics.find((t) => t.id === l.topic || topicName(t.id) === l.topic)?.id;
        fromFile.push({ analysis: analyzePage({ html: decodeHtml(got.body), url: l.url, fetchedAt: new Date() }), relevant: l.relevant, topic });
      }
    },
    onPage(event, ctx) {
      if (!judge) return;
      for (const f of fromFile) learn(f.analysis, f.relevant, 'file', f.topic);
      if (fromFile.length) ctx.progress.log(`${fromFile.length} labelled page(s) learned from ${o.file}`);
      fromFile = [];
      chooser.observe(event.analysis, event.verdict, event.entry.score);
      askNext(ctx);
    },
    afterRun() {
      ended = true;
    },
    summary() {
      if (learned.yes + learned.no + learned.skipped === 0) return [];
      return [`  labels            ${learned.yes} relevant, ${learned.no} not relevant${learned.skipped ? `, ${learned.skipped} skipped` : ''} (labels.jsonl in the run folder; each a positive or negative example of the judge)`];
    },
    pending: () => (waiting ? 1 : 0),
  };
}

/**
 * Questions in the terminal: the page's title, URL and a snippet, answered y / n / s (skip) and
 * Enter, while the crawl goes on (the progress line is redrawn under the question). Lines typed
 * with no question standing are ignored.
 */
export function terminalAsker(write: (text: string) => void, input: NodeJS.ReadableStream = process.stdin): { ask: LabelAsker; close(): void } {
  let rl: Interface | undefined;
  let answer: ((a: LabelAnswer) => void) | undefined;
  let question: LabelQuestion | undefined;
  const prompt = () => write(`  relevant? y = yes, n = no, s = skip, then Enter`);
  const open = () => {
    if (rl) return;
    rl = createInterface({ input, terminal: false });
    rl.on('line', (line) => {
      if (!answer) return;
      const a = line.trim().toLowerCase();
      const done = answer;
      if (a === 'y' || a === 'yes') done(true);
      else if (a === 'n' || a === 'no') done(false);
      else if (a === 's' || a === 'skip' || a === '') done(undefined);
      else return prompt();
      answer = undefined;
      write(`  → ${a.startsWith('y') ? 'relevant' : a.startsWith('n') ? 'not relevant' : 'skipped'}: ${question?.url}`);
    });
  };
  return {
    ask: (q) => {
      open();
      question = q;
      const judged = `the judge says ${q.judgedRelevant ? 'relevant' : 'not relevant'} (rel ${q.rel.toFixed(3)}${q.threshold !== undefined ? `, its line ${q.threshold.toFixed(3)}` : ''}); the ordering scored it above ${Math.round(q.scoreRank * 100)}% of the pages fetched`;
      write(
        [
          `? Question ${q.number} of at most ${q.of}: is this page about "${q.topic}"? (the crawl goes on meanwhile)`,
          `  ${q.title || '(no title)'}`,
          `  ${q.url}`,
          `  "${q.snippet}${q.snippet.length >= 240 ? '…' : ''}"`,
          `  ${judged}`,
        ].join('\n'),
      );
      prompt();
      return new Promise<LabelAnswer>((ok) => (answer = ok));
    },
    close: () => {
      answer?.(undefined);
      answer = undefined;
      rl?.close();
      rl = undefined;
      // readline resumed stdin: paused again so it does not keep the process alive.
      (input as NodeJS.ReadStream).pause?.();
    },
  };
}
