import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AcceptedResult } from '../../src/domain/board-deltas.js';
import type { ScoringMode, Season } from '../../src/domain/season.js';
import type { MatchResultMessage } from '../../src/domain/result-message.js';
import { createPlayerAdmin, type PlayerAdmin } from '../../src/app/player-admin.js';
import { createPlayerResultsStore } from '../../src/postgres/player-results-store.js';
import { createResultsStore } from '../../src/postgres/results-store.js';
import { createBoardResetter } from '../../src/redis/board-resetter.js';
import { createBoardWriter } from '../../src/redis/board-writer.js';
import { boardKey } from '../../src/redis/keys.js';
import { seasonBoard } from '../../src/domain/board.js';
import { applyResults } from '../../src/service/apply-results.js';
import { removePlayerResults, settlePlayerRemoval, type RemovalDeps } from '../../src/service/remove-player-results.js';
import { expectBoardsMatchOracle } from '../support/assert-boards.js';
import { testConfig } from '../support/env.js';
import { expectedStandings, storedStandings } from '../support/expected-standings.js';
import { generateResults } from '../support/generate.js';
import { createSeason, openServices, waitFor, type Services } from '../support/services.js';

const TTL = 90 * 24 * 3600;
const CHEATER = '777000777';
let s: Services;
let admin: PlayerAdmin;
let deps: RemovalDeps;
let offset = 0;

beforeAll(() => {
  s = openServices(testConfig());
  admin = createPlayerAdmin({
    sql: s.pg.sql,
    redis: s.redis,
    seasonById: (id) => s.seasons.get(id),
    windowTtlSeconds: TTL,
    blockedPlayersCacheMs: 0,
    logger: s.logger,
    settleMs: 50,
  });
  deps = {
    seasonById: (id) => s.seasons.get(id),
    store: createPlayerResultsStore(s.pg.sql),
    boards: createBoardResetter(s.redis, TTL),
    now: Date.now,
  };
});
afterAll(async () => {
  await s?.close();
});

/** Applies results as the consumer does (PostgreSQL, then Redis), without Kafka. */
async function ingest(season: Season, messages: readonly MatchResultMessage[]): Promise<void> {
  const accepted: AcceptedResult[] = messages.map((m) => ({
    ...m,
    endedAt: new Date(m.endedAt),
    partition: 0,
    offset: String(offset++),
  }));
  await applyResults(
    {
      store: createResultsStore(s.pg.sql),
      boards: createBoardWriter(s.redis, TTL),
      seasonOf: () => season,
      now: Date.now,
    },
    accepted,
  );
}

const asOracle = (messages: readonly MatchResultMessage[]) =>
  messages.map((m) => ({ ...m, endedAt: new Date(m.endedAt) }));

/** Asserts PostgreSQL's standings and every Redis board equal an independent recomputation from `kept`. */
async function expectSeasonHolds(season: Season, kept: readonly MatchResultMessage[]): Promise<void> {
  expect(await storedStandings(s, season.id)).toEqual(expectedStandings(season, asOracle(kept)));
  await expectBoardsMatchOracle(s, season, asOracle(kept));
}

/** Honest traffic plus a cheater who joined five of its matches with absurd scores. */
async function seasonWithCheater(scoring: ScoringMode, seed: number) {
  const season = await createSeason(s, { name: `cheater ${scoring}`, scoring, maxPointsPerMatch: 1_000 });
  const honest = generateResults(season, { results: 3_000, players: 400, seed, maxPoints: 60 });
  const matches = [...new Map(honest.map((m) => [m.matchId, m])).values()].slice(0, 5);
  const cheats = matches.map((m, i) => ({ ...m, playerId: CHEATER, points: 900 + 20 * i }));
  await ingest(season, [...honest, ...cheats]);
  return { season, honest, cheats };
}

const seasonRank = async (seasonId: number, playerId: string) => {
  const rank = await s.redis.zrevrank(boardKey(seasonBoard({ id: seasonId })), playerId);
  return rank === null ? null : rank + 1;
};

