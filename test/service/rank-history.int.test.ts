// Rank history end to end: results through the API, Kafka and ingest; snapshots taken by the
// scheduler's pass (takeDueSnapshots) against the real PostgreSQL; Entry.rankHistory and
// Entry.rankDelta read back through GraphQL and checked against the ranks the board showed.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRankSnapshots } from '../../src/postgres/rank-snapshots.js';
import { SLOT_PASS_MS, takeDueSnapshots } from '../../src/service/rank-history.js';
import { minutesFromNow, startApi, type TestApi } from '../support/api.js';
import { waitFor } from '../support/services.js';

const DAY = 86_400_000;
let api: TestApi;
let admin: string;
let submitter: string;

beforeAll(async () => {
  api = await startApi();
  admin = await api.key('admin');
  submitter = await api.key('submit');
});
afterAll(async () => {
  await api?.close();
});

async function createSeason(rankStyle: 'ORDINAL' | 'COMPETITION'): Promise<number> {
  const res = await api.gql(
    `mutation($input: CreateSeasonInput!) { createSeason(input: $input) { id } }`,
    {
      input: {
        name: `rank history ${rankStyle}`,
        startsAt: minutesFromNow(-3 * 24 * 60),
        endsAt: minutesFromNow(30 * 24 * 60),
        scoring: 'SUM',
        rankStyle,
        maxPointsPerMatch: 1000,
      },
    },
    admin,
  );
  expect(res.errors).toBeUndefined();
  return res.data!.createSeason.id;
}

/** Each season's SUM totals as submitted: what the board must show once ingest applied them. */
const totals = new Map<number, Map<string, number>>();

/** One match per 10 players; waits until the board shows every total. */
async function play(seasonId: number, results: Array<[string, number]>) {
  const want = totals.get(seasonId) ?? new Map<string, number>();
  totals.set(seasonId, want);
  for (const [id, points] of results) want.set(id, (want.get(id) ?? 0) + points);
  for (let i = 0; i < results.length; i += 10) {
    const res = await api.gql(
      `mutation($input: MatchResultInput!) { submitMatchResult(input: $input) { accepted } }`,
      {
        input: {
          matchId: randomUUID(),
          seasonId,
          endedAt: minutesFromNow(-1),
          results: results.slice(i, i + 10).map(([playerId, points]) => ({ playerId, points })),
        },
      },
      submitter,
    );
    expect(res.errors).toBeUndefined();
  }
  await waitFor('the results on the board', async () => {
    const shown = await board(seasonId);
    return shown.length === want.size && shown.every((e) => want.get(e.playerId) === e.points);
  });
}

interface Row {
  playerId: string;
  points: number;
  rank: number;
  rankDelta: number | null;
  rankHistory: Array<{ at: string; takenAt: string; rank: number | null }>;
}

async function board(seasonId: number, extra = ''): Promise<Row[]> {
  const res = await api.gql(
    `{ leaderboard(seasonId: ${seasonId}) { top(limit: 60) { playerId points rank ${extra} } } }`,
  );
  expect(res.errors).toBeUndefined();
  return res.data!.leaderboard.top;
}

const ranksOf = (rows: Row[]) => new Map(rows.map((r) => [r.playerId, r.rank]));

