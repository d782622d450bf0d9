// Scopes (issue 32, item 1): the trusted server sets players' regions and groups, in a submission
// or through setPlayerScopes, and every board answers within a scope, through the real API, Kafka,
// PostgreSQL and Redis. Moves race submissions and every scope board is checked against an
// oracle; a rebuild restores the scope boards; a closed season answers within a scope from
// PostgreSQL.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scopesOf, type PlayerScopes } from '../../src/domain/scopes.js';
import { boardKey } from '../../src/redis/keys.js';
import { errorOf, startApi, type TestApi } from '../support/api.js';
import { waitFor, waitUntilCaughtUp } from '../support/services.js';

let api: TestApi;
let admin: string;
let submitter: string;

const CREATE = 'mutation($input: CreateSeasonInput!) { createSeason(input: $input) { id } }';
const SUBMIT = 'mutation($input: MatchResultInput!) { submitMatchResult(input: $input) { accepted } }';
const SET = `mutation($input: SetPlayerScopesInput!) { setPlayerScopes(input: $input) { playerId region groups } }`;
const READ = `query($s: Int!, $scope: ScopeInput, $p: ID!, $w: Window) {
  leaderboard(seasonId: $s, scope: $scope, window: $w) {
    size scope { region group } top(limit: 100) { playerId rank points globalRank }
    entry(playerId: $p) { rank globalRank percentile } around(playerId: $p, radius: 1) { playerId rank } } }`;

const P = (n: number) => String(733_000_000_000 + n);

async function season(name: string, extra: Record<string, unknown> = {}): Promise<number> {
  const res = await api.gql(
    CREATE,
    {
      input: {
        name,
        startsAt: new Date(Date.now() - 3_600_000),
        endsAt: new Date(Date.now() + 7 * 86_400_000),
        scoring: 'BEST',
        maxPointsPerMatch: 100_000,
        ...extra,
      },
    },
    admin,
  );
  expect(res.errors).toBeUndefined();
  return res.data?.['createSeason'].id as number;
}

const submit = (seasonId: number, results: Array<Record<string, unknown>>) =>
  api.gql(SUBMIT, { input: { matchId: randomUUID(), seasonId, endedAt: new Date(), results } }, submitter);

const read = async (seasonId: number, scope: Record<string, string> | null, playerId: string, window = 'SEASON') => {
  const res = await api.gql(READ, { s: seasonId, scope, p: playerId, w: window });
  expect(res.errors).toBeUndefined();
  return res.data?.['leaderboard'] as {
    size: number;
    scope: { region: string | null; group: string | null } | null;
    top: Array<{ playerId: string; rank: number; points: number; globalRank: number }>;
    entry: { rank: number; globalRank: number; percentile: number } | null;
    around: Array<{ playerId: string; rank: number }>;
  };
};

/** ZRANGE WITHSCORES of a key, as a member → score map. */
async function members(key: string): Promise<Map<string, string>> {
  const flat = await api.s.redis.zrange(key, 0, -1, 'WITHSCORES');
  const out = new Map<string, string>();
  for (let i = 0; i < flat.length; i += 2) out.set(flat[i]!, flat[i + 1]!);
  return out;
}

/**
 * Every scope board of a season's board in Redis holds exactly the board's members whose scopes
 * (as PostgreSQL holds them now) include it, with the board's score: no one in two regions, no
 * one missing, no stale score.
 */
async function expectScopeBoardsExact(seasonId: number, window: 'SEASON' | 'DAY', period: string) {
  const board = { season: { id: seasonId }, window, period };
  const whole = await members(boardKey(board));
  const rows = await api.s.pg.sql<Array<{ id: string; region: string | null; groups: string[]; pending: boolean }>>`
    select player_id::text as id, region, groups, pending from player_scopes
    where player_id = any(${api.s.pg.sql.array([...whole.keys()])}::int8[])`;
  expect(rows.filter((r) => r.pending)).toEqual([]);
  const expected = new Map<string, Map<string, string>>();
  for (const r of rows)
    for (const scope of scopesOf({ region: r.region, groups: r.groups }))
      (expected.get(scope) ?? expected.set(scope, new Map()).get(scope)!).set(r.id, whole.get(r.id)!);
  const prefix = `${boardKey(board)}@`;
  const keys = (await api.s.redis.keys(`${prefix}*`)).filter(
    (k) => !k.endsWith(':rebuild') && !k.endsWith(':retired') && k !== `${prefix}groups`,
  );
  const actual = new Map<string, Map<string, string>>();
  for (const key of keys) {
    const m = await members(key);
    if (m.size > 0) actual.set(key.slice(prefix.length), m);
  }
  expect(new Map([...actual].sort())).toEqual(new Map([...expected].sort()));
}

