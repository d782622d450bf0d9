import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { minutesFromNow, startApi, type TestApi } from '../support/api.js';
import { produceRaw, readTopic, waitFor } from '../support/services.js';

let api: TestApi;
let admin: string;
let submitter: string;

beforeAll(async () => {
  // A short block cache: the settle pass of a removal runs 1.2 s after it.
  api = await startApi({ BLOCKED_PLAYERS_CACHE_MS: '200' });
  admin = await api.key('admin');
  submitter = await api.key('submit');
});
afterAll(async () => {
  await api?.close();
});

const REMOVE = `mutation($input: RemovePlayerResultsInput!) { removePlayerResults(input: $input) {
  seasonId playerId matchId removedResults blocked auditId boards { window period removed points } } }`;
const SUBMIT = 'mutation($input: MatchResultInput!) { submitMatchResult(input: $input) { accepted } }';

async function createSeason(): Promise<number> {
  const res = await api.gql(
    `mutation($input: CreateSeasonInput!) { createSeason(input: $input) { id } }`,
    {
      input: {
        name: 'cheaters',
        startsAt: minutesFromNow(-3 * 24 * 60),
        endsAt: minutesFromNow(30 * 24 * 60),
        scoring: 'BEST',
        maxPointsPerMatch: 1000,
      },
    },
    admin,
  );
  expect(res.errors).toBeUndefined();
  return res.data!.createSeason.id;
}

function submitRaw(seasonId: number, results: Array<[string, number]>, endedAt = minutesFromNow(-1)) {
  return api.gql(
    SUBMIT,
    {
      input: {
        matchId: randomUUID(),
        seasonId,
        endedAt,
        results: results.map(([playerId, points]) => ({ playerId, points })),
      },
    },
    submitter,
  );
}

async function submit(seasonId: number, results: Array<[string, number]>): Promise<void> {
  const res = await submitRaw(seasonId, results);
  expect(res.errors).toBeUndefined();
}

async function topIds(seasonId: number): Promise<string[]> {
  const res = await api.gql(`{ leaderboard(seasonId: ${seasonId}) { top(limit: 10) { playerId } } }`);
  return res.data!.leaderboard.top.map((e: { playerId: string }) => e.playerId);
}

