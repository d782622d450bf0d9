// Entry.percentile, Leaderboard.cutoff and Leaderboard.friendsPage through the real API (Redis,
// PostgreSQL), checked against an independent ranking of the submitted results: single-key and
// sharded seasons, both rank styles, both directions, live and after the season's close
// (answered from PostgreSQL).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rankStandings, type RankedStanding } from '../../src/domain/ranking.js';
import type { Season } from '../../src/domain/season.js';
import { minutesFromNow, startApi, type TestApi } from '../support/api.js';
import { prng, shuffle } from '../support/generate.js';
import { expectedStanding, type OracleResult } from '../support/oracle.js';
import { ingestDirect, tieHeavyResults } from '../support/season-boards.js';

let api: TestApi;
let admin: string;

beforeAll(async () => {
  api = await startApi();
  admin = await api.key('admin');
});
afterAll(async () => {
  await api?.close();
});

interface Row {
  rank: number;
  playerId: string;
  points: number;
  percentile?: number;
}

async function gql<T>(query: string, variables?: Record<string, unknown>): Promise<T> {
  const res = await api.gql(query, variables);
  expect(res.errors).toBeUndefined();
  return res.data as T;
}

/** A season of tie-heavy results, ingested as the consumer does; its SEASON board ranked independently. */
async function seasonWithBoard(input: Record<string, unknown>, seed: number, players = 300) {
  const res = await api.gql(
    `mutation($input: CreateSeasonInput!) { createSeason(input: $input) { id } }`,
    {
      input: {
        name: `placing ${seed}`,
        startsAt: minutesFromNow(-3 * 24 * 60),
        endsAt: minutesFromNow(30 * 24 * 60),
        maxPointsPerMatch: 1000,
        ...input,
      },
    },
    admin,
  );
  expect(res.errors).toBeUndefined();
  const season = (await api.s.seasons.get(res.data!.createSeason.id))!;
  const results = tieHeavyResults(season, { players, seed, maxPoints: 60 });
  await ingestDirect(api.s, season, results, api.s.config.windowTtlSeconds);
  return { season, oracle: oracleBoard(season, results) };
}

/** The SEASON board by docs/design.md's rules, from the raw results. */
function oracleBoard(season: Season, results: readonly OracleResult[]): RankedStanding[] {
  const byPlayer = new Map<string, OracleResult[]>();
  for (const r of results) byPlayer.set(r.playerId, [...(byPlayer.get(r.playerId) ?? []), r]);
  const standings = [...byPlayer].map(([playerId, rs]) => {
    const { points, at } = expectedStanding(season, rs);
    return { playerId, points, achievedAt: new Date(at) };
  });
  return rankStandings(standings, season.order, season.rankStyle, season.split.timeUnitSeconds, season.startsAt);
}

interface FriendsPage {
  entries: Row[];
  endCursor: string | null;
  hasNextPage: boolean;
  ranked: number;
}

const line = (e: Row) => `${e.rank} ${e.playerId} ${e.points}`;

/** Every read this file checks, against `oracle`, for the season's SEASON board as the API answers now. */
async function expectPlacing(seasonId: number, oracle: readonly RankedStanding[]) {
  const size = oracle.length;
  const rand = prng(seasonId);

  // percentile: every entry, read in pages of top and one by one.
  const { leaderboard: all } = await gql<{ leaderboard: { size: number; top: Row[] } }>(
    `{ leaderboard(seasonId: ${seasonId}) { size top(limit: 1000) { rank playerId points percentile } } }`,
  );
  expect(all.size).toBe(size);
  expect(all.top.map(line)).toEqual(oracle.map(line));
  for (const e of all.top) expect(e.percentile).toBe((100 * e.rank) / size);
  for (const e of shuffle([...oracle], rand).slice(0, 5)) {
    const { leaderboard } = await gql<{ leaderboard: { entry: Row } }>(
      `query($p: ID!) { leaderboard(seasonId: ${seasonId}) { entry(playerId: $p) { rank percentile } } }`,
      { p: e.playerId },
    );
    expect(leaderboard.entry).toEqual({ rank: e.rank, percentile: (100 * e.rank) / size });
  }

  // cutoff: the first, a few inside, the last place, and one past it.
  for (const place of [1, 2, 37, Math.floor(size / 2), size - 1, size, size + 1]) {
    const { leaderboard } = await gql<{
      leaderboard: { cutoff: { place: number; points: number; entry: Row } | null };
    }>(
      `{ leaderboard(seasonId: ${seasonId}) { cutoff(rank: ${place}) { place points entry { rank playerId points } } } }`,
    );
    const holder = oracle[place - 1];
    expect(leaderboard.cutoff, `place ${place}`).toEqual(
      holder
        ? {
            place,
            points: holder.points,
            entry: { rank: holder.rank, playerId: holder.playerId, points: holder.points },
          }
        : null,
    );
  }

  // friendsPage: 120 ids (a quarter unranked), 7 at a time, walked by cursor, equal friends' order.
  const ids = [
    ...shuffle([...oracle], rand)
      .slice(0, 90)
      .map((e) => e.playerId),
    ...Array.from({ length: 30 }, (_, i) => String(5_550_000 + i)),
  ];
  const wanted = new Set(ids);
  const expected = oracle.filter((e) => wanted.has(e.playerId)).map(line);
  const walked: string[] = [];
  let after: string | null = null;
  for (let pages = 0; ; pages++) {
    const answer: { leaderboard: { friendsPage: FriendsPage } } = await gql(
      `query($ids: [ID!]!, $after: String) { leaderboard(seasonId: ${seasonId}) {
        friendsPage(playerIds: $ids, first: 7, after: $after) { entries { rank playerId points } endCursor hasNextPage ranked } } }`,
      { ids, after },
    );
    const page: FriendsPage = answer.leaderboard.friendsPage;
    expect(page.ranked).toBe(expected.length);
    walked.push(...page.entries.map(line));
    if (!page.hasNextPage) break;
    expect(page.entries).toHaveLength(7);
    after = page.endCursor;
    expect(pages).toBeLessThan(20);
  }
  expect(walked).toEqual(expected);

  // friends: 1,000 ids in one call (as a variable), by rank.
  const many = [
    ...oracle.map((e) => e.playerId),
    ...Array.from({ length: 1000 - size }, (_, i) => String(7_770_000 + i)),
  ];
  const { leaderboard: f } = await gql<{ leaderboard: { friends: Row[] } }>(
    `query($ids: [ID!]!) { leaderboard(seasonId: ${seasonId}) { friends(playerIds: $ids) { rank playerId points } } }`,
    { ids: shuffle(many, rand) },
  );
  expect(f.friends.map(line)).toEqual(oracle.map(line));
  // ...and as one page of 1,000 (`first` inline: the list cost counts it, no static cost refuses it).
  const { leaderboard: p } = await gql<{ leaderboard: { friendsPage: FriendsPage } }>(
    `query($ids: [ID!]!) { leaderboard(seasonId: ${seasonId}) {
      friendsPage(playerIds: $ids, first: 1000) { entries { rank playerId points player { displayName } } hasNextPage ranked } } }`,
    { ids: many },
  );
  expect([p.friendsPage.entries.map(line), p.friendsPage.hasNextPage]).toEqual([oracle.map(line), false]);
}

