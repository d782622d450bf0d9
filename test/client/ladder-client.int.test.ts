// The typed client (src/client/ladder-client.ts) against a real ladder: every operation, the
// four subscriptions, reads and subscriptions within a scope (a region, a group), a season's
// clans ranked, a closed season's rewards pushed, listed and claimed, and retries that resend the
// same matchId. UNAVAILABLE is injected by a small HTTP server in front of the real API that
// refuses the first requests the way the API does while it starts (503, code UNAVAILABLE), then
// forwards.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import WebSocket from 'ws';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  createLadderClient,
  LadderError,
  type Entry,
  type LadderClient,
  type Reward,
} from '../../src/client/ladder-client.js';
import { minutesFromNow, startApi, type TestApi } from '../support/api.js';
import { freePort } from '../support/process.js';
import { createSeason, waitFor } from '../support/services.js';

let api: TestApi;
let client: LadderClient;
let seasonId: number;
const servers: Server[] = [];

beforeAll(async () => {
  api = await startApi();
  client = createLadderClient({ url: api.url, apiKey: await api.key('submit'), webSocketImpl: WebSocket });
  seasonId = (await createSeason(api.s, { maxPointsPerMatch: 1000 })).id;
});
afterAll(async () => {
  for (const s of servers) s.close();
  await client?.close();
  await api?.close();
});

const match = (results: Array<[string, number]>, matchId = randomUUID()) => ({
  matchId,
  seasonId,
  endedAt: minutesFromNow(-1),
  results: results.map(([playerId, points]) => ({ playerId, points, displayName: `P${playerId.slice(-2)}` })),
});
const ranks = (entries: Entry[]) => entries.map((e) => [e.rank, e.playerId, e.points]);

it('reads, submits and follows a board with typed operations', async () => {
  const tops: Entry[][] = [];
  const moves: Entry[] = [];
  const records: Array<{ playerId: string; rank: number }> = [];
  const stops = [
    client.topChanged({ seasonId, limit: 3 }, (top) => tops.push(top)),
    client.rankChanged({ seasonId, playerId: '850000000001' }, (e) => moves.push(e)),
    client.recordUpdated({ seasonId }, (r) => records.push(r)),
  ];
  await waitFor('the first topChanged', async () => tops.length > 0, 10_000);
  expect(await client.season(seasonId)).toMatchObject({ id: seasonId, status: 'ACTIVE', maxPointsPerMatch: 1000 });
  expect((await client.seasons({ status: 'ACTIVE' })).map((s) => s.id)).toContain(seasonId);

  const payload = await client.submitMatchResult(
    match([
      ['850000000001', 30],
      ['850000000002', 50],
      ['850000000003', 40],
    ]),
  );
  expect(payload.accepted).toBe(3);
  await waitFor('the match on the board', async () => (await client.top({ seasonId }))?.size === 3, 10_000);
  await waitFor(
    'the cached top to follow',
    async () => (await client.top({ seasonId, limit: 10 }))!.top.length === 3,
    10_000,
  );
  const board = (await client.top({ seasonId, limit: 10 }))!;
  expect(ranks(board.top)).toEqual([
    [1, '850000000002', 50],
    [2, '850000000003', 40],
    [3, '850000000001', 30],
  ]);
  expect(board.top[0]!.player?.displayName).toBe('P02');
  expect((await client.entry({ seasonId, playerId: '850000000003' }))!.entry).toMatchObject({ rank: 2, points: 40 });
  expect((await client.entry({ seasonId, playerId: '850000000009' }))!.entry).toBeNull();
  // Filled at the edges: the last player and the two above.
  expect(ranks((await client.around({ seasonId, playerId: '850000000001', radius: 1 }))!.around)).toEqual(
    ranks(board.top),
  );
  expect(
    ranks((await client.friends({ seasonId, playerIds: ['850000000001', '850000000002', '850000000009'] }))!.friends),
  ).toEqual([
    [1, '850000000002', 50],
    [3, '850000000001', 30],
  ]);
  expect(await client.top({ seasonId: 2_000_000_000 })).toBeNull();

  await waitFor('topChanged with the match', async () => tops.some((t) => t.length === 3), 10_000);
  await waitFor('rankChanged of player 01', async () => moves.some((e) => e.rank === 3), 10_000);
  await waitFor('recordUpdated for all three', async () => records.length >= 3, 10_000);
  // Overtaken: player 01 rises to the top, and rankChanged follows.
  await client.submitMatchResult(match([['850000000001', 60]]));
  await waitFor('rankChanged to 1', async () => moves.at(-1)?.rank === 1, 10_000);
  await waitFor('topChanged with 01 first', async () => tops.at(-1)?.[0]?.playerId === '850000000001', 10_000);
  for (const stop of stops) stop();
});

