// Entry metadata (issue 31, item 5) through the real API, Kafka, PostgreSQL and Redis: a game server
// attaches up to 1 KB of JSON to a result; a board keeps the metadata of the result that set the
// standing (BEST: that result's; SUM: the latest counted one's), every read returns it when
// selected, a retry with other metadata is a CONFLICT, bad metadata is BAD_USER_INPUT with nothing
// stored, and removing a player's result brings back the metadata of the one that now sets it.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, startApi, type TestApi } from '../support/api.js';
import { createSeason, waitFor } from '../support/services.js';

let api: TestApi;
let submitter: string;
let admin: string;
let best: number;
let sum: number;

beforeAll(async () => {
  api = await startApi();
  submitter = await api.key('submit');
  admin = await api.key('admin');
  best = (await createSeason(api.s, { name: 'metadata best' })).id;
  sum = (await createSeason(api.s, { name: 'metadata sum', scoring: 'SUM' })).id;
});
afterAll(async () => {
  await api?.close();
});

const SUBMIT = 'mutation($input: MatchResultInput!) { submitMatchResult(input: $input) { accepted } }';
const P = (n: number) => String(832_000_000_000 + n);
const submit = (input: Record<string, unknown>) => api.gql(SUBMIT, { input }, submitter);
// The matches end 50 to 20 minutes before `until`: now, or, within an hour after UTC midnight, that
// midnight, so that they all fall in one day (and week) whatever the hour the test runs at.
const DAY_MS = 86_400_000;
const midnight = Math.floor(Date.now() / DAY_MS) * DAY_MS;
const until = Date.now() - midnight < 3_600_000 ? midnight : Date.now();
const match = (minutesAgo: number, results: Array<{ playerId: string; points: number; metadata?: unknown }>) => ({
  matchId: randomUUID(),
  seasonIds: [best, sum],
  endedAt: new Date(until - minutesAgo * 60_000).toISOString(),
  results,
});

type Board = {
  size: number;
  top: Array<{ playerId: string; points: number; metadata: unknown }>;
  entry: { metadata: unknown } | null;
  around: Array<{ playerId: string; metadata: unknown }>;
  friends: Array<{ playerId: string; metadata: unknown }>;
};
const read = async (seasonId: number, player: string, window = 'SEASON') =>
  (
    await api.gql(
      `query($s: Int!, $p: ID!, $at: DateTime) { leaderboard(seasonId: $s, window: ${window}, at: $at) {
        size top(limit: 10) { playerId points metadata } entry(playerId: $p) { metadata }
        around(playerId: $p, radius: 1) { playerId metadata } friends(playerIds: [$p]) { playerId metadata } } }`,
      // The day and week of the matches.
      { s: seasonId, p: player, at: new Date(until - 60_000).toISOString() },
    )
  ).data?.['leaderboard'] as Board;