beforeAll(async () => {
  api = await startApi();
  [admin, submitter] = [await api.key('admin'), await api.key('submit')];
});
afterAll(async () => {
  await api?.close();
});

describe('scopes', () => {
  it('ranks within a region (its subdivisions included) and a group, beside the global rank', async () => {
    const s = await season('scopes reads');
    const res = await submit(s, [
      { playerId: P(1), points: 500, scopes: { region: 'br-sp', groups: ['wolves'] } },
      { playerId: P(2), points: 400, scopes: { region: 'US', groups: ['wolves', 'bears'] } },
      { playerId: P(3), points: 300, scopes: { region: 'BR' } },
      { playerId: P(4), points: 200, scopes: { region: 'BR-RJ', groups: ['bears'] } },
      { playerId: P(5), points: 100 },
    ]);
    expect(res.errors).toBeUndefined();
    await waitUntilCaughtUp(api.s, 'the match');

    const br = await read(s, { region: 'BR' }, P(4));
    expect(br.scope).toEqual({ region: 'BR', group: null });
    expect(br.size).toBe(3);
    expect(br.top.map((e) => [e.playerId, e.rank, e.globalRank])).toEqual([
      [P(1), 1, 1],
      [P(3), 2, 3],
      [P(4), 3, 4],
    ]);
    expect(br.entry).toEqual({ rank: 3, globalRank: 4, percentile: expect.any(Number) });
    expect(br.around.map((e) => e.playerId)).toEqual([P(1), P(3), P(4)]);

    const sp = await read(s, { region: 'BR-SP' }, P(1));
    expect(sp.top.map((e) => e.playerId)).toEqual([P(1)]);
    const bears = await read(s, { group: 'bears' }, P(4));
    expect(bears.top.map((e) => [e.playerId, e.rank, e.points])).toEqual([
      [P(2), 1, 400],
      [P(4), 2, 200],
    ]);
    // A scope nobody is in is an empty board, not an error; the whole board is as before.
    expect((await read(s, { region: 'JP' }, P(1))).size).toBe(0);
    const everyone = await read(s, null, P(5));
    expect([everyone.size, everyone.scope, everyone.entry?.globalRank]).toEqual([5, null, 5]);

    const scopes = await api.gql(`query($p: ID!) { playerScopes(playerId: $p) { region groups } }`, { p: P(2) });
    expect(scopes.data?.['playerScopes']).toEqual({ region: 'US', groups: ['bears', 'wolves'] });
  });

  it("removes a cheater's results from their scope boards too", async () => {
    const s = await season('scopes removal');
    await submit(s, [
      { playerId: P(21), points: 900, scopes: { region: 'CL', groups: ['foxes'] } },
      { playerId: P(22), points: 100, scopes: { region: 'CL' } },
    ]);
    await waitUntilCaughtUp(api.s, 'the match');
    const removed = await api.gql(
      `mutation($input: RemovePlayerResultsInput!) { removePlayerResults(input: $input) { removedResults } }`,
      { input: { seasonId: s, playerId: P(21), reason: 'aimbot' } },
      admin,
    );
    expect(removed.data?.['removePlayerResults']).toEqual({ removedResults: 1 });
    expect((await read(s, { region: 'CL' }, P(22))).top.map((e) => [e.playerId, e.rank])).toEqual([[P(22), 1]]);
    expect((await read(s, { group: 'foxes' }, P(21))).size).toBe(0);
  });

  it('refuses bad scopes with a stable code and field', async () => {
    const s = await season('scopes input');
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ region: 'Brazil' }, 'region'],
      [{ region: 'B1' }, 'region'],
      [{ groups: ['has space'] }, 'group'],
      [{ groups: Array.from({ length: 9 }, (_, i) => `g${i}`) }, 'groups'],
    ];
    for (const [scopes, field] of cases) {
      const res = await submit(s, [{ playerId: P(10), points: 1, scopes }]);
      expect(errorOf(res), JSON.stringify(scopes)).toEqual(['BAD_USER_INPUT', field]);
    }
    const both = await api.gql(READ, { s, scope: { region: 'BR', group: 'x' }, p: P(10) });
    expect(errorOf(both)).toEqual(['BAD_USER_INPUT', 'scope']);
    const set = await api.gql(SET, { input: { playerId: P(10), region: 'XX1' } }, submitter);
    expect(errorOf(set)[0]).toBe('FORBIDDEN');
  });

  it('moves standings exactly while ingest runs: every scope board equals the oracle', async () => {
    const s = await season('scopes race', { windows: ['SEASON', 'DAY'] });
    const regions = ['BR', 'BR-SP', 'US', 'DE', null];
    const groups = ['a', 'b', 'c'];
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(Math.random() * xs.length)]!;
    const randomScopes = (): PlayerScopes => ({
      region: pick(regions),
      groups: groups.filter(() => Math.random() < 0.4),
    });
    // One worker per player: its steps are in order, the players' run side by side.
    const players = Array.from({ length: 40 }, (_, i) => P(100 + i));
    const finals = new Map<string, PlayerScopes>();
    await Promise.all(
      players.map(async (playerId) => {
        for (let step = 0; step < 8; step++) {
          const r = Math.random();
          if (r < 0.35) {
            const scopes = randomScopes();
            const res = await api.gql(SET, { input: { playerId, ...scopes } }, admin);
            expect(res.errors).toBeUndefined();
            finals.set(playerId, scopes);
          } else if (r < 0.5) {
            const scopes = randomScopes();
            const res = await submit(s, [{ playerId, points: Math.floor(Math.random() * 1000), scopes }]);
            expect(res.errors).toBeUndefined();
            finals.set(playerId, scopes);
          } else {
            const res = await submit(s, [{ playerId, points: Math.floor(Math.random() * 1000) }]);
            expect(res.errors).toBeUndefined();
          }
        }
      }),
    );
    await waitUntilCaughtUp(api.s, 'results and moves', 60_000);
    const stored = await api.gql(`query($p: ID!) { playerScopes(playerId: $p) { region groups } }`, {
      p: [...finals.keys()][0],
    });
    const [first, want] = [...finals][0]!;
    expect(stored.data?.['playerScopes'], first).toEqual({ region: want.region, groups: [...want.groups].sort() });
    const today = new Date().toISOString().slice(0, 10);
    await expectScopeBoardsExact(s, 'SEASON', '');
    await expectScopeBoardsExact(s, 'DAY', today);

    // The GraphQL reads agree with the boards: ranks within BR are the whole board's order.
    const whole = await read(s, null, players[0]!);
    const inBr = new Set([...finals].filter(([, f]) => f.region === 'BR' || f.region === 'BR-SP').map(([id]) => id));
    const br = await read(s, { region: 'BR' }, players[0]!);
    expect(br.top.map((e) => e.playerId)).toEqual(whole.top.map((e) => e.playerId).filter((id) => inBr.has(id)));

    // A rebuild from PostgreSQL brings back a scope board Redis lost, and keeps the rest exact.
    await api.s.redis.del(`${boardKey({ season: { id: s }, window: 'SEASON', period: '' })}@r:BR`);
    const rebuilt = await api.gql(`mutation($s: Int!) { rebuildLeaderboard(seasonId: $s) { boards } }`, { s }, admin);
    expect(rebuilt.errors).toBeUndefined();
    await expectScopeBoardsExact(s, 'SEASON', '');
    await expectScopeBoardsExact(s, 'DAY', today);
  }, 120_000);

  it('answers within a scope after the season closed, from PostgreSQL, and pushes scoped tops live', async () => {
    const s = await season('scopes closed', { rankStyle: 'COMPETITION' });
    const live = api.subscribe(
      `subscription($s: Int!) { topChanged(seasonId: $s, scope: { group: "owls" }, limit: 3) { playerId rank } }`,
      { s },
    );
    expect(
      (
        await submit(s, [
          { playerId: P(201), points: 90, scopes: { region: 'FR', groups: ['owls'] } },
          { playerId: P(202), points: 90, scopes: { region: 'DE' } },
          { playerId: P(203), points: 50, scopes: { region: 'FR', groups: ['owls'] } },
          { playerId: P(204), points: 10, scopes: { region: 'FR' } },
        ])
      ).errors,
    ).toBeUndefined();
    const pushed = await live.waitFor('the owls top', (e) => (e.data?.['topChanged'] ?? []).length === 2);
    expect(pushed.data?.['topChanged']).toEqual([
      { playerId: P(201), rank: 1 },
      { playerId: P(203), rank: 2 },
    ]);
    live.close();
    await waitUntilCaughtUp(api.s, 'the match');
    const before = await read(s, { region: 'FR' }, P(204));
    const closed = await api.gql(`mutation($s: Int!) { closeSeason(id: $s) { status } }`, { s }, admin);
    expect(closed.errors).toBeUndefined();
    await waitFor('the close', async () => (await read(s, null, P(204))).size === 4 && !!(await isFinal(s)));
    const after = await read(s, { region: 'FR' }, P(204));
    expect(after).toEqual(before);
    expect(after.top.map((e) => [e.playerId, e.rank, e.globalRank])).toEqual([
      [P(201), 1, 1],
      [P(203), 2, 3],
      [P(204), 3, 4],
    ]);
  });
});

const isFinal = async (s: number) =>
  (await api.s.pg.sql`select 1 from seasons where id = ${s} and finalized_at is not null`).length > 0;
