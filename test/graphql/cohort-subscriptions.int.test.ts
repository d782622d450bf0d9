// topChanged and rankChanged within a league cohort (`scope: { cohortOf }`, docs/design.md#leagues):
// each push is of the cohort's board, its entries' percentile of the cohort's size and their
// globalRank of the whole board. Both paths a subscription can take: one that reads board state
// only (run by graphql-jit without the envelop: board-subscriptions.ts) and one selecting
// globalRank (through the envelop). Pushes once failed here: each event's scope was read again
// as a region or a group, and `cohortOf` is neither.
import { randomInt, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { minutesFromNow, startApi, type TestApi } from '../support/api.js';
import { uniqueName } from '../support/env.js';
import { waitUntilCaughtUp } from '../support/services.js';

let api: TestApi;
let admin: string;
let submitter: string;
// Ids of this run alone: a player's league tiers and names are theirs in every season.
const base = 9_100_000_000 + randomInt(1_000_000) * 100;
const P = (n: number) => String(base + n);

beforeAll(async () => {
  api = await startApi();
  [admin, submitter] = [await api.key('admin'), await api.key('submit')];
});
afterAll(async () => {
  await api?.close();
});

async function match(seasonId: number, results: Array<[number, number]>): Promise<void> {
  const res = await api.gql(
    'mutation($input: MatchResultInput!) { submitMatchResult(input: $input) { accepted } }',
    {
      input: {
        matchId: randomUUID(),
        seasonId,
        endedAt: minutesFromNow(-1),
        results: results.map(([n, points]) => ({ playerId: P(n), points })),
      },
    },
    submitter,
  );
  expect(res.errors).toBeUndefined();
  await waitUntilCaughtUp(api.s, 'the match');
}

it('pushes the cohort of `cohortOf` through topChanged and rankChanged, live', async () => {
  const made = await api.gql(
    'mutation($input: CreateSeasonInput!) { createSeason(input: $input) { id } }',
    {
      input: {
        name: 'cohort pushes',
        startsAt: minutesFromNow(-60),
        endsAt: minutesFromNow(24 * 60),
        maxPointsPerMatch: 1000,
        league: {
          name: uniqueName('pushes').replace('-', '_'),
          tiers: ['Bronze'],
          cohortSize: 2,
          promote: 0,
          relegate: 0,
        },
      },
    },
    admin,
  );
  expect(made.errors).toBeUndefined();
  const s = made.data!['createSeason'].id as number;
  // Two cohorts of two, in the order of the matches: 1 and 2, then 3 and 4.
  await match(s, [
    [1, 400],
    [2, 300],
  ]);
  await match(s, [
    [3, 350],
    [4, 100],
  ]);

  const vars = { s, p: P(4) };
  const boardOnly = api.subscribe(
    'subscription($s: Int!, $p: ID!) { topChanged(seasonId: $s, scope: { cohortOf: $p }, limit: 5) { rank playerId percentile } }',
    vars,
  );
  const withGlobal = api.subscribe(
    'subscription($s: Int!, $p: ID!) { topChanged(seasonId: $s, scope: { cohortOf: $p }, limit: 5) { rank playerId globalRank } }',
    vars,
  );
  const mine = api.subscribe(
    'subscription($s: Int!, $p: ID!) { rankChanged(seasonId: $s, playerId: $p, scope: { cohortOf: $p }) { rank percentile globalRank } }',
    vars,
  );
  const pushed = (sub: typeof boardOnly, what: string, expected: unknown) =>
    sub.waitFor(what, (e) => e.errors !== undefined || JSON.stringify(e.data) === JSON.stringify(expected), 15_000);

  await pushed(boardOnly, 'the cohort now', {
    topChanged: [
      { rank: 1, playerId: P(3), percentile: 50 },
      { rank: 2, playerId: P(4), percentile: 100 },
    ],
  });
  await pushed(withGlobal, 'the cohort now, with global ranks', {
    topChanged: [
      { rank: 1, playerId: P(3), globalRank: 2 },
      { rank: 2, playerId: P(4), globalRank: 4 },
    ],
  });
  await pushed(mine, 'the player now', { rankChanged: { rank: 2, percentile: 100, globalRank: 4 } });

  await match(s, [[4, 500]]);
  await pushed(boardOnly, 'the cohort after the match', {
    topChanged: [
      { rank: 1, playerId: P(4), percentile: 50 },
      { rank: 2, playerId: P(3), percentile: 100 },
    ],
  });
  await pushed(withGlobal, 'the global ranks after the match', {
    topChanged: [
      { rank: 1, playerId: P(4), globalRank: 1 },
      { rank: 2, playerId: P(3), globalRank: 3 },
    ],
  });
  await pushed(mine, 'the player after the match', { rankChanged: { rank: 1, percentile: 50, globalRank: 1 } });
  for (const sub of [boardOnly, withGlobal, mine]) {
    expect(sub.events.filter((e) => e.errors)).toEqual([]);
    sub.close();
  }
}, 60_000);
