import type { IncomingMessage, ServerResponse } from 'node:http';
import { GraphQLError, type GraphQLSchema } from 'graphql';
import { isDomainError } from '../domain/errors.js';
import { ifNoneMatchHits } from '../http-etag.js';
import { readsOnlyBoards } from './board-state.js';
import { boundedMap } from './bounded-map.js';
import { compileOperation, type CompiledOperation } from './compiled-operation.js';
import type { Context } from './context.js';
import { errorsBody } from './errors.js';
import { GRAPHQL_RESPONSE_JSON, jsonMediaType, paramsOf, type JsonMediaType, type Params } from './http-params.js';
import type { CostArgs } from './list-cost.js';
import { operationTypeOf } from './operation-type.js';
import { createPersistedQueryResolver, type PersistedQueries } from './persisted-query.js';
import { MAX_QUERY_LENGTH } from './query-size.js';
import type { RequestReads, ResponseCache } from './response-cache.js';
import { forwardToYoga, type Yoga } from './yoga-forward.js';

/**
 * The entity tag of an answer's bytes in a media type: the same bytes as application/json and as
 * application/graphql-response+json are two representations, so they get two tags.
 */
const etagIn = (etag: string, media: JsonMediaType) =>
  media === GRAPHQL_RESPONSE_JSON ? `${etag.slice(0, -1)}-gr"` : etag;

/** The Vary header of an answer chosen by Accept, keeping what CORS already put there (Origin). */
function varyOn(res: ServerResponse): string {
  const before = res.getHeader('vary');
  return before ? `${String(before)}, Accept` : 'Accept';
}

/** A query text prepared once: what kind of operation, compiled. */
interface Prepared {
  kind: 'read' | 'mutation';
  op: CompiledOperation;
}

/**
 * The fast path in front of yoga, with one seam: server.ts hands it every request to the GraphQL
 * endpoint (`handle`), and whatever it cannot answer exactly as yoga would goes to yoga unchanged
 * (yoga-forward.ts). Yoga's own request handling costs more than executing a cached read
 * (docs/benchmarks.md#what-the-measurements-decided). Answered here: unauthenticated queries by
 * GET or POST (JSON) that read only board state (board-state.ts), from the response cache when an
 * identical request's answer is still valid, otherwise executed as prepared once (parsed,
 * validated with the envelop's rules and limits, compiled) and cached; automatic persisted
 * queries (persisted-query.ts); answers carry an ETag (`If-None-Match` gives 304) and, by GET,
 * `Cache-Control`. Mutations by POST are prepared and run here too (see `mutate`). A read's errors
 * and everything else go to yoga.
 */
export function createReadPath(deps: {
  yoga: Yoga;
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
   * handling and graphql-js's variable coercion were most of a submission's CPU
   * (docs/benchmarks.md#what-the-measurements-decided).
   */
  mutations: { onExecuted?(seconds: number): void };
}) {
  const persisted = createPersistedQueryResolver(deps.persistedQueries);
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
  async function mutate(
    req: IncomingMessage,
    res: ServerResponse,
    media: JsonMediaType,
    op: CompiledOperation,
    params: Params,
  ) {
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
    send(req, res, media, Buffer.from(JSON.stringify(errors ? { errors, data: result.data } : { data: result.data })));
    return true;
  }

  /** Answers 200 (or 304 to a GET whose If-None-Match holds the answer's tag) in the chosen media type. */
  function send(req: IncomingMessage, res: ServerResponse, media: JsonMediaType, body: Buffer, cached?: string): void {
    // CORS headers are already set on `res` (server.ts).
    const headers: Record<string, string | number> = { 'content-type': `${media}; charset=utf-8`, vary: varyOn(res) };
    if (cached) {
      const etag = etagIn(cached, media);
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
  function refuse(req: IncomingMessage, res: ServerResponse, media: JsonMediaType, error: unknown): void {
    send(req, res, media, Buffer.from(errorsBody([deps.maskError(error)])));
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
      // Neither JSON type accepted: yoga answers (406).
      const media = jsonMediaType(req.headers.accept);
      if (!params || !media) {
        // eslint-disable-next-line @typescript-eslint/await-thenable -- a promise at run time (above)
        if (req.method === 'GET') await deps.yoga.requestListener(req, res);
        else await forwardToYoga(deps.yoga, req, res, body);
        return;
      }
      const pending = persisted.resolve(params);
      const resolved = pending instanceof Promise ? await pending : pending;
      if (resolved === 'yoga') {
        await forwardToYoga(deps.yoga, req, res, body);
        return;
      }
      if (resolved) {
        refuse(req, res, media, resolved);
        return;
      }
      const query = params.query;
      const prepared = typeof query === 'string' && prepare(req, params, query);
      if (prepared && prepared.kind === 'mutation' && req.method === 'POST') {
        if (await mutate(req, res, media, prepared.op, params)) return;
      }
      if (!prepared || prepared.kind !== 'read' || req.headers.authorization !== undefined) {
        await forwardToYoga(deps.yoga, req, res, body, params, media);
        return;
      }
      const op = prepared.op;
      // Rate limited like any read: a refused one goes to yoga, which gives the RATE_LIMITED answer.
      try {
        deps.rateLimit(req.socket.remoteAddress ?? 'unknown');
      } catch (err) {
        if (!isDomainError(err)) throw err;
        await forwardToYoga(deps.yoga, req, res, body, params, media);
        return;
      }
      const key = `${query}\n${params.operationName ?? ''}\n${JSON.stringify(params.variables ?? null)}`;
      const hit = deps.cache.get(key);
      if (hit) {
        send(req, res, media, hit.body, hit.etag);
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
        await forwardToYoga(deps.yoga, req, res, body, params, media);
        return;
      }
      send(req, res, media, answer, deps.cache.set(key, answer, reads, startedAt)?.etag);
    },
  };
}
