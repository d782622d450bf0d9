// CUSTOM periods (issue 31, item 7) through the real API, Kafka, PostgreSQL and Redis: a season
// whose board keeps every 6 hours from its start writes each result on the span of its endedAt,
// answers every read of each span, lists them (Season.periods), answers an expired span from
// PostgreSQL; a rebuild from PostgreSQL lands on the same Redis keys and answers the same, and so
// does the closed season. The PostgreSQL expression that names spans at ingest is checked against
// domain/windows.ts.
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { periodOf } from '../../src/domain/windows.js';
import { customPeriodSql } from '../../src/postgres/period-sql.js';
import { errorOf, startApi, type TestApi } from '../support/api.js';
import { waitFor } from '../support/services.js';

let api: TestApi;
let admin: string;
let submitter: string;

beforeAll(async () => {
  // Period boards expire 2 days after their end, so the season's first span is gone from Redis.
  api = await startApi({ WINDOW_TTL_SECONDS: String(2 * 86_400) });
  admin = await api.key('admin');
  submitter = await api.key('submit');
});
afterAll(async () => {
  await api?.close();
});

const HOUR = 3_600_000;
const SPAN = 6 * HOUR;
const P = (n: number) => String(834_000_000_000 + n);
// The anchor: 10 days ago at a whole hour that is no multiple of 6 from midnight, so spans are not UTC-aligned.
const hourNow = Math.floor(Date.now() / HOUR) * HOUR;
const anchor = hourNow - 241 * HOUR - ((hourNow / HOUR - 241) % 6 === 0 ? HOUR : 0);
const current = anchor + Math.floor((Date.now() - anchor) / SPAN) * SPAN; // the span now is in
const previous = current - SPAN;
const label = (ms: number) => new Date(ms).toISOString().slice(0, 16); // '2026-12-06T04:00', independently

const createSeason = (change: Record<string, unknown>) =>
  api.gql(
    `mutation($input: CreateSeasonInput!) { createSeason(input: $input) { id windows periodHours
       boards { name windows periodHours } } }`,
    {
      input: {
        name: 'custom periods',
        startsAt: new Date(anchor).toISOString(),
        endsAt: new Date(anchor + 20 * 24 * HOUR).toISOString(),
        scoring: 'BEST',
        maxPointsPerMatch: 1000,
        ...change,
      },
    },
    admin,
  );

async function submit(seasonId: number, playerId: string, points: number, endedAt: number) {
  const res = await api.gql(
    'mutation($input: MatchResultInput!) { submitMatchResult(input: $input) { accepted } }',
    {
      input: {
        matchId: randomUUID(),
        seasonId,
        endedAt: new Date(endedAt).toISOString(),
        results: [{ playerId, points }],
      },
    },
    submitter,
  );
  expect(res.errors).toBeUndefined();
}

const READ = `query($s: Int!, $at: DateTime!, $p: ID!, $f: [ID!]!) {
  leaderboard(seasonId: $s, window: CUSTOM, at: $at) {
    periodStart size top { rank playerId points } entry(playerId: $p) { rank points percentile }
    around(playerId: $p, radius: 1) { playerId } friends(playerIds: $f) { rank playerId } cutoff(rank: 1) { points } } }`;

