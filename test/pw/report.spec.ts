/**
 * The report of a real test-web crawl, opened from disk in Chromium: loads without console
 * errors, shows the crawl's counts, sorts its tables, shows text snippets and download links,
 * draws an earlier run of the same topic on the harvest chart, filters the score table, stays
 * compact, and is screenshotted (test-results/report.png, and docs/report.png for the README).
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect, test } from '@playwright/test';

interface CrawlFacts {
  runId: string;
  strategy: string;
  fetched: number;
  relevant: number;
  failed: number;
  logLines: number;
  hosts: string[];
  firstHostCount: number;
  summary: string[];
}

let storage = '';
let facts: CrawlFacts;
let earlier: CrawlFacts;

const crawl = (strategy: string): CrawlFacts => {
  const out = execFileSync('npx', ['tsx', 'test/pw/crawl-testweb.ts', storage, '40', strategy], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  return JSON.parse(out.trim().split('\n').pop()!) as CrawlFacts;
};

test.beforeAll(() => {
  storage = mkdtempSync(join(tmpdir(), 'fc-pw-report-'));
  // Two runs of the same topic: the second report compares itself with the first.
  earlier = crawl('bfs');
  facts = crawl('combined');
});
test.afterAll(() => rmSync(storage, { recursive: true, force: true }));

test('the report of a test-web crawl opens from disk and shows the right numbers', async ({ page }, info) => {
  expect(facts.fetched).toBe(40);
  expect(facts.logLines).toBe(facts.fetched);
  expect(facts.summary.join('\n')).toMatch(/report\s+.*index\.html/);
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  const requests: string[] = [];
  page.on('request', (r) => requests.push(r.url()));

  await page.goto(pathToFileURL(join(storage, 'report', 'index.html')).href);
  await expect(page.locator('#run-id')).toHaveText(facts.runId);
  await expect(page.locator('[data-stat=fetched]')).toHaveText(String(facts.fetched));
  await expect(page.locator('[data-stat=relevant]')).toHaveText(String(facts.relevant));
  await expect(page.locator('[data-stat=failed]')).toHaveText(String(facts.failed));
  await expect(page.locator('[data-stat=sites]')).toHaveText(String(facts.hosts.length));
  await expect(page.locator('#score-table tbody tr')).toHaveCount(facts.fetched);
  // The harvest chart: the crawler's judgement, the ground truth, and the earlier bfs run (dashed).
  await expect(page.locator('#harvest svg polyline')).toHaveCount(3);
  await expect(page.locator(`#harvest polyline[data-series="${earlier.runId} (bfs)"]`)).toHaveAttribute('stroke-dasharray', /\d/);
  await expect(page.locator('#relevant table.relevant tbody tr')).toHaveCount(facts.relevant);
  await expect(page.locator('#threads-empty')).toBeVisible();

  // Relevant pages show a snippet of their text.
  await expect(page.locator('#relevant .snippet').first()).toBeVisible();
  expect((await page.locator('#relevant .snippet').first().textContent())!.length).toBeGreaterThan(20);

  // Sorting: a click on Relevance sorts descending, a second click ascending.
  const relevance = async () => (await page.locator('#relevant-1 tbody tr td:nth-child(3)').allTextContents()).map(Number);
  await page.locator('#relevant-1 th', { hasText: 'Relevance' }).click();
  const desc = await relevance();
  expect(desc).toEqual([...desc].sort((a, b) => b - a));
  await page.locator('#relevant-1 th', { hasText: 'Relevance' }).click();
  const asc = await relevance();
  expect(asc).toEqual([...asc].sort((a, b) => a - b));
  await page.locator('#sites-table th', { hasText: 'Site' }).click();
  const hosts = await page.locator('#sites-table tbody tr td:first-child').allTextContents();
  expect(hosts).toEqual([...hosts].sort());

  // Download links point at export files written beside the report.
  for (const name of ['relevant-pages.csv', 'relevant-pages.jsonl']) {
    await expect(page.locator(`#downloads a[href="${name}"]`)).toHaveAttribute('download', '');
    expect(existsSync(join(storage, 'report', name))).toBe(true);
  }
  expect(readFileSync(join(storage, 'report', 'relevant-pages.jsonl'), 'utf8').trim().split('\n')).toHaveLength(facts.relevant);

  // The score breakdown of every URL is folded away until asked for: the page stays short.
  const height = await page.evaluate(() => document.documentElement.scrollHeight);
  expect(height).toBeLessThan(3000);
  await page.locator('#breakdown summary').click();

  // Search: only the first host's rows stay visible.
  await page.locator('#score-search').fill(facts.hosts[0]);
  await expect(page.locator('#score-table tbody tr:visible')).toHaveCount(facts.firstHostCount);
  await expect(page.locator('#score-shown')).toHaveText(String(facts.firstHostCount));
  await page.locator('#score-search').fill('');

  expect(errors).toEqual([]);
  // Self-contained: the page loaded nothing but itself.
  expect(requests.filter((u) => !u.startsWith('file:'))).toEqual([]);

  await page.evaluate(() => window.scrollTo(0, 0));
  const shot = info.outputPath('report.png');
  await page.screenshot({ path: shot });
  await info.attach('report', { path: shot, contentType: 'image/png' });
  if (process.env.UPDATE_DOCS) copyFileSync(shot, 'docs/report.png');
});
