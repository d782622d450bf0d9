// graphql-sse's two modes (its PROTOCOL.md): "distinct connections" (one operation per request,
// `Accept: text/event-stream`) is served by yoga; "single connection" (PUT a reservation, GET its
// stream, POST operations with the token) is refused with an answer that names what works.
//
// Why refused: a reservation in graphql-sse's handler lives until its stream is opened and closed,
// and the library has no way to expire one that never is: every PUT a client sends and never
// follows would hold server memory for good (the hole a hostile client looks for). Many operations
// on one connection is what graphql-ws already gives, with its limits per socket.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { GraphQLError } from 'graphql';

/** The header and search parameter a single-connection-mode request carries its token in. */
const TOKEN_HEADER = 'x-graphql-event-stream-token';
const TOKEN_PARAM = 'token';

export const SINGLE_CONNECTION_REFUSAL =
  'graphql-sse single connection mode is not served: use its distinct connections mode ' +
  "(POST or GET /graphql with 'Accept: text/event-stream', one operation per request), " +
  'or graphql-ws for many operations on one connection';

/** Is this a request of graphql-sse's single connection mode (a reservation, or a request with its token)? */
export function isSingleConnectionMode(req: Pick<IncomingMessage, 'method' | 'headers' | 'url'>): boolean {
  if (req.method === 'PUT' || req.headers[TOKEN_HEADER] !== undefined) return true;
  // Every read to /graphql passes here: its search is parsed only when it could hold the token.
  if (!req.url?.includes(`${TOKEN_PARAM}=`)) return false;
  return new URLSearchParams(req.url.slice(req.url.indexOf('?') + 1)).has(TOKEN_PARAM);
}

/** Answers a single-connection-mode request: 405 to a reservation (Allow: GET, POST), 400 to the rest. */
export function refuseSingleConnectionMode(req: IncomingMessage, res: ServerResponse): void {
  const body = JSON.stringify({
    errors: [new GraphQLError(SINGLE_CONNECTION_REFUSAL, { extensions: { code: 'BAD_REQUEST' } })],
  });
  const headers = { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) };
  if (req.method === 'PUT') res.writeHead(405, { ...headers, allow: 'GET, POST' }).end(body);
  else res.writeHead(400, headers).end(body);
}
