// A league across seasons (issue 32, items 1, 3 and 4), through the real services: a repeating
// league season closes, grants a reward to the best of each cohort, freezes its players' regions,
// and its successor is created once (same league, rules and rewards, starting at its end) and places
// players by last season's rank: each tier's cohorts filled in the close's final order, newcomers
// after them.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rollOver } from '../../src/service/season-rollover.js';
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

// Scopes are each player's everywhere: ids of this run only.
const BASE = 778_000_000_000 + Math.floor(Math.random() * 1e6) * 100;
const P = (n: number) => String(BASE + n);
const CREATE = `mutation($input: CreateSeasonInput!) { createSeason(input: $input) { id } }`;
const SEASON = `query($s: Int!) { season(id: $s) { id name startsAt endsAt status repeats previousSeasonId
  league { name placement cohortSize } rewards { name per } } }`;
const STANDING = `query($s: Int!, $p: ID!) { leagueStanding(seasonId: $s, playerId: $p) { tierIndex cohort } }`;
const SET = `mutation($input: SetPlayerScopesInput!) { setPlayerScopes(input: $input) { region } }`;

const submit = (s: number, endedAt: Date, results: Array<{ playerId: string; points: number }>) =>
  api.gql(
    'mutation($input: MatchResultInput!) { submitMatchResult(input: $input) { accepted } }',
    { input: { matchId: randomUUID(), seasonId: s, endedAt, results } },
    submitter,
  );

const standing = async (s: number, p: string) =>
  (await api.gql(STANDING, { s, p })).data?.['leagueStanding'] as { tierIndex: number; cohort: number } | null;

