// Leagues (issue 32, item 3), through the real services: a league season places each player at
// their first result in a cohort of their tier, first come first served, at most cohortSize to a
// cohort; a player reads their cohort and tier without ids; the close promotes the best and
// relegates the worst of each cohort once (a second close moves nobody again), and the league's
// next season places each player in their new tier.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, startApi, type TestApi } from '../support/api.js';
import { uniqueName } from '../support/env.js';
import { waitUntilCaughtUp } from '../support/services.js';

let api: TestApi;
let admin: string;
let submitter: string;

beforeAll(async () => {
  api = await startApi();
  [admin, submitter] = [await api.key('admin'), await api.key('submit')];
});
afterAll(async () => {
  await api?.close();
});

const P = (n: number) => String(777_000_000_000 + n);
const STANDING = `query($s: Int!, $p: ID!) { leagueStanding(seasonId: $s, playerId: $p) {
  tier tierIndex cohort zone leaderboard { size scope { cohort } top(limit: 10) { playerId rank } } } }`;

async function leagueSeason(league: Record<string, unknown>): Promise<number> {
  const res = await api.gql(
    'mutation($input: CreateSeasonInput!) { createSeason(input: $input) { id league { name tiers cohortSize } } }',
    {
      input: {
        name: 'league season',
        startsAt: new Date(Date.now() - 3_600_000),
        endsAt: new Date(Date.now() + 86_400_000),
        maxPointsPerMatch: 1000,
        league,
      },
    },
    admin,
  );
  expect(res.errors).toBeUndefined();
  return res.data?.['createSeason'].id as number;
}

const submit = (s: number, results: Array<{ playerId: string; points: number }>) =>
  api.gql(
    'mutation($input: MatchResultInput!) { submitMatchResult(input: $input) { accepted } }',
    { input: { matchId: randomUUID(), seasonId: s, endedAt: new Date(), results } },
    submitter,
  );

type Standing = {
  tier: string;
  tierIndex: number;
  cohort: number;
  zone: string | null;
  leaderboard: { size: number; scope: { cohort: string }; top: Array<{ playerId: string; rank: number }> };
};
const standing = async (s: number, p: string) => {
  const res = await api.gql(STANDING, { s, p });
  expect(res.errors).toBeUndefined();
  return res.data?.['leagueStanding'] as Standing | null;
};

describe('leagues', () => {
  it('places players in cohorts of their tier, promotes and relegates each cohort once at the close', async () => {
    const league = {
      name: uniqueName('arena'),
      tiers: ['Bronze', 'Silver', 'Gold'],
      cohortSize: 3,
      promote: 1,
      relegate: 1,
    };
    const s1 = await leagueSeason(league);
    // Seven players in one match: placed in id order, three to a cohort: 0,1,2 | 3,4,5 | 6.
    const players = Array.from({ length: 7 }, (_, i) => ({ playerId: P(i), points: 100 + ((i * 53) % 90) }));
    expect((await submit(s1, players)).errors).toBeUndefined();
    await waitUntilCaughtUp(api.s, 'the match');
    const cohortOf = (i: number) => Math.floor(i / 3);
    for (const [i, p] of players.entries()) {
      const st = (await standing(s1, p.playerId))!;
      expect([st.tier, st.tierIndex, st.cohort, st.leaderboard.scope.cohort]).toEqual([
        'Bronze',
        0,
        cohortOf(i),
        `0.${cohortOf(i)}`,
      ]);
      const mates = players.filter((_, j) => cohortOf(j) === cohortOf(i));
      expect(st.leaderboard.size).toBe(mates.length);
      const order = [...mates].sort((a, b) => b.points - a.points).map((m) => m.playerId);
      expect(st.leaderboard.top.map((e) => e.playerId)).toEqual(order);
      // Bronze is the lowest tier: nobody is relegated from it; the best of a cohort is promoted.
      expect(st.zone).toBe(order[0] === p.playerId ? 'PROMOTION' : 'STAY');
    }
    // The same cohort through any read: leaderboard(scope: { cohortOf }).
    const mine = await api.gql(
      `query($s: Int!) { leaderboard(seasonId: $s, scope: { cohortOf: "${P(4)}" }) { size } }`,
      {
        s: s1,
      },
    );
    expect(mine.data?.['leaderboard'].size).toBe(3);
    const stranger = await api.gql(
      `query($s: Int!) { leaderboard(seasonId: $s, scope: { cohortOf: "${P(99)}" }) { size } }`,
      {
        s: s1,
      },
    );
    expect(errorOf(stranger)).toEqual(['BAD_USER_INPUT', 'cohortOf']);
    expect(await standing(s1, P(99))).toBeNull();
    // A player arriving later joins the cohort with room (the third), then a new one.
    expect(
      (
        await submit(s1, [
          { playerId: P(7), points: 1 },
          { playerId: P(8), points: 2 },
          { playerId: P(9), points: 3 },
        ])
      ).errors,
    ).toBeUndefined();
    await waitUntilCaughtUp(api.s, 'the latecomers');
    expect((await standing(s1, P(7)))!.cohort).toBe(2);
    expect((await standing(s1, P(9)))!.cohort).toBe(3);

    const close = () => api.gql('mutation($s: Int!) { closeSeason(id: $s) { status } }', { s: s1 }, admin);
    expect((await close()).errors).toBeUndefined();
    const MOVES = 'query($s: Int!) { leagueMoves(seasonId: $s) { playerId cohort rank fromTier toTier promoted } }';
    const moves = (await api.gql(MOVES, { s: s1 })).data?.['leagueMoves'] as Array<Record<string, unknown>>;
    // The best of each of the four cohorts moves up; none down from Bronze.
    expect(moves.map((m) => [m.cohort, m.rank, m.fromTier, m.toTier])).toEqual([
      [0, 1, 'Bronze', 'Silver'],
      [1, 1, 'Bronze', 'Silver'],
      [2, 1, 'Bronze', 'Silver'],
      [3, 1, 'Bronze', 'Silver'],
    ]);
    expect((await close()).errors).toBeUndefined();
    expect((await api.gql(MOVES, { s: s1 })).data?.['leagueMoves']).toEqual(moves);

    // The league's next season: the promoted start in Silver, the rest in Bronze.
    const s2 = await leagueSeason(league);
    const promoted = new Set(moves.map((m) => m.playerId));
    expect((await submit(s2, players)).errors).toBeUndefined();
    await waitUntilCaughtUp(api.s, 'the next season');
    for (const p of players)
      expect((await standing(s2, p.playerId))!.tier).toBe(promoted.has(p.playerId) ? 'Silver' : 'Bronze');
  }, 60_000);

  it('refuses a bad league and a cohort read of a season without one', async () => {
    const res = await api.gql(
      'mutation($input: CreateSeasonInput!) { createSeason(input: $input) { id } }',
      {
        input: {
          name: 'bad league',
          startsAt: new Date(),
          endsAt: new Date(Date.now() + 86_400_000),
          maxPointsPerMatch: 10,
          league: { name: 'x', tiers: ['A'], cohortSize: 3, promote: 2, relegate: 2 },
        },
      },
      admin,
    );
    expect(errorOf(res)).toEqual(['BAD_USER_INPUT', 'league']);
  });
});
