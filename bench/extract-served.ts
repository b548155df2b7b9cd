/**
 * The rendered path's extraction benchmark (not a test): the article-extraction benchmark's pages
 * served from loopback exactly as saved, each read by `npm run extract -- --json URL…` as a user
 * would (a black box: Chromium, the gate proxy, blocking, settling, served vs rendered), and
 * scored with the file-based benchmark's metric (bench/shingles.ts). Run twice: with the default
 * request blocking and with `--no-block-requests`, for the time a rendered page takes each way.
 * Also counts pages whose analysis came from a browser error page (a `chrome-error://` or other
 * non-web URL, or Chromium's error text) — there should be none — and which document each page
 * was analysed from (the rendering, or the document as served: rendering lost, or scripts that
 * built no article).
 *
 * `npm run bench:extract-served [-- --limit N]`; writes the `extract-served` section of
 * docs/benchmarks.md.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { sharedDataDir } from '../src/testweb/wikispeedia.js';
import { decodeHtml } from '../src/extract/encoding.js';
import { analyzePage } from '../src/extract/page.js';
import { machineLine, writeBenchSection } from './bench-page.js';
import { aggregate, f1Of, shingleMatch, wordTokens } from './shingles.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const dir = join(sharedDataDir(), 'article-extraction-benchmark');
const argv = process.argv.slice(2);
const limitArg = argv.indexOf('--limit');
const LIMIT = limitArg >= 0 ? Number(argv[limitArg + 1]) : Infinity;
/** URLs per extract process: one browser start shared by many pages, and a crash costs one batch only. */
const BATCH = 46;
/** Extract processes at once: a page's settle is mostly waiting, and the machine has two cores. */
const PROCESSES = 2;
const FILE_BASED_F1 = 0.969;

if (!existsSync(join(dir, 'ground-truth.json'))) {
  console.log(`skip: ${dir} not found (set SHARED_DATA to the shared data folder)`);
  process.exit(0);
}
const gt = JSON.parse(readFileSync(join(dir, 'ground-truth.json'), 'utf8')) as Record<string, { articleBody: string; url: string }>;
const ids = Object.keys(gt).slice(0, LIMIT);

// Served as saved: the bytes of each file, `text/html` without a charset (the page's own meta decides).
const server = http.createServer((req, res) => {
  const id = /^\/([0-9a-f]+)\.html$/.exec(req.url ?? '')?.[1];
  if (!id || !gt[id]) return void res.writeHead(404).end();
  res.writeHead(200, { 'content-type': 'text/html' }).end(gunzipSync(readFileSync(join(dir, 'html', `${id}.html.gz`))));
});
await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

interface Out {
  input: string;
  error?: string;
  analysedFrom?: string;
  analysedWhy?: string;
  settled?: string;
  analysis?: { url: string; title: string; text: string };
}

const run = promisify(execFile);

async function extractAll(extra: string[]): Promise<{ out: Out[]; ms: number }> {
  const out: Out[] = [];
  const t0 = performance.now();
  const batches: string[][] = [];
  for (let i = 0; i < ids.length; i += BATCH) batches.push(ids.slice(i, i + BATCH).map((id) => `${origin}/${id}.html`));
  const worker = async () => {
    for (let urls = batches.shift(); urls; urls = batches.shift()) {
      const r = await run(process.execPath, ['--import', 'tsx', 'src/cli/extract.ts', '--json', ...extra, '--', ...urls], { cwd: root, maxBuffer: 512 * 1024 * 1024 }).catch(
        (e: { stdout?: string; message: string }) => ({ stdout: e.stdout ?? '', stderr: e.message }),
      );
      try {
        out.push(...(JSON.parse(r.stdout) as Out[]));
      } catch {
        out.push(...urls.map((input) => ({ input, error: `extract ended without JSON: ${String((r as { stderr?: string }).stderr).slice(0, 200)}` })));
      }
      process.stdout.write(`  ${extra.join(' ') || 'default'}: ${out.length}/${ids.length}\r`);
    }
  };
  await Promise.all(Array.from({ length: PROCESSES }, worker));
  process.stdout.write('\n');
  return { out, ms: performance.now() - t0 };
}

const ERROR_PAGE = /ERR_[A-Z_]{4,}|sent an invalid response|This site can.t be reached|chrome-error:/;

function score(out: Out[]) {
  const byUrl = new Map(out.map((o) => [o.input, o]));
  const counts = ids.map((id) => {
    const o = byUrl.get(`${origin}/${id}.html`);
    return shingleMatch(gt[id]!.articleBody, o?.analysis?.text ?? '', wordTokens);
  });
  const agg = aggregate(counts);
  const errors = out.filter((o) => o.error);
  const fromErrorPage = out.filter((o) => o.analysis && (!/^https?:/.test(o.analysis.url) || ERROR_PAGE.test(`${o.analysis.title}\n${o.analysis.text.slice(0, 300)}`)));
  const served = out.filter((o) => o.analysedFrom === 'served');
  // The document as served because the scripts built no article (the rendering added little), or because the rendering was lost.
  const addedLittle = served.filter((o) => /scripts built no article/.test(o.analysedWhy ?? ''));
  const lost = served.filter((o) => !addedLittle.includes(o));
  const rendered = out.filter((o) => o.analysedFrom === 'rendered');
  const capped = out.filter((o) => o.settled && !o.settled.startsWith('loaded and the network quiet'));
  const worst = ids
    .map((id, i) => ({ id, f1: f1Of(counts[i]!) }))
    .sort((a, b) => a.f1 - b.f1)
    .slice(0, 5);
  return { ...agg, errors, fromErrorPage, served, addedLittle, lost, rendered, capped, worst };
}

