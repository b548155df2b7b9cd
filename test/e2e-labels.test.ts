/**
 * The user's labels (src/crawl/labels.ts) end to end on the local test web: a user answers the
 * judge's questions during a demo crawl in a real terminal (a pseudo-terminal driven by
 * test/helpers/pty-answer.py, typing only once a question shows), the labels survive --resume,
 * and --explain shows a labelled page as one of the judge's examples; a labels file and the
 * library's callback teach the judge too, and the crawl goes on while a question waits.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { judgeLabels, readRunLabels, type LabelQuestion } from '../src/crawl/labels.js';
import { crawl, startTestWeb } from '../src/index.js';
import { CrawlLog } from '../src/store/crawl-log.js';

const root = join(import.meta.dirname, '..');
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const tsx = ['--import', pathToFileURL(join(root, 'node_modules/tsx/dist/loader.mjs')).href, join(root, 'src/cli/main.ts')];

function run(cmd: string, args: string[], cwd: string): Promise<{ code: number | null; out: string; err: string }> {
  const p = spawn(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, CI: '1' } });
  let out = '';
  let err = '';
  p.stdout.on('data', (d) => (out += d));
  p.stderr.on('data', (d) => (err += d));
  return new Promise((r) => p.on('exit', (code) => r({ code, out, err })));
}

const runDirOf = (storage: string) => join(storage, 'runs', readdirSync(join(storage, 'runs'))[0]);

describe('labels from the user', () => {
  it('a user labels pages in a terminal during the demo; the labels survive --resume and --explain shows them as the judge examples', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'labels-pty-'));
    dirs.push(dir);
    const storage = join(dir, 'storage');
    const first = await run('python3', [join(root, 'test/helpers/pty-answer.py'), 'y,n', '--', process.execPath, ...tsx, '--max-pages', '16', '--fetcher', 'http', '--concurrency', '2', '--ask', '2', '--ask-after', '5', '--storage', storage], dir);
    expect(first.code, first.out).toBe(0);
    // The questions as the terminal showed them: the page's title, URL and a snippet, then the answer taken.
    expect(first.out).toMatch(/\? Question 1 of at most 2: is this page about "[^"]+"\?/);
    expect(first.out).toMatch(/Question 2 of at most 2/);
    expect(first.out).toMatch(/→ relevant: http:\/\/127\./);
    expect(first.out).toMatch(/→ not relevant: http:\/\/127\./);
    expect(first.out).toMatch(/labels\s+1 relevant, 1 not relevant/);
    const runDir = runDirOf(storage);
    const labels = readRunLabels(runDir);
    expect(labels.map((l) => [l.relevant, l.source])).toEqual([[true, 'terminal'], [false, 'terminal']]);
    // The crawl did not stop for the questions: the whole budget was fetched.
    expect(CrawlLog.read(join(runDir, 'crawl-log.jsonl'))).toHaveLength(16);
    // Asked pages were fetched pages with content, shown with their URL.
    for (const l of labels) expect(first.out).toContain(l.url);
    expect(judgeLabels(runDir).map((l) => [l.url, l.relevant])).toEqual(labels.map((l) => [l.url, l.relevant]));

    // --resume: the judge comes back with its labels (its journal), and no page is asked about twice.
    const resumed = await run(process.execPath, [...tsx, '--resume', '--max-pages', '24', '--fetcher', 'http', '--storage', storage], dir);
    expect(resumed.code, resumed.err).toBe(0);
    expect(CrawlLog.read(join(runDir, 'crawl-log.jsonl'))).toHaveLength(24);
    expect(judgeLabels(runDir).map((l) => [l.url, l.relevant])).toEqual(labels.map((l) => [l.url, l.relevant]));

    const explain = await run(process.execPath, [...tsx, '--storage', storage, '--explain', labels[0].url], dir);
    expect(explain.out).toMatch(/label\s+relevant \(in the terminal/);
    expect(explain.out).toMatch(/judge\s+a positive example of the judge .*1 positive, 1 negative/);
    const explainNo = await run(process.execPath, [...tsx, '--storage', storage, '--explain', labels[1].url], dir);
    expect(explainNo.out).toMatch(/judge\s+a negative example of the judge/);
    // The report lists them.
    expect(readFileSync(join(runDir, 'report', 'index.html'), 'utf8')).toMatch(/<h2>Your labels<\/h2><p>2 page\(s\) labelled \(1 relevant, 1 not relevant\)/);
  }, 1_800_000);

  it('--ask without a terminal asks nothing and says so in one line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'labels-notty-'));
    dirs.push(dir);
    const r = await run(process.execPath, [...tsx, '--max-pages', '6', '--fetcher', 'http', '--ask', '2', '--ask-after', '2', '--storage', join(dir, 'storage')], dir);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toContain('--ask: stdin is not a terminal, so no questions are asked');
    expect(readRunLabels(runDirOf(join(dir, 'storage')))).toEqual([]);
  }, 900_000);

  it('a labels file and the library callback teach the judge; the crawl goes on while a question waits', async () => {
    const web = await startTestWeb({});
    const dir = mkdtempSync(join(tmpdir(), 'labels-lib-'));
    dirs.push(dir);
    try {
      // Two article pages of the topic and one of another, by the test web's own truth.
      const articles = web.pages().filter((u) => web.truth(u)?.kind === 'article');
      const on = articles.filter((u) => web.isRelevant(u, web.demo.topic)).slice(0, 2);
      const off = articles.find((u) => !web.isRelevant(u, web.demo.topic))!;
      const file = join(dir, 'labels.jsonl');
      writeFileSync(file, [...on.map((url) => ({ url, relevant: true })), { url: off, relevant: false }].map((l) => JSON.stringify(l)).join('\n') + '\n');
      const asked: { q: LabelQuestion; fetchedAtQuestion: number; fetchedAtAnswer: number }[] = [];
      let fetched = 0;
      const result = await crawl(
        {
          topics: [{ keywords: web.demo.keywords, seeds: web.demo.seeds }],
          allowPrivate: web.sites.map((s) => s.origin),
          maxPages: 30,
          maxConcurrency: 2,
          fetcher: 'http',
          storageDir: join(dir, 'storage'),
          labels: { file, ask: 2, askAfter: 6 },
        },
        {
          plugins: [{ name: 'count', onRecord: () => void fetched++ }],
          // Answers from the truth, but only once three more pages have been fetched.
          onLabelRequest: async (q) => {
            const at = fetched;
            const entry = { q, fetchedAtQuestion: at, fetchedAtAnswer: -1 };
            asked.push(entry);
            const start = Date.now();
            while (fetched < at + 3 && Date.now() - start < 120_000) await new Promise((r) => setTimeout(r, 20));
            entry.fetchedAtAnswer = fetched;
            return web.isRelevant(q.url, web.demo.topic);
          },
        },
      );
      const labels = readRunLabels(result.runDir);
      const fromFile = labels.filter((l) => l.source === 'file');
      expect(fromFile.map((l) => [l.url, l.relevant])).toEqual([...on.map((u) => [u, true]), [off, false]]);
      expect(asked.length).toBe(2);
      // While the question waited, the crawl fetched pages.
      for (const a of asked) expect(a.fetchedAtAnswer).toBeGreaterThanOrEqual(a.fetchedAtQuestion + 3);
      for (const a of asked) expect(a.q.title.length + a.q.snippet.length).toBeGreaterThan(0);
      const fromLibrary = labels.filter((l) => l.source === 'library');
      expect(fromLibrary.map((l) => l.url)).toEqual(asked.map((a) => a.q.url));
      // Every label reached the judge (its journal), file ones first.
      expect(judgeLabels(result.runDir).map((l) => l.url)).toEqual(labels.map((l) => l.url));
      expect(existsSync(join(result.runDir, 'labels.jsonl'))).toBe(true);
    } finally {
      await web.close();
    }
  }, 1_200_000);
});
