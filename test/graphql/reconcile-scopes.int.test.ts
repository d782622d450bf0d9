// Reconcile covers scope boards (issue 32, item 1): a region's, a clan's and a league cohort's ZSET
// must hold exactly the board's standings of the players in that scope now. Drift is made by hand
// in Redis the way it happens (a stale consumer writing a moved player to the region they left; a
// member lost; a wrong score; a scope board nobody is in), found by reconcileLeaderboard, repaired,
// and the clan's group total is set again; a second reconcile finds nothing.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seasonBoard } from '../../src/domain/board.js';
import { boardKey, groupsKey } from '../../src/redis/keys.js';
import { startApi, type TestApi } from '../support/api.js';
import { uniqueName } from '../support/env.js';
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

const BASE = 779_000_000_000 + Math.floor(Math.random() * 1e6) * 100;
const P = (n: number) => String(BASE + n);
const RECONCILE = `mutation($s: Int!, $repair: Boolean) { reconcileLeaderboard(seasonId: $s, repair: $repair) {
  boards { window scope { region group cohort } scopeBoards missing extra different repaired }
  total { missing extra different repaired } } }`;

type Report = {
  boards: Array<{
    window: string;
    scope: { region: string | null; group: string | null; cohort: string | null } | null;
    scopeBoards: number | null;
    missing: number;
    extra: number;
    different: number;
    repaired: number;
  }>;
  total: { missing: number; extra: number; different: number; repaired: number };
};

describe('reconcile of scope boards', () => {
  it('finds and repairs extra, missing and different members of region, clan and cohort boards', async () => {
    const created = await api.gql(
      'mutation($input: CreateSeasonInput!) { createSeason(input: $input) { id } }',
      {
        input: {
          name: 'scoped reconcile',
          startsAt: new Date(Date.now() - 3_600_000),
          endsAt: new Date(Date.now() + 86_400_000),
          maxPointsPerMatch: 1000,
          windows: ['SEASON'],
          league: { name: uniqueName('rec'), tiers: ['Bronze'], cohortSize: 10, promote: 0, relegate: 0 },
        },
      },
      admin,
    );
    expect(created.errors).toBeUndefined();
    const s = created.data?.['createSeason'].id as number;
    const clan = uniqueName('clan').replace(/[^A-Za-z0-9_.-]/g, '_');
    // Six players: three in BR and the clan, three in US; all in cohort 0.
    const results = Array.from({ length: 6 }, (_, i) => ({
      playerId: P(i),
      points: 100 + i * 10,
      scopes: i < 3 ? { region: 'BR', groups: [clan] } : { region: 'US', groups: [] },
    }));
    const submitted = await api.gql(
      'mutation($input: MatchResultInput!) { submitMatchResult(input: $input) { accepted } }',
      { input: { matchId: randomUUID(), seasonId: s, endedAt: new Date(), results } },
      submitter,
    );
    expect(submitted.errors).toBeUndefined();
    await waitUntilCaughtUp(api.s, 'the match');
    const reconcile = async (repair: boolean) => {
      const res = await api.gql<{ reconcileLeaderboard: Report }>(RECONCILE, { s, repair }, admin);
      expect(res.errors).toBeUndefined();
      return res.data!.reconcileLeaderboard;
    };
    const clean = await reconcile(false);
    expect(clean.total).toEqual({ missing: 0, extra: 0, different: 0, repaired: 0 });
    // BR, US, the clan, the cohort.
    expect(clean.boards).toEqual([expect.objectContaining({ window: 'SEASON', scope: null, scopeBoards: 4 })]);

    const board = seasonBoard({ id: s });
    const key = (scope: string) => boardKey({ ...board, scope });
    const redis = api.s.redis;
    const score = async (id: string) => (await redis.zscore(boardKey(board), id))!;
    const total = async () => Number(await redis.zscore(groupsKey(board), clan));
    const totalBefore = await total();
    // A stale consumer wrote a US player to BR; the clan lost a member (and its total); a cohort
    // score is wrong; a scope board nobody is in holds someone.
    await redis.zadd(key('r:BR'), await score(P(4)), P(4));
    await redis.zrem(key(`g:${clan}`), P(1));
    await redis.zadd(groupsKey(board), totalBefore - 110, clan);
    await redis.zadd(key('c:0.0'), '12345', P(5));
    await redis.zadd(key('r:JP'), await score(P(0)), P(0));

    const found = await reconcile(false);
    expect(found.total).toEqual({ missing: 1, extra: 2, different: 1, repaired: 0 });
    const drifted = found.boards.filter((b) => b.scope).map((b) => [b.scope, b.missing, b.extra, b.different]);
    expect(drifted).toEqual(
      expect.arrayContaining([
        [{ region: 'BR', group: null, cohort: null }, 0, 1, 0],
        [{ region: null, group: clan, cohort: null }, 1, 0, 0],
        [{ region: null, group: null, cohort: '0.0' }, 0, 0, 1],
        [{ region: 'JP', group: null, cohort: null }, 0, 1, 0],
      ]),
    );
    expect(drifted).toHaveLength(4);

    const repaired = await reconcile(true);
    expect(repaired.total).toMatchObject({ repaired: 4 });
    expect(await redis.zrange(key('r:BR'), 0, -1)).toEqual([P(0), P(1), P(2)]);
    expect(await redis.zscore(key(`g:${clan}`), P(1))).toBe(await score(P(1)));
    expect(await redis.zscore(key('c:0.0'), P(5))).toBe(await score(P(5)));
    expect(await redis.exists(key('r:JP'))).toBe(0);
    expect(await total()).toBe(totalBefore);
    expect(totalBefore).toBe(100 + 110 + 120);
    expect((await reconcile(false)).total).toEqual({ missing: 0, extra: 0, different: 0, repaired: 0 });
  }, 60_000);
});
