import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  BREAK,
  execute,
  GraphQLError,
  TypeInfo,
  visit,
  visitWithTypeInfo,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLSchema,
} from 'graphql';
import { compileQuery, isCompiledQuery } from 'graphql-jit';
import type { YogaServerInstance } from 'graphql-yoga';
import { badInput, isDomainError } from '../domain/errors.js';
import type { Context } from './context.js';
import { errorsBody, persistedQueryNotFound } from './errors.js';
import { operationTypeOf } from './operation-type.js';
import { MAX_QUERY_LENGTH } from './query-size.js';
import type { CostArgs } from './list-cost.js';
import type { RequestReads, ResponseCache } from './response-cache.js';
import { ifNoneMatchHits } from '../http-etag.js';

/** The query texts of automatic persisted queries, shared by every API process (redis/persisted-queries.ts). */
export interface PersistedQueries {
  get(sha256Hash: string): Promise<string | undefined>;
  /** Stores a query whose hash was checked, without waiting. */
  set(sha256Hash: string, query: string): void;
}

/**
 * Fields whose answer depends only on board state (and display names): the cacheable reads, and
 * the snapshot subscriptions one execution can serve to every client (shared-subscriptions.ts).
 */
const BOARD_STATE_FIELDS = new Set([
  'Query.leaderboard',
  'Subscription.topChanged',
  'Subscription.rankChanged',
  'Leaderboard.size',
  'Leaderboard.top',
  'Leaderboard.entry',
  'Leaderboard.around',
  'Leaderboard.friends',
  'Leaderboard.friendsPage',
  'Leaderboard.cutoff',
  'Leaderboard.window',
  'Leaderboard.periodStart',
  'Entry.rank',
  'Entry.playerId',
  'Entry.points',
  'Entry.achievedAt',
  'Entry.player',
  'Entry.percentile',
  'FriendsPage.entries',
  'FriendsPage.endCursor',
  'FriendsPage.hasNextPage',
  'FriendsPage.ranked',
  'Cutoff.place',
  'Cutoff.points',
  'Cutoff.achievedAt',
  'Cutoff.entry',
  'Player.id',
  'Player.displayName',
]);

/** Is every operation of the document of this type, and every field it selects a board-state field? */
export function readsOnlyBoards(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: 'query' | 'subscription' = 'query',
): boolean {
  let ok = true;
  const typeInfo = new TypeInfo(schema);
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      OperationDefinition(node) {
        if (node.operation !== operation) {
          ok = false;
          return BREAK;
        }
        return undefined;
      },
      Field(node) {
        if (node.name.value === '__typename') return undefined;
        const parent = typeInfo.getParentType();
        if (!parent || !BOARD_STATE_FIELDS.has(`${parent.name}.${node.name.value}`)) {
          ok = false;
          return BREAK;
        }
        return undefined;
      },
    }),
  );
  return ok;
}

interface Params {
  query?: string;
  operationName?: string;
  variables?: Record<string, unknown>;
  extensions?: { persistedQuery?: { version?: number; sha256Hash?: string } };
}

/** A small LRU map with a size cap (persisted queries, prepared operations). */
export function boundedMap<V>(max: number) {
  const map = new Map<string, V>();
  return {
    get(key: string): V | undefined {
      const v = map.get(key);
      if (v !== undefined) {
        map.delete(key);
        map.set(key, v);
      }
      return v;
    },
    set(key: string, value: V): void {
      map.delete(key);
      map.set(key, value);
      if (map.size > max) map.delete(map.keys().next().value!);
    },
  };
}

/**
 * An operation validated and compiled once (a cacheable read here, a board subscription in
 * board-subscriptions.ts): `run` executes it on a root value (a subscription's event) with a
 * fresh context, without an envelop per request.
 */
export interface CompiledOperation {
  document: DocumentNode;
  run(
    root: unknown,
    context: Context,
    variables: Record<string, unknown> | undefined,
  ): ExecutionResult | Promise<ExecutionResult>;
  stringify(result: ExecutionResult): string;
}

