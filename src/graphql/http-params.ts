import type { IncomingMessage } from 'node:http';

/** A GraphQL request's parameters (GraphQL over HTTP), from a GET's search or a POST's JSON body. */
export interface Params {
  query?: string;
  operationName?: string;
  variables?: Record<string, unknown>;
  extensions?: { persistedQuery?: { version?: number; sha256Hash?: string } };
}

export const GRAPHQL_RESPONSE_JSON = 'application/graphql-response+json';
export type JsonMediaType = typeof GRAPHQL_RESPONSE_JSON | 'application/json';

/**
 * The media type a single GraphQL result is answered with, per the GraphQL over HTTP
 * specification: the one of application/graphql-response+json and application/json that the
 * Accept header prefers (highest q; a type named beats a wildcard; then the order listed; a
 * wildcard alone, or no Accept at all, gets application/json, which legacy clients expect).
 * Undefined: the client accepts neither (another charset than UTF-8 counts as not accepted); yoga
 * answers those (406, or SSE and multipart streams).
 */
export function jsonMediaType(accept: string | undefined): JsonMediaType | undefined {
  // The common headers, without parsing: no Accept, curl's and most clients', Apollo Client's.
  if (accept === undefined || accept === '*/*' || accept === 'application/json') return 'application/json';
  if (accept === GRAPHQL_RESPONSE_JSON) return GRAPHQL_RESPONSE_JSON;
  if (accept.trim() === '') return 'application/json';
  let best: { type: JsonMediaType; q: number; named: boolean } | undefined;
  for (const range of accept.split(',')) {
    const [rawType = '', ...rawParams] = range.split(';');
    const type = rawType.trim().toLowerCase();
    let q = 1;
    let utf8 = true;
    for (const param of rawParams) {
      const [name = '', value = ''] = param.split('=').map((x) => x.trim().toLowerCase());
      if (name === 'q') q = Number(value);
      else if (name === 'charset') utf8 = value === 'utf-8' || value === 'utf8';
    }
    if (!utf8 || !(q > 0) || q > 1) continue;
    const named = type === GRAPHQL_RESPONSE_JSON || type === 'application/json';
    if (!named && type !== '*/*' && type !== 'application/*') continue;
    const candidate = { type: named ? (type as JsonMediaType) : 'application/json', q, named } as const;
    if (!best || q > best.q || (q === best.q && named && !best.named)) best = candidate;
  }
  return best?.type;
}

const isMap = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v);
const isOptional = (v: unknown, ok: (v: unknown) => boolean) => v === undefined || v === null || ok(v);

/**
 * Are these well-formed GraphQL-over-HTTP parameters: `query` a string (or absent beside a
 * persisted query's extension), `operationName` a string, `variables` and `extensions` maps, each
 * optional one also null? Anything else is yoga's to refuse (400).
 */
export function wellFormed(p: unknown): p is Params {
  if (!isMap(p)) return false;
  const { query, operationName, variables, extensions } = p as Record<string, unknown>;
  return (
    (typeof query === 'string' || (query === undefined && isMap(extensions))) &&
    isOptional(operationName, (v) => typeof v === 'string') &&
    isOptional(variables, isMap) &&
    isOptional(extensions, isMap)
  );
}

/** The request's parameters; none when this path does not take the request (yoga answers it). */
export function paramsOf(req: IncomingMessage, body: string): { params?: Params; body?: string } {
  if (req.method === 'GET') {
    const search = new URLSearchParams(req.url!.slice(req.url!.indexOf('?') + 1));
    const [query, variables, extensions] = [search.get('query'), search.get('variables'), search.get('extensions')];
    if (query === null && extensions === null) return {};
    try {
      const params = {
        query: query ?? undefined,
        operationName: search.get('operationName') ?? undefined,
        variables: variables ? (JSON.parse(variables) as unknown) : undefined,
        extensions: extensions ? (JSON.parse(extensions) as unknown) : undefined,
      };
      return wellFormed(params) ? { params } : {};
    } catch {
      return {};
    }
  }
  if (!(req.headers['content-type'] ?? '').includes('application/json')) return { body };
  try {
    const params = JSON.parse(body) as unknown;
    return { params: wellFormed(params) ? params : undefined, body };
  } catch {
    return { body };
  }
}
