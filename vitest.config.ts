import { defineConfig } from 'vitest/config';
import { isTypeFetchFailure } from './src/postgres/type-fetch-guard.js';

/** Timing-sensitive integration tests, run alone after the rest (project `solo`). */
const SOLO = ['test/app/rolling-restart.int.test.ts', 'test/app/start-up-connections.int.test.ts'];

export default defineConfig({
  resolve: {
    // graphql ships CJS and ESM builds; Pothos and yoga must share one copy ("Cannot use
    // GraphQLScalarType from another module or realm"), so every import gets the CJS build.
    alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }],
  },
  test: {
    // Two cores: two workers. Integration tests share one PostgreSQL, Redis and Kafka; each uses
    // its own season, topic and consumer group, so files may run side by side.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // The rejection of postgres.js's failed type fetch (src/postgres/type-fetch-guard.ts), which
    // every entry point ignores: a service run inside a test file (test/support/api.ts) may meet it.
    onUnhandledError: (err) => !isTypeFetchFailure(err),
    // `npm run coverage` (or `--coverage` on any run): V8's own counters, no instrumentation; the
    // summary prints, the per-file report lands in coverage/ (git-ignored).
    coverage: {
      provider: 'v8',
      include: ['src/**/*.ts'],
      reporter: ['text-summary', 'html'],
      reportsDirectory: 'coverage',
    },
    projects: [
      {
        // Pure tests: no service, no global setup (`npm run test:unit`).
        extends: true,
        test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: ['test/**/*.int.test.ts'] },
      },
      {
        // `*.int.test.ts`: against the real PostgreSQL, Redis and Kafka, which the setup checks first.
        extends: true,
        test: {
          name: 'int',
          include: ['test/**/*.int.test.ts'],
          exclude: SOLO,
          globalSetup: ['test/support/global-setup.ts'],
        },
      },
      {
        // Tests of what clients see while processes start and restart: each answer has a deadline,
        // so they run after everything else, one file at a time, on a machine no other test loads.
        extends: true,
        test: {
          name: 'solo',
          include: SOLO,
          globalSetup: ['test/support/global-setup.ts'],
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
      // `npm run chaos` only (LADDER_CHAOS=1): the fault soak of test/faults/chaos.soak.ts, minutes long.
      ...(process.env.LADDER_CHAOS
        ? [
            {
              extends: true as const,
              test: {
                name: 'chaos',
                include: ['test/faults/*.soak.ts'],
                globalSetup: ['test/support/global-setup.ts'],
                testTimeout: 3_600_000,
              },
            },
          ]
        : []),
    ],
  },
});
