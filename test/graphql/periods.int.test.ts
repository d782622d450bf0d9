// Season.periods: the periods of a window that hold standings, newest first, paged by `before`,
// each with its board answering like a live one; after the season's close too (PostgreSQL).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { minutesFromNow, startApi, type TestApi } from '../support/api.js';
import { isoWeek, utcDay } from '../support/oracle.js';
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

interface Period {
  period: string;
  periodStart: string;
  leaderboard: { size: number; top: Array<{ rank: number; playerId: string; points: number }> };
}

async function periods(seasonId: number, window: string, args = '') {
  const res = await api.gql(
    `{ season(id: ${seasonId}) { periods(window: ${window}${args}) { period periodStart
        leaderboard { size top(limit: 3) { rank playerId points } } } } }`,
  );
  expect(res.errors).toBeUndefined();
  return res.data!.season.periods as Period[];
}

async function createSeason(): Promise<number> {
  const created = await api.gql(
    `mutation($input: CreateSeasonInput!) { createSeason(input: $input) { id } }`,
    {
      input: {
        name: 'periods',
        startsAt: minutesFromNow(-9 * 24 * 60),
        endsAt: minutesFromNow(30 * 24 * 60),
        scoring: 'BEST',
        maxPointsPerMatch: 1000,
      },
    },
    admin,
  );
  expect(created.errors).toBeUndefined();
  return created.data!.createSeason.id;
}

describe('Season.periods', () => {
  it('lists the DAY, WEEK and SEASON periods that hold standings, newest first, each board readable, live and closed', async () => {
    const season = (await api.s.seasons.get(await createSeason()))!;
    const results = tieHeavyResults(season, { players: 200, seed: 8, maxPoints: 60 });
    await ingestDirect(api.s, season, results, api.s.config.windowTtlSeconds);

    // Independently: the days and ISO weeks of the results, newest first, and each board's size.
    const days = [...new Set(results.map((r) => utcDay(r.endedAt)))].sort().reverse();
    const weeks = [...new Set(results.map((r) => isoWeek(r.endedAt)))].sort().reverse();
    const sizeOf = (key: (d: Date) => string, period: string) =>
      new Set(results.filter((r) => key(r.endedAt) === period).map((r) => r.playerId)).size;
    expect(days.length).toBeGreaterThan(3);

    const check = async () => {
      const listedDays = await periods(season.id, 'DAY', ', first: 100');
      expect(listedDays.map((p) => p.period)).toEqual(days);
      for (const p of listedDays) {
        expect(p.periodStart).toBe(`${p.period}T00:00:00.000Z`);
        expect(p.leaderboard.size).toBe(sizeOf(utcDay, p.period));
        expect(p.leaderboard.top.map((e) => e.rank)).toEqual([1, 2, 3].slice(0, p.leaderboard.size));
      }
      const listedWeeks = await periods(season.id, 'WEEK');
      expect(listedWeeks.map((p) => [p.period, p.leaderboard.size])).toEqual(weeks.map((w) => [w, sizeOf(isoWeek, w)]));
      const [whole] = await periods(season.id, 'SEASON');
      expect([whole!.period, whole!.leaderboard.size]).toEqual(['', 200]);

      // Paged: two at a time, each page before the last one's oldest.
      const paged: string[] = [];
      for (let before: string | undefined; ;) {
        const page = await periods(season.id, 'DAY', `, first: 2${before ? `, before: "${before}"` : ''}`);
        paged.push(...page.map((p) => p.period));
        if (page.length < 2) break;
        before = page.at(-1)!.period;
      }
      expect(paged).toEqual(days);
    };
    await check();
    const closed = await api.gql(`mutation { closeSeason(id: ${season.id}) { status } }`, {}, admin);
    expect(closed.errors).toBeUndefined();
    await check();
  });

  it.each([
    ['first: 0', 'first'],
    ['first: 101', 'first'],
    ['before: "2026-13-01"', 'before'],
    ['before: "2026-W01"', 'before'], // a week where a day is listed
  ])('%s → BAD_USER_INPUT on %s', async (arg, field) => {
    const res = await api.gql(`{ season(id: ${await createSeason()}) { periods(window: DAY, ${arg}) { period } } }`);
    expect(res.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field });
  });
});