describe('rank history', () => {
  for (const style of ['ORDINAL', 'COMPETITION'] as const) {
    it(`keeps each player's ${style} rank at every snapshot, exactly as the board showed it, and the delta since`, async () => {
      const seasonId = await createSeason(style);
      const season = (await api.s.seasons.get(seasonId))!;
      const store = createRankSnapshots(api.s.pg.sql);
      // Points in steps of 10 over 40 players: equal totals, so COMPETITION shares ranks.
      const first = Array.from({ length: 40 }, (_, i): [string, number] => [String(700_000 + i), (i % 13) * 10]);
      await play(seasonId, first);
      const ranks1 = ranksOf(await board(seasonId));

      const midnight = Math.floor(Date.now() / DAY) * DAY;
      const slottedAt = new Map<number, number>();
      const tick = (at: number) => takeDueSnapshots(store, [season], new Date(at), undefined, slottedAt);
      const slots = async () =>
        (
          await api.s.pg.sql<[{ n: number }]>`select count(*)::int4 as n from rank_slots where season_id = ${seasonId}`
        )[0].n;
      const [t1] = await tick(midnight + 3_600_000);
      expect(t1).toMatchObject({ boundary: new Date(midnight), taken: true, players: 40, newSlots: 40, chunks: 1 });
      // Due once per midnight: the next tick of the same day takes nothing.
      expect(await tick(midnight + 3_600_000 + SLOT_PASS_MS / 2)).toEqual([]);

      // Day 2: some climb, 10 newcomers; snapshot at the next midnight.
      const second: Array<[string, number]> = [
        ...first.filter((_, i) => i % 3 === 0).map(([id], i): [string, number] => [id, 50 + i * 7]),
        ...Array.from({ length: 10 }, (_, i): [string, number] => [String(800_000 + i), i * 25]),
      ];
      await play(seasonId, second);
      const ranks2 = ranksOf(await board(seasonId));
      // The newcomers get their slots at the first tick an hour after the last pass, ahead of
      // the next snapshot, which then has none to give.
      expect(await tick(midnight + 3_600_000 + SLOT_PASS_MS - 1)).toEqual([]);
      expect(await slots()).toBe(40);
      expect(await tick(midnight + 3_600_000 + SLOT_PASS_MS)).toEqual([]);
      expect(await slots()).toBe(50);
      const [t2] = await tick(midnight + DAY + 60_000);
      expect(t2).toMatchObject({ boundary: new Date(midnight + DAY), taken: true, players: 50, newSlots: 0 });
      expect((await store.take(season, new Date(midnight + DAY))).taken).toBe(false);

      // Day 3, before its snapshot: the delta is against day 2's.
      await play(
        seasonId,
        [first[1]!, first[2]!].map(([id]): [string, number] => [id, 400]),
      );
      const now = await board(seasonId, 'rankDelta rankHistory(last: 30) { at takenAt rank }');
      for (const row of now) {
        expect(row.rankHistory.map((p) => [Date.parse(p.at), p.rank])).toEqual([
          [midnight, ranks1.get(row.playerId) ?? null],
          [midnight + DAY, ranks2.get(row.playerId)!],
        ]);
        expect(row.rankDelta).toBe(ranks2.get(row.playerId)! - row.rank);
      }
      expect(now.some((r) => r.rankDelta! > 0) && now.some((r) => r.rankDelta! < 0)).toBe(true);

      // last: the newest only; an unranked player's entry is null, DAY boards keep no history.
      const one = await api.gql(
        `{ leaderboard(seasonId: ${seasonId}) { entry(playerId: "800003") { rankHistory(last: 1) { rank } } } }`,
      );
      expect(one.data!.leaderboard.entry.rankHistory).toEqual([{ rank: ranks2.get('800003') }]);
      const day = await api.gql(
        `{ leaderboard(seasonId: ${seasonId}, window: DAY) { top(limit: 1) { rankDelta rankHistory { rank } } } }`,
      );
      expect(day.data!.leaderboard.top[0]).toEqual({ rankDelta: null, rankHistory: [] });

      // 4 bytes a slot a snapshot.
      const [bytes] = await api.s.pg.sql<[{ n: number }]>`
        select sum(length(ranks))::int4 as n from rank_snapshots where season_id = ${seasonId}`;
      expect(bytes.n).toBe(4 * 40 + 4 * 50);
    });
  }

  it('refuses a history length out of 1..90 with BAD_USER_INPUT', async () => {
    const seasonId = await createSeason('ORDINAL');
    await play(seasonId, [['900001', 5]]);
    for (const last of [0, 91]) {
      const res = await api.gql(
        `{ leaderboard(seasonId: ${seasonId}) { top(limit: 1) { rankHistory(last: ${last}) { rank } } } }`,
      );
      expect(res.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    }
  });
});