describe('a season keeping a CUSTOM window of 6 hours from its start', () => {
  it('writes, reads, lists, expires, rebuilds and closes each 6-hour span', async () => {
    const created = await createSeason({ windows: ['SEASON', 'CUSTOM'], periodHours: 6 });
    expect(created.errors).toBeUndefined();
    const season = created.data!['createSeason'] as { id: number };
    expect(created.data!['createSeason']).toMatchObject({
      windows: ['SEASON', 'CUSTOM'],
      periodHours: 6,
      boards: [{ name: 'points', windows: ['SEASON', 'CUSTOM'], periodHours: 6 }],
    });

    // Live: the span now, followed from before the results of it.
    const sub = api.subscribe(
      `subscription($s: Int!) { topChanged(seasonId: $s, window: CUSTOM, limit: 3) { playerId points } }`,
      { s: season.id },
    );
    await sub.waitFor('the first top', (e) => Array.isArray(e.data?.['topChanged']));
    await submit(season.id, P(1), 100, anchor + HOUR); // the first span: expired
    await submit(season.id, P(2), 50, previous + 60_000);
    await submit(season.id, P(3), 70, current - 1); // the previous span's last instant
    await submit(season.id, P(2), 40, current); // the span now's first instant
    await submit(season.id, P(4), 30, current);

    const stored = async () =>
      (
        await api.s.pg.sql<Array<{ window: string; period: string; players: string }>>`
          select "window", period, string_agg(player_id::text || ':' || points, ',' order by player_id) as players
          from standings where season_id = ${season.id} group by "window", period order by "window", period`
      ).map((r) => [r.window, r.period, r.players]);
    const expectedRows = [
      ['SEASON', '', `${P(1)}:100,${P(2)}:50,${P(3)}:70,${P(4)}:30`],
      ['CUSTOM', label(anchor), `${P(1)}:100`],
      ['CUSTOM', label(previous), `${P(2)}:50,${P(3)}:70`],
      ['CUSTOM', label(current), `${P(2)}:40,${P(4)}:30`],
    ];
    await waitFor('every result stored', async () => JSON.stringify(await stored()) === JSON.stringify(expectedRows));
    const live = await sub.waitFor('the span now in topChanged', (e) =>
      JSON.stringify(e.data?.['topChanged'] ?? []).includes(P(4)),
    );
    expect(live.data!['topChanged']).toEqual([
      { playerId: P(2), points: 40 },
      { playerId: P(4), points: 30 },
    ]);
    sub.close();

    const read = async (at: number, player: string, friends: string[]) => {
      const res = await api.gql(READ, { s: season.id, at: new Date(at).toISOString(), p: player, f: friends });
      expect(res.errors).toBeUndefined();
      return res.data!['leaderboard'];
    };
    const answers = async () => ({
      first: await read(anchor + 5 * HOUR, P(1), [P(1), P(2)]),
      previous: await read(previous + 3 * HOUR, P(2), [P(2), P(3), P(4)]),
      current: await read(current, P(4), [P(4)]),
      periods: (
        await api.gql(
          `{ season(id: ${season.id}) { periods(window: CUSTOM) { period periodStart leaderboard { size } } } }`,
        )
      ).data!['season'].periods,
    });
    const expected = {
      first: {
        periodStart: new Date(anchor).toISOString(),
        size: 1,
        top: [{ rank: 1, playerId: P(1), points: 100 }],
        entry: { rank: 1, points: 100, percentile: expect.any(Number) as number },
        around: [{ playerId: P(1) }],
        friends: [{ rank: 1, playerId: P(1) }],
        cutoff: { points: 100 },
      },
      previous: {
        periodStart: new Date(previous).toISOString(),
        size: 2,
        top: [
          { rank: 1, playerId: P(3), points: 70 },
          { rank: 2, playerId: P(2), points: 50 },
        ],
        entry: { rank: 2, points: 50, percentile: expect.any(Number) as number },
        around: [{ playerId: P(3) }, { playerId: P(2) }],
        friends: [
          { rank: 1, playerId: P(3) },
          { rank: 2, playerId: P(2) },
        ],
        cutoff: { points: 70 },
      },
      current: {
        periodStart: new Date(current).toISOString(),
        size: 2,
        top: [
          { rank: 1, playerId: P(2), points: 40 },
          { rank: 2, playerId: P(4), points: 30 },
        ],
        entry: { rank: 2, points: 30, percentile: expect.any(Number) as number },
        around: [{ playerId: P(2) }, { playerId: P(4) }],
        friends: [{ rank: 2, playerId: P(4) }],
        cutoff: { points: 40 },
      },
      periods: [current, previous, anchor].map((start, i) => ({
        period: label(start),
        periodStart: new Date(start).toISOString(),
        leaderboard: { size: [2, 2, 1][i] },
      })),
    };
    const keys = async () => (await api.s.redis.keys(`lb:{s${season.id}}:c:*`)).sort();
    const liveKeys = [`lb:{s${season.id}}:c:${label(previous)}`, `lb:{s${season.id}}:c:${label(current)}`];
    await waitFor('the live spans in Redis', async () => (await keys()).length === 2);
    expect(await keys()).toEqual(liveKeys); // the first span expired: answered from PostgreSQL
    expect(await answers()).toEqual(expected);

    // Redis loses the season; a rebuild from PostgreSQL writes the same keys and answers the same.
    const all = await api.s.redis.keys(`lb:{s${season.id}}*`);
    if (all.length > 0) await api.s.redis.unlink(...all);
    const rebuilt = await api.gql(`mutation { rebuildLeaderboard(seasonId: ${season.id}) { seasonId } }`, {}, admin);
    expect(rebuilt.errors).toBeUndefined();
    expect(await keys()).toEqual(liveKeys);
    expect(await answers()).toEqual(expected);

    // Closed: every span answers from the final standings as it did live.
    const closed = await api.gql(`mutation { closeSeason(id: ${season.id}) { status } }`, {}, admin);
    expect(closed.errors).toBeUndefined();
    expect(await keys()).toEqual([]);
    expect(await answers()).toEqual(expected);

    // A label that is no span start of this board.
    const bad = await api.gql(
      `{ season(id: ${season.id}) { periods(window: CUSTOM, before: "${label(current + HOUR)}") { period } } }`,
    );
    expect(errorOf(bad)).toEqual(['BAD_USER_INPUT', 'before']);
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['CUSTOM without periodHours', { windows: ['SEASON', 'CUSTOM'] }, 'periodHours'],
    ['periodHours without CUSTOM', { windows: ['SEASON', 'DAY'], periodHours: 6 }, 'periodHours'],
    ['periodHours alone (default windows)', { periodHours: 6 }, 'periodHours'],
    ['periodHours 0', { windows: ['SEASON', 'CUSTOM'], periodHours: 0 }, 'periodHours'],
    ['periodHours over a leap year', { windows: ['SEASON', 'CUSTOM'], periodHours: 8785 }, 'periodHours'],
  ])('refuses a season with %s', async (_name, change, field) => {
    expect(errorOf(await createSeason(change))).toEqual(['BAD_USER_INPUT', field]);
  });

  it('names spans in PostgreSQL exactly as domain/windows.ts does', async () => {
    const cases = fc.sample(
      fc.record({
        anchor: fc.integer({ min: Date.UTC(2020, 0, 1), max: Date.UTC(2030, 0, 1) }),
        after: fc.integer({ min: 0, max: 3 * 365 * 24 * HOUR }),
        hours: fc.constantFrom(1, 5, 6, 7, 24, 168, 8784),
      }),
      { numRuns: 2000, seed: 31 },
    );
    const sql = api.s.pg.sql;
    const rows = await sql<Array<{ period: string }>>`
      select ${sql.unsafe(customPeriodSql('k.ended_at', 'k.anchor', 'k.hours'))} as period
      from unnest(${sql.array(cases.map((c) => new Date(c.anchor + c.after).toISOString()))}::timestamptz[],
                  ${sql.array(cases.map((c) => new Date(c.anchor).toISOString()))}::timestamptz[],
                  ${sql.array(cases.map((c) => c.hours))}::int4[]) with ordinality as k(ended_at, anchor, hours, i)
      order by k.i`;
    expect(rows.map((r) => r.period)).toEqual(
      cases.map((c) =>
        periodOf('CUSTOM', new Date(c.anchor + c.after), {
          offsetMs: 0,
          anchor: new Date(c.anchor),
          periodHours: c.hours,
        }),
      ),
    );
  });
});
