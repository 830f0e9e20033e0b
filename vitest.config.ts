import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'adapters/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Fails a test on node-postgres' "client is already executing a query" warning.
    setupFiles: ['test/helpers/pg-overlap-guard.ts'],
    maxWorkers: 2,
    // Every `skillgate` the tests spawn runs the sources, never an older dist/ (bin/skillgate.js).
    env: { SKILLGATE_FROM_SOURCE: '1' },
    // The JSON report is what .ci/run reads for its closing `N passed, N failed` line.
    reporters: ['default', 'json'],
    outputFile: { json: '.vitest-report.json' },
  },
});
