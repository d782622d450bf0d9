import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKeysRepo } from '../../src/postgres/api-keys-repo.js';
import { minutesFromNow, startApi, type TestApi } from '../support/api.js';

let api: TestApi;
const keys: Record<'admin' | 'submit' | 'revoked', string> = { admin: '', submit: '', revoked: '' };
const seasons = { open: 0, closed: 0, future: 0 };

beforeAll(async () => {
  api = await startApi();
  keys.admin = await api.key('admin');
  keys.submit = await api.key('submit');
  keys.revoked = await api.key('submit');
  const repo = createApiKeysRepo(api.s.pg.db);
  const revokedId = (await repo.list()).at(-1)!.id;
  await repo.revoke(revokedId);
  const create = async (startsIn: number, endsIn: number) =>
    (
      await api.gql(
        `mutation($i: CreateSeasonInput!) { createSeason(input: $i) { id } }`,
        {
          i: {
            name: 'bad input',
            startsAt: minutesFromNow(startsIn),
            endsAt: minutesFromNow(endsIn),
            scoring: 'BEST',
            maxPointsPerMatch: 100,
          },
        },
        keys.admin,
      )
    ).data!.createSeason.id as number;
  seasons.open = await create(-60 * 24, 60 * 24);
  seasons.closed = await create(-60 * 24, 60 * 24);
  seasons.future = await create(60 * 24, 120 * 24);
  await api.gql(`mutation { closeSeason(id: ${seasons.closed}) { id } }`, undefined, keys.admin);
});
afterAll(async () => {
  await api?.close();
});

const SUBMIT = 'mutation($input: MatchResultInput!) { submitMatchResult(input: $input) { accepted } }';
const match = (over: Record<string, unknown> = {}, result: Record<string, unknown> = {}) => ({
  input: {
    matchId: randomUUID(),
    seasonId: seasons.open,
    endedAt: minutesFromNow(-5),
    results: [{ playerId: '42', points: 10, ...result }],
    ...over,
  },
});
const lb =
  (fields: string, seasonId = () => seasons.open) =>
  () =>
    [`{ leaderboard(seasonId: ${seasonId()}) { ${fields} } }`] as const;

type Case = [
  name: string,
  request: () => readonly [string, Record<string, unknown>?],
  key: keyof typeof keys | null,
  code: string,
  field?: string,
];

