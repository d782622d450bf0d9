// The scheduled reconcile as app.ts wires it: config, advisory lock, repair and /metrics.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureDatabase } from '../../scripts/ensure-database.js';
import { buildApp, type App } from '../../src/app/app.js';
import type { AcceptedResult } from '../../src/domain/board-deltas.js';
import { migrateDatabase } from '../../src/postgres/client.js';
import { ADVISORY_LOCKS, withTryAdvisoryLock } from '../../src/postgres/advisory-lock.js';
import { createResultsStore } from '../../src/postgres/results-store.js';
import { createBoardWriter } from '../../src/redis/board-writer.js';
import { boardKey } from '../../src/redis/keys.js';
import { seasonBoard } from '../../src/domain/board.js';
import { applyResults } from '../../src/service/apply-results.js';
import { testConfig, TEST_DATABASE_URL } from '../support/env.js';
import { generateResults } from '../support/generate.js';
import { startRedisServer } from '../support/redis-server.js';
import { createSeason, openServices, waitFor, type Services } from '../support/services.js';

// A database of its own: the job reconciles EVERY active season, and the shared test database
// holds those of every other test file.
const url = new URL(TEST_DATABASE_URL);
url.pathname = '/ladder_test_reconcile_job';
const DATABASE_URL = url.toString();

let redisServer: Awaited<ReturnType<typeof startRedisServer>>;
let s: Services;

beforeAll(async () => {
  await ensureDatabase(DATABASE_URL);
  await migrateDatabase(DATABASE_URL);
  redisServer = await startRedisServer();
  s = openServices(testConfig({ DATABASE_URL, REDIS_URL: redisServer.url }));
  await s.pg.sql`truncate seasons cascade`;
});

afterAll(async () => {
  await s?.close();
  await redisServer?.stop();
});

describe('RECONCILE_INTERVAL_SECONDS', () => {
  it('reconciles active seasons on schedule, only while no other instance holds the lock, repairs with RECONCILE_AUTO_REPAIR and shows the result in /metrics', async () => {
    const season = await createSeason(s, { name: 'scheduled reconcile' });
    const results = generateResults(season, { results: 500, players: 200, seed: 91 });
    const accepted: AcceptedResult[] = results.map((m, i) => ({
      ...m,
      endedAt: new Date(m.endedAt),
      partition: 0,
      offset: String(i),
    }));
    await applyResults(
      {
        store: createResultsStore(s.pg.sql),
        boards: createBoardWriter(s.redis, s.config.windowTtlSeconds),
        seasonOf: () => season,
        now: Date.now,
      },
      accepted,
    );
    const key = boardKey(seasonBoard(season));
    const [victim] = await s.redis.zrange(key, 0, 0);
    await s.redis.zrem(key, victim!);

    const config = testConfig({
      DATABASE_URL,
      REDIS_URL: redisServer.url,
      RECONCILE_INTERVAL_SECONDS: '1',
      RECONCILE_AUTO_REPAIR: 'true',
    });
    let app: App | undefined;
    const lastRun = async () => (await app!.metrics.reconcileLastRun.get()).values[0]?.value ?? 0;
    try {
      // Another instance holds the lock: this one must skip every turn.
      await withTryAdvisoryLock(s.pg.sql, ADVISORY_LOCKS.reconcile, async () => {
        app = buildApp(config, { roles: [], logger: s.logger });
        await app.start();
        // Nothing to wait for (a skipped turn leaves no trace): a window of two scheduled turns.
        await new Promise((r) => setTimeout(r, 2_500));
        expect(await lastRun()).toBe(0);
        expect(await s.redis.zscore(key, victim!)).toBeNull();
      });
      await waitFor('a scheduled run', async () => (await lastRun()) > 0, 5_000);
      const drift = (await app!.metrics.reconcileDrift.get()).values
        .filter((v) => v.labels.season === String(season.id))
        .map((v) => [v.labels.kind, v.value]);
      expect(Object.fromEntries(drift)).toEqual({ missing: 1, extra: 0, different: 0 });
      expect(await s.redis.zscore(key, victim!)).not.toBeNull();
      const text = await app!.metrics.registry.metrics();
      expect(text).toContain(`ladder_reconcile_drift{season="${season.id}",kind="missing"} 1`);
      expect(text).toMatch(/ladder_reconcile_last_run_timestamp_seconds \d+/);
    } finally {
      await app?.stop();
    }
  });
});
