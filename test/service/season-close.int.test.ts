// Closing a season moves every board to PostgreSQL with exactly the ranks Redis gave: checked for
// every player of a 100,000-player COMPETITION season and two smaller ORDINAL ones (ASC, SUM).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeasonDefinition } from '../../src/domain/season.js';
import { createFinalStandingsReader } from '../../src/postgres/final-standings-reader.js';
import { createStandingsRanker } from '../../src/postgres/ranked-standings.js';
import { createSeasonLifecycleStore } from '../../src/postgres/season-lifecycle-store.js';
import { createBoardReader } from '../../src/redis/board-reader.js';
import { createSeasonKeys } from '../../src/redis/season-keys.js';
import { closeSeason, type IngestProgress } from '../../src/service/close-season.js';
import { createLeaderboardReads } from '../../src/service/leaderboard-reads.js';
import { testConfig } from '../support/env.js';
import { startRedisServer } from '../support/redis-server.js';
import {
  boardsOf,
  expectSameBoards,
  ingestDirect,
  labelOf,
  line,
  readWhole,
  sampleReads,
  tieHeavyResults,
  usedMemory,
  readSources,
} from '../support/season-boards.js';
import { createSeason, openServices, type Services } from '../support/services.js';

let redisServer: Awaited<ReturnType<typeof startRedisServer>>;
let s: Services;
const TTL = 90 * 24 * 3600;

beforeAll(async () => {
  // A private Redis: this file observes the season's keys and Redis's memory.
  redisServer = await startRedisServer();
  s = openServices(testConfig({ REDIS_URL: redisServer.url }));
});

afterAll(async () => {
  await s?.close();
  await redisServer?.stop();
});

// Nothing waits in Kafka here: the close during live ingest is season-close-live.int.test.ts.
const drained: IngestProgress = { endOffsets: async () => [], committedOffsets: async () => new Map() };

function close(seasonId: number) {
  return closeSeason(
    {
      store: createSeasonLifecycleStore(s.pg),
      ingest: drained,
      keys: createSeasonKeys(s.redis),
      invalidate: () => {},
      cacheTtlMs: 0,
      graceMs: 0,
      drainTimeoutMs: 1_000,
    },
    seasonId,
    { actor: 'test', reason: 'season close test' },
  );
}

async function closeAndCompare(
  def: Partial<SeasonDefinition>,
  players: number,
  seed: number,
  maxPoints: number,
  repeat?: number,
) {
  const season = await createSeason(s, { name: `close ${players}`, maxPointsPerMatch: 1_000, ...def });
  const results = tieHeavyResults(season, { players, seed, maxPoints, repeat });
  const t0 = performance.now();
  await ingestDirect(s, season, results, TTL);
  const ingestMs = performance.now() - t0;
  const redis = createBoardReader(s.redis);
  const boards = await boardsOf(s, season);
  const before = await readWhole(redis, boards);
  const live = createLeaderboardReads(readSources(redis));
  const samplesBefore = await Promise.all(boards.slice(0, 3).map((b) => sampleReads(live, b, before.get(labelOf(b))!)));
  const seasonBoard = boards.find((b) => b.window === 'SEASON')!;
  expect(before.get(labelOf(seasonBoard))!.length).toBe(players);
  // What an expired board costs (ranked on the fly from standings): one page from the middle.
  const t = performance.now();
  const middle = await createStandingsRanker(s.pg.sql).top(seasonBoard, Math.floor(players / 2), 100);
  const onTheFlyMs = performance.now() - t;
  expect(middle.map(line)).toEqual(
    before
      .get(labelOf(seasonBoard))!
      .slice(Math.floor(players / 2), Math.floor(players / 2) + 100)
      .map(line),
  );

  const memBefore = await usedMemory(s);
  const t1 = performance.now();
  const report = await close(season.id);
  const closeMs = performance.now() - t1;
  const memAfter = await usedMemory(s);

  expect(await s.redis.keys(`lb:{s${season.id}}*`)).toEqual([]);
  const final = (await s.seasons.get(season.id))!;
  expect(final).toMatchObject({ status: 'CLOSED', finalizedAt: expect.any(Date) });
  const total = [...before.values()].reduce((n, rows) => n + rows.length, 0);
  // keysRemoved: every board, plus the versions hash.
  expect(report).toMatchObject({ finalized: true, rows: total, boards: boards.length, keysRemoved: boards.length + 1 });

  // Every player on every board, page by page, and each player of the SEASON board one by one.
  const archive = createFinalStandingsReader(s.pg.sql);
  const finalBoards = boards.map((b) => ({ ...b, season: final }));
  expectSameBoards(await readWhole(archive, finalBoards), before);
  const seasonRows = before.get(labelOf(seasonBoard))!;
  for (let i = 0; i < seasonRows.length; i += 200) {
    const want = seasonRows.slice(i, i + 200);
    const got = await archive.entries(
      { ...seasonBoard, season: final },
      want.map((e) => e.playerId),
    );
    expect(got.map(line)).toEqual(want.map(line));
  }
  const reads = createLeaderboardReads({ ...readSources(redis), archive });
  const samplesAfter = await Promise.all(
    finalBoards.slice(0, 3).map((b) => sampleReads(reads, b, before.get(labelOf(b))!)),
  );
  expect(samplesAfter).toEqual(samplesBefore);
  return {
    season,
    results: results.length,
    total,
    boards: boards.length,
    ingestMs,
    closeMs,
    onTheFlyMs,
    memBefore,
    memAfter,
    report,
  };
}