const cases: Case[] = [
  ['top limit 0', lb('top(limit: 0) { rank }'), null, 'BAD_USER_INPUT', 'limit'],
  ['top limit 1001', lb('top(limit: 1001) { rank }'), null, 'BAD_USER_INPUT', 'limit'],
  ['top offset -1', lb('top(offset: -1) { rank }'), null, 'BAD_USER_INPUT', 'offset'],
  ['around radius 51', lb('around(playerId: "1", radius: 51) { rank }'), null, 'BAD_USER_INPUT', 'radius'],
  ['around radius -1', lb('around(playerId: "1", radius: -1) { rank }'), null, 'BAD_USER_INPUT', 'radius'],
  [
    '1,001 friends',
    () => [
      'query($ids: [ID!]!) { leaderboard(seasonId: 1) { friends(playerIds: $ids) { rank } } }',
      { ids: Array.from({ length: 1001 }, (_, i) => String(i + 1)) },
    ],
    null,
    'BAD_USER_INPUT',
    'playerIds',
  ],
  ['entry of a non-numeric id', lb('entry(playerId: "abc") { rank }'), null, 'BAD_USER_INPUT', 'playerId'],
  ['entry of player 0', lb('entry(playerId: "0") { rank }'), null, 'BAD_USER_INPUT', 'playerId'],
  [
    'entry of an id past int64',
    lb('entry(playerId: "9223372036854775808") { rank }'),
    null,
    'BAD_USER_INPUT',
    'playerId',
  ],
  ['a string season id', () => ['{ leaderboard(seasonId: "x") { size } }'], null, 'BAD_USER_INPUT'],
  ['an unknown window', () => ['{ leaderboard(seasonId: 1, window: MONTH) { size } }'], null, 'BAD_USER_INPUT'],
  [
    '`at` without a time zone',
    () => ['{ leaderboard(seasonId: 1, at: "2026-11-30T10:00:00") { size } }'],
    null,
    'BAD_USER_INPUT',
  ],
  [
    '`at` on a day that does not exist',
    () => ['{ leaderboard(seasonId: 1, at: "2026-11-31T10:00:00Z") { size } }'],
    null,
    'BAD_USER_INPUT',
  ],
  ['endedAt at hour 24', () => [SUBMIT, match({ endedAt: '2026-11-30T24:00:00Z' })], 'submit', 'BAD_USER_INPUT'],
  ['an unknown field', () => ['{ leaderboard(seasonId: 1) { score } }'], null, 'BAD_USER_INPUT'],
  ['a syntax error', () => ['{ leaderboard(seasonId: 1) { size '], null, 'BAD_USER_INPUT'],
  [
    'a query 9 levels deep',
    () => [
      '{ leaderboard(seasonId: 1) { season { leaderboard { season { leaderboard { season { leaderboard { top { player { id } } } } } } } } } }',
    ],
    null,
    'BAD_USER_INPUT',
  ],
  [
    '16 aliases',
    () => [`{ ${Array.from({ length: 16 }, (_, i) => `a${i}: seasons { id }`).join(' ')} }`],
    null,
    'BAD_USER_INPUT',
  ],
  ['a submission without a key', () => [SUBMIT, match()], null, 'UNAUTHENTICATED'],
  ['a malformed key', () => [SUBMIT, match()], null, 'UNAUTHENTICATED'],
  ['a revoked key', () => [SUBMIT, match()], 'revoked', 'UNAUTHENTICATED'],
  ['an admin key submitting', () => [SUBMIT, match()], 'admin', 'FORBIDDEN'],
  [
    'a submit key creating a season',
    () => [
      'mutation { createSeason(input: { name: "x", startsAt: "2026-01-01T00:00:00Z", endsAt: "2027-01-01T00:00:00Z", scoring: BEST, maxPointsPerMatch: 10 }) { id } }',
    ],
    'submit',
    'FORBIDDEN',
  ],
  [
    'a submit key rebuilding',
    () => [`mutation { rebuildLeaderboard(seasonId: ${seasons.open}) { members } }`],
    'submit',
    'FORBIDDEN',
  ],
  [
    '101 results',
    () => [SUBMIT, match({ results: Array.from({ length: 101 }, (_, i) => ({ playerId: String(i + 1), points: 1 })) })],
    'submit',
    'BAD_USER_INPUT',
    'results',
  ],
  ['no results', () => [SUBMIT, match({ results: [] })], 'submit', 'BAD_USER_INPUT', 'results'],
  ['an unknown season', () => [SUBMIT, match({ seasonId: 999_999 })], 'submit', 'SEASON_NOT_FOUND'],
  ['a closed season', () => [SUBMIT, match({ seasonId: seasons.closed })], 'submit', 'SEASON_CLOSED'],
  [
    'a season not started',
    () => [SUBMIT, match({ seasonId: seasons.future, endedAt: minutesFromNow(61 * 24) })],
    'submit',
    'SEASON_NOT_STARTED',
  ],
  ['points above the bound', () => [SUBMIT, match({}, { points: 101 })], 'submit', 'POINTS_OUT_OF_RANGE', 'points'],
  ['negative points', () => [SUBMIT, match({}, { points: -1 })], 'submit', 'POINTS_OUT_OF_RANGE', 'points'],
  [
    'endedAt before the season',
    () => [SUBMIT, match({ endedAt: minutesFromNow(-61 * 24) })],
    'submit',
    'TIME_OUT_OF_RANGE',
    'endedAt',
  ],
  [
    'endedAt in the future',
    () => [SUBMIT, match({ endedAt: minutesFromNow(10) })],
    'submit',
    'TIME_OUT_OF_RANGE',
    'endedAt',
  ],
  ['a matchId that is no UUID', () => [SUBMIT, match({ matchId: 'match-1' })], 'submit', 'BAD_USER_INPUT', 'matchId'],
  ['a malformed player id', () => [SUBMIT, match({}, { playerId: '12a' })], 'submit', 'BAD_USER_INPUT', 'playerId'],
  [
    'a player twice in one match',
    () => [
      SUBMIT,
      match({
        results: [
          { playerId: '7', points: 1 },
          { playerId: '7', points: 2 },
        ],
      }),
    ],
    'submit',
    'BAD_USER_INPUT',
    'results',
  ],
  [
    'a 65-character display name',
    () => [SUBMIT, match({}, { displayName: 'x'.repeat(65) })],
    'submit',
    'BAD_USER_INPUT',
    'displayName',
  ],
  ['points as a string', () => [SUBMIT, match({}, { points: '10' })], 'submit', 'BAD_USER_INPUT'],
  [
    'a NUL byte in a player id',
    () => [SUBMIT, match({}, { playerId: '1\u0000' })],
    'submit',
    'BAD_USER_INPUT',
    'playerId',
  ],
  [
    'a season ending before it starts',
    () => [
      'mutation { createSeason(input: { name: "x", startsAt: "2027-01-01T00:00:00Z", endsAt: "2026-01-01T00:00:00Z", scoring: BEST, maxPointsPerMatch: 10 }) { id } }',
    ],
    'admin',
    'BAD_USER_INPUT',
    'endsAt',
  ],
  [
    'max points past the point bits',
    () => [
      'mutation { createSeason(input: { name: "x", startsAt: "2026-01-01T00:00:00Z", endsAt: "2027-12-01T00:00:00Z", scoring: BEST, maxPointsPerMatch: 3000000 }) { id } }',
    ],
    'admin',
    'POINTS_OUT_OF_RANGE',
    'maxPointsPerMatch',
  ],
  [
    'a SUM season ranked ASC',
    () => [
      'mutation { createSeason(input: { name: "x", startsAt: "2026-01-01T00:00:00Z", endsAt: "2027-12-01T00:00:00Z", scoring: SUM, order: ASC, maxPointsPerMatch: 10 }) { id } }',
    ],
    'admin',
    'BAD_USER_INPUT',
    'order',
  ],
  [
    'a season too long for its time bits',
    () => [
      'mutation { createSeason(input: { name: "x", startsAt: "2026-01-01T00:00:00Z", endsAt: "2027-12-01T00:00:00Z", scoring: BEST, maxPointsPerMatch: 10, pointsBits: 31, timeBits: 22 }) { id } }',
    ],
    'admin',
    'TIME_OUT_OF_RANGE',
    'endsAt',
  ],
  ['closing an unknown season', () => ['mutation { closeSeason(id: 999999) { id } }'], 'admin', 'SEASON_NOT_FOUND'],
];

