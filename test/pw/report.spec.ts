/**
 * The report of a real test-web crawl, opened from disk in Chromium: loads without console
 * errors, shows the crawl's counts, filters the score table, and is screenshotted
 * (test-results/report.png, and docs/report.png for the README).
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect, test } from '@playwright/test';

interface CrawlFacts {
  runId: string;
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

test.beforeAll(() => {
  storage = mkdtempSync(join(tmpdir(), 'fc-pw-report-'));
  const out = execFileSync('npx', ['tsx', 'test/pw/crawl-testweb.ts', storage, '40'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  facts = JSON.parse(out.trim().split('\n').pop()!) as CrawlFacts;
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
  // The harvest chart: one line for the crawler's judgement, one for the ground truth.
  await expect(page.locator('#harvest svg polyline')).toHaveCount(2);
  await expect(page.locator('#relevant table.relevant tbody tr')).toHaveCount(facts.relevant);
  await expect(page.locator('#threads-empty')).toBeVisible();

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