it('reads and follows a board within a scope, each entry with its global rank', async () => {
  const own = (await createSeason(api.s, { maxPointsPerMatch: 1000 })).id;
  const P = (n: number) => String(850_000_000_200 + n);
  const br = { region: 'BR' };
  const bears = { group: 'bears' };
  /** [rank, playerId, globalRank] of each entry. */
  const placed = (entries: Entry[]) => entries.map((e) => [e.rank, e.playerId, e.globalRank]);
  const tops: Entry[][] = [];
  const moves: Entry[] = [];
  const stops = [
    client.topChanged({ seasonId: own, scope: br, limit: 3 }, (top) => tops.push(top)),
    client.rankChanged({ seasonId: own, scope: bears, playerId: P(4) }, (e) => moves.push(e)),
  ];
  // Scopes travel with the results; ingest applies each before the result it came with.
  await client.submitMatchResult({
    matchId: randomUUID(),
    seasonId: own,
    endedAt: minutesFromNow(-1),
    results: [
      { playerId: P(1), points: 500, scopes: { region: 'BR-SP', groups: ['wolves'] } },
      { playerId: P(2), points: 400, scopes: { region: 'US', groups: ['wolves', 'bears'] } },
      { playerId: P(3), points: 300, scopes: { region: 'BR' } },
      { playerId: P(4), points: 200, scopes: { region: 'BR-RJ', groups: ['bears'] } },
      { playerId: P(5), points: 100 },
    ],
  });
  await waitFor(
    'the match on the BR board',
    async () => (await client.top({ seasonId: own, scope: br }))?.top.length === 3,
    10_000,
  );

  // BR holds its subdivisions: ranks within it, global ranks on the whole board of five.
  const top = (await client.top({ seasonId: own, scope: br }))!;
  expect([top.size, placed(top.top)]).toEqual([
    3,
    [
      [1, P(1), 1],
      [2, P(3), 3],
      [3, P(4), 4],
    ],
  ]);
  expect((await client.entry({ seasonId: own, scope: br, playerId: P(4) }))!.entry).toMatchObject({
    rank: 3,
    globalRank: 4,
    percentile: 100,
  });
  expect((await client.entry({ seasonId: own, scope: br, playerId: P(2) }))!.entry).toBeNull(); // in US
  expect(placed((await client.around({ seasonId: own, scope: br, playerId: P(3), radius: 1 }))!.around)).toEqual(
    placed(top.top),
  );
  const friendIds = [P(1), P(2), P(4), P(5)];
  expect(placed((await client.friends({ seasonId: own, scope: bears, playerIds: friendIds }))!.friends)).toEqual([
    [1, P(2), 2],
    [2, P(4), 4],
  ]);
  const page = (await client.friendsPage({
    seasonId: own,
    scope: { group: 'wolves' },
    playerIds: friendIds,
    first: 1,
  }))!;
  expect([placed(page.entries), page.ranked, page.hasNextPage]).toEqual([[[1, P(1), 1]], 2, true]);
  expect(await client.cutoff({ seasonId: own, scope: br, rank: 2 })).toMatchObject({
    size: 3,
    cutoff: { points: 300 },
  });
  // Without a scope, as before: the whole board, where the global rank is the rank.
  const whole = (await client.top({ seasonId: own }))!;
  expect(whole.size).toBe(5);
  expect(whole.top.every((e) => e.globalRank === e.rank)).toBe(true);
  expect((await client.entry({ seasonId: own, playerId: P(4) }))!.entry).toMatchObject({ rank: 4, globalRank: 4 });

  expect(await client.playerScopes(P(2))).toEqual({ playerId: P(2), region: 'US', groups: ['bears', 'wolves'] });
  expect(await client.playerScopes(P(5))).toBeNull();

  // Live within the scope: 4 climbs to 450, first among bears (over 2's 400), second in BR.
  await waitFor('the BR top pushed', async () => tops.some((t) => t.length === 3), 10_000);
  await waitFor('the rank of 4 among bears', async () => moves.at(-1)?.rank === 2, 10_000);
  expect(placed([moves.at(-1)!])).toEqual([[2, P(4), 4]]);
  await client.submitMatchResult({
    matchId: randomUUID(),
    seasonId: own,
    endedAt: minutesFromNow(-1),
    results: [{ playerId: P(4), points: 450 }],
  });
  await waitFor('4 first among bears', async () => moves.at(-1)?.rank === 1, 10_000);
  expect(moves.at(-1)).toMatchObject({ playerId: P(4), points: 450, globalRank: 2 });
  await waitFor('4 second in BR', async () => tops.at(-1)?.[1]?.playerId === P(4), 10_000);
  expect(placed(tops.at(-1)!)).toEqual([
    [1, P(1), 1],
    [2, P(4), 2],
    [3, P(3), 4],
  ]);
  for (const stop of stops) stop();
});

