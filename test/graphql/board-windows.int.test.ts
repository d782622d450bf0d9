// Windows chosen per season (issue 31, item 7) through the real API, Kafka, PostgreSQL and Redis: a
// season created with windows [SEASON, DAY, MONTH] and a reset offset of 04:00 UTC keeps exactly
// those boards, its days and months turn over at 04:00, and a window it does not keep is refused.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, startApi, type TestApi } from '../support/api.js';
import { waitFor } from '../support/services.js';

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

const DAY = 86_400_000;
const HOUR = 3_600_000;
const P = (n: number) => String(833_000_000_000 + n);
// Yesterday's UTC midnight: both results lie in the past whatever the hour the test runs at.
const midnight = Math.floor(Date.now() / DAY) * DAY - DAY;
const beforeReset = new Date(midnight + 4 * HOUR - 1); // 03:59:59.999: still the day before
const atReset = new Date(midnight + 4 * HOUR); // 04:00: the new day
const label = (at: Date, length: number) => new Date(at.getTime() - 4 * HOUR).toISOString().slice(0, length);

describe('a season that keeps SEASON, DAY and MONTH, turning over at 04:00 UTC', () => {
  it('writes only those boards, cuts days and months at 04:00, and refuses the WEEK board', async () => {
    const created = await api.gql(
      `mutation($input: CreateSeasonInput!) { createSeason(input: $input) { id windows resetOffsetMinutes } }`,
      {
        input: {
          name: 'windows e2e',
          startsAt: new Date(midnight - 40 * DAY).toISOString(),
          endsAt: new Date(midnight + 40 * DAY).toISOString(),
          scoring: 'BEST',
          maxPointsPerMatch: 1000,
          windows: ['MONTH', 'SEASON', 'DAY'],
          resetOffsetMinutes: 240,
        },
      },
      admin,
    );
    expect(created.errors).toBeUndefined();
    const season = created.data!['createSeason'] as { id: number; windows: string[]; resetOffsetMinutes: number };
    // Stored and answered in the windows' own order, whatever order they were given in.
    expect(season).toMatchObject({ windows: ['SEASON', 'DAY', 'MONTH'], resetOffsetMinutes: 240 });

    for (const [player, points, endedAt] of [
      [P(1), 10, beforeReset],
      [P(2), 20, atReset],
    ] as const) {
      const res = await api.gql(
        'mutation($input: MatchResultInput!) { submitMatchResult(input: $input) { accepted } }',
        {
          input: {
            matchId: randomUUID(),
            seasonId: season.id,
            endedAt: endedAt.toISOString(),
            results: [{ playerId: player, points }],
          },
        },
        submitter,
      );
      expect(res.errors).toBeUndefined();
    }
    const boards = async () =>
      (
        await api.s.pg.sql<Array<{ window: string; period: string; players: string }>>`
          select "window", period, string_agg(player_id::text, ',' order by player_id) as players from standings
          where season_id = ${season.id} group by "window", period order by "window", period`
      ).map((r) => [r.window, r.period, r.players]);
    await waitFor(
      'both results stored',
      async () => (await boards()).length > 0 && (await boards())[0]![2] === `${P(1)},${P(2)}`,
    );

    // SEASON; a DAY board per side of 04:00; the MONTH board(s) of the two; no WEEK board.
    const months = [...new Set([label(beforeReset, 7), label(atReset, 7)])];
    expect(await boards()).toEqual([
      ['SEASON', '', `${P(1)},${P(2)}`],
      ['DAY', label(beforeReset, 10), P(1)],
      ['DAY', label(atReset, 10), P(2)],
      ...(months.length === 1
        ? [['MONTH', months[0], `${P(1)},${P(2)}`]]
        : [
            ['MONTH', months[0], P(1)],
            ['MONTH', months[1], P(2)],
          ]),
    ]);
    expect(label(beforeReset, 10)).not.toBe(label(atReset, 10));

    // Reads by `at` find the period of that instant at the offset, and its start is 04:00.
    const read = (window: string, at: Date) =>
      api.gql(
        `query($s: Int!, $at: DateTime!) { leaderboard(seasonId: $s, window: ${window}, at: $at) { periodStart top { playerId } } }`,
        { s: season.id, at: at.toISOString() },
      );
    await waitFor('the DAY boards in Redis', async () => {
      const [before, after] = [(await read('DAY', beforeReset)).data, (await read('DAY', atReset)).data];
      return before?.['leaderboard'].top.length === 1 && after?.['leaderboard'].top.length === 1;
    });
    expect((await read('DAY', beforeReset)).data!['leaderboard']).toEqual({
      periodStart: new Date(midnight - DAY + 4 * HOUR).toISOString(),
      top: [{ playerId: P(1) }],
    });
    expect((await read('DAY', atReset)).data!['leaderboard']).toEqual({
      periodStart: atReset.toISOString(),
      top: [{ playerId: P(2) }],
    });
    const month = (await read('MONTH', atReset)).data!['leaderboard'];
    expect(month.periodStart).toBe(`${label(atReset, 7)}-01T04:00:00.000Z`);

    // Redis holds the MONTH key, and no WEEK key.
    const keys = await api.s.redis.keys(`lb:{s${season.id}}*`);
    expect(keys).toContain(`lb:{s${season.id}}:m:${label(atReset, 7)}`);
    expect(keys.filter((k) => k.includes(':w:'))).toEqual([]);

    // A window the season does not keep: a clear error, for reads and subscriptions alike.
    expect(errorOf(await read('WEEK', atReset))).toEqual(['BAD_USER_INPUT', 'window']);
    const sub = api.subscribe(`subscription($s: Int!) { topChanged(seasonId: $s, window: WEEK) { playerId } }`, {
      s: season.id,
    });
    const refused = await sub.waitFor('an error', (e) => (e.errors?.length ?? 0) > 0);
    expect(errorOf(refused)).toEqual(['BAD_USER_INPUT', 'window']);
    sub.close();
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['windows without SEASON', { windows: ['DAY'] }, 'windows'],
    ['a window twice', { windows: ['SEASON', 'DAY', 'DAY'] }, 'windows'],
    ['an offset of a whole day', { resetOffsetMinutes: 1440 }, 'resetOffsetMinutes'],
    ['a negative offset', { resetOffsetMinutes: -1 }, 'resetOffsetMinutes'],
  ])('refuses a season with %s', async (_name, change, field) => {
    const res = await api.gql(
      `mutation($input: CreateSeasonInput!) { createSeason(input: $input) { id } }`,
      {
        input: {
          name: 'bad windows',
          startsAt: new Date(midnight).toISOString(),
          endsAt: new Date(midnight + 10 * DAY).toISOString(),
          scoring: 'BEST',
          maxPointsPerMatch: 10,
          ...change,
        },
      },
      admin,
    );
    expect(errorOf(res)).toEqual(['BAD_USER_INPUT', field]);
  });
});