describe('removing a cheater', () => {
  it.each<[ScoringMode, 'all' | 'one match', number]>([
    ['BEST', 'all', 11],
    ['BEST', 'one match', 12],
    ['SUM', 'all', 13],
    ['SUM', 'one match', 14],
  ])(
    '%s season, %s: standings and every board equal a recomputation without the removed results',
    async (scoring, what, seed) => {
      const { season, honest, cheats } = await seasonWithCheater(scoring, seed);
      const best = cheats.at(-1)!;
      const victim = (await s.redis.zrevrange(boardKey(seasonBoard(season)), 1, 1))[0]!;
      expect(await seasonRank(season.id, CHEATER)).toBe(1);
      expect(await seasonRank(season.id, victim)).toBe(2);

      const report = await admin.removeAndSettle({
        seasonId: season.id,
        playerId: CHEATER,
        matchId: what === 'all' ? null : best.matchId,
        reason: 'aimbot',
        actor: 'test',
      });

      const kept = what === 'all' ? honest : [...honest, ...cheats.filter((c) => c !== best)];
      await expectSeasonHolds(season, kept);
      expect(report).toMatchObject({
        removedResults: what === 'all' ? 5 : 1,
        blocked: false,
        settled: { removedResults: 0 },
      });
      expect(report.boards.find((b) => b.window === 'SEASON')!.standing === null).toBe(what === 'all');
      if (what === 'all') {
        // Everyone below the cheater moved up one place.
        expect(await seasonRank(season.id, CHEATER)).toBeNull();
        expect(await seasonRank(season.id, victim)).toBe(1);
      }
    },
  );

  it('writes one audit row with who, when, why and what was removed, and one for the block', async () => {
    const { season, cheats } = await seasonWithCheater('BEST', 21);
    const before = new Date(Date.now() - 1000);
    const report = await admin.removeAndSettle({
      seasonId: season.id,
      playerId: CHEATER,
      matchId: cheats[0]!.matchId.toUpperCase(),
      reason: '  wallhack  ',
      block: true,
      actor: 'cli:ops',
    });
    const rows = await s.pg.sql<
      Array<{
        id: number;
        at: string;
        actor: string;
        action: string;
        season_id: number;
        player_id: string;
        match_id: string | null;
        reason: string;
        details: any;
      }>
    >`
      select id, at::text, actor, action, season_id, player_id, match_id::text, reason, details from admin_audit
      where season_id = ${season.id} order by id`;
    expect(rows.map((r) => [r.action, r.actor, r.player_id, r.match_id, r.reason])).toEqual([
      ['remove_results', 'cli:ops', CHEATER, cheats[0]!.matchId, 'wallhack'],
      ['block_player', 'cli:ops', CHEATER, null, 'wallhack'],
    ]);
    expect(rows[0]!.id).toBe(report.auditId);
    expect(new Date(rows[0]!.at).getTime()).toBeGreaterThan(before.getTime());
    expect(rows[0]!.details).toMatchObject({
      selection: 'only',
      removedCount: 1,
      keptCount: 4,
      removed: [{ matchId: cheats[0]!.matchId, points: 900, endedAt: cheats[0]!.endedAt }],
    });
    expect(
      await s.pg.sql`select 1 from blocked_players where season_id = ${season.id} and player_id = ${CHEATER}`,
    ).toHaveLength(1);
  });

  it('takes back results of a blocked player that raced the removal, in PostgreSQL and on the boards', async () => {
    const { season, honest } = await seasonWithCheater('SUM', 31);
    let racing = true;
    let raced = 0;
    // A consumer that classified the cheater's messages before the block was visible keeps applying them.
    const racer = (async () => {
      while (racing) {
        await ingest(season, [
          {
            v: 1,
            matchId: randomUUID(),
            seasonId: season.id,
            endedAt: honest[0]!.endedAt,
            playerId: CHEATER,
            points: 999,
          },
        ]);
        raced++;
      }
    })();
    await waitFor('the racer to land results', async () => raced >= 5);
    const { report, settle } = await removePlayerResults(deps, {
      seasonId: season.id,
      playerId: CHEATER,
      reason: 'bot',
      block: true,
      actor: 'test',
    });
    const racedBefore = raced;
    // The one in flight may have been classified before the removal: two more begun after it.
    await waitFor('results to land after the removal committed', async () => raced >= racedBefore + 2);
    racing = false;
    await racer;

    const settled = await settlePlayerRemoval(deps, settle[0]!);
    expect(report.removedResults).toBeGreaterThanOrEqual(5);
    expect(settled.removedResults).toBeGreaterThan(0);
    expect(
      await s.pg.sql`select 1 from match_results where season_id = ${season.id} and player_id = ${CHEATER}`,
    ).toHaveLength(0);
    await expectSeasonHolds(season, honest);
  });

  it('scans again under the lock when a result of the player committed during its scan', async () => {
    const { season, honest, cheats } = await seasonWithCheater('BEST', 35);
    const late = randomUUID();
    let commit!: () => void;
    const gate = new Promise<void>((r) => {
      commit = r;
    });
    // An ingest transaction of the cheater, caught between its upsert (row locked) and its commit.
    const ingesting = s.pg.sql.begin(async (tx) => {
      await tx`insert into match_results (match_id, player_id, season_id, points, ended_at, kafka_partition, kafka_offset)
               values (${late}, ${CHEATER}, ${season.id}, 999, ${cheats[0]!.endedAt}, 0, 0)`;
      await tx`update standings set points = 999, updated_at = now()
               where season_id = ${season.id} and "window" = 'SEASON' and period = '' and player_id = ${CHEATER}`;
      await gate;
    });
    const removing = removePlayerResults(deps, {
      seasonId: season.id,
      playerId: CHEATER,
      reason: 'bot',
      actor: 'test',
    });
    await waitFor(
      'the removal to wait for the row lock',
      async () =>
        (
          await s.pg.sql`
      select 1 from pg_stat_activity where wait_event_type = 'Lock' and query like '%xmin%for update%'`
        ).length > 0,
    );
    commit();
    await ingesting;
    const { report } = await removing;

    expect(report.removedResults).toBe(6); // the late result too: its scan before the lock could not see it
    expect(
      await s.pg.sql`select 1 from match_results where season_id = ${season.id} and player_id = ${CHEATER}`,
    ).toHaveLength(0);
    await expectSeasonHolds(season, honest);
  });

  it("without a block, takes back a redelivered removed result but keeps the player's new results", async () => {
    const { season, honest, cheats } = await seasonWithCheater('BEST', 41);
    const { settle } = await removePlayerResults(deps, {
      seasonId: season.id,
      playerId: CHEATER,
      reason: 'bot',
      actor: 'test',
    });
    const fresh = { ...honest[1]!, matchId: randomUUID(), playerId: CHEATER, points: 7 };
    await ingest(season, [cheats[2]!, fresh]); // a Kafka redelivery of a removed result, and a new match
    expect(await seasonRank(season.id, CHEATER)).toBe(1);

    expect(await settlePlayerRemoval(deps, settle[0]!)).toMatchObject({ removedResults: 1 });
    await expectSeasonHolds(season, [...honest, fresh]);
  });

  it('records a removal that found nothing, and changes no board', async () => {
    const { season, honest, cheats } = await seasonWithCheater('BEST', 51);
    const report = await admin.removeAndSettle({
      seasonId: season.id,
      playerId: '123456',
      matchId: randomUUID(),
      reason: 'typo',
      actor: 'test',
    });
    expect(report).toMatchObject({ removedResults: 0, boards: [], boardChanges: 0 });
    expect(await s.pg.sql`select 1 from admin_audit where id = ${report.auditId}`).toHaveLength(1);
    await expectSeasonHolds(season, [...honest, ...cheats]);
  });

  it.each<[string, Record<string, unknown>, string, string]>([
    ['an unknown season', { seasonId: 2_000_000_000 }, 'SEASON_NOT_FOUND', 'seasonId'],
    ['a season id out of range', { seasonId: 0 }, 'BAD_USER_INPUT', 'seasonId'],
    ['a malformed player id', { playerId: '12ab' }, 'BAD_USER_INPUT', 'playerId'],
    ['a player id above int64', { playerId: '9223372036854775808' }, 'BAD_USER_INPUT', 'playerId'],
    ['a malformed match id', { matchId: 'match-1' }, 'BAD_USER_INPUT', 'matchId'],
    ['a blank reason', { reason: ' \t ' }, 'BAD_USER_INPUT', 'reason'],
    ['a missing reason', { reason: undefined }, 'BAD_USER_INPUT', 'reason'],
  ])('refuses %s with a clear code', async (_name, over, code, field) => {
    const season = await createSeason(s, { name: 'bad removal' });
    const input = { seasonId: season.id, playerId: CHEATER, reason: 'r', actor: 'test', ...over } as Parameters<
      PlayerAdmin['remove']
    >[0];
    await expect(admin.remove(input)).rejects.toMatchObject({ code, field });
  });

  it('refuses to change a season whose final standings are written (SEASON_CLOSED)', async () => {
    const { season } = await seasonWithCheater('BEST', 61);
    await s.pg.sql`update seasons set status = 'CLOSED', finalized_at = now() where id = ${season.id}`;
    await expect(
      admin.remove({ seasonId: season.id, playerId: CHEATER, reason: 'late', actor: 'test' }),
    ).rejects.toMatchObject({ code: 'SEASON_CLOSED', field: 'seasonId' });
    expect(
      await s.pg.sql`select 1 from match_results where season_id = ${season.id} and player_id = ${CHEATER}`,
    ).toHaveLength(5);
  });
});
