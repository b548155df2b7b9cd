import { defineConfig } from 'vitest/config';

/**
 * Two projects. `unit`: pure tests (no socket, no child process, no browser, no Redis), the fast
 * loop (`npm run test:unit`); test/helpers/unit-guard.ts makes any of those fail at once, so a
 * test that needs them cannot hide there. `e2e`: the rest (`npm run test:e2e`): the files below
 * and any file named `*.e2e.test.ts` (the name for a new end-to-end test file).
 */
const E2E = [
  'test/adaptive-render.test.ts',
  'test/bench-replay-cache.test.ts',
  'test/cli.test.ts',
  'test/counts-agree.test.ts',
  'test/dataset-tail.test.ts',
  'test/debug-extract.test.ts',
  'test/demo-resume.test.ts',
  'test/demo-truth.test.ts',
  'test/e2e-adaptive-data-cost.test.ts',
  'test/e2e-adaptive-data-resume.test.ts',
  'test/e2e-adaptive-fetch.test.ts',
  'test/e2e-adaptive-learning.test.ts',
  'test/e2e-adaptive-resume.test.ts',
  'test/e2e-adaptive.test.ts',
  'test/e2e-comment-api.test.ts',
  'test/e2e-crawl.test.ts',
  'test/e2e-dataset-crash-window.test.ts',
  'test/e2e-frontier.test.ts',
  'test/e2e-harvest-estimate.test.ts',
  'test/e2e-hop-robots.test.ts',
  'test/e2e-near-duplicate-resume.test.ts',
  'test/e2e-near-duplicate.test.ts',
  'test/e2e-redis-near-duplicate.test.ts',
  'test/e2e-redis.test.ts',
  'test/e2e-threads.test.ts',
  'test/engine-defects.test.ts',
  'test/engine.test.ts',
  'test/extract-cli.test.ts',
  'test/fetch-gate.test.ts',
  'test/frontier-floor.test.ts',
  'test/frontier-robots.test.ts',
  'test/gated-request-stale.test.ts',
  'test/hostile-timers.test.ts',
  'test/hostile.test.ts',
  'test/judge-negatives.test.ts',
  'test/judge-resume.test.ts',
  'test/library.test.ts',
  'test/listening-sockets.test.ts',
  'test/package.test.ts',
  'test/polite-fetch.test.ts',
  'test/quiet-network.test.ts',
  'test/readme.test.ts',
  'test/redis-frontier.test.ts',
  'test/redis-gate-proxy.test.ts',
  'test/redis-near-duplicate.test.ts',
  'test/redis-order.test.ts',
  'test/redis-polite-fetch.test.ts',
  'test/redis-scorer-snapshot.test.ts',
  'test/redis-scorer-state.test.ts',
  'test/report-cli.test.ts',
  'test/resume.test.ts',
  'test/scorer-snapshot-state.test.ts',
  'test/seed-check.test.ts',
  'test/seeding.test.ts',
  'test/stdout-flush.test.ts',
  'test/storage-lock.test.ts',
  'test/testweb.test.ts',
  'test/topic-search.test.ts',
  'test/trace-cli.test.ts',
  'test/trace.test.ts',
  'test/watch.test.ts',
  'test/wikispeedia.test.ts',
  'test/**/*.e2e.test.ts',
  'test/e2e-*.test.ts',
  'test/page-load.test.ts',
  'test/publish-zones.test.ts',
  'test/cli-walkthrough.test.ts',
];

export default defineConfig({
  test: {
    // Browser end-to-end tests share 2 cores with Chromium; give them room. These are guards
    // against hangs, not speed targets: under `npm test` with two CPU burners beside it, CLI tests
    // took up to 73 s, so the guard sits well above twice that.
    testTimeout: 300_000,
    hookTimeout: 300_000,
    pool: 'forks',
    fileParallelism: true,
    maxWorkers: 2,
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: E2E, setupFiles: ['test/helpers/unit-guard.ts'] } },
      { extends: true, test: { name: 'e2e', include: E2E } },
    ],
  },
});