it("ranks a season's clans by their members' total, with the board's options", async () => {
  const own = (await createSeason(api.s, { maxPointsPerMatch: 1000 })).id;
  const P = (n: number) => String(850_000_000_300 + n);
  const results = (rows: Array<[number, number, string[]?]>) =>
    client.submitMatchResult({
      matchId: randomUUID(),
      seasonId: own,
      endedAt: minutesFromNow(-1),
      results: rows.map(([n, points, groups]) => ({ playerId: P(n), points, scopes: groups && { groups } })),
    });
  // 2 is in both clans: their points count for each. 4 is in none.
  await results([
    [1, 500, ['wolves']],
    [2, 300, ['wolves', 'bears']],
    [3, 450, ['bears']],
    [4, 100],
  ]);
  const standings = async (options: Parameters<LadderClient['groups']>[1] = {}) =>
    (await client.groups(own, options))?.map((g) => [g.rank, g.group, g.points, g.members]);
  await waitFor('both clans ranked', async () => (await standings())?.length === 2, 10_000);
  expect(await standings()).toEqual([
    [1, 'wolves', 800, 2],
    [2, 'bears', 750, 2],
  ]);
  // `first` cuts the list; the week's board (every result of this test is this week's) has the same totals.
  expect(await standings({ first: 1 })).toEqual([[1, 'wolves', 800, 2]]);
  expect(await standings({ window: 'WEEK' })).toEqual(await standings());
  // A clan's own board is the top within it.
  expect((await client.top({ seasonId: own, scope: { group: 'bears' } }))!.top.map((e) => e.playerId)).toEqual([
    P(3),
    P(2),
  ]);

  // Live: 3 raises bears past wolves.
  await results([[3, 600]]);
  await waitFor('bears first', async () => (await standings())?.[0]?.[1] === 'bears', 10_000);
  expect(await standings()).toEqual([
    [1, 'bears', 900, 2],
    [2, 'wolves', 800, 2],
  ]);
  expect(await client.groups(2_000_000_000)).toBeNull();
  // An ASC board (lap times) ranks no groups: a sum of times ranks nothing.
  const laps = (await createSeason(api.s, { order: 'ASC', maxPointsPerMatch: 1000 })).id;
  expect(await client.groups(laps)).toEqual([]);
});

