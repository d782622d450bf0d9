import type { IncomingMessage } from 'node:http';

/** A GraphQL request's parameters (GraphQL over HTTP), from a GET's search or a POST's JSON body. */
export interface Params {
  query?: string;
  operationName?: string;
  variables?: Record<string, unknown>;
  extensions?: { persistedQuery?: { version?: number; sha256Hash?: string } };
}

/** Does yoga answer this Accept header with plain application/json (what send() writes)? */
export const plainJson = (accept: string | undefined) =>
  accept === undefined || accept === '*/*' || accept === 'application/json';

/** The request's parameters; none when this path does not take the request. */
export function paramsOf(req: IncomingMessage, body: string): { params?: Params; body?: string } {
  if (req.method === 'GET') {
    const search = new URLSearchParams(req.url!.slice(req.url!.indexOf('?') + 1));
    const [query, variables, extensions] = [search.get('query'), search.get('variables'), search.get('extensions')];
    if (query === null && extensions === null) return {};
    try {
      return {
        params: {
          query: query ?? undefined,
          operationName: search.get('operationName') ?? undefined,
          variables: variables ? JSON.parse(variables) : undefined,
          extensions: extensions ? JSON.parse(extensions) : undefined,
        },
      };
    } catch {
      return {};
    }
  }
  if (!(req.headers['content-type'] ?? '').includes('application/json')) return { body };
  try {
    const params = JSON.parse(body) as Params;
    return { params: params && typeof params === 'object' && !Array.isArray(params) ? params : undefined, body };
  } catch {
    return { body };
  }
}