describe('entry metadata', () => {
  it('keeps the metadata of the result that set each standing, on every read and window', async () => {
    const car = (name: string) => ({ car: name, replay: `r-${name}`, tuning: { boost: 3, tyres: ['soft', 'wet'] } });
    // Player 1: 40 with the red car, then 30 with the blue one (BEST keeps red; SUM's latest is blue).
    // Player 2: no metadata at all.
    expect((await submit(match(50, [{ playerId: P(1), points: 40, metadata: car('red') }]))).errors).toBeUndefined();
    expect(
      (
        await submit(
          match(40, [
            { playerId: P(1), points: 30, metadata: car('blue') },
            { playerId: P(2), points: 35 },
          ]),
        )
      ).errors,
    ).toBeUndefined();
    await waitFor('both players on both boards', async () => (await read(sum, P(1))).top[0]?.points === 70);
    await waitFor('the BEST board', async () => (await read(best, P(1))).size === 2);

    for (const window of ['SEASON', 'DAY', 'WEEK']) {
      const b = await read(best, P(1), window);
      expect(b.top, window).toEqual([
        { playerId: P(1), points: 40, metadata: car('red') },
        { playerId: P(2), points: 35, metadata: null },
      ]);
      expect(b.entry, window).toEqual({ metadata: car('red') });
      expect(b.around.map((e) => e.metadata)).toEqual([car('red'), null]);
      expect(b.friends).toEqual([{ playerId: P(1), metadata: car('red') }]);
      expect((await read(sum, P(1), window)).entry, window).toEqual({ metadata: car('blue') });
    }

    // A zero-point SUM result sets nothing (achievedAt stays the last positive one's): blue stays.
    expect((await submit(match(30, [{ playerId: P(1), points: 0, metadata: car('green') }]))).errors).toBeUndefined();
    // A better BEST result brings its metadata; a later SUM result too.
    expect((await submit(match(20, [{ playerId: P(1), points: 45, metadata: car('gold') }]))).errors).toBeUndefined();
    await waitFor('the gold result', async () => (await read(best, P(1))).top[0]?.points === 45);
    await waitFor('the SUM total', async () => (await read(sum, P(1))).top[0]?.points === 115);
    expect((await read(best, P(1))).entry).toEqual({ metadata: car('gold') });
    expect((await read(sum, P(1))).entry).toEqual({ metadata: car('gold') });

    // Removing the gold match: BEST falls back to red (40), SUM's latest counted result is blue again.
    const [gold] = await api.s.pg.sql<Array<{ match_id: string }>>`
      select match_id::text from match_results where season_id = ${best} and player_id = ${P(1)} and points = 45`;
    for (const seasonId of [best, sum]) {
      const removed = await api.gql(
        `mutation($i: RemovePlayerResultsInput!) { removePlayerResults(input: $i) { removedResults } }`,
        { i: { seasonId, playerId: P(1), matchId: gold!.match_id, reason: 'metadata test' } },
        admin,
      );
      expect(removed.errors).toBeUndefined();
    }
    await waitFor('the removal on the BEST board', async () => (await read(best, P(1))).top[0]?.points === 40);
    expect((await read(best, P(1))).entry).toEqual({ metadata: car('red') });
    await waitFor('the removal on the SUM board', async () => (await read(sum, P(1))).top[0]?.points === 70);
    expect((await read(sum, P(1))).entry).toEqual({ metadata: car('blue') });
  });

  it('refuses bad metadata with BAD_USER_INPUT and a retry with other metadata with CONFLICT, storing nothing', async () => {
    const results = (metadata: unknown) => [{ playerId: P(10), points: 5, metadata }];
    const base = match(10, []);
    // 1,025 bytes of JSON: {"k":"xxx…"} is 8 bytes around the string.
    const big = { k: 'x'.repeat(1_017) };
    expect(JSON.stringify(big)).toHaveLength(1_025);
    expect(errorOf(await submit({ ...base, results: results(big) }))).toEqual(['BAD_USER_INPUT', 'metadata']);
    // Multi-byte characters count as their UTF-8 bytes: 342 × 3 bytes + 8 > 1024.
    expect(errorOf(await submit({ ...base, results: results({ k: '€'.repeat(342) }) }))).toEqual([
      'BAD_USER_INPUT',
      'metadata',
    ]);
    for (const bad of [[1, 2], 'car', 7])
      expect(errorOf(await submit({ ...base, results: results(bad) }))[0], JSON.stringify(bad)).toBe('BAD_USER_INPUT');
    // Exactly 1,024 bytes is accepted; the same matchId with other metadata is a CONFLICT.
    const fits = { k: 'x'.repeat(1_016) };
    expect((await submit({ ...base, results: results(fits) })).errors).toBeUndefined();
    expect((await submit({ ...base, results: results(fits) })).errors).toBeUndefined();
    expect(errorOf(await submit({ ...base, results: results({ k: 'y' }) }))[0]).toBe('CONFLICT');
    await waitFor('the accepted match', async () => (await read(best, P(10))).entry !== null);
    const rows = await api.s.pg.sql<Array<{ season_id: number; metadata: unknown }>>`
      select season_id, metadata from match_results
      where season_id = any(${[best, sum]}) and match_id = ${base.matchId} order by season_id`;
    expect(rows).toEqual([
      { season_id: best, metadata: fits },
      { season_id: sum, metadata: fits },
    ]);
  });
});