it("lists a closed season's rewards, pushes each as it is granted, and claims one idempotently", async () => {
  const admin = await api.key('admin');
  const made = await api.gql(
    'mutation($input: CreateSeasonInput!) { createSeason(input: $input) { id } }',
    {
      input: {
        name: 'rewarded',
        startsAt: minutesFromNow(-60),
        endsAt: minutesFromNow(24 * 60),
        maxPointsPerMatch: 1000,
        rewards: [
          { name: 'champion', fromRank: 1, reward: { gems: 500 } },
          { name: 'everyone', everyone: true, reward: { badge: 's1' } },
        ],
      },
    },
    admin,
  );
  expect(made.errors).toBeUndefined();
  const own = made.data!['createSeason'].id as number;
  const P = (n: number) => String(850_000_000_400 + n);
  const pushed: Reward[] = [];
  const stop = client.rewardGranted(P(1), (r) => pushed.push(r));
  await client.submitMatchResult({
    matchId: randomUUID(),
    seasonId: own,
    endedAt: minutesFromNow(-1),
    results: [
      { playerId: P(1), points: 900 },
      { playerId: P(2), points: 700 },
    ],
  });
  await waitFor('the match on the board', async () => (await client.top({ seasonId: own }))?.size === 2, 10_000);
  expect(await client.rewards(P(1), { seasonId: own })).toEqual([]); // nothing before the close

  const closed = await api.gql('mutation($s: Int!) { closeSeason(id: $s) { status } }', { s: own }, admin);
  expect(closed.errors).toBeUndefined();
  // Pushed live (the order of one close's pushes is not promised), and the same in the record.
  await waitFor('both rewards pushed', async () => pushed.length === 2, 10_000);
  stop();
  const byRule = (rs: Reward[]) => [...rs].sort((a, b) => a.rule.localeCompare(b.rule));
  const mine = await client.rewards(P(1), { seasonId: own });
  expect(byRule(pushed)).toEqual(byRule(mine));
  expect(byRule(mine)).toEqual([
    {
      key: `${own}/points/SEASON///${P(1)}/champion`,
      seasonId: own,
      board: 'points',
      window: 'SEASON',
      period: '',
      rule: 'champion',
      scope: null,
      playerId: P(1),
      rank: 1,
      points: 900,
      reward: { gems: 500 },
      grantedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      claimedAt: null,
    },
    expect.objectContaining({ rule: 'everyone', rank: 1, reward: { badge: 's1' }, claimedAt: null }),
  ]);
  // The second player is everyone's only; `first` cuts the list, a season filters it.
  expect((await client.rewards(P(2), { seasonId: own })).map((r) => [r.rule, r.rank])).toEqual([['everyone', 2]]);
  expect(await client.rewards(P(1), { first: 1 })).toHaveLength(1);
  expect(await client.rewards(P(1), { seasonId: 2_000_000_000 })).toEqual([]);

  // Claimed once: the second claim returns it unchanged, with the first claim's instant.
  const champion = mine.find((r) => r.rule === 'champion')!;
  const first = await client.claimReward(champion.key);
  expect(first.claimedAt).toMatch(/^\d{4}-\d{2}-\d{2}T/);
  expect(await client.claimReward(champion.key)).toEqual(first);
  expect((await client.rewards(P(1), { seasonId: own })).map((r) => [r.rule, r.claimedAt]).sort()).toEqual([
    ['champion', first.claimedAt],
    ['everyone', null],
  ]);
  const unknown = (await client.claimReward(`${champion.key}x`).catch((err: unknown) => err)) as LadderError;
  expect(unknown).toMatchObject({ code: 'BAD_USER_INPUT', retryable: false });
  const noKey = (await createLadderClient({ url: api.url })
    .claimReward(champion.key)
    .catch((err: unknown) => err)) as LadderError;
  expect(noKey.code).toMatch(/UNAUTHENTICATED|FORBIDDEN/);
});

/**
 * A server in front of the API that answers the first `refusals` requests with UNAVAILABLE (or,
 * `timeout`, with a bodiless 408 as Node's request timeout does); records every body.
 */
