import type { IncomingMessage, ServerResponse } from 'node:http';
import type { YogaServerInstance } from 'graphql-yoga';
import type { Context } from './context.js';
import type { JsonMediaType, Params } from './http-params.js';
import type { RequestReads } from './response-cache.js';

export type Yoga = YogaServerInstance<{ req: IncomingMessage; reads?: RequestReads }, Context>;

/** Hands the request to yoga with the body already read (and `media`, when chosen, as its Accept). */
export async function forwardToYoga(
  yoga: Yoga,
  req: IncomingMessage,
  res: ServerResponse,
  body: string | undefined,
  params?: Params,
  media?: JsonMediaType,
): Promise<void> {
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers.set(k, v);
  // The media type the fast path chose (http-params.ts jsonMediaType): yoga takes the first type
  // listed and ignores q, so it is told the choice, and both paths answer alike.
  if (media) headers.set('accept', media);
  // A persisted query's text was resolved here; yoga gets the plain request.
  let url = req.url!;
  if (params?.query && params.extensions?.persistedQuery) {
    if (req.method === 'GET') {
      const search = new URLSearchParams({ query: params.query });
      if (params.operationName) search.set('operationName', params.operationName);
      if (params.variables) search.set('variables', JSON.stringify(params.variables));
      url = `/graphql?${search}`;
    } else {
      body = JSON.stringify({
        query: params.query,
        operationName: params.operationName,
        variables: params.variables,
      });
    }
  }
  const response = await yoga.fetch(`http://localhost${url}`, { method: req.method, headers, body }, { req });
  const out: Record<string, string> = {};
  response.headers.forEach((v, k) => {
    out[k] = v;
  });
  res.writeHead(response.status, out).end(Buffer.from(await response.arrayBuffer()));
}
