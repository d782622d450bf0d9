import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { BREAK, GraphQLError, parse, TypeInfo, visit, visitWithTypeInfo, type DocumentNode, type GraphQLSchema } from 'graphql';
import type { YogaServerInstance } from 'graphql-yoga';
import { isDomainError } from '../domain/errors.js';
import type { Context } from './context.js';
import type { RequestReads, ResponseCache } from './response-cache.js';

/**
 * Fields whose answer depends only on board state (and display names): the cacheable reads, and
 * the snapshot subscriptions one execution can serve to every client (shared-subscriptions.ts).
 */
const BOARD_STATE_FIELDS = new Set([
  'Query.leaderboard', 'Subscription.topChanged', 'Subscription.rankChanged',
  'Leaderboard.size', 'Leaderboard.top', 'Leaderboard.entry', 'Leaderboard.around', 'Leaderboard.friends',
  'Leaderboard.window', 'Leaderboard.periodStart',
  'Entry.rank', 'Entry.playerId', 'Entry.points', 'Entry.achievedAt', 'Entry.player',
  'Player.id', 'Player.displayName',
]);

/** Is every operation of the document of this type, and every field it selects a board-state field? */
export function readsOnlyBoards(schema: GraphQLSchema, document: DocumentNode, operation: 'query' | 'subscription' = 'query'): boolean {
  let ok = true;
  const typeInfo = new TypeInfo(schema);
  visit(document, visitWithTypeInfo(typeInfo, {
    OperationDefinition(node) {
      if (node.operation !== operation) { ok = false; return BREAK; }
      return undefined;
    },
    Field(node) {
      if (node.name.value === '__typename') return undefined;
      const parent = typeInfo.getParentType();
      if (!parent || !BOARD_STATE_FIELDS.has(`${parent.name}.${node.name.value}`)) { ok = false; return BREAK; }
      return undefined;
    },
  }));
  return ok;
}

interface Params {
  query?: string;
  operationName?: string;
  variables?: Record<string, unknown>;
  extensions?: { persistedQuery?: { version?: number; sha256Hash?: string } };
}

/** A small LRU map with a size cap (persisted queries, cacheability verdicts). */
function boundedMap<V>(max: number) {
  const map = new Map<string, V>();
  return {
    get(key: string): V | undefined {
      const v = map.get(key);
      if (v !== undefined) { map.delete(key); map.set(key, v); }
      return v;
    },
    set(key: string, value: V): void {
      map.delete(key);
      map.set(key, value);
      if (map.size > max) map.delete(map.keys().next().value!);
    },
  };
}

const jsonHeaders = { 'content-type': 'application/json; charset=utf-8' };
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const problem = (message: string, code: string) => Buffer.from(JSON.stringify({ errors: [{ message, extensions: { code } }] }));

/**
 * GraphQL reads over HTTP before yoga's own request handling, which costs more than executing a
 * cached read (docs/benchmarks.md). Unauthenticated queries by GET or POST (JSON) are answered
 * here: from the response cache when an identical request's answer is still valid, otherwise
 * executed through yoga's envelop (the same parse and validation caches, limits, error codes and
 * masking as any request) and cached when they read only board state. Automatic persisted
 * queries (Apollo's protocol) let GETs carry a hash instead of the query; answers carry an ETag
 * (`If-None-Match` gives 304) and, by GET, `Cache-Control`. Everything else, and every request
 * this path cannot answer exactly as yoga would (errors included), goes to yoga unchanged.
 */