async function flakyFront(refusals: number, timeout = false) {
  const bodies: string[] = [];
  const server = createServer((req, res) => void answer(req, res));
  async function answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let body = '';
    for await (const chunk of req) body += chunk;
    bodies.push(body);
    if (bodies.length <= refusals && timeout) {
      res.writeHead(408, { connection: 'close' }).end();
      return;
    }
    if (bodies.length <= refusals) {
      res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' }).end(
        JSON.stringify({
          errors: [{ message: 'ladder is starting; retry shortly', extensions: { code: 'UNAVAILABLE' } }],
        }),
      );
      return;
    }
    const answer = await fetch(api.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: req.headers.authorization ?? '' },
      body,
    });
    res.writeHead(answer.status, { 'content-type': 'application/json' }).end(await answer.text());
  }
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`, bodies };
}

it('retries UNAVAILABLE with the same matchId until accepted', async () => {
  const front = await flakyFront(2);
  const flaky = createLadderClient({ url: front.url, apiKey: await api.key('submit') });
  const retries: string[] = [];
  const input = match([['850000000004', 10]]);
  const payload = await flaky.submitMatchResult(input, { onRetry: (err) => retries.push(err.code) });
  expect(payload).toEqual({ matchId: input.matchId, accepted: 1 });
  expect(retries).toEqual(['UNAVAILABLE', 'UNAVAILABLE']);
  expect(front.bodies.map((b) => JSON.parse(b).variables.input.matchId)).toEqual([
    input.matchId,
    input.matchId,
    input.matchId,
  ]);
});

it('retries a 408 (the server never ran the request) with the same matchId', async () => {
  const front = await flakyFront(1, true);
  const flaky = createLadderClient({ url: front.url, apiKey: await api.key('submit') });
  const retries: string[] = [];
  const input = match([['850000000006', 10]]);
  expect(await flaky.submitMatchResult(input, { onRetry: (err) => retries.push(err.code) })).toEqual({
    matchId: input.matchId,
    accepted: 1,
  });
  expect(retries).toEqual(['NETWORK']);
  expect(front.bodies.map((b) => JSON.parse(b).variables.input.matchId)).toEqual([input.matchId, input.matchId]);
});

it('gives up after the attempts allowed, and does not retry what a retry cannot fix', async () => {
  const front = await flakyFront(100);
  const flaky = createLadderClient({ url: front.url, apiKey: await api.key('submit') });
  const refused = await flaky
    .submitMatchResult(match([['850000000005', 10]]), { attempts: 3 })
    .catch((err: unknown) => err);
  expect(refused).toBeInstanceOf(LadderError);
  expect(refused).toMatchObject({ code: 'UNAVAILABLE', retryable: true });
  expect(front.bodies).toHaveLength(3);

  const noKey = createLadderClient({ url: api.url });
  const forbidden = (await noKey
    .submitMatchResult(match([['850000000005', 10]]))
    .catch((err: unknown) => err)) as LadderError;
  expect(forbidden.retryable).toBe(false);
  expect(forbidden.code).toMatch(/UNAUTHENTICATED|FORBIDDEN/);
  const tooMany = (await client
    .submitMatchResult(match([['850000000005', 5000]]))
    .catch((err: unknown) => err)) as LadderError;
  expect(tooMany).toMatchObject({ code: 'POINTS_OUT_OF_RANGE', retryable: false });

  const down = createLadderClient({ url: `http://127.0.0.1:${await freePort()}/graphql` });
  const lost = (await down.top({ seasonId }, { attempts: 2 }).catch((err: unknown) => err)) as LadderError;
  expect(lost).toMatchObject({ code: 'NETWORK', retryable: true });
  expect(lost.message).toMatch(/network error \(ECONNREFUSED\)/);
});

it("reports a subscription the server refuses with the server's code", async () => {
  const own = createLadderClient({ url: api.url, webSocketImpl: WebSocket });
  try {
    // One socket per client, at most 20 subscriptions per socket (server limits): the 21st is refused.
    const errors: LadderError[] = [];
    for (let i = 0; i < 21; i++)
      own.recordUpdated(
        { seasonId, playerId: String(850_000_000_100 + i) },
        () => {},
        (err) => errors.push(err),
      );
    await waitFor('the refusal', async () => errors.length > 0, 10_000);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ code: 'RATE_LIMITED', retryable: true });
  } finally {
    await own.close();
  }
});
