/**
 * Playwright Test: the HTML report (and other pages users look at) checked in a real browser.
 * Debian's Chromium with the flags this closed-network machine needs (src/fetch/browser.ts).
 */
import { defineConfig } from '@playwright/test';
import { CHROMIUM_ARGS } from './src/fetch/browser.js';

export default defineConfig({
  testDir: 'test/pw',
  testMatch: '*.spec.ts',
  outputDir: 'test-results',
  workers: 1,
  timeout: 180_000,
  // Conditions, not budgets: a steering action on a busy crawl can take seconds to answer.
  expect: { timeout: 60_000 },
  reporter: [['list']],
  use: {
    browserName: 'chromium',
    launchOptions: { executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS },
    viewport: { width: 1200, height: 900 },
  },
});
