import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { GRAPHIQL_LOAD_BURST, useGraphiQL } from '../../src/graphql/use-graphiql.js';

/** A request as node's server hands it over: only what the handler reads. */
const request = (address: string, headers: Record<string, string> = { accept: 'text/html' }, url = '/graphql') =>
  ({ method: 'GET', url, headers, socket: { remoteAddress: address } }) as unknown as IncomingMessage;

/** A response that keeps its status and headers. */
function response() {
  const res = {
    status: 0,
    headers: {} as Record<string, string | number>,
    writeHead(status: number, headers: Record<string, string | number>) {
      Object.assign(res, { status, headers });
      return res;
    },
    end: () => res,
  };
  return res;
}

describe('useGraphiQL', () => {
  it('leaves every request but a browser asking for the endpoint to the rest of the server', async () => {
    const graphiql = useGraphiQL({ endpoint: '/graphql', loadsPerMinute: 6 });
    for (const req of [
      request('a', { accept: 'application/json' }),
      request('a', { accept: 'text/html' }, '/metrics'),
      { ...request('a'), method: 'POST' } as IncomingMessage,
    ]) {
      const res = response();
      expect(await graphiql(req, res as unknown as ServerResponse)).toBe(false);
      expect(res.status).toBe(0);
    }
  });

  it('allows a burst of full loads per address, then paces them at loadsPerMinute; revalidations are free', async () => {
    let now = 0;
    const graphiql = useGraphiQL({ endpoint: '/graphql', loadsPerMinute: 6, now: () => now });
    const load = async (address: string, headers?: Record<string, string>) => {
      const res = response();
      expect(await graphiql(request(address, headers), res as unknown as ServerResponse)).toBe(true);
      return res;
    };
    const statuses: number[] = [];
    for (let i = 0; i <= GRAPHIQL_LOAD_BURST; i++) statuses.push((await load('a')).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    const etag = String((await load('b')).headers.etag);
    expect((await load('a', { accept: 'text/html', 'if-none-match': etag })).status).toBe(304);
    now += 10_000; // 6 a minute: one load every 10 s
    expect([(await load('a')).status, (await load('a')).status]).toEqual([200, 429]);
  });
});
