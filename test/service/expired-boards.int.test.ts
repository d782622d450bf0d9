// DAY and WEEK boards expire from Redis WINDOW_TTL_SECONDS after their window; an active season's
// expired board is then ranked from PostgreSQL standings, with the ranks Redis had.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Board } from '../../src/domain/board.js';
import { rankStandings } from '../../src/domain/ranking.js';
import { dayPeriod } from '../../src/domain/windows.js';
import { createStandingsRanker } from '../../src/postgres/ranked-standings.js';
import { createBoardReader } from '../../src/redis/board-reader.js';
import { boardExpireAt } from '../../src/domain/board.js';
import { boardKey } from '../../src/redis/keys.js';
import { createLeaderboardReads } from '../../src/service/leaderboard-reads.js';
import { testConfig } from '../support/env.js';
import { startRedisServer } from '../support/redis-server.js';
import {
  boardsOf,
  expectSameBoards,
  ingestDirect,
  labelOf,
  readWhole,
  sampleReads,
  tieHeavyResults,
  readSources,
} from '../support/season-boards.js';
import { createSeason, openServices, waitFor, type Services } from '../support/services.js';

let redisServer: Awaited<ReturnType<typeof startRedisServer>>;
let s: Services;
const DAY = 24 * 3600 * 1000;

beforeAll(async () => {
  // A private Redis: this file watches keys expire.
  redisServer = await startRedisServer();
  s = openServices(testConfig({ REDIS_URL: redisServer.url }));
});

afterAll(async () => {
  await s?.close();
  await redisServer?.stop();
});

describe('an expired DAY board', () => {
  it('is gone from Redis and still answered from PostgreSQL with the ranks Redis had; older ones were never written', async () => {
    const season = await createSeason(s, { name: 'expiring boards', daysAgo: 4, rankStyle: 'COMPETITION' });
    // A TTL that makes yesterday's board expire a few seconds from now: the days before it are
    // already past theirs, so ingest never writes them.
    const midnight = Math.floor(Date.now() / DAY) * DAY;
    const ttl = Math.ceil((Date.now() - midnight) / 1000) + 5;
    await ingestDirect(s, season, tieHeavyResults(season, { players: 4_000, seed: 601, maxPoints: 12 }), ttl);
    const boards = await boardsOf(s, season);
    const key = (b: Board) => boardKey(b);
    const yesterday = boards.find((b) => b.window === 'DAY' && b.period === dayPeriod(new Date(midnight - 1)))!;
    const older = boards.filter((b) => b.window === 'DAY' && b.period < yesterday.period);
    expect(older.length).toBeGreaterThan(0);
    for (const b of older) expect(await s.redis.exists(key(b)), labelOf(b)).toBe(0);

    const redis = createBoardReader(s.redis);
    const before = await readWhole(redis, [yesterday]);
    expect(before.get(labelOf(yesterday))!.length).toBeGreaterThan(100);
    const samples = await sampleReads(
      createLeaderboardReads(readSources(redis)),
      yesterday,
      before.get(labelOf(yesterday))!,
    );
    await waitFor(
      "yesterday's board to expire from Redis",
      async () => (await s.redis.exists(key(yesterday))) === 0,
      15_000,
    );

    const history = createStandingsRanker(s.pg.sql);
    const reads = createLeaderboardReads({
      ...readSources(redis),
      history,
      expiresAt: (b) => boardExpireAt(b, ttl),
    });
    expectSameBoards(await readWhole(history, [yesterday]), before);
    expect(await sampleReads(reads, yesterday, before.get(labelOf(yesterday))!)).toEqual(samples);

    // Boards Redis never held: ranked by the rules of domain/ranking.ts over the same standings.
    for (const b of older) {
      const rows = await s.pg.sql<Array<{ player_id: string; points: string; ms: string }>>`
        select player_id::text, points::text, floor(extract(epoch from achieved_at) * 1000)::int8::text as ms
        from standings where season_id = ${season.id} and "window" = 'DAY' and period = ${b.period}`;
      const expected = rankStandings(
        rows.map((r) => ({ playerId: r.player_id, points: Number(r.points), achievedAt: new Date(Number(r.ms)) })),
        season.order,
        season.rankStyle,
        season.split.timeUnitSeconds,
        season.startsAt,
      );
      const got = await reads.top(b, 1_000, 0);
      expect(got.map((e) => [e.rank, e.playerId, e.points])).toEqual(
        expected.slice(0, 1_000).map((e) => [e.rank, e.playerId, e.points]),
      );
      expect(await reads.size(b)).toBe(rows.length);
    }
    // Today's board is still in Redis and read from there.
    const today = boards.find((b) => b.window === 'DAY' && b.period === dayPeriod(new Date()));
    if (today) expect(await s.redis.exists(key(today))).toBe(1);
  });
});
