// One match, several competitions (issue 31, item 3): a submission lists the seasons it counts in
// (an all-time SUM board, this season, a weekend event), and each takes it exactly once through the
// real API, Kafka, PostgreSQL and Redis: a retry stores nothing new, another set of seasons for the
// same matchId is a CONFLICT, and a match one of its seasons refuses is refused whole.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, minutesFromNow, startApi, type TestApi } from '../support/api.js';
import { createSeason, waitFor } from '../support/services.js';

let api: TestApi;
let submitter: string;
const seasons: Record<'allTime' | 'season' | 'event' | 'small', number> = { allTime: 0, season: 0, event: 0, small: 0 };

beforeAll(async () => {
  api = await startApi();
  submitter = await api.key('submit');
  const endsAt = new Date(Date.now() + 30 * 24 * 3600_000);
  seasons.allTime = (await createSeason(api.s, { name: 'all time', scoring: 'SUM', daysAgo: 300, endsAt })).id;
  seasons.season = (await createSeason(api.s, { name: 'this season' })).id;
  seasons.event = (await createSeason(api.s, { name: 'weekend event', daysAgo: 1 })).id;
  seasons.small = (await createSeason(api.s, { name: 'small points', maxPointsPerMatch: 10 })).id;
});
afterAll(async () => {
  await api?.close();
});

const SUBMIT = 'mutation($input: MatchResultInput!) { submitMatchResult(input: $input) { matchId accepted } }';
const P = (n: number) => String(831_000_000_000 + n);
const submit = (input: Record<string, unknown>) => api.gql(SUBMIT, { input }, submitter);

const stored = async (matchId: string) =>
  (
    await api.s.pg.sql<Array<{ season_id: number; n: number }>>`
      select season_id, count(*)::int as n from match_results
      where season_id = any(${Object.values(seasons)}) and match_id = ${matchId}
      group by season_id order by season_id`
  ).map((r) => [r.season_id, r.n]);

const top = async (seasonId: number) =>
  (
    await api.gql(`query($s: Int!) { leaderboard(seasonId: $s) { size top(limit: 10) { playerId points } } }`, {
      s: seasonId,
    })
  ).data?.['leaderboard'] as { size: number; top: Array<{ playerId: string; points: number }> };

describe('a match that counts in several seasons', () => {
  it('lands once in each, a retry in any order of the seasons stores nothing new, another set is a CONFLICT', async () => {
    const ids = [seasons.event, seasons.allTime, seasons.season];
    const first = { matchId: randomUUID(), endedAt: minutesFromNow(-30), seasonIds: ids };
    const second = { matchId: randomUUID(), endedAt: minutesFromNow(-20), seasonIds: ids };
    const one = await submit({
      ...first,
      results: [
        { playerId: P(1), points: 30 },
        { playerId: P(2), points: 50 },
      ],
    });
    expect(one.errors).toBeUndefined();
    expect(one.data?.['submitMatchResult'].accepted).toBe(6);
    const two = await submit({ ...second, results: [{ playerId: P(1), points: 40 }] });
    expect(two.errors).toBeUndefined();

    // SUM on the all-time board (30 + 40), BEST on the other two.
    const expected = {
      [seasons.allTime]: [
        { playerId: P(1), points: 70 },
        { playerId: P(2), points: 50 },
      ],
      [seasons.season]: [
        { playerId: P(2), points: 50 },
        { playerId: P(1), points: 40 },
      ],
      [seasons.event]: [
        { playerId: P(2), points: 50 },
        { playerId: P(1), points: 40 },
      ],
    };
    await waitFor('both matches on every board', async () => {
      for (const id of ids) if (JSON.stringify((await top(id)).top) !== JSON.stringify(expected[id])) return false;
      return true;
    });

    // A retry lists the seasons in another order: the same claim, produced again, stored once.
    const retry = await submit({
      ...first,
      seasonIds: [...ids].reverse(),
      results: [
        { playerId: P(2), points: 50 },
        { playerId: P(1), points: 30 },
      ],
    });
    expect(retry.errors).toBeUndefined();
    const fewer = await submit({
      ...first,
      seasonIds: [seasons.season],
      results: [
        { playerId: P(1), points: 30 },
        { playerId: P(2), points: 50 },
      ],
    });
    expect(errorOf(fewer)[0]).toBe('CONFLICT');
    // A third match after the retry: once it shows, ingest has passed the retried messages.
    const third = await submit({
      matchId: randomUUID(),
      endedAt: minutesFromNow(-10),
      seasonIds: [seasons.allTime],
      results: [{ playerId: P(3), points: 1 }],
    });
    expect(third.errors).toBeUndefined();
    await waitFor('the third match on the all-time board', async () => (await top(seasons.allTime)).size === 3);
    expect(await stored(first.matchId)).toEqual([...ids].sort((a, b) => a - b).map((id) => [id, 2]));
    expect((await top(seasons.allTime)).top.slice(0, 2)).toEqual(expected[seasons.allTime]);
    expect((await top(seasons.season)).top).toEqual(expected[seasons.season]);
  });

  it('refuses the whole match when one of its seasons refuses it, and stores nothing', async () => {
    const matchId = randomUUID();
    const results = [{ playerId: P(10), points: 11 }];
    const base = { matchId, endedAt: minutesFromNow(-5), results };
    // 11 points: within this season's range, over the small season's 10.
    expect(errorOf(await submit({ ...base, seasonIds: [seasons.season, seasons.small] }))[0]).toBe(
      'POINTS_OUT_OF_RANGE',
    );
    expect(errorOf(await submit({ ...base, seasonIds: [seasons.season, 999_999] }))[0]).toBe('SEASON_NOT_FOUND');
    expect(errorOf(await submit({ ...base, seasonIds: [seasons.season, seasons.season] }))[0]).toBe('BAD_USER_INPUT');
    expect(errorOf(await submit({ ...base, seasonIds: [] }))[0]).toBe('BAD_USER_INPUT');
    expect(errorOf(await submit({ ...base, seasonId: seasons.season, seasonIds: [seasons.event] }))[0]).toBe(
      'BAD_USER_INPUT',
    );
    expect(errorOf(await submit(base))[0]).toBe('BAD_USER_INPUT');
    // The same matchId is still free: nothing was claimed for it.
    const fine = await submit({ ...base, seasonId: seasons.season });
    expect(fine.errors).toBeUndefined();
    expect(fine.data?.['submitMatchResult'].accepted).toBe(1);
    await waitFor('the match on its one season', async () => (await stored(matchId)).length === 1);
    expect(await stored(matchId)).toEqual([[seasons.season, 1]]);
  });
});
