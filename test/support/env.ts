// Settings of the test run. Tests build Config objects directly (STYLE 10).
import { randomUUID } from 'node:crypto';
import { parseConfig, type Config } from '../../src/config.js';

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/ladder_test';
// Database 1: test seasons get ids from ladder_test's sequence, which would collide with the
// dev database's seasons in Redis database 0.
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379/1';
/** A scratch database of migration tests (test/postgres/history-migration.int.test.ts), made anew by
 * the global setup before each run and left in place after it. */
export const TEST_MIGRATION_DATABASE_URL = Object.assign(new URL(TEST_DATABASE_URL), {
  pathname: `${new URL(TEST_DATABASE_URL).pathname}_migration`,
}).toString();
export const TEST_KAFKA_BROKERS = process.env.TEST_KAFKA_BROKERS ?? '127.0.0.1:9092';

/** A name no other test uses: topics, consumer groups. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${randomUUID().slice(0, 8)}`;
}

/** The environment of one test's service: its own topic and consumer group on the shared services. */
export function testEnv(overrides: Record<string, string> = {}): Record<string, string> {
  return {
    DATABASE_URL: TEST_DATABASE_URL,
    REDIS_URL: TEST_REDIS_URL,
    KAFKA_BROKERS: TEST_KAFKA_BROKERS,
    KAFKA_TOPIC: uniqueName('test-results'),
    KAFKA_GROUP_ID: uniqueName('test-ingest'),
    WINDOW_TTL_SECONDS: String(90 * 24 * 3600),
    // Off: ladder_test holds every earlier run's seasons, and a scheduler would close them all.
    // Tests of the scheduler build one over their own seasons (test/service/season-scheduler.int.test.ts).
    SEASON_SCHEDULER_INTERVAL_MS: '0',
    // Off for the same reason: an empty marker would rebuild every earlier run's season in the
    // shared Redis under other tests' feet. test/faults/redis.int.test.ts turns it on.
    BOARD_RESTORE_INTERVAL_MS: '0',
    // A close waits these out (twice the TTL): short, so a closeSeason in a test takes well under a second.
    SEASON_CACHE_TTL_MS: '250',
    SEASON_CLOSE_GRACE_MS: '250',
    // A test's API stops at once (test/app/rolling-restart.int.test.ts keeps the default).
    HTTP_DRAIN_GRACE_MS: '0',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'error',
    ...overrides,
  };
}

/** A config for one test (see testEnv). */
export function testConfig(overrides: Record<string, string> = {}): Config {
  return parseConfig(testEnv(overrides));
}