describe('bad input', () => {
  it.each(cases)('%s is refused with its code', async (_name, request, key, code, field) => {
    const [query, variables] = request();
    const header = _name === 'a malformed key' ? 'not-a-key' : key ? keys[key] : undefined;
    const res = await api.gql(query, variables, header);
    expect(res.errors?.[0]?.extensions?.code, JSON.stringify(res.errors)).toBe(code);
    if (field) expect(res.errors?.[0]?.extensions?.field).toBe(field);
    expect(res.data?.submitMatchResult ?? null).toBeNull();
  });

  it('writes nothing: no result reached Kafka or PostgreSQL, no season was created', async () => {
    const admin = api.s.kafka.admin();
    await admin.connect();
    try {
      const offsets = await admin.fetchTopicOffsets(api.config.kafka.topic);
      expect(offsets.reduce((n, p) => n + Number(p.high), 0)).toBe(0);
    } finally {
      await admin.disconnect();
    }
    const [row] = await api.s.pg
      .sql`select count(*)::int as n from match_results where season_id in (${seasons.open}, ${seasons.closed}, ${seasons.future})`;
    expect(row!.n).toBe(0);
    const [named] = await api.s.pg.sql`select count(*)::int as n from seasons where name = 'x'`;
    expect(named!.n).toBe(0);
  });

  it.each([
    ['topChanged with limit 101', 'subscription { topChanged(seasonId: 1, limit: 101) { rank } }', 'BAD_USER_INPUT'],
    [
      'recordUpdated of an unknown season',
      'subscription { recordUpdated(seasonId: 999999) { rank } }',
      'SEASON_NOT_FOUND',
    ],
    [
      'rankChanged of a malformed player',
      'subscription { rankChanged(seasonId: 1, playerId: "-5") { rank } }',
      'BAD_USER_INPUT',
    ],
    ['to an unknown field', 'subscription { scoreChanged(seasonId: 1) { rank } }', 'BAD_USER_INPUT'],
  ])('a subscription %s is refused with its code', async (_name, query, code) => {
    const sub = api.subscribe(query);
    const codeOf = (errors: unknown) =>
      (errors as Array<{ extensions?: { code?: string } }> | undefined)?.[0]?.extensions?.code;
    await expect.poll(() => codeOf(sub.events[0]?.errors) ?? codeOf(sub.failure), { timeout: 5_000 }).toBe(code);
    sub.close();
  });
});
