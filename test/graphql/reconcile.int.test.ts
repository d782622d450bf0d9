import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boardKey } from '../../src/redis/keys.js';
import { seasonBoard } from '../../src/domain/board.js';
import { minutesFromNow, startApi, type TestApi } from '../support/api.js';
import { startRedisServer } from '../support/redis-server.js';
import { waitFor } from '../support/services.js';

// A private redis-server: the test removes a member from a board behind the service's back.
let redisServer: Awaited<ReturnType<typeof startRedisServer>>;
let api: TestApi;
let admin: string;
let submitter: string;

beforeAll(async () => {
  redisServer = await startRedisServer();
  api = await startApi({ REDIS_URL: redisServer.url });
  [admin, submitter] = await Promise.all([api.key('admin'), api.key('submit')]);
});
afterAll(async () => {
  await api?.close();
  await redisServer?.stop();
});

const RECONCILE = `mutation($s: Int!, $repair: Boolean) { reconcileLeaderboard(seasonId: $s, repair: $repair) {
  seasonId repair durationMs
  boards { window period pgCount redisCount missing extra different repaired redisScanned missingSample }
  total { pgCount redisCount missing extra different repaired unencodable missingSample extraSample differentSample }
} }`;

async function seasonWithResults(): Promise<number> {
  const created = await api.gql(
    `mutation($input: CreateSeasonInput!) { createSeason(input: $input) { id } }`,
    {
      input: {
        name: 'reconcile e2e',
        startsAt: minutesFromNow(-3 * 24 * 60),
        endsAt: minutesFromNow(30 * 24 * 60),
        scoring: 'BEST',
        maxPointsPerMatch: 1000,
      },
    },
    admin,
  );
  const seasonId = created.data!.createSeason.id as number;
  const submitted = await api.gql(
    `mutation($input: MatchResultInput!) { submitMatchResult(input: $input) { accepted } }`,
    {
      input: {
        matchId: randomUUID(),
        seasonId,
        endedAt: minutesFromNow(-5),
        results: [
          { playerId: '700000000001', points: 10 },
          { playerId: '700000000002', points: 20 },
          { playerId: '700000000003', points: 30 },
        ],
      },
    },
    submitter,
  );
  expect(submitted.errors).toBeUndefined();
  await waitFor(
    'the match on the board',
    async () => (await api.s.redis.zcard(boardKey(seasonBoard({ id: seasonId })))) === 3,
  );
  return seasonId;
}

describe('reconcileLeaderboard', () => {
  it('needs an admin key', async () => {
    const none = await api.gql(RECONCILE, { s: 1 });
    expect(none.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    const submitOnly = await api.gql(RECONCILE, { s: 1 }, submitter);
    expect(submitOnly.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    const unknown = await api.gql(RECONCILE, { s: 999_999_999 }, admin);
    expect(unknown.errors?.[0]?.extensions?.code).toBe('SEASON_NOT_FOUND');
  });

  it('reports a clean season, then a removed member, repairs it on request and shows the drift in /metrics', async () => {
    const seasonId = await seasonWithResults();
    const clean = await api.gql(RECONCILE, { s: seasonId }, admin);
    expect(clean.errors).toBeUndefined();
    const report = clean.data!.reconcileLeaderboard;
    expect(report).toMatchObject({
      seasonId,
      repair: false,
      total: { pgCount: 9, redisCount: 9, missing: 0, extra: 0, different: 0 },
    });
    expect(report.boards.map((b: { window: string }) => b.window)).toEqual(['SEASON', 'DAY', 'WEEK']);

    await api.s.redis.zrem(boardKey(seasonBoard({ id: seasonId })), '700000000002');
    const found = await api.gql(RECONCILE, { s: seasonId }, admin);
    expect(found.data!.reconcileLeaderboard.total).toMatchObject({
      missing: 1,
      repaired: 0,
      missingSample: ['700000000002'],
    });
    expect(found.data!.reconcileLeaderboard.boards[0]).toMatchObject({
      window: 'SEASON',
      pgCount: 3,
      redisCount: 2,
      missing: 1,
      redisScanned: true,
    });

    const repaired = await api.gql(RECONCILE, { s: seasonId, repair: true }, admin);
    expect(repaired.data!.reconcileLeaderboard).toMatchObject({ repair: true, total: { missing: 1, repaired: 1 } });
    const top = await api.gql(
      `{ leaderboard(seasonId: ${seasonId}) { size entry(playerId: "700000000002") { rank points } } }`,
    );
    expect(top.data!.leaderboard).toEqual({ size: 3, entry: { rank: 2, points: 20 } });

    const metrics = await (await fetch(`${api.base}/metrics`)).text();
    expect(metrics).toContain(`ladder_reconcile_drift{season="${seasonId}",kind="missing"} 1`);
    expect(metrics).toMatch(/ladder_reconcile_repaired_total \d+/);
    const after = await api.gql(RECONCILE, { s: seasonId }, admin);
    expect(after.data!.reconcileLeaderboard.total).toMatchObject({ missing: 0, extra: 0, different: 0 });
  });
});
