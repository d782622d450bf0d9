import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AcceptedResult } from '../../src/domain/board-deltas.js';
import type { Season } from '../../src/domain/season.js';
import { createResultsStore } from '../../src/postgres/results-store.js';
import { createStandingsReader } from '../../src/postgres/standings-reader.js';
import { createBoardRebuilder } from '../../src/redis/board-rebuilder.js';
import { boardExpireAt, seasonBoard } from '../../src/domain/board.js';
import { createBoardWriter } from '../../src/redis/board-writer.js';
import { boardKey } from '../../src/redis/keys.js';
import { applyResults } from '../../src/service/apply-results.js';
import { rebuildSeason } from '../../src/service/rebuild-season.js';
import { expectBoardsMatchOracle } from '../support/assert-boards.js';
import { testConfig } from '../support/env.js';
import { generateResults } from '../support/generate.js';
import { startRedisServer } from '../support/redis-server.js';
import { boardKeys, createSeason, openServices, type Services } from '../support/services.js';

let redisServer: Awaited<ReturnType<typeof startRedisServer>>;
let s: Services;
const TTL = 90 * 24 * 3600;

beforeAll(async () => {
  redisServer = await startRedisServer();
  s = openServices(testConfig({ REDIS_URL: redisServer.url }));
});

afterAll(async () => {
  await s?.close();
  await redisServer?.stop();
});

function ingest(season: Season, results: ReturnType<typeof generateResults>, offset = 0) {
  const accepted: AcceptedResult[] = results.map((m, i) => ({
    ...m,
    endedAt: new Date(m.endedAt),
    partition: 0,
    offset: String(offset + i),
  }));
  return applyResults(
    {
      store: createResultsStore(s.pg.sql),
      boards: createBoardWriter(s.redis, TTL),
      seasonOf: () => season,
      now: Date.now,
    },
    accepted,
  );
}

function rebuild(season: Season, onProgress?: (members: number) => void) {
  return rebuildSeason(
    {
      source: createStandingsReader(s.pg.sql),
      target: createBoardRebuilder(s.redis, TTL),
      expireAt: (b) => boardExpireAt(b, TTL),
      now: Date.now,
      onProgress,
    },
    season,
  );
}

/** Every key of the season with its DUMP payload (the exact serialised value) and expiry. */
async function snapshot(seasonId: number) {
  const keys = await boardKeys(s.redis, seasonId);
  return Promise.all(
    keys.map(async (key) => ({
      key,
      dump: (await s.redis.dumpBuffer(key))?.toString('hex') ?? `missing ${key}`,
      expireAt: Math.round((await s.redis.pexpiretime(key)) / 1000),
    })),
  );
}

describe('rebuilding a season from PostgreSQL', () => {
  it.each(['SUM', 'LAST'] as const)(
    'after FLUSHALL, restores every board of a %s season byte-identical to what ingest had built',
    async (scoring) => {
      const season = await createSeason(s, { name: 'rebuild', scoring });
      for (let i = 0; i < 4; i++) {
        await ingest(season, generateResults(season, { results: 2_500, players: 800, seed: 40 + i }), i * 10_000);
      }
      const before = await snapshot(season.id);
      expect(before.length).toBeGreaterThan(10);

      await s.redis.flushall();
      const report = await rebuild(season);

      expect(await snapshot(season.id)).toEqual(before);
      expect(report).toMatchObject({ seasonId: season.id, boards: before.length, expiredBoardsSkipped: 0 });
    },
  );

  // LAST: the fill and ingest's writes to the copy race with scores that may fall (lastFill-2.lua).
  it.each(['BEST', 'LAST'] as const)(
    'keeps the live %s board non-empty and loses no result ingested while it runs',
    async (scoring) => {
      const season = await createSeason(s, { name: 'rebuild under load', scoring });
      const first = generateResults(season, { results: 20_000, players: 5_000, seed: 60 });
      await ingest(season, first);
      const later = generateResults(season, { results: 6_000, players: 6_000, seed: 61, maxPoints: 200 });

      let reading = true;
      let emptyReads = 0;
      let reads = 0;
      const reader = (async () => {
        while (reading) {
          if ((await s.redis.zcard(boardKey(seasonBoard(season)))) === 0) emptyReads++;
          reads++;
        }
      })();
      let chunk = 0;
      // Ingest in small chunks while the rebuild streams, so some land mid-rebuild.
      const writer = (async () => {
        for (; chunk * 500 < later.length; chunk++) {
          await ingest(season, later.slice(chunk * 500, (chunk + 1) * 500), 100_000 + chunk * 500);
        }
      })();
      const report = await rebuild(season);
      const chunksDuringRebuild = chunk;
      await writer;
      reading = false;
      await reader;

      // The rebuild overlapped ingest: some chunks landed while it ran, some after.
      expect(chunksDuringRebuild).toBeGreaterThan(0);
      expect(chunksDuringRebuild).toBeLessThan(later.length / 500);
      expect(report.members).toBeGreaterThanOrEqual(20_000);
      expect(reads).toBeGreaterThan(10);
      expect(emptyReads).toBe(0);
      await expectBoardsMatchOracle(
        s,
        season,
        [...first, ...later].map((m) => ({ ...m, endedAt: new Date(m.endedAt) })),
      );
    },
  );

  it('refuses a second rebuild of the same season while one runs', async () => {
    const season = await createSeason(s, { name: 'rebuild twice' });
    await ingest(season, generateResults(season, { results: 5_000, players: 2_000, seed: 70 }));
    const results = await Promise.allSettled([rebuild(season), rebuild(season)]);
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    const rejected = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(rejected.reason).toMatchObject({ code: 'REBUILD_IN_PROGRESS' });
  });
});
