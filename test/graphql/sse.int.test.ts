// GraphQL over server-sent events with graphql-sse's own client: its distinct connections mode,
// reconnect included, served by yoga at /graphql; its single connection mode refused with an
// answer that names what works (src/graphql/sse-modes.ts says why).
import { createClient, NetworkError, type Client } from 'graphql-sse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SINGLE_CONNECTION_REFUSAL } from '../../src/graphql/sse-modes.js';
import { minutesFromNow, startApi, type TestApi } from '../support/api.js';
import { createSeason, waitFor } from '../support/services.js';

let api: TestApi;
let seasonId: number;
let submit: string;
beforeAll(async () => {
  api = await startApi();
  seasonId = (await createSeason(api.s, { name: 'sse' })).id;
  submit = await api.key('submit');
}, 60_000);
afterAll(async () => {
  await api?.close();
});

async function submitPoints(playerId: string, points: number): Promise<void> {
  const res = await api.gql(
    'mutation($input: MatchResultInput!) { submitMatchResult(input: $input) { accepted } }',
    {
      input: { seasonId, matchId: crypto.randomUUID(), endedAt: minutesFromNow(-1), results: [{ playerId, points }] },
    },
    submit,
  );
  expect(res.errors).toBeUndefined();
}

type Top = Array<{ playerId: string; points: number }>;

describe('graphql-sse, distinct connections mode', () => {
  let client: Client;
  afterAll(() => client?.dispose());

  it('streams topChanged, and after the server drops the connection reconnects and streams on', async () => {
    const connects: boolean[] = [];
    client = createClient({
      url: api.url,
      retryAttempts: 5,
      retry: () => new Promise((r) => setTimeout(r, 100)),
      on: { connected: (reconnected) => connects.push(reconnected) },
    });
    const tops: Top[] = [];
    const errors: unknown[] = [];
    const stop = client.subscribe<{ topChanged: Top }>(
      { query: `subscription { topChanged(seasonId: ${seasonId}, limit: 5) { playerId points } }` },
      { next: (r) => tops.push(r.data!.topChanged), error: (e) => errors.push(e), complete: () => {} },
    );
    await waitFor('the first top', async () => tops.length > 0);
    expect(tops[0]).toEqual([]);
    await submitPoints('7', 70);
    await waitFor('the top with player 7', async () => tops.some((t) => t[0]?.playerId === '7'));
    // The server drops every connection (a deploy, a proxy's idle cut): the client comes back by itself.
    api.app.api!.server.server.closeAllConnections();
    await waitFor('the reconnect', async () => connects.includes(true));
    const before = tops.length;
    await submitPoints('8', 80);
    await waitFor('the top with player 8 after the reconnect', async () =>
      tops.slice(before).some((t) => t[0]?.playerId === '8'),
    );
    expect(errors).toEqual([]);
    stop();
  });
});

describe('graphql-sse, single connection mode', () => {
  it('is refused with a message that names the mode that works, and the client says so', async () => {
    const client = createClient({ url: api.url, singleConnection: true, retryAttempts: 0 });
    const failure = await new Promise<unknown>((resolve) => {
      client.subscribe(
        { query: `subscription { topChanged(seasonId: ${seasonId}) { playerId } }` },
        { next: () => {}, error: resolve, complete: () => resolve(undefined) },
      );
    });
    client.dispose();
    expect(failure).toBeInstanceOf(NetworkError);
    expect((failure as NetworkError).response?.status).toBe(405);
  });

  it.each([
    ['a reservation (PUT)', { method: 'PUT' }, 405],
    ['an operation with its token (POST)', { method: 'POST', headers: { 'x-graphql-event-stream-token': 'abc' } }, 400],
    ['its stream (GET with the token)', { method: 'GET', search: '?token=abc' }, 400],
  ] as const)('%s: %i with the reason', async (_name, request, status) => {
    const res = await fetch(`${api.url}${'search' in request ? request.search : ''}`, {
      method: request.method,
      headers: {
        'content-type': 'application/json',
        accept: 'text/event-stream',
        ...('headers' in request ? request.headers : {}),
      },
      body: request.method === 'GET' ? undefined : JSON.stringify({ query: '{ __typename }' }),
    });
    expect(res.status).toBe(status);
    if (status === 405) expect(res.headers.get('allow')).toBe('GET, POST');
    const body = (await res.json()) as { errors: Array<{ message: string; extensions: { code: string } }> };
    expect(body.errors[0]).toEqual({ message: SINGLE_CONNECTION_REFUSAL, extensions: { code: 'BAD_REQUEST' } });
  });
});
