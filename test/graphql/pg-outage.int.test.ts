// Requests that need PostgreSQL while it is unreachable (issue 9, item 12): each answers
// UNAVAILABLE within DATABASE_TIMEOUT_MS instead of hanging, and the API recovers by itself.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { minutesFromNow, startApi, type TestApi } from '../support/api.js';
import { TEST_DATABASE_URL } from '../support/env.js';
import { startTcpProxy } from '../support/tcp-proxy.js';

let proxy: Awaited<ReturnType<typeof startTcpProxy>>;
let api: TestApi;
const keys = { admin: '', submit: '', unseen: '' };
let seasonId = 0;

beforeAll(async () => {
  const pgUrl = new URL(TEST_DATABASE_URL);
  proxy = await startTcpProxy(pgUrl.hostname, Number(pgUrl.port || 5432));
  const via = new URL(TEST_DATABASE_URL);
  via.port = String(proxy.port);
  api = await startApi({ DATABASE_URL: via.toString(), DATABASE_TIMEOUT_MS: '1000', API_KEY_CACHE_MS: '100' });
  [keys.admin, keys.submit, keys.unseen] = [await api.key('admin'), await api.key('submit'), await api.key('submit')];
  seasonId = (
    await api.gql(
      'mutation($i: CreateSeasonInput!) { createSeason(input: $i) { id } }',
      {
        i: {
          name: 'pg outage',
          startsAt: minutesFromNow(-60),
          endsAt: minutesFromNow(600),
          scoring: 'BEST',
          maxPointsPerMatch: 10,
        },
      },
      keys.admin,
    )
  ).data!.createSeason.id;
});
afterAll(async () => {
  proxy?.restore();
  await api?.close();
  await proxy?.close();
});

/** One request that must get an answer within 10 s (the deadline is 1 s): a hang fails it. */
async function ask(query: string, variables?: Record<string, unknown>, key?: string) {
  const res = await fetch(api.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body: JSON.stringify({ query, variables }),
    signal: AbortSignal.timeout(10_000),
  });
  return (await res.json()) as { data?: Record<string, unknown>; errors?: Array<{ extensions?: { code?: string } }> };
}

const requests: Array<[string, () => Promise<Awaited<ReturnType<typeof ask>>>]> = [
  ['a season', () => ask(`{ season(id: ${seasonId}) { id } }`)],
  ['the seasons', () => ask('{ seasons { id } }')],
  ['a leaderboard (its season)', () => ask(`{ leaderboard(seasonId: ${seasonId}) { size } }`)],
  [
    'a submission (its season)',
    () =>
      ask(
        'mutation($i: MatchResultInput!) { submitMatchResult(input: $i) { accepted } }',
        {
          i: { matchId: randomUUID(), seasonId, endedAt: minutesFromNow(-1), results: [{ playerId: '1', points: 1 }] },
        },
        keys.submit,
      ),
  ],
  [
    'a submission with a key not seen yet',
    () =>
      ask(
        'mutation($i: MatchResultInput!) { submitMatchResult(input: $i) { accepted } }',
        {
          i: { matchId: randomUUID(), seasonId, endedAt: minutesFromNow(-1), results: [{ playerId: '1', points: 1 }] },
        },
        keys.unseen,
      ),
  ],
  [
    'a new season',
    () =>
      ask(
        'mutation($i: CreateSeasonInput!) { createSeason(input: $i) { id } }',
        {
          i: {
            name: 'never',
            startsAt: minutesFromNow(-60),
            endsAt: minutesFromNow(600),
            scoring: 'BEST',
            maxPointsPerMatch: 10,
          },
        },
        keys.admin,
      ),
  ],
];

describe.each([
  ['hangs (connections open, never answered)', () => proxy.hang()],
  ['refuses connections', () => proxy.cut()],
])('while PostgreSQL %s', (_name, outage) => {
  it('every request needing it answers UNAVAILABLE within its deadline, and the API recovers', async () => {
    // Warm: the submit key and the season are cached now, and expire before the outage matters.
    await requests[3]![1]();
    outage();
    // The season and key caches (250 / 100 ms) expire: waited out, since a request that tried them
    // would meet PostgreSQL and start the fail-at-once window below.
    await new Promise((r) => setTimeout(r, 400));
    const codes = [];
    for (const [name, request] of requests) {
      codes.push([name, (await request()).errors?.[0]?.extensions?.code]);
      // After a failure calls fail at once for one deadline: wait it out so that each request
      // meets PostgreSQL itself.
      await new Promise((r) => setTimeout(r, 1_100));
    }
    expect(codes).toEqual(requests.map(([name]) => [name, 'UNAVAILABLE']));
    proxy.restore();
    await expect
      .poll(async () => (await ask(`{ season(id: ${seasonId}) { id } }`)).data?.season, {
        timeout: 15_000,
        interval: 250,
      })
      .toEqual({ id: seasonId });
  });
});