/**
 * Compiled by graphql-jit, or run by graphql-js when `jit` is off; undefined when graphql-jit cannot
 * compile it. `boardState`: the operation selects only BOARD_STATE_FIELDS (readsOnlyBoards), whose
 * Int, ID, String and enum values are already what GraphQL would serialise them to (ranks, sizes
 * and points are integers in the Int range, season.ts; ids and names are strings; enum values are
 * their names), so graphql-jit passes them through: its checked leaf serialisation allocates an
 * error path and locations per leaf of every entry, most of a miss's garbage (docs/benchmarks-history.md).
 * DateTime is still serialised. The serving test compares such answers with graphql-js's.
 */
export function compileOperation(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | undefined,
  jit: boolean,
  boardState = false,
): CompiledOperation | undefined {
  if (!jit) {
    return {
      document,
      run: (rootValue, contextValue, variableValues) =>
        execute({ schema, document, operationName, rootValue, contextValue, variableValues }),
      stringify: (result) => JSON.stringify(result),
    };
  }
  const compiled = compileQuery(schema, document, operationName, { disableLeafSerialization: boardState });
  if (!isCompiledQuery(compiled)) return undefined;
  return {
    document,
    run: (root, context, variables) => compiled.query(root, context, variables),
    stringify: (result) => compiled.stringify(result),
  };
}

const JSON_TYPE = 'application/json; charset=utf-8';

/** A query text prepared once: what kind of operation, compiled. */
interface Prepared {
  kind: 'read' | 'mutation';
  op: CompiledOperation;
}

/** Does yoga answer this Accept header with plain application/json (what send() writes)? */
const plainJson = (accept: string | undefined) =>
  accept === undefined || accept === '*/*' || accept === 'application/json';
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/**
 * GraphQL reads over HTTP before yoga's own request handling, which costs more than executing a
 * cached read (docs/benchmarks-history.md). Unauthenticated queries by GET or POST (JSON) are answered
 * here: from the response cache when an identical request's answer is still valid, otherwise
 * executed as prepared once (parsed, validated with the envelop's rules and limits, compiled) and
 * cached when they read only board state. Automatic persisted
 * queries (Apollo's protocol) let GETs carry a hash instead of the query; answers carry an ETag
 * (`If-None-Match` gives 304) and, by GET, `Cache-Control`. Mutations by POST are prepared and run
 * here too (see `mutate`). Everything else, and every request this path cannot answer exactly as
 * yoga would (a read's errors included), goes to yoga unchanged.
 */
