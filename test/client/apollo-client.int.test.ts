// Apollo Client (3.x, its core without React) against the real server: HttpLink with its default
// Accept (*/*: answered application/json) and with Apollo Client 4's (graphql-response+json
// preferred, application/json at q=0.9), automatic persisted queries over GET, and errors as
// Apollo surfaces them. What a studio's web client does.
import { createHash } from 'node:crypto';
import { ApolloClient, ApolloError, ApolloLink, HttpLink, InMemoryCache, gql } from '@apollo/client/core';
import { createPersistedQueryLink } from '@apollo/client/link/persisted-queries';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { minutesFromNow, startApi, type TestApi } from '../support/api.js';
import { createSeason } from '../support/services.js';

let api: TestApi;
let seasonId: number;
beforeAll(async () => {
  api = await startApi();
  seasonId = (await createSeason(api.s, { name: 'apollo' })).id;
  const submitted = await api.gql(
    'mutation($input: MatchResultInput!) { submitMatchResult(input: $input) { accepted } }',
    {
      input: {
        seasonId,
        matchId: crypto.randomUUID(),
        endedAt: minutesFromNow(-1),
        results: [{ playerId: '42', points: 420 }],
      },
    },
    await api.key('submit'),
  );
  expect(submitted.errors).toBeUndefined();
}, 60_000);
afterAll(async () => {
  await api?.close();
});

/** Every request Apollo sends, and what it got: method, status, content type. */
interface Seen {
  method: string;
  status: number;
  type: string | null;
  hashOnly: boolean;
}

function client(opts: { persisted?: boolean; accept?: string } = {}) {
  const seen: Seen[] = [];
  const recordingFetch: typeof fetch = async (input, init) => {
    const res = await fetch(input, init);
    const url = String(input);
    const body = typeof init?.body === 'string' ? init.body : '';
    seen.push({
      method: init?.method ?? 'GET',
      status: res.status,
      type: res.headers.get('content-type'),
      hashOnly: url.includes('persistedQuery') && !url.includes('query=') && !body.includes('"query"'),
    });
    return res;
  };
  const headers = opts.accept ? { accept: opts.accept } : undefined;
  const http = new HttpLink({ uri: api.url, fetch: recordingFetch, headers });
  const link = opts.persisted
    ? ApolloLink.from([
        createPersistedQueryLink({
          sha256: (q: string) => createHash('sha256').update(q).digest('hex'),
          useGETForHashedQueries: true,
        }),
        http,
      ])
    : http;
  return { apollo: new ApolloClient({ link, cache: new InMemoryCache() }), seen };
}

const TOP = gql`
  query Top($s: Int!) {
    leaderboard(seasonId: $s) {
      size
      top(limit: 3) {
        rank
        playerId
        points
      }
    }
  }
`;

describe('Apollo Client', () => {
  it.each([
    ['its default Accept (*/*)', 'application/json', undefined],
    [
      "Apollo Client 4's Accept",
      'application/graphql-response+json',
      'application/graphql-response+json,application/json;q=0.9',
    ],
  ])('reads through HttpLink with %s: answered in %s', async (_name, media, accept) => {
    const { apollo, seen } = client({ accept });
    await expect
      .poll(async () => {
        const { data } = await apollo.query({ query: TOP, variables: { s: seasonId }, fetchPolicy: 'network-only' });
        return data.leaderboard;
      })
      .toMatchObject({ size: 1, top: [{ rank: 1, playerId: '42', points: 420 }] });
    expect(seen.at(-1)).toMatchObject({ method: 'POST', status: 200, type: `${media}; charset=utf-8` });
  });

  it('sends a persisted query by its hash over GET: registered once, then the hash alone is answered', async () => {
    // A query text of this run only: persisted queries outlive the process (Redis, a week).
    const PERSISTED = gql(
      `query Persisted${Date.now()}($s: Int!) { leaderboard(seasonId: $s) { top(limit: 3) { rank playerId } } }`,
    );
    const first = client({ persisted: true });
    const r1 = await first.apollo.query({ query: PERSISTED, variables: { s: seasonId } });
    expect(r1.data.leaderboard.top[0].playerId).toBe('42');
    // Unknown hash by GET (PERSISTED_QUERY_NOT_FOUND), then the query with its hash.
    expect(first.seen.map((s) => [s.method, s.hashOnly, s.status])).toEqual([
      ['GET', true, 200],
      ['POST', false, 200],
    ]);
    // Another client (another page load): the server knows the hash already.
    const second = client({ persisted: true });
    const r2 = await second.apollo.query({ query: PERSISTED, variables: { s: seasonId } });
    expect(r2.data).toEqual(r1.data);
    expect(second.seen.map((s) => [s.method, s.hashOnly, s.status])).toEqual([['GET', true, 200]]);
  });

  it('surfaces a domain error with its code, and a document that does not validate as a 400 with its errors', async () => {
    const { apollo } = client({ accept: 'application/graphql-response+json,application/json;q=0.9' });
    const tooMany = await apollo.query({
      query: gql`
        query TooMany($s: Int!) {
          leaderboard(seasonId: $s) {
            top(limit: 5000) {
              rank
            }
          }
        }
      `,
      variables: { s: seasonId },
      errorPolicy: 'all',
    });
    expect(tooMany.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    const invalid = apollo.query({
      query: gql`
        {
          leaderboard(seasonId: 1) {
            nope
          }
        }
      `,
    });
    await expect(invalid).rejects.toBeInstanceOf(ApolloError);
    const err = (await invalid.catch((e: unknown) => e)) as ApolloError;
    const network = err.networkError as { statusCode?: number; result?: { errors?: Array<{ message: string }> } };
    expect(network.statusCode).toBe(400);
    expect(network.result?.errors?.[0]?.message).toContain('Cannot query field "nope"');
  });
});
