import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // graphql ships CJS and ESM builds; Pothos and yoga must share one copy ("Cannot use
    // GraphQLScalarType from another module or realm"), so every import gets the CJS build.
    alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }],
  },
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    // Integration tests share one PostgreSQL, Redis and Kafka; each uses its own season,
    // topic and consumer group, so files may run side by side. Two cores: two workers.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