describe('removing and blocking cheaters through GraphQL', () => {
  it('removes a cheater: the player they overtook climbs back, and rankChanged tells them so over graphql-ws', async () => {
    const seasonId = await createSeason();
    const [hero, runnerUp, cheater] = ['810000000001', '810000000002', '810000000666'];
    await submit(seasonId, [
      [hero, 50],
      [runnerUp, 40],
    ]);
    await waitFor('the honest match', async () => (await topIds(seasonId)).length === 2);
    const ranks = api.subscribe(
      `subscription($s: Int!, $p: ID!) { rankChanged(seasonId: $s, playerId: $p) { rank points } }`,
      { s: seasonId, p: hero },
    );
    await ranks.waitFor('hero first', (e) => e.data?.rankChanged.rank === 1);

    await submit(seasonId, [[cheater, 1000]]);
    await ranks.waitFor('hero overtaken', (e) => e.data?.rankChanged.rank === 2);
    await waitFor(
      'the cheater on top',
      async () => (await topIds(seasonId)).join() === [cheater, hero, runnerUp].join(),
      3_000,
    );

    const res = await api.gql(REMOVE, { input: { seasonId, playerId: cheater, reason: 'aimbot' } }, admin);
    expect(res.errors).toBeUndefined();
    expect(res.data!.removePlayerResults).toMatchObject({
      seasonId,
      playerId: cheater,
      matchId: null,
      removedResults: 1,
      blocked: false,
      boards: [
        { window: 'SEASON', removed: true, points: null },
        { window: 'DAY', removed: true },
        { window: 'WEEK', removed: true },
      ],
    });
    // Nobody pushed anything: the rank watcher's next poll sees the board change by itself.
    await ranks.waitFor('hero restored', (e) => e.data?.rankChanged.rank === 1 && ranks.events.indexOf(e) > 1, 5_000);
    expect(ranks.events.map((e) => e.data?.rankChanged.rank)).toEqual([1, 2, 1]);
    await waitFor(
      'the cached top without the cheater',
      async () => (await topIds(seasonId)).join() === [hero, runnerUp].join(),
      3_000,
    );

    const [audit] = await api.s.pg
      .sql`select actor, action, reason from admin_audit where id = ${res.data!.removePlayerResults.auditId}`;
    expect(audit).toEqual({ actor: 'test admin', action: 'remove_results', reason: 'aimbot' });
  });

  it('blocks with the removal: the API answers PLAYER_BLOCKED and an in-flight Kafka message goes to the DLQ', async () => {
    const seasonId = await createSeason();
    const cheater = '810000000777';
    await submit(seasonId, [
      [cheater, 900],
      ['810000000003', 10],
    ]);
    await waitFor('ingested', async () => (await topIds(seasonId)).length === 2);

    const res = await api.gql(REMOVE, { input: { seasonId, playerId: cheater, reason: 'bot', block: true } }, admin);
    expect(res.data!.removePlayerResults).toMatchObject({ removedResults: 1, blocked: true });

    const refused = await submitRaw(seasonId, [
      ['810000000004', 5],
      [cheater, 950],
    ]);
    expect(refused.errors?.[0]?.extensions).toEqual({ code: 'PLAYER_BLOCKED', field: 'playerId' });
    expect(refused.errors?.[0]?.message).toContain(cheater);

    // Accepted by the API before the block, consumed after it.
    const inFlight = {
      v: 1,
      matchId: randomUUID(),
      seasonId,
      endedAt: minutesFromNow(-1),
      playerId: cheater,
      points: 990,
    };
    await produceRaw(api.s.kafka, api.config.kafka.topic, [{ key: cheater, value: JSON.stringify(inFlight) }]);
    const [dead] = await readTopic(api.s.kafka, api.config.kafka.dlqTopic, 1);
    expect(dead).toMatchObject({
      key: cheater,
      value: JSON.stringify(inFlight),
      headers: { 'x-error-code': 'PLAYER_BLOCKED', 'x-error-field': 'playerId' },
    });
    expect(
      await api.s.pg
        .sql`select 1 from match_results where season_id = ${inFlight.seasonId} and match_id = ${inFlight.matchId}`,
    ).toHaveLength(0);
    await waitFor(
      'the cached top without the cheater',
      async () => (await topIds(seasonId)).join() === '810000000003',
      3_000,
    );
  });

  it('blockPlayer and unblockPlayer: submissions are refused while blocked and accepted after; both audited', async () => {
    const seasonId = await createSeason();
    const player = '810000000888';
    const BLOCK = (op: string) =>
      `mutation($input: PlayerBlockInput!) { ${op}(input: $input) { seasonId playerId blocked changed auditId } }`;
    const input = { seasonId, playerId: player, reason: 'smurf' };
    const blocked = await api.gql(BLOCK('blockPlayer'), { input }, admin);
    expect(blocked.data!.blockPlayer).toMatchObject({ seasonId, playerId: player, blocked: true, changed: true });
    expect((await api.gql(BLOCK('blockPlayer'), { input }, admin)).data!.blockPlayer).toMatchObject({ changed: false });
    expect((await submitRaw(seasonId, [[player, 5]])).errors?.[0]?.extensions?.code).toBe('PLAYER_BLOCKED');

    const unblocked = await api.gql(BLOCK('unblockPlayer'), { input: { ...input, reason: 'appeal accepted' } }, admin);
    expect(unblocked.data!.unblockPlayer).toMatchObject({ blocked: false, changed: true });
    await submit(seasonId, [[player, 5]]);
    const actions = await api.s.pg
      .sql`select action, reason from admin_audit where season_id = ${seasonId} order by id`;
    expect(actions).toEqual([
      { action: 'block_player', reason: 'smurf' },
      { action: 'block_player', reason: 'smurf' },
      { action: 'unblock_player', reason: 'appeal accepted' },
    ]);
  });

  it('needs an API key with scope admin', async () => {
    const input = { seasonId: 1, playerId: '1', reason: 'x' };
    expect((await api.gql(REMOVE, { input }, submitter)).errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect((await api.gql(REMOVE, { input })).errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });

  it.each<[string, Record<string, unknown>, string, string | undefined]>([
    ['an unknown season', { seasonId: 2_000_000_000 }, 'SEASON_NOT_FOUND', 'seasonId'],
    ['a malformed player id', { playerId: 'player-1' }, 'BAD_USER_INPUT', 'playerId'],
    ['a malformed match id', { matchId: '42' }, 'BAD_USER_INPUT', 'matchId'],
    ['a blank reason', { reason: '   ' }, 'BAD_USER_INPUT', 'reason'],
    ['a missing reason', { reason: undefined }, 'BAD_USER_INPUT', undefined],
  ])('answers %s with a clear code', async (_name, over, code, field) => {
    const seasonId = await createSeason();
    const res = await api.gql(REMOVE, { input: { seasonId, playerId: '810000000999', reason: 'r', ...over } }, admin);
    expect(res.data?.removePlayerResults ?? null).toBeNull();
    expect(res.errors?.[0]?.extensions?.code).toBe(code);
    if (field) expect(res.errors?.[0]?.extensions?.field).toBe(field);
  });
});
