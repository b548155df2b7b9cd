import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Browser end-to-end tests share 2 cores with Chromium; give them room. These are guards
    // against hangs, not speed targets: under `npm test` with two CPU burners beside it, CLI tests
    // took up to 73 s, so the guard sits well above twice that.
    testTimeout: 300_000,
    hookTimeout: 300_000,
    pool: 'forks',
    fileParallelism: true,
    maxWorkers: 2,
  },
});
