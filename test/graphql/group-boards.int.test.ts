// Group boards (issue 32, item 2): groups ranked by their members' total (every member, or the
// best N), live as results land and members move or are removed, and the same from PostgreSQL
// once the season closed; through the real API, Kafka, PostgreSQL and Redis.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi, type TestApi } from '../support/api.js';
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

const P = (n: number) => String(766_000_000_000 + n);
const GROUPS = `query($s: Int!) { leaderboard(seasonId: $s) { groups(first: 10) {
  rank group points members leaderboard { size top(limit: 5) { playerId points } } } } }`;
type Group = {
  rank: number;
  group: string;
  points: number;
  members: number;
  leaderboard: { size: number; top: Array<{ playerId: string; points: number }> };
};

async function season(extra: Record<string, unknown>): Promise<number> {
  const res = await api.gql(
    'mutation($input: CreateSeasonInput!) { createSeason(input: $input) { id groupBestOf } }',
    {
      input: {
        name: 'group boards',
        startsAt: new Date(Date.now() - 3_600_000),
        endsAt: new Date(Date.now() + 86_400_000),
        maxPointsPerMatch: 1000,
        ...extra,
      },
    },
    admin,
  );
  expect(res.errors).toBeUndefined();
  return res.data?.['createSeason'].id as number;
}

const groupsOf = async (s: number): Promise<Group[]> => {
  const res = await api.gql(GROUPS, { s });
  expect(res.errors).toBeUndefined();
  return res.data?.['leaderboard'].groups as Group[];
};

/** The group board an independent reading gives: best N members' points summed, ties by id descending. */
function oracle(members: Map<string, { group: string | null; points: number }>, bestOf = 0) {
  const byGroup = new Map<string, number[]>();
  for (const { group, points } of members.values())
    if (group) byGroup.set(group, [...(byGroup.get(group) ?? []), points]);
  return [...byGroup]
    .map(([group, points]) => {
      const best = points.sort((a, b) => b - a).slice(0, bestOf || undefined);
      return { group, points: best.reduce((a, b) => a + b, 0), members: points.length };
    })
    .sort((a, b) => b.points - a.points || (a.group < b.group ? 1 : -1))
    .map((g, i) => ({ ...g, rank: i + 1 }));
}

const submit = (s: number, results: Array<Record<string, unknown>>) =>
  api.gql(
    'mutation($input: MatchResultInput!) { submitMatchResult(input: $input) { accepted } }',
    { input: { matchId: randomUUID(), seasonId: s, endedAt: new Date(), results } },
    submitter,
  );

describe('group boards', () => {
  for (const bestOf of [0, 2])
    it(`ranks groups by ${bestOf ? `their best ${bestOf} members'` : "all their members'"} points, live through moves and removals, and after the close`, async () => {
      const s = await season(bestOf ? { groupBestOf: bestOf } : {});
      const members = new Map<string, { group: string | null; points: number }>();
      const clans = ['wolves', 'owls', 'foxes'];
      const results = Array.from({ length: 12 }, (_, i) => {
        const playerId = P(bestOf * 100 + i);
        const group = i === 11 ? null : clans[i % 3]!;
        const points = 100 + ((i * 37) % 200);
        members.set(playerId, { group, points });
        return { playerId, points, scopes: { groups: group ? [group] : [] } };
      });
      expect((await submit(s, results)).errors).toBeUndefined();
      await waitUntilCaughtUp(api.s, 'the match');
      const strip = (gs: Group[]) =>
        gs.map(({ rank, group, points, members: m }) => ({ rank, group, points, members: m }));
      expect(strip(await groupsOf(s))).toEqual(oracle(members, bestOf));
      const [best] = await groupsOf(s);
      expect(best!.leaderboard.size).toBe(best!.members);
      expect(best!.leaderboard.top[0]!.points).toBe(
        Math.max(...[...members.values()].filter((m) => m.group === best!.group).map((m) => m.points)),
      );

      // A member leaves for another clan, a result raises a member, a cheater's results go.
      const mover = P(bestOf * 100 + 0);
      const moved = await api.gql(
        'mutation($input: SetPlayerScopesInput!) { setPlayerScopes(input: $input) { groups } }',
        { input: { playerId: mover, groups: ['owls'] } },
        admin,
      );
      expect(moved.errors).toBeUndefined();
      members.get(mover)!.group = 'owls';
      expect((await submit(s, [{ playerId: P(bestOf * 100 + 5), points: 999 }])).errors).toBeUndefined();
      members.get(P(bestOf * 100 + 5))!.points = 999;
      await waitUntilCaughtUp(api.s, 'the move and the result');
      const cheater = P(bestOf * 100 + 4);
      const removed = await api.gql(
        'mutation($input: RemovePlayerResultsInput!) { removePlayerResults(input: $input) { removedResults } }',
        { input: { seasonId: s, playerId: cheater, reason: 'wallhack' } },
        admin,
      );
      expect(removed.errors).toBeUndefined();
      members.delete(cheater);
      const live = strip(await groupsOf(s));
      expect(live).toEqual(oracle(members, bestOf));

      const closed = await api.gql('mutation($s: Int!) { closeSeason(id: $s) { status } }', { s }, admin);
      expect(closed.errors).toBeUndefined();
      expect(strip(await groupsOf(s))).toEqual(live);
      // Groups are frozen at the close: a member leaving now changes nothing of the closed season.
      const leaver = [...members.keys()].find((id) => id !== mover)!;
      const left = await api.gql(
        'mutation($input: SetPlayerScopesInput!) { setPlayerScopes(input: $input) { groups } }',
        { input: { playerId: leaver, groups: ['ravens'] } },
        admin,
      );
      expect(left.errors).toBeUndefined();
      await waitUntilCaughtUp(api.s, 'the move after the close');
      expect(strip(await groupsOf(s))).toEqual(live);
    });

  it('keeps no group board for an ASC board', async () => {
    const s = await season({ order: 'ASC' });
    await submit(s, [{ playerId: P(900), points: 5, scopes: { groups: ['wolves'] } }]);
    await waitUntilCaughtUp(api.s, 'the match');
    expect(await groupsOf(s)).toEqual([]);
  });
});