describe('a repeating league', () => {
  it('rewards each cohort, freezes scopes, repeats once, and places by last season’s rank', async () => {
    const league = {
      name: uniqueName('ranked'),
      tiers: ['Bronze', 'Silver', 'Gold'],
      cohortSize: 3,
      promote: 1,
      relegate: 1,
      placement: 'RANK',
    };
    // It ends a few seconds from now, so its successor starts at once.
    const endsAt = new Date(Math.ceil((Date.now() + 6_000) / 1000) * 1000);
    const created = await api.gql(
      CREATE,
      {
        input: {
          name: 'Ranked',
          startsAt: new Date(endsAt.getTime() - 3_600_000),
          endsAt,
          maxPointsPerMatch: 1000,
          league,
          repeats: true,
          rewards: [{ name: 'cohort_best', per: 'COHORT', fromRank: 1, reward: { gems: 10 } }],
        },
      },
      admin,
    );
    expect(created.errors).toBeUndefined();
    const s1 = created.data?.['createSeason'].id as number;

    // Nine players, one match: placed by arrival (no seeds yet), three to a cohort. The match's
    // results are messages on several partitions, so which chunk brings whom first is Kafka's.
    const ids = Array.from({ length: 9 }, (_, i) => P(i)).sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1));
    const points = new Map(ids.map((id, i) => [id, 100 + ((i * 53) % 90)]));
    const regionOf = new Map(ids.slice(0, 5).map((id) => [id, 'BR']));
    for (const [id, r] of regionOf)
      expect((await api.gql(SET, { input: { playerId: id, region: r } }, admin)).errors).toBeUndefined();
    const match = ids.map((id) => ({ playerId: id, points: points.get(id)! }));
    expect((await submit(s1, new Date(), match)).errors).toBeUndefined();
    await waitUntilCaughtUp(api.s, 'the first season’s match');
    const placed = new Map<string, number>();
    for (const id of ids) {
      const got = await standing(s1, id);
      expect(got?.tierIndex).toBe(0);
      placed.set(id, got!.cohort);
    }
    const cohort1 = (id: string) => placed.get(id)!;
    expect([0, 1, 2].map((c) => ids.filter((id) => cohort1(id) === c).length)).toEqual([3, 3, 3]);

    while (Date.now() < endsAt.getTime() + 50) await new Promise((r) => setTimeout(r, 100));
    expect(
      (await api.gql('mutation($s: Int!) { closeSeason(id: $s) { status } }', { s: s1 }, admin)).errors,
    ).toBeUndefined();

    // The best of each cohort is rewarded, once, ranked within the cohort.
    const byPoints = (a: string, b: string) => points.get(b)! - points.get(a)!;
    const cohorts = [0, 1, 2].map((c) => ids.filter((id) => cohort1(id) === c).sort(byPoints));
    const best = new Set(cohorts.map((c) => c[0]!));
    for (const id of ids) {
      const got = await api.gql(
        `query($p: ID!, $s: Int) { rewards(playerId: $p, seasonId: $s) { rule rank scope { cohort } } }`,
        {
          p: id,
          s: s1,
        },
      );
      const c = cohorts.findIndex((members) => members.includes(id));
      expect(got.data?.['rewards']).toEqual(
        best.has(id) ? [{ rule: 'cohort_best', rank: 1, scope: { cohort: `0.${c}` } }] : [],
      );
    }

    // Scopes are frozen at the close: a player who moves away still ranks in the region they played in.
    const [mover] = [...regionOf.keys()];
    expect((await api.gql(SET, { input: { playerId: mover, region: 'US' } }, admin)).errors).toBeUndefined();
    await waitUntilCaughtUp(api.s, 'the move');
    const inRegion = await api.gql(
      `query($s: Int!, $r: String!) { leaderboard(seasonId: $s, scope: { region: $r }) {
      size top(limit: 10) { playerId rank } } }`,
      { s: s1, r: 'BR' },
    );
    const expected = [...regionOf.keys()].sort(byPoints);
    expect(inRegion.data?.['leaderboard']).toEqual({
      size: 5,
      top: expected.map((playerId, i) => ({ playerId, rank: i + 1 })),
    });

    // The scheduler's pass creates its successor once, from where it ended.
    const final = (await api.app.seasonsRepo.get(s1))!;
    const [next, ...more] = await rollOver(api.app.seasonsRepo, [final], new Date());
    expect(more).toEqual([]);
    expect(await rollOver(api.app.seasonsRepo, [final], new Date())).toEqual([]);
    const s2 = (await api.gql(SEASON, { s: next!.id })).data?.['season'];
    expect(s2).toEqual({
      id: next!.id,
      name: 'Ranked #2',
      startsAt: endsAt.toISOString(),
      endsAt: new Date(endsAt.getTime() + 3_600_000).toISOString(),
      status: 'ACTIVE',
      repeats: true,
      previousSeasonId: s1,
      league: { name: league.name, placement: 'RANK', cohortSize: 3 },
      rewards: [{ name: 'cohort_best', per: 'COHORT' }],
    });

    // Placed by rank: each tier's players in the order of the first season's final standings
    // (seeds), three to a cohort, whatever order they arrive in; a newcomer after the seeded.
    const promoted = [...best].sort(byPoints);
    const stayed = ids.filter((id) => !best.has(id)).sort(byPoints);
    const newcomer = P(50);
    for (const id of [newcomer, ...[...ids].reverse()])
      expect((await submit(next!.id, new Date(), [{ playerId: id, points: 5 }])).errors).toBeUndefined();
    await waitUntilCaughtUp(api.s, 'the second season');
    for (const [seed, id] of promoted.entries())
      expect(await standing(next!.id, id)).toEqual({ tierIndex: 1, cohort: Math.floor(seed / 3) });
    for (const [seed, id] of stayed.entries())
      expect(await standing(next!.id, id)).toEqual({ tierIndex: 0, cohort: Math.floor(seed / 3) });
    expect(await standing(next!.id, newcomer)).toEqual({ tierIndex: 0, cohort: 2 });
  }, 90_000);

  it('refuses a per-cohort reward outside a league, and a bad placement', async () => {
    const input = { name: 'x', startsAt: new Date(), endsAt: new Date(Date.now() + 86_400_000), maxPointsPerMatch: 10 };
    const cohortRule = await api.gql(
      CREATE,
      { input: { ...input, rewards: [{ name: 'best', per: 'COHORT', fromRank: 1, reward: { gems: 1 } }] } },
      admin,
    );
    expect(errorOf(cohortRule)).toEqual(['BAD_USER_INPUT', 'rewards']);
    const placement = await api.gql(
      CREATE,
      {
        input: {
          ...input,
          league: { name: 'x', tiers: ['A'], cohortSize: 3, promote: 0, relegate: 0, placement: 'SKILL' },
        },
      },
      admin,
    );
    expect(placement.errors?.[0]?.message).toMatch(/LeaguePlacement/);
  });
});