export function createReadPath(deps: {
  yoga: YogaServerInstance<{ req: IncomingMessage; reads?: RequestReads }, Context>;
  schema: GraphQLSchema;
  cache: ResponseCache;
  /** Throws RATE_LIMITED when the address spent its read budget. */
  rateLimit(address: string): void;
  /** The context of a request, as yoga's context factory builds it. */
  context(req: IncomingMessage, reads?: RequestReads): Context;
  /** Compile reads with graphql-jit (else graphql-js executes them). */
  jit: boolean;
  /** Told the execution time of every read executed here (the metrics yoga's plugins would record). */
  onExecuted?(seconds: number): void;
  /** Is this operation over the list-cost limit with these variables (list-cost.ts)? Yoga then refuses it. */
  overCost(args: CostArgs): boolean;
  /** Cache-Control max-age of cacheable answers by GET. */
  maxAgeSeconds: number;
  /** The persisted queries every API process shares (redis/persisted-queries.ts); each keeps the ones it used. */
  persistedQueries: PersistedQueries;
  /**
   * Yoga's error translation (errors.ts maskError), with its logging and counting: the errors of
   * the mutations run here and of the persisted-query protocol pass it like yoga's own.
   */
  maskError(error: unknown): GraphQLError;
  /**
   * Mutations by POST run here too, prepared once per query text like reads: yoga's own HTTP
   * handling and graphql-js's variable coercion were most of a submission's CPU (docs/benchmarks-history.md).
   */
  mutations: { onExecuted?(seconds: number): void };
}) {
  // The persisted queries this process used, in front of the shared ones.
  const persisted = boundedMap<string>(10_000);
  const prepared = boundedMap<Prepared | false>(1_000);
  const cacheControl = `public, max-age=${deps.maxAgeSeconds}`;

  /**
   * The prepared operation of a query text: a query that reads only board state (`read`) or a
   * mutation; false for anything else (auth-dependent reads, invalid documents: yoga answers those).
   */
  function prepare(req: IncomingMessage, params: Params, query: string): Prepared | false {
    if (query.length > MAX_QUERY_LENGTH) return false; // refused by yoga; not kept as a key here
    const key = `${query}\n${params.operationName ?? ''}`;
    let p = prepared.get(key);
    if (p !== undefined) return p;
    p = false;
    try {
      // The envelop's parse and validate: the query-length, token, depth, alias and cost limits apply.
      const { parse, validate, schema } = deps.yoga.getEnveloped({ req, params } as never);
      const document = parse(query);
      if (validate(schema, document).length === 0) {
        const kind = readsOnlyBoards(schema, document)
          ? 'read'
          : operationTypeOf(document, params.operationName) === 'mutation'
            ? 'mutation'
            : undefined;
        const op = kind && compileOperation(schema, document, params.operationName, deps.jit, kind === 'read');
        if (kind && op) p = { kind, op };
      }
    } catch {
      p = false;
    }
    prepared.set(key, p);
    return p;
  }

  /**
   * Runs a prepared mutation and answers it as yoga would; false (nothing ran) when yoga must
   * answer instead: over the list cost, or refused before any resolver ran (variables that do not
   * coerce: yoga answers those with 400). Once a resolver ran, the answer is given here, errors
   * included, since running it again through yoga would repeat its effects.
   */
  async function mutate(req: IncomingMessage, res: ServerResponse, op: CompiledOperation, params: Params) {
    if (
      deps.overCost({
        schema: deps.schema,
        document: op.document,
        operationName: params.operationName,
        variableValues: params.variables,
      })
    ) {
      return false;
    }
    const started = performance.now();
    const result = await op.run(undefined, deps.context(req), params.variables);
    deps.mutations.onExecuted?.((performance.now() - started) / 1000);
    if (!('data' in result)) return false;
    const errors = result.errors?.map((e) => deps.maskError(e));
    // yoga's order and status: errors first, 200 once execution started.
    send(req, res, Buffer.from(JSON.stringify(errors ? { errors, data: result.data } : { data: result.data })));
    return true;
  }

  /** Hands the request to yoga with the body already read. */
  async function forward(
    req: IncomingMessage,
    res: ServerResponse,
    body: string | undefined,
    params?: Params,
  ): Promise<void> {
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
        body = JSON.stringify({
          query: params.query,
          operationName: params.operationName,
          variables: params.variables,
        });
      }
    }
    const response = await deps.yoga.fetch(`http://localhost${url}`, { method: req.method, headers, body }, { req });
    const out: Record<string, string> = {};
    response.headers.forEach((v, k) => {
      out[k] = v;
    });
    res.writeHead(response.status, out).end(Buffer.from(await response.arrayBuffer()));
  }

  function send(req: IncomingMessage, res: ServerResponse, body: Buffer, etag?: string): void {
    const headers: Record<string, string | number> = { 'content-type': JSON_TYPE };
    // CORS headers are already set on `res` (server.ts).
    if (etag) {
      headers.etag = etag;
      // 304 and shared caching are GET semantics (RFC 9110: a POST with If-None-Match is no revalidation).
      if (req.method === 'GET') {
        headers['cache-control'] = cacheControl;
        if (ifNoneMatchHits(req.headers['if-none-match'], etag)) {
          res.writeHead(304, headers).end();
          return;
        }
      }
    }
    headers['content-length'] = body.length;
    res.writeHead(200, headers).end(body);
  }

  /** Answers with `error` alone, translated like every error a client gets (200, as yoga answers them). */
  function refuse(req: IncomingMessage, res: ServerResponse, error: unknown): void {
    send(req, res, Buffer.from(errorsBody([deps.maskError(error)])));
  }

  /** Runs a prepared read; undefined when yoga must answer instead (errors, over the list cost). */
  async function run(
    req: IncomingMessage,
    op: CompiledOperation,
    params: Params,
    reads: RequestReads,
  ): Promise<Buffer | undefined> {
    const { schema } = deps;
    if (
      deps.overCost({
        schema,
        document: op.document,
        operationName: params.operationName,
        variableValues: params.variables,
      })
    ) {
      return undefined;
    }
    const started = performance.now();
    const result = await op.run(undefined, deps.context(req, reads), params.variables);
    deps.onExecuted?.((performance.now() - started) / 1000);
    if ((result.errors?.length ?? 0) > 0) return undefined;
    return Buffer.from(op.stringify(result));
  }

  /** The request's parameters; none when this path does not take the request. */
  function paramsOf(req: IncomingMessage, body: string): { params?: Params; body?: string } {
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

  return {
    /** Answers a request to the GraphQL endpoint whose body (bounded, see server.ts) was read. */
    async handle(req: IncomingMessage, res: ServerResponse, requestBody: string): Promise<void> {
      const accept = req.headers.accept ?? '';
      if (
        (req.method !== 'GET' && req.method !== 'POST') ||
        accept.includes('text/event-stream') ||
        accept.includes('text/html') ||
        accept.includes('multipart/')
      ) {
        // Typed as node's void listener, but @whatwg-node returns the promise of the answer sent.
        // eslint-disable-next-line @typescript-eslint/await-thenable
        await deps.yoga.requestListener(req, res);
        return;
      }
      const { params, body } = paramsOf(req, requestBody);
      if (!params) {
        // eslint-disable-next-line @typescript-eslint/await-thenable -- a promise at run time (above)
        if (req.method === 'GET') await deps.yoga.requestListener(req, res);
        else await forward(req, res, body);
        return;
      }
      const pq = params.extensions?.persistedQuery;
      if (pq) {
        if (typeof pq.sha256Hash !== 'string') {
          await forward(req, res, body);
          return;
        }
        if (typeof params.query === 'string') {
          if (sha256(params.query) !== pq.sha256Hash) {
            refuse(req, res, badInput(undefined, 'provided sha256Hash does not match the query'));
            return;
          }
          // A query too long to run is not kept: the map would hold 10,000 of them.
          if (params.query.length <= MAX_QUERY_LENGTH && persisted.get(pq.sha256Hash) === undefined) {
            persisted.set(pq.sha256Hash, params.query);
            deps.persistedQueries.set(pq.sha256Hash, params.query);
          }
        } else {
          params.query = persisted.get(pq.sha256Hash);
          if (params.query === undefined) {
            params.query = await deps.persistedQueries.get(pq.sha256Hash);
            if (params.query === undefined) {
              refuse(req, res, persistedQueryNotFound());
              return;
            }
            persisted.set(pq.sha256Hash, params.query);
          }
        }
      }
      const query = params.query;
      const prepared = typeof query === 'string' && prepare(req, params, query);
      if (prepared && prepared.kind === 'mutation' && req.method === 'POST' && plainJson(req.headers.accept)) {
        if (await mutate(req, res, prepared.op, params)) return;
      }
      if (!prepared || prepared.kind !== 'read' || req.headers.authorization !== undefined) {
        await forward(req, res, body, params);
        return;
      }
      const op = prepared.op;
      // Rate limited like any read: a refused one goes to yoga, which gives the RATE_LIMITED answer.
      try {
        deps.rateLimit(req.socket.remoteAddress ?? 'unknown');
      } catch (err) {
        if (!isDomainError(err)) throw err;
        await forward(req, res, body, params);
        return;
      }
      const key = `${query}\n${params.operationName ?? ''}\n${JSON.stringify(params.variables ?? null)}`;
      const hit = deps.cache.get(key);
      if (hit) {
        send(req, res, hit.body, hit.etag);
        return;
      }
      const reads = deps.cache.reads();
      const startedAt = Date.now();
      let answer: Buffer | undefined;
      try {
        answer = await run(req, op, params, reads);
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
