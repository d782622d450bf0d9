// closeSeason end to end: an admin closes a live season over GraphQL; every read of the contract
// keeps its answer (now from PostgreSQL), the Redis boards are gone, submissions are refused.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { minutesFromNow, startApi, type TestApi } from '../support/api.js';
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

const SUBMIT = 'mutation($input: MatchResultInput!) { submitMatchResult(input: $input) { accepted } }';
const CLOSE = 'mutation($id: Int!) { closeSeason(id: $id) { id status } }';
const ENTRY = 'rank playerId points achievedAt';
// Player ids of this file only (display names live in one shared table).
const P = (n: number) => String(820_000_000_000 + n);

/** Every read of the contract on the SEASON, DAY and WEEK boards of a season. */
const readAll = (seasonId: number) =>
  api.gql(
    `query($s: Int!, $p: ID!, $q: ID!, $friends: [ID!]!, $at: DateTime!) {
  ${['SEASON', 'DAY', 'WEEK']
    .map(
      (w) => `${w}: leaderboard(seasonId: $s, window: ${w}, at: $at) {
    size top(limit: 100) { ${ENTRY} } deep: top(limit: 3, offset: 4) { ${ENTRY} }
    entry(playerId: $p) { ${ENTRY} } none: entry(playerId: "1") { rank }
    around(playerId: $q, radius: 2) { ${ENTRY} } first: around(playerId: $p, radius: 3) { ${ENTRY} }
    friends(playerIds: $friends) { ${ENTRY} } }`,
    )
    .join('\n')}
}`,
    { s: seasonId, p: P(3), q: P(7), friends: [P(1), P(9), P(4), '1', P(12)], at: minutesFromNow(-60) },
  );

describe('closeSeason', () => {
  it('closes a live season: every read keeps its answer from PostgreSQL, the Redis boards are gone, submissions are refused', async () => {
    const created = await api.gql(
      `mutation($input: CreateSeasonInput!) { createSeason(input: $input) { id } }`,
      {
        input: {
          name: 'close e2e',
          startsAt: minutesFromNow(-3 * 24 * 60),
          endsAt: minutesFromNow(30 * 24 * 60),
          scoring: 'BEST',
          rankStyle: 'COMPETITION',
          maxPointsPerMatch: 100,
        },
      },
      admin,
    );
    const seasonId = created.data!.createSeason.id as number;
    // Equal points in the same second and in different seconds: COMPETITION ties and their order.
    const endedAt = minutesFromNow(-60);
    for (let m = 0; m < 3; m++) {
      const results = Array.from({ length: 5 }, (_, i) => ({
        playerId: P(m * 5 + i + 1),
        points: [40, 20, 40, 10, 20][i]! + m,
      }));
      const res = await api.gql(
        SUBMIT,
        { input: { matchId: randomUUID(), seasonId, endedAt: m === 2 ? minutesFromNow(-59.8) : endedAt, results } },
        submitter,
      );
      expect(res.errors).toBeUndefined();
    }
    // The top cache refreshes within a second: wait until every board's cached top shows all 15.
    await waitFor(
      '15 players on every board',
      async () => {
        const data = (await readAll(seasonId)).data;
        return ['SEASON', 'DAY', 'WEEK'].every((w) => data?.[w].size === 15 && data[w].top.length === 15);
      },
      10_000,
    );
    const before = await readAll(seasonId);
    expect(before.errors).toBeUndefined();
    const top5 = before
      .data!.SEASON.top.slice(0, 5)
      .map((e: { rank: number; playerId: string }) => ({ rank: e.rank, playerId: e.playerId }));
    const tops = api.subscribe('subscription($s: Int!) { topChanged(seasonId: $s, limit: 5) { rank playerId } }', {
      s: seasonId,
    });
    await tops.waitFor('the live top 5', (e) => JSON.stringify(e.data?.topChanged) === JSON.stringify(top5));
    expect((await api.s.redis.keys(`lb:{s${seasonId}}*`)).length).toBe(4); // 3 boards and their versions

    expect((await api.gql(CLOSE, { id: seasonId }, submitter)).errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect((await api.gql(CLOSE, { id: seasonId })).errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    const closed = await api.gql(CLOSE, { id: seasonId }, admin);
    expect(closed).toMatchObject({ data: { closeSeason: { id: seasonId, status: 'CLOSED' } } });

    expect(await api.s.redis.keys(`lb:{s${seasonId}}*`)).toEqual([]);
    expect(await readAll(seasonId)).toEqual(before);
    // A topChanged subscription open across the close keeps the final top (read from PostgreSQL now).
    // Nothing to wait for: a window of one top cache refresh (1 s) and a margin, in which it must not change.
    await new Promise((r) => setTimeout(r, 1_500));
    expect(tops.events.at(-1)?.data?.topChanged).toEqual(top5);
    tops.close();
    const late = await api.gql(
      SUBMIT,
      { input: { matchId: randomUUID(), seasonId, endedAt, results: [{ playerId: P(1), points: 99 }] } },
      submitter,
    );
    expect(late.errors?.[0]?.extensions?.code).toBe('SEASON_CLOSED');
    // Idempotent: closing again changes nothing.
    expect(await api.gql(CLOSE, { id: seasonId }, admin)).toMatchObject({
      data: { closeSeason: { status: 'CLOSED' } },
    });
    expect(await readAll(seasonId)).toEqual(before);
    const audit = await api.s.pg.sql<Array<{ action: string; actor: string; reason: string }>>`
      select action, actor, reason from admin_audit where season_id = ${seasonId} order by id`;
    expect(audit.map((a) => [a.action, a.actor])).toEqual([
      ['close_season', 'test admin'],
      ['finalize_season', 'test admin'],
    ]);
    expect(audit[0]!.reason).toMatch(/^closeSeason mutation \(API key \d+\)$/);
  });

  it('answers SEASON_NOT_FOUND for an unknown season', async () => {
    expect((await api.gql(CLOSE, { id: 987_654_321 }, admin)).errors?.[0]?.extensions?.code).toBe('SEASON_NOT_FOUND');
  });
});