export function createReadPath(deps: {
  yoga: YogaServerInstance<{ req: IncomingMessage; reads?: RequestReads }, Context>;
  schema: GraphQLSchema;
  cache: ResponseCache;
  /** Throws RATE_LIMITED when the address spent its read budget. */
  rateLimit(address: string): void;
  maxBodyBytes: number;
  /** Cache-Control max-age of cacheable answers by GET. */
  maxAgeSeconds: number;
}) {
  const persisted = boundedMap<string>(10_000);
  const verdicts = boundedMap<boolean>(1_000);
  const cacheControl = `public, max-age=${deps.maxAgeSeconds}`;

  function cacheable(query: string): boolean {
    let v = verdicts.get(query);
    if (v === undefined) {
      try { v = readsOnlyBoards(deps.schema, parse(query)); } catch { v = false; }
      verdicts.set(query, v);
    }
    return v;
  }

  /** Hands the request to yoga with the body already read. */
  async function forward(req: IncomingMessage, res: ServerResponse, body: string | undefined, params?: Params): Promise<void> {
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers.set(k, v);
    // A persisted query's text was resolved here; yoga gets the plain request.
    let url = req.url!;
    if (params?.query && params.extensions?.persistedQuery) {
      if (req.method === 'GET') {
        const search = new URLSearchParams({ query: params.query });
        if (params.operationName) search.set('operationName', params.operationName);
        if (params.variables) search.set('variables', JSON.stringify(params.variables));
        url = `/graphql?${search}`;
      } else {
        body = JSON.stringify({ query: params.query, operationName: params.operationName, variables: params.variables });
      }
    }
    const response = await deps.yoga.fetch(`http://localhost${url}`, { method: req.method, headers, body }, { req });
    const out: Record<string, string> = {};
    response.headers.forEach((v, k) => { out[k] = v; });
    res.writeHead(response.status, out).end(Buffer.from(await response.arrayBuffer()));
  }

  function send(req: IncomingMessage, res: ServerResponse, body: Buffer, etag?: string): void {
    const headers: Record<string, string | number> = { ...jsonHeaders };
    const origin = req.headers.origin;
    // yoga's default CORS answer, so a browser sees the same headers on both paths.
    if (origin) Object.assign(headers, { 'access-control-allow-origin': origin, 'access-control-allow-credentials': 'true', vary: 'Origin' });
    if (etag) {
      headers.etag = etag;
      // 304 and shared caching are GET semantics (RFC 9110: a POST with If-None-Match is no revalidation).
      if (req.method === 'GET') {
        headers['cache-control'] = cacheControl;
        if (req.headers['if-none-match'] === etag) {
          res.writeHead(304, headers).end();
          return;
        }
      }
    }
    headers['content-length'] = body.length;
    res.writeHead(200, headers).end(body);
  }

  /** Executes a cacheable read through envelop; undefined when yoga must answer instead (errors). */
  async function execute(req: IncomingMessage, params: Params & { query: string }, reads: RequestReads): Promise<Buffer | undefined> {
    const { parse: parseDoc, validate, contextFactory, execute: run, schema } = deps.yoga.getEnveloped({ req, reads, params } as never);
    const document = parseDoc(params.query);
    if (validate(schema, document).length > 0) return undefined;
    const result = await run({
      schema, document, operationName: params.operationName, variableValues: params.variables, contextValue: await contextFactory(),
    });
    if (Symbol.asyncIterator in result || (result.errors?.length ?? 0) > 0) return undefined;
    // graphql-jit attaches a serialiser compiled for the query's shape.
    const { stringify } = result as { stringify?: (r: unknown) => string };
    return Buffer.from(stringify ? stringify(result) : JSON.stringify(result));
  }

  /** Reads the request's parameters; undefined when this path does not take the request. */
  async function paramsOf(req: IncomingMessage, res: ServerResponse): Promise<{ params?: Params; body?: string } | 'answered'> {
    if (req.method === 'GET') {
      const search = new URLSearchParams(req.url!.slice(req.url!.indexOf('?') + 1));
      const [query, variables, extensions] = [search.get('query'), search.get('variables'), search.get('extensions')];
      if (query === null && extensions === null) return {};
      try {
        return {
          params: {
            query: query ?? undefined, operationName: search.get('operationName') ?? undefined,
            variables: variables ? JSON.parse(variables) : undefined, extensions: extensions ? JSON.parse(extensions) : undefined,
          },
        };
      } catch {
        return {};
      }
    }
    const body = await readBody(req, deps.maxBodyBytes);
    if (body === undefined) {
      res.writeHead(413, { ...jsonHeaders, connection: 'close' }).end(problem('request body too large', 'BAD_USER_INPUT'));
      return 'answered';
    }
    if (!(req.headers['content-type'] ?? '').includes('application/json')) return { body };
    try {
      const params = JSON.parse(body) as Params;
      return { params: params && typeof params === 'object' && !Array.isArray(params) ? params : undefined, body };
    } catch {
      return { body };
    }
  }

  return {
    /** Answers a request to the GraphQL endpoint. */
    async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
      const accept = req.headers.accept ?? '';
      if ((req.method !== 'GET' && req.method !== 'POST') || accept.includes('text/event-stream') || accept.includes('text/html')
        || accept.includes('multipart/')) {
        // Typed as node's void listener, but @whatwg-node returns the promise of the answer sent.
        // eslint-disable-next-line @typescript-eslint/await-thenable
        await deps.yoga.requestListener(req, res);
        return;
      }
      const read = await paramsOf(req, res);
      if (read === 'answered') return;
      const { params, body } = read;
      if (!params) {
        // eslint-disable-next-line @typescript-eslint/await-thenable -- a promise at run time (above)
        if (req.method === 'GET') await deps.yoga.requestListener(req, res);
        else await forward(req, res, body);
        return;
      }
      const pq = params.extensions?.persistedQuery;
      if (pq) {
        if (typeof pq.sha256Hash !== 'string') { await forward(req, res, body); return; }
        if (typeof params.query === 'string') {
          if (sha256(params.query) !== pq.sha256Hash) {
            send(req, res, problem('provided sha256Hash does not match the query', 'BAD_USER_INPUT'));
            return;
          }
          persisted.set(pq.sha256Hash, params.query);
        } else {
          params.query = persisted.get(pq.sha256Hash);
          if (params.query === undefined) {
            send(req, res, problem('PersistedQueryNotFound', 'PERSISTED_QUERY_NOT_FOUND'));
            return;
          }
        }
      }
      const query = params.query;
      if (typeof query !== 'string' || req.headers.authorization !== undefined || !cacheable(query)) {
        await forward(req, res, body, params);
        return;
      }
      const key = `${query}\n${params.operationName ?? ''}\n${JSON.stringify(params.variables ?? null)}`;
      const hit = deps.cache.get(key);
      if (hit) {
        try {
          deps.rateLimit(req.socket.remoteAddress ?? 'unknown');
        } catch (err) {
          if (!isDomainError(err)) throw err;
          await forward(req, res, body, params); // yoga gives the same RATE_LIMITED answer as on a miss
          return;
        }
        send(req, res, hit.body, hit.etag);
        return;
      }
      const reads = deps.cache.reads();
      const startedAt = Date.now();
      let answer: Buffer | undefined;
      try {
        answer = await execute(req, { ...params, query }, reads);
      } catch (err) {
        if (!(err instanceof GraphQLError) && !isDomainError(err)) throw err;
      }
      if (!answer) {
        await forward(req, res, body, params);
        return;
      }
      send(req, res, answer, deps.cache.set(key, answer, reads, startedAt)?.etag);
    },
  };
}

/** The request body as text, or undefined once it exceeds `limit` bytes (whatever Content-Length says). */
function readBody(req: IncomingMessage, limit: number): Promise<string | undefined> {
  if (Number(req.headers['content-length'] ?? 0) > limit) {
    req.resume();
    return Promise.resolve(undefined);
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        // Stop buffering; the answer closes the connection, so the rest is never read.
        req.removeAllListeners('data');
        req.pause();
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    });
    req.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.once('error', reject);
  });
}