/** The same pages read from the files (bench/extract.ts's way), for a comparison on exactly these pages. */
const fileBased = aggregate(
  ids.map((id) => {
    const a = analyzePage({ html: decodeHtml(gunzipSync(readFileSync(join(dir, 'html', `${id}.html.gz`)))), url: gt[id]!.url, fetchedAt: new Date() });
    return shingleMatch(gt[id]!.articleBody, a.text, wordTokens);
  }),
);

const load0 = loadavg();
console.log(`${ids.length} pages from ${origin}`);
const blocked = await extractAll([]);
const open = await extractAll(['--no-block-requests']);
server.close();
const a = score(blocked.out);
const b = score(open.out);
console.log(`files (same pages): F1 ${fileBased.f1.toFixed(3)}`);
const perPage = (ms: number) => (ms / ids.length / 1000).toFixed(2);
const f = (x: number) => x.toFixed(3);
for (const [name, s, t] of [['blocking (default)', a, blocked.ms], ['--no-block-requests', b, open.ms]] as const) {
  console.log(
    `${name}: F1 ${f(s.f1)} (P ${f(s.precision)}, R ${f(s.recall)}), ${perPage(t)} s/page, errors ${s.errors.length}, from an error page ${s.fromErrorPage.length}, from the rendering ${s.rendered.length}, as served (scripts built no article) ${s.addedLittle.length}, as served (rendering lost) ${s.lost.length}, not settled quietly ${s.capped.length}`,
  );
  for (const e of s.errors.slice(0, 5)) console.log(`  error ${e.input}: ${e.error}`);
  for (const e of [...s.lost, ...s.rendered]) console.log(`  ${e.analysedFrom} ${e.input}: ${e.analysedWhy ?? ''}`);
}

const row = (name: string, s: ReturnType<typeof score>, ms: number) =>
  `| ${name} | ${f(s.f1)} | ${f(s.precision)} | ${f(s.recall)} | ${perPage(ms)} | ${s.errors.length} | ${s.fromErrorPage.length} | ${s.rendered.length} | ${s.addedLittle.length} | ${s.lost.length} | ${s.capped.length} |`;
const short = (o: Out) => `\`html/${o.input.replace(origin + '/', '').slice(0, 12)}…\``;
writeBenchSection({
  name: 'extract-served',
  title: 'Extraction through the browser: the article benchmark served from loopback',
  command: 'nice npm run bench:extract-served',
  body: [
    `The ${ids.length} pages of the article-extraction benchmark, served from loopback as saved (\`text/html\` with no charset, as the files carry none) and read by \`npm run extract -- --json URL…\` (Chromium, the gate proxy, the settle cap, the choice between the rendering and the document as served), ${BATCH} URLs per extract process, ${PROCESSES} processes at once. F1 is the file-based benchmark's metric (4-token shingles of \`\\w+\`, per-page P and R averaged); the file-based figure on all 181 pages is ${FILE_BASED_F1}, and on the pages measured here it is in the last row. Time per page is the wall time of the whole run over the pages (browser starts included, ${Math.ceil(ids.length / BATCH)} per run). The document as served is analysed when the rendering adds at most half again to its main text (its scripts built no article) or when the rendering was lost (the browser's error page, the article replaced); the rendering when its scripts built the text. The pages' own sub-resources point at hosts this machine cannot resolve: they fail at the gate at once.`,
    '',
    '| request blocking | F1 | P | R | s / page | errors | from an error page | from the rendering | as served: scripts built no article | as served: rendering lost | not settled quietly |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
    row('on (default: images, media, fonts, styles, beacons, ad/analytics hosts)', a, blocked.ms),
    row('off (`--no-block-requests`)', b, open.ms),
    `| the same pages read from the files (\`bench:extract\`'s way) | ${f(fileBased.f1)} | ${f(fileBased.precision)} | ${f(fileBased.recall)} | | | | | | | |`,
    '',
    `Pages whose rendering was lost (default run): ${a.lost.length ? a.lost.map((o) => `${short(o)} (${o.analysedWhy})`).join('; ') : 'none'}.`,
    `Pages analysed from the rendering (default run): ${a.rendered.length ? a.rendered.map(short).join(', ') : 'none'}.`,
    `Lowest F1 (default run): ${a.worst.map((w) => `\`html/${w.id.slice(0, 12)}…\` ${f(w.f1)}`).join(', ')}.`,
    '',
    machineLine(load0),
  ].join('\n'),
});
console.log('wrote the extract-served section of docs/benchmarks.md');