describe('percentile, cutoff and friends pages', () => {
  it.each([
    ['BEST DESC ORDINAL', { scoring: 'BEST', order: 'DESC', rankStyle: 'ORDINAL' }, 41],
    ['SUM DESC COMPETITION', { scoring: 'SUM', order: 'DESC', rankStyle: 'COMPETITION' }, 42],
    [
      'BEST ASC COMPETITION, 3 shards',
      { scoring: 'BEST', order: 'ASC', rankStyle: 'COMPETITION', shardBounds: [15, 40] },
      43,
    ],
    [
      'BEST DESC ORDINAL, 4 shards',
      { scoring: 'BEST', order: 'DESC', rankStyle: 'ORDINAL', shardBounds: [10, 30, 50] },
      44,
    ],
  ])('%s: exact live, and from PostgreSQL once the season is closed', async (_name, input, seed) => {
    const { season, oracle } = await seasonWithBoard(input, seed);
    await expectPlacing(season.id, oracle);

    const closed = await api.gql(`mutation { closeSeason(id: ${season.id}) { status } }`, {}, admin);
    expect(closed.errors).toBeUndefined();
    await expectPlacing(season.id, oracle);
  });

  it('a board of one: the top 100%; tied COMPETITION ranks share a percentile', async () => {
    const { season } = await seasonWithBoard({ scoring: 'BEST', rankStyle: 'COMPETITION' }, 45);
    const { leaderboard } = await gql<{ leaderboard: { size: number; top: Row[] } }>(
      `{ leaderboard(seasonId: ${season.id}) { size top(limit: 1000) { rank percentile } } }`,
    );
    const byRank = new Map<number, Set<number>>();
    for (const e of leaderboard.top) byRank.set(e.rank, (byRank.get(e.rank) ?? new Set()).add(e.percentile!));
    expect([...byRank.values()].every((p) => p.size === 1)).toBe(true);
    expect(byRank.size).toBeLessThan(leaderboard.top.length); // the results are tie-heavy

    const one = await seasonWithBoard({ scoring: 'BEST' }, 46, 1);
    const { leaderboard: lone } = await gql<{ leaderboard: { size: number; top: Row[] } }>(
      `{ leaderboard(seasonId: ${one.season.id}) { size top { rank percentile } } }`,
    );
    expect(lone).toEqual({ size: 1, top: [{ rank: 1, percentile: 100 }] });
  });
});

describe('bad arguments', () => {
  it.each([
    ['cutoff(rank: 0) { points }', 'rank'],
    ['cutoff(rank: 10000002) { points }', 'rank'],
    ['friendsPage(playerIds: ["1"], first: 0) { ranked }', 'first'],
    ['friendsPage(playerIds: ["1"], first: 1001) { ranked }', 'first'],
    ['friendsPage(playerIds: ["1"], after: "bm90IGEgY3Vyc29y") { ranked }', 'after'],
  ])('%s → BAD_USER_INPUT on %s', async (field, arg) => {
    const { season } = await seasonWithBoard({ scoring: 'BEST' }, 47, 5);
    const res = await api.gql(`{ leaderboard(seasonId: ${season.id}) { ${field} } }`);
    expect(res.errors?.[0]?.extensions, res.errors?.[0]?.message).toMatchObject({ code: 'BAD_USER_INPUT', field: arg });
  });

  it('friends of 1,001 ids → BAD_USER_INPUT on playerIds', async () => {
    const { season } = await seasonWithBoard({ scoring: 'BEST' }, 48, 5);
    const ids = Array.from({ length: 1001 }, (_, i) => String(i + 1));
    const res = await api.gql(
      `query($ids: [ID!]!) { leaderboard(seasonId: ${season.id}) { friends(playerIds: $ids) { rank } } }`,
      { ids },
    );
    expect(res.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'playerIds' });
  });
});