const mib = (n: number) => `${(n / 2 ** 20).toFixed(1)} MiB`;

describe('closing a season', () => {
  it('keeps the rank and points every one of 100,000 players had in Redis (COMPETITION, ties everywhere), from PostgreSQL, and frees Redis', async () => {
    const r = await closeAndCompare({ rankStyle: 'COMPETITION' }, 100_000, 101, 60, 0.1);
    console.log(
      `[season close] 100k players, ${r.results} results, ${r.total} board entries on ${r.boards} boards: ` +
        `ingest ${(r.ingestMs / 1000).toFixed(1)} s; close ${(r.closeMs / 1000).toFixed(2)} s ` +
        `(finalize ${r.report.steps.finalize} ms, remove keys ${r.report.steps.removeKeys} ms); ` +
        `Redis used_memory ${mib(r.memBefore)} → ${mib(r.memAfter)}; a page of the SEASON board ranked on the fly ${r.onTheFlyMs.toFixed(0)} ms`,
    );
    expect(r.memAfter).toBeLessThan(r.memBefore - 20 * 2 ** 20);
  }, 240_000);

  it.each([
    ['an ORDINAL time trial (ASC)', { order: 'ASC', rankStyle: 'ORDINAL' }, 25],
    ['an ORDINAL running total (SUM, minute clock)', { scoring: 'SUM', rankStyle: 'ORDINAL' }, 20],
  ] as const)(
    'keeps every rank of %s',
    async (_name, def, maxPoints) => {
      await closeAndCompare(def, 15_000, 202, maxPoints);
    },
    120_000,
  );

  it('is a no-op on a season already final, and a second close leaves the final standings alone', async () => {
    const season = await createSeason(s, { name: 'close twice' });
    await ingestDirect(s, season, tieHeavyResults(season, { players: 500, seed: 303, maxPoints: 10 }), TTL);
    const first = await close(season.id);
    const rows = await s.pg
      .sql`select * from season_final_standings where season_id = ${season.id} order by "window", period, position`;
    const second = await close(season.id);
    expect(first).toMatchObject({ finalized: true, rows: rows.length });
    expect(second).toMatchObject({ finalized: false, rows: 0, keysRemoved: 0 });
    expect(
      await s.pg
        .sql`select * from season_final_standings where season_id = ${season.id} order by "window", period, position`,
    ).toEqual(rows);
    const audit = await s.pg.sql<Array<{ action: string; actor: string; reason: string }>>`
      select action, actor, reason from admin_audit where season_id = ${season.id} order by id`;
    expect(audit).toEqual([
      { action: 'close_season', actor: 'test', reason: 'season close test' },
      { action: 'finalize_season', actor: 'test', reason: 'season close test' },
    ]);
  });

  it('ranks an active board on the fly from PostgreSQL exactly as Redis does (the reader of expired DAY/WEEK boards)', async () => {
    const season = await createSeason(s, { name: 'ranked on the fly', rankStyle: 'COMPETITION' });
    await ingestDirect(s, season, tieHeavyResults(season, { players: 3_000, seed: 404, maxPoints: 15 }), TTL);
    const boards = await boardsOf(s, season);
    const redis = createBoardReader(s.redis);
    const ranker = createStandingsRanker(s.pg.sql);
    expectSameBoards(await readWhole(ranker, boards, 700), await readWhole(redis, boards, 700));
    const live = createLeaderboardReads(readSources(redis));
    const onTheFly = createLeaderboardReads(readSources(ranker));
    for (const b of boards.slice(0, 3)) {
      const whole = (await readWhole(redis, [b])).get(labelOf(b))!;
      expect(await sampleReads(onTheFly, b, whole)).toEqual(await sampleReads(live, b, whole));
    }
  });
});
