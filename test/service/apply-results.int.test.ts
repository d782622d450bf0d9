import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AcceptedResult } from '../../src/domain/board-deltas.js';
import type { MatchResultMessage } from '../../src/domain/result-message.js';
import { createResultsStore } from '../../src/postgres/results-store.js';
import { createBoardWriter } from '../../src/redis/board-writer.js';
import { applyResults } from '../../src/service/apply-results.js';
import { expectBoardsMatchOracle, expectStoredOnce } from '../support/assert-boards.js';
import { testConfig } from '../support/env.js';
import { generateResults, prng, shuffle } from '../support/generate.js';
import { createSeason, openServices, waitFor, type Services } from '../support/services.js';

const TTL = 90 * 24 * 3600;
let s: Services;
beforeAll(async () => {
  s = openServices(testConfig());
  await s.pg.sql`select 1`;
});
afterAll(async () => {
  await s?.close();
});

const accepted = (ms: readonly MatchResultMessage[]): AcceptedResult[] =>
  ms.map((m, i) => ({ ...m, endedAt: new Date(m.endedAt), partition: 0, offset: String(i) }));

describe('applyResults (one statement per chunk; unchanged standings are not rewritten)', () => {
  for (const def of [
    { name: 'BEST' },
    { name: 'ASC', order: 'ASC' as const, rankStyle: 'COMPETITION' as const },
    { name: 'SUM', scoring: 'SUM' as const },
    { name: 'LAST', scoring: 'LAST' as const },
    { name: 'LAST ASC', scoring: 'LAST' as const, order: 'ASC' as const, rankStyle: 'COMPETITION' as const },
  ]) {
    it(`${def.name}: a chunk committed to PostgreSQL but never written to Redis (a crash) is repaired by its replay, mixed with new results, in any order`, async () => {
      const season = await createSeason(s, def);
      const input = generateResults(season, { results: 3_000, players: 200, seed: 5, maxPoints: 20 });
      const store = createResultsStore(s.pg.sql);
      const deps = { store, boards: createBoardWriter(s.redis, TTL), seasonOf: () => season, now: Date.now };
      const rand = prng(9);
      // Chunks 0..9; chunks 2, 5 and 7 reach PostgreSQL only, as if the process died before Redis.
      const chunks = Array.from({ length: 10 }, (_, i) => input.slice(i * 300, (i + 1) * 300));
      for (const [i, chunk] of chunks.entries()) {
        if ([2, 5, 7].includes(i)) await store.applyBatch(accepted(chunk), () => season);
        else await applyResults(deps, accepted(chunk));
      }
      // Redelivery from the last committed offset: the lost chunks, with later ones, shuffled together.
      const replay = shuffle(
        [...chunks[2]!, ...chunks[5]!, ...chunks[6]!, ...chunks[7]!, ...chunks[8]!.slice(0, 100)],
        rand,
      );
      const report = await applyResults(deps, accepted(replay));
      expect(report.inserted).toBe(0);
      await expectStoredOnce(s, season.id, 3_000);
      await expectBoardsMatchOracle(
        s,
        season,
        input.map((m) => ({ ...m, endedAt: new Date(m.endedAt) })),
      );
    });
  }

  it('counts the new results of a chunk whose results change no standing', async () => {
    const season = await createSeason(s, { name: 'no change' });
    const deps = {
      store: createResultsStore(s.pg.sql),
      boards: createBoardWriter(s.redis, TTL),
      seasonOf: () => season,
      now: Date.now,
    };
    const endedAt = new Date(season.startsAt.getTime() + 3_600_000).toISOString();
    const one = (matchId: string, points: number): MatchResultMessage => ({
      v: 1,
      matchId,
      seasonId: season.id,
      endedAt,
      playerId: '1',
      points,
    });
    await applyResults(deps, accepted([one(randomUUID(), 50)]));
    const r = await applyResults(deps, accepted([one(randomUUID(), 10)]));
    expect(r).toEqual({ inserted: 1, changed: 0, unencodable: [] });
  });

  it("writes a new version of the player's SEASON row for every new result, raised or not (a removal's race check reads it)", async () => {
    const season = await createSeason(s, { name: 'season row version' });
    const deps = {
      store: createResultsStore(s.pg.sql),
      boards: createBoardWriter(s.redis, TTL),
      seasonOf: () => season,
      now: Date.now,
    };
    const endedAt = new Date(season.startsAt.getTime() + 3_600_000).toISOString();
    const one = (points: number): MatchResultMessage => ({
      v: 1,
      matchId: randomUUID(),
      seasonId: season.id,
      endedAt,
      playerId: '1',
      points,
    });
    const version = async () =>
      (
        await s.pg.sql<{ v: string; points: string }[]>`
      select xmin::text as v, points from standings where season_id = ${season.id} and "window" = 'SEASON' and player_id = 1`
      )[0];
    await applyResults(deps, accepted([one(50)]));
    const before = await version();
    await applyResults(deps, accepted([one(10)]));
    const after = await version();
    expect(after!.points).toBe('50');
    expect(after!.v).not.toBe(before!.v);
  });

  it('reads back the standing a concurrent writer of the same result committed while this chunk waited for it (a stale consumer in a rebalance)', async () => {
    const season = await createSeason(s, { name: 'concurrent writer' });
    const store = createResultsStore(s.pg.sql);
    const startsAt = season.startsAt.getTime();
    const old: MatchResultMessage = {
      v: 1,
      matchId: randomUUID(),
      seasonId: season.id,
      endedAt: new Date(startsAt + 3_600_000).toISOString(),
      playerId: '77',
      points: 10,
    };
    await store.applyBatch(accepted([old]), () => season);
    const late: MatchResultMessage = { ...old, matchId: randomUUID(), points: 90 };
    let commit!: () => void;
    const gate = new Promise<void>((r) => {
      commit = r;
    });
    let stored!: () => void;
    const held = new Promise<void>((r) => {
      stored = r;
    });
    // The other consumer: stores `late` and raises the standings, then holds its commit.
    const other = s.pg.sql.begin(async (tx) => {
      await createResultsStore(tx as unknown as typeof s.pg.sql).applyBatch(accepted([late]), () => season);
      stored();
      await gate;
    });
    await held;
    const mine = store.applyBatch(accepted([late]), () => season);
    await waitFor(
      'this chunk to wait for the other writer',
      async () =>
        (
          await s.pg.sql`
      select 1 from pg_stat_activity where wait_event_type = 'Lock' and query like '%insert into match_results%'`
        ).length > 0,
    );
    commit();
    await other;
    const { inserted, standings } = await mine;
    expect(inserted).toBe(0);
    expect(standings.filter((st) => st.window === 'SEASON').map((st) => st.points)).toEqual([90]);
  });
});
