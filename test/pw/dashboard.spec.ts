/**
 * The live dashboard driven in Chromium during a test-web crawl (a child process, so the crawl
 * and the browser are apart as they are for a user): the charts and counts move, a browser
 * without the token is refused, a host blocked from the page is no longer fetched, a label
 * given in the page becomes one of the judge's examples (as --explain shows), pause holds the
 * crawl and resume lets it go on, the budget is raised, stop ends it cleanly, and --resume
 * re-applies the block and the budget. Screenshots are kept in test-results.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';
import { expect, test } from '@playwright/test';

interface Listening {
  url: string;
  sites: { name: string; origin: string }[];
}
interface Done {
  done: true;
  runId: string;
  runDir: string;
  fetched: number;
  fetchedThisRun: number;
  stopReason: string;
  summary: string[];
}

let storage = '';
let child: ChildProcess | undefined;

/** Start the helper crawl; its JSON lines as they come. */
/** A port free on loopback, for a test web that a resumed crawl finds again at the same origins. */
async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((ok) => s.listen(0, '127.0.0.1', ok));
  const { port } = s.address() as { port: number };
  await new Promise<void>((ok) => s.close(() => ok()));
  return port;
}
function startCrawl(args: string[]): { lines: AsyncIterator<string>; child: ChildProcess } {
  const c = spawn('npx', ['tsx', 'test/pw/crawl-dashboard.ts', storage, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const rl = createInterface({ input: c.stdout! });
  return { lines: rl[Symbol.asyncIterator](), child: c };
}
async function nextJson<T>(lines: AsyncIterator<string>): Promise<T> {
  for (;;) {
    const r = await lines.next();
    if (r.done) throw new Error('the crawl ended without the expected line');
    if (r.value.startsWith('{')) return JSON.parse(r.value) as T;
  }
}
const logOf = (runDir: string) =>
  readFileSync(join(runDir, 'crawl-log.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { url: string; decision: string });

test.beforeAll(() => {
  storage = mkdtempSync(join(tmpdir(), 'fc-pw-dashboard-'));
});
test.afterAll(() => {
  if (child && child.exitCode === null) child.kill();
  rmSync(storage, { recursive: true, force: true });
});

test('the dashboard shows a running crawl and steers it', async ({ page, browser }, info) => {
  test.setTimeout(900_000);
  const port = String(await freePort());
  // A budget the crawl cannot reach while the page steers it (a quiet machine fetches the test web fast); the page sets the real one.
  const crawl = startCrawl(['1000', 'new', port]);
  child = crawl.child;
  const { url, sites } = await nextJson<Listening>(crawl.lines);
  expect(new URL(url).hostname).toBe('127.0.0.1');
  const token = new URL(url).searchParams.get('token')!;
  expect(token.length).toBeGreaterThanOrEqual(24);

  // Refused without the token: another browser context, and a wrong token.
  const stranger = await browser.newContext();
  const other = await stranger.newPage();
  const bare = new URL(url);
  bare.search = '';
  expect((await other.goto(bare.href))!.status()).toBe(403);
  expect((await other.goto(`${bare.origin}/events`))!.status()).toBe(403);
  expect((await other.goto(`${bare.origin}/?token=${token.slice(1)}x`))!.status()).toBe(403);
  await expect(other.locator('body')).toContainText('Forbidden');
  await stranger.close();

  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('dialog', (d) => void d.accept());
  await page.goto(url);
  const fetched = async () => Number(await page.locator('#s-stats [data-stat=fetched]').textContent());
  await expect(page.locator('#s-stats [data-stat=fetched]')).toBeVisible({ timeout: 480_000 });

  // The counts and the charts move with no reload.
  await expect.poll(fetched, { timeout: 480_000 }).toBeGreaterThan(2);
  const first = await fetched();
  const points = () => page.locator('#s-harvest-time polyline[data-series="judged"]').getAttribute('points');
  await expect(page.locator('#s-harvest-time polyline[data-series="judged"]')).toHaveCount(1, { timeout: 480_000 });
  const before = await points();
  await expect.poll(fetched, { timeout: 480_000 }).toBeGreaterThan(first);
  await expect.poll(points, { timeout: 480_000 }).not.toBe(before);
  await expect(page.locator('#s-harvest-time polyline[data-series="ground truth"]')).toHaveCount(1);
  await expect(page.locator('#s-speed polyline')).toHaveCount(1);
  await expect(page.locator('#frontier-table tbody tr').first()).toBeVisible();
  await expect(page.locator('#fetcher-mix [data-fetcher=http]')).toBeVisible();
  const shot1 = info.outputPath('dashboard-running.png');
  await page.screenshot({ path: shot1, fullPage: true });
  await info.attach('dashboard running', { path: shot1, contentType: 'image/png' });

  // --explain one click away, from the frontier.
  await page.locator('#frontier-table button.explain').first().click();
  await expect(page.locator('#explain pre')).toContainText(/queued|fetched/);
  await page.locator('#explain button').click();

  // Block the forum's host from the page.
  const forum = new URL(sites.find((s) => s.name === '九州社区')!.origin).host;
  await page.locator('#block').fill(forum);
  await page.locator('#block-go').click();
  await expect(page.locator('#note')).toContainText(`Blocked ${forum}`);
  await expect(page.locator('#blocks')).toContainText(forum);

  // Label a page the judge did not call relevant as relevant.
  const row = page.locator('#recent-table tr[data-decision=recorded]:has(button.lab.yes)').first();
  await expect(row).toBeVisible({ timeout: 480_000 });
  const labelled = (await row.getAttribute('data-url'))!;
  // The table is redrawn as pages arrive: the row is found again by its URL, not by its place.
  await page.locator(`#recent-table tr[data-url=${JSON.stringify(labelled)}] button.lab.yes`).first().click();
  await expect(page.locator('#note')).toContainText('Labelled relevant');
  await expect(page.locator('#s-labels')).toContainText('dashboard');

  // Pause: once the pages in flight are done, nothing more is fetched until resumed.
  await page.locator('#pause').click();
  await expect(page.locator('body')).toHaveAttribute('data-status', 'paused', { timeout: 480_000 });
  await expect(page.locator('#pause')).toHaveText('Resume');
  const runDir = join(storage, 'runs', (await page.locator('#run-id').textContent())!);
  const atPause = logOf(runDir).length;
  const updates = await page.evaluate(() => (window as unknown as { dashboardUpdates: number }).dashboardUpdates);
  await page.waitForFunction((n) => (window as unknown as { dashboardUpdates: number }).dashboardUpdates >= n + 4, updates, { timeout: 480_000 });
  expect(logOf(runDir).length).toBe(atPause);
  expect(await fetched()).toBe(atPause);
  const shot2 = info.outputPath('dashboard-paused.png');
  await page.screenshot({ path: shot2 });
  await info.attach('dashboard paused', { path: shot2, contentType: 'image/png' });
  await page.locator('#pause').click();
  await expect(page.locator('#pause')).toHaveText('Pause');
  await expect.poll(fetched, { timeout: 480_000 }).toBeGreaterThan(atPause);

  // Raise the budget, then stop cleanly from the page.
  // Above what is handed out by now (up to the two pages in flight beyond the log).
  const raised = (await fetched()) + 25;
  await page.locator('#budget').fill(String(raised));
  await page.locator('#raise').click();
  await expect(page.locator('#note')).toContainText(`Budget: ${raised}`);
  await expect(page.locator('#s-stats [data-stat=budget]')).toHaveText(String(raised));
  await page.locator('#stop').click();
  const done = await nextJson<Done>(crawl.lines);
  expect(done.stopReason).toBe('interrupted (stopped from the dashboard)');
  expect(done.summary.join('\n')).toMatch(/dashboard\s+its final state is the report, .*report\/index\.html/);
  expect(errors).toEqual([]);

  // The report is the dashboard's final state: the same sections, with what the run kept of it.
  const report = readFileSync(join(done.runDir, 'report', 'index.html'), 'utf8');
  expect(report).toContain('aria-label="Pages per second over time"');
  expect(report).toContain('aria-label="Memory over time"');
  expect(report).toMatch(/<section id="frontier" class="wide">/);
  expect(report).toContain(`<code>${forum}</code>`);
  expect(report).toMatch(/<section id="labels">/);
  expect(report).not.toContain('data-action=');

  // Nothing from the blocked host was fetched after the pause (the block came before it; the pause let the pages in flight end).
  const log = logOf(done.runDir);
  expect(log.slice(atPause).filter((e) => new URL(e.url).host === forum)).toEqual([]);
  expect(log.slice(0, atPause).some((e) => new URL(e.url).host === forum)).toBe(true);

  // The label is one of the judge's examples, as --explain says.
  const explained = execFileSync('npx', ['tsx', 'src/cli/main.ts', '--explain', labelled, '--storage', storage], { encoding: 'utf8' });
  expect(explained).toMatch(/label\s+relevant \(in the dashboard/);
  expect(explained).toMatch(/judge\s+a positive example of the judge/);

  // The steering journal, and --resume re-applying the budget and the block.
  const journal = readFileSync(join(done.runDir, 'steering.jsonl'), 'utf8');
  for (const a of ['"block"', '"label"', '"pause"', '"resume"', '"budget"', '"stop"']) expect(journal).toContain(a);
  const again = startCrawl(['10', 'resume', port]);
  child = again.child;
  const resumed = await nextJson<Done>(again.lines);
  expect(resumed.runId).toBe(done.runId);
  const after = logOf(done.runDir).slice(log.length);
  expect(after.length).toBeGreaterThan(0);
  expect(after.filter((e) => new URL(e.url).host === forum)).toEqual([]);
  // The budget set in the page holds (not the 10 the resumed crawl was started with), unless the web ran out first.
  expect(resumed.fetched === raised || !/budget/.test(resumed.stopReason)).toBe(true);
  expect(resumed.fetched).toBeGreaterThan(10);
});
