import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { costLimitPlugin } from '@escape.tech/graphql-armor-cost-limit';
import { maxAliasesPlugin } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthPlugin } from '@escape.tech/graphql-armor-max-depth';
import { maxDirectivesPlugin } from '@escape.tech/graphql-armor-max-directives';
import { maxTokensPlugin } from '@escape.tech/graphql-armor-max-tokens';
import DataLoader from 'dataloader';
import { useGraphQlJit } from '@envelop/graphql-jit';
import { GraphQLError, type ExecutionArgs } from 'graphql';
import type { OperationResult } from 'graphql-ws';
import { createYoga, type Plugin } from 'graphql-yoga';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Logger } from '../logger.js';
import type { Context, Principal, Services } from './context.js';
import { createRateLimiter } from '../service/rate-limiter.js';
import { createCors } from './cors.js';
import { codeLabel, codeOf, createErrorLog } from './error-report.js';
import { createBoardSubscriptions } from './board-subscriptions.js';
import { maskError, useErrorCodes } from './errors.js';
import { createGraphiQLPage, wantsGraphiQL } from './graphiql.js';
import { listCostLimit } from './list-cost.js';
import { operationTypeOf } from './operation-type.js';
import { queryLengthLimit } from './query-size.js';
import { createReadPath } from './read-path.js';
import type { RequestReads, ResponseCache } from './response-cache.js';
import { schema } from './schema.js';
import { createSharedSubscriptions } from './shared-subscriptions.js';

export interface ServerLimits {
  maxBodyBytes: number;
  subscriptionsPerSocket: number;
  socketsPerAddress: number;
  /** A socket whose unsent data exceeds this is a slow reader and is closed. */
  maxSocketBufferBytes: number;
  /** The largest operationCost (list-cost.ts) an operation may have. */
  maxCost: number;
  /** How long a client may take to send a whole request / its headers (then 408 and closed). */
  requestTimeoutMs: number;
  headersTimeoutMs: number;
  /** Open connections (HTTP and WebSocket) per client address; 0: no cap. */
  connectionsPerAddress: number;
  /** Serve GraphiQL at the endpoint to browsers, and how many full loads an address may make per minute (burst 5). */
  graphiql: boolean;
  graphiqlLoadsPerMinute: number;
  /** Origins browsers may call from: '*' (any, without credentials) or a list (with credentials). */
  corsOrigins: '*' | readonly string[];
}

/** Limits that are no setting. The others are settings: their defaults live in config.ts. */
export const defaultLimits = {
  maxBodyBytes: 256 * 1024,
  maxSocketBufferBytes: 4 * 1024 * 1024,
} satisfies Partial<ServerLimits>;

/** Extra HTTP routes next to /graphql (readiness, metrics). */
export type Routes = Record<string, () => Promise<{ status: number; contentType: string; body: string }>>;

const addressOf = (req: IncomingMessage) => req.socket.remoteAddress ?? 'unknown';

/**
 * The HTTP and WebSocket face of the service: GraphQL over HTTP (and SSE) at /graphql,
 * graphql-ws on the same path, GraphiQL with bundled assets (graphiql.ts), /health, plus `routes` and the board `page`.
 */
export function createGraphQLServer(deps: {
  services: Services;
  authenticate(authorization: string | undefined): Promise<Principal | null>;
  logger: Logger;
  routes?: Routes;
  /** Answers the requests it knows (the board page, src/page.ts) and returns true; false: not its own. */
  page?: (req: IncomingMessage, res: ServerResponse) => boolean;
  /** The settings among the limits (config.ts) and any default to override. */
  limits: Omit<ServerLimits, keyof typeof defaultLimits> & Partial<ServerLimits>;
  plugins?: Plugin[];
  /** Called with the code of every error a client gets (metrics). */
  onErrorCode?(code: string): void;
  /** Told the execution time of each mutation executed outside yoga (read-path.ts). */
  onMutationExecuted?(seconds: number): void;
  /** Compile queries with graphql-jit (default on). */
  jit?: boolean;
  /**
   * Cacheable reads: the response cache, the Cache-Control max-age of its answers by GET, and a
   * hook told the execution time of the reads executed outside yoga (read-path.ts).
   */
  responses: { cache: ResponseCache; maxAgeSeconds: number; onExecuted?(seconds: number): void };
}) {
  const limits: ServerLimits = { ...defaultLimits, ...deps.limits };
  const log = deps.logger.child({ component: 'graphql' });
  const logError = createErrorLog({ log });
  const codes = new Set<string>();
  /** The one error translation (errors.ts), counting each code a client gets. */
  const maskAndCount = (error: unknown, message: string): Error => {
    const masked = maskError(error, message);
    deps.onErrorCode?.(codeLabel(codeOf(masked), codes));
    return masked;
  };

  function contextFor(req: IncomingMessage, reads?: RequestReads): Context {
    let principal: Promise<Principal | null> | undefined;
    let players: Context['players'] | undefined;
    return {
      reads,
      services: deps.services,
      principal: () => (principal ??= deps.authenticate(req.headers.authorization)),
      clientAddress: addressOf(req),
      // Made when a name is asked for: most reads and subscriptions never do.
      get players() {
        // Batches one turn's lookups and keeps nothing: names come from the name cache (RAM), and a
        // subscription's context lives as long as it does, so a cache here would show a name
        // changed since forever.
        return (players ??= new DataLoader(
          async (ids: readonly string[]) => {
            const names = await deps.services.playerNames(ids);
            return ids.map((id) => ({ id, displayName: names.get(id) ?? null }));
          },
          { cache: false },
        ));
      },
    };
  }

  const rateLimitReads: Plugin<Context> = {
    onExecute: ({ args }) => {
      // Queries only: mutations are limited per API key, subscriptions by the socket limits.
      if (operationTypeOf(args.document, args.operationName) === 'query') {
        args.contextValue.services.rateLimit('read', args.contextValue.clientAddress);
      }
    },
  };

  // The list-cost limit, also asked by the paths that run prepared operations (read path, board subscriptions).
  const listCost = listCostLimit(limits.maxCost);

  const yoga = createYoga<{ req: IncomingMessage; reads?: RequestReads }, Context>({
    schema,
    graphqlEndpoint: '/graphql',
    healthCheckEndpoint: '/health',
    landingPage: false,
    // CORS is set in handle() (cors.ts) for every route.
    cors: false,
    batching: false,
    // GraphiQL is served by graphiql.ts (compressed once, cacheable, rate limited), or not at all.
    graphiql: false,
    maskedErrors: { maskError: maskAndCount },
    logging: {
      debug: (...a) => log.debug(a.map(String).join(' ')),
      info: (...a) => log.info(a.map(String).join(' ')),
      warn: (...a) => log.warn(a.map(String).join(' ')),
      // yoga reports here every error it masked: clients' mistakes included (error-report.ts).
      error: (...a) => (a.length === 1 ? logError(a[0]) : log.error(a.map(String).join(' '))),
    },
    context: ({ req, reads }) => contextFor(req, reads),
    plugins: [
      queryLengthLimit(),
      maxDepthPlugin({ n: 8 }),
      maxAliasesPlugin({ n: 15 }),
      maxTokensPlugin({ n: 1_000 }),
      maxDirectivesPlugin({ n: 10 }),
      costLimitPlugin({ maxCost: 5_000 }),
      // graphql-armor's cost is static: it ignores `limit` and list sizes, which this one weighs.
      listCost,
      useErrorCodes(),
      rateLimitReads,
      // Queries run as compiled functions (graphql-jit): several times cheaper per request than
      // the interpreter on this schema (docs/benchmarks.md). Mutations and subscriptions are rare
      // and stay on graphql-js.
      ...(deps.jit === false
        ? []
        : [useGraphQlJit({}, { enableIf: (args) => operationTypeOf(args.document, args.operationName) === 'query' })]),
      ...(deps.plugins ?? []),
    ],
  });

  const readPath = createReadPath({
    yoga,
    schema,
    cache: deps.responses.cache,
    rateLimit: (address) => deps.services.rateLimit('read', address),
    context: contextFor,
    overCost: (args) => listCost.over(args),
    jit: deps.jit !== false,
    onExecuted: deps.responses.onExecuted,
    maxAgeSeconds: deps.responses.maxAgeSeconds,
    mutations: {
      // What yoga's maskedErrors does with each error: translate it, and report it when it changed.
      maskError: (error) => {
        const masked = maskAndCount(error, 'Unexpected error.');
        if (masked !== error) logError(error);
        return masked as GraphQLError;
      },
      onExecuted: deps.onMutationExecuted,
    },
  });

  const graphiqlLoads = createRateLimiter({ ratePerSec: limits.graphiqlLoadsPerMinute / 60, burst: 5 });
  const graphiql = limits.graphiql
    ? createGraphiQLPage({
        title: 'ladder',
        defaultQuery: '{ seasons { id name status } }',
        take: (address) => graphiqlLoads.take(address),
      })
    : undefined;

  const cors = createCors(limits.corsOrigins);

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // Every body is read here, bounded on the bytes actually read (a chunked body has no
    // Content-Length to check), before any route or yoga sees the request.
    const body = await readBody(req, limits.maxBodyBytes);
    if (body === undefined) {
      res.writeHead(413, { 'content-type': 'application/json; charset=utf-8', connection: 'close' }).end(
        JSON.stringify({
          errors: [
            { message: `request body over ${limits.maxBodyBytes} bytes`, extensions: { code: 'BAD_USER_INPUT' } },
          ],
        }),
      );
      return;
    }
    // yoga (@whatwg-node/server) takes a request's `body` as already read instead of reading the stream.
    if (body) (req as IncomingMessage & { body?: string }).body = body;
    if (deps.page?.(req, res)) return;
    if (cors.preflight(req, res)) return;
    cors.apply(req, res);
    if (graphiql && wantsGraphiQL(req, yoga.graphqlEndpoint)) {
      await graphiql.handle(req, res);
      return;
    }
    const route = req.url ? deps.routes?.[req.url.split('?')[0]!] : undefined;
    if (route) {
      const { status, contentType, body: out } = await route();
      res.writeHead(status, { 'content-type': contentType }).end(out);
      return;
    }
    if (req.url === yoga.graphqlEndpoint || req.url?.startsWith(`${yoga.graphqlEndpoint}?`)) {
      await readPath.handle(req, res, body);
      return;
    }
    // eslint-disable-next-line @typescript-eslint/await-thenable -- typed void, a promise at run time (read-path.ts)
    await yoga.requestListener(req, res);
  }

  const server: Server = createServer(
    {
      // Node's defaults hold a slow sender for 300 s (request) and 60 s (headers), checked every 30 s.
      requestTimeout: limits.requestTimeoutMs,
      headersTimeout: Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs),
      connectionsCheckingInterval: 1_000,
    },
    (req, res) => {
      handle(req, res).catch((err: unknown) => {
        // A client gone mid-request (or cut by the request timeout): nothing to answer, no fault here.
        if (req.destroyed) {
          log.debug({ err: (err as Error).message, url: req.url }, 'request aborted by the client');
          return;
        }
        log.error({ err, url: req.url }, 'request failed');
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
        res.end();
      });
    },
  );

  const connectionsByAddress = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    if (limits.connectionsPerAddress === 0) return;
    const address = socket.remoteAddress ?? 'unknown';
    const n = (connectionsByAddress.get(address) ?? 0) + 1;
    if (n > limits.connectionsPerAddress) {
      socket.destroy();
      return;
    }
    connectionsByAddress.set(address, n);
    socket.once('close', () => {
      const left = (connectionsByAddress.get(address) ?? 1) - 1;
      if (left <= 0) connectionsByAddress.delete(address);
      else connectionsByAddress.set(address, left);
    });
  });

  const wss = new WebSocketServer({ server, path: yoga.graphqlEndpoint, maxPayload: 64 * 1024 });
  const socketsByAddress = new Map<string, number>();
  const subscriptionsBySocket = new WeakMap<WebSocket, number>();

  wss.on('connection', (socket, req) => {
    const address = addressOf(req);
    const n = (socketsByAddress.get(address) ?? 0) + 1;
    socketsByAddress.set(address, n);
    socket.once('close', () => {
      const left = (socketsByAddress.get(address) ?? 1) - 1;
      if (left <= 0) socketsByAddress.delete(address);
      else socketsByAddress.set(address, left);
    });
    if (n > limits.socketsPerAddress) socket.close(4429, 'too many sockets from this address');
  });

  // Slow readers: a client that does not read its socket must not make the server buffer forever.
  const slowReaderCheck = setInterval(() => {
    for (const socket of wss.clients) {
      if (socket.bufferedAmount > limits.maxSocketBufferBytes) socket.terminate();
    }
  }, 1_000);
  slowReaderCheck.unref();

  type WsRoot = {
    execute?(args: ExecutionArgs): OperationResult;
    subscribe(args: ExecutionArgs): OperationResult;
    shareKey?: string;
  };
  const shared = createSharedSubscriptions();
  const boardSubscriptions = createBoardSubscriptions({
    schema,
    jit: deps.jit !== false,
    overCost: (args) => listCost.over(args),
  });
  const wsServer = useServer<Record<string, unknown>, { request: IncomingMessage; socket: WebSocket }>(
    {
      execute: (args) => (args.rootValue as WsRoot).execute!(args),
      subscribe: (args) => {
        const root = args.rootValue as WsRoot;
        return root.shareKey
          ? shared.subscribe(root.shareKey, () => root.subscribe(args) as never)
          : root.subscribe(args);
      },
      onSubscribe: async (ctx, _id, params) => {
        const socket = ctx.extra.socket;
        // Counted before the first await: a burst of subscribe messages must not all see the old count.
        const count = (subscriptionsBySocket.get(socket) ?? 0) + 1;
        if (count > limits.subscriptionsPerSocket) {
          return [
            new GraphQLError(`at most ${limits.subscriptionsPerSocket} subscriptions per socket`, {
              extensions: { code: 'RATE_LIMITED' },
            }),
          ];
        }
        subscriptionsBySocket.set(socket, count);
        const release = () =>
          subscriptionsBySocket.set(socket, Math.max(0, (subscriptionsBySocket.get(socket) ?? 1) - 1));
        try {
          // Runs the same envelop plugins (limits, error codes, masking) as HTTP.
          const envelop = () => yoga.getEnveloped({ ...ctx, req: ctx.extra.request, socket, params });
          // Board-state subscriptions: validated once per query text, run without a per-subscription envelop.
          const board = boardSubscriptions.prepare(params.query, params.operationName ?? undefined, () => {
            const { schema: s, parse, validate } = envelop();
            const document = parse(params.query);
            return validate(s, document).length === 0 ? document : undefined;
          });
          if (board) {
            const fallback = async (args: ExecutionArgs) => {
              const { schema: s, subscribe, contextFactory } = envelop();
              return subscribe({ ...args, schema: s, contextValue: await contextFactory() });
            };
            const root: WsRoot = {
              shareKey: JSON.stringify([params.query, params.operationName ?? null, params.variables ?? null]),
              subscribe: (args) => boardSubscriptions.subscribe(board, args, () => fallback(args)) as never,
            };
            return {
              schema,
              document: board.document,
              operationName: params.operationName,
              variableValues: params.variables,
              contextValue: contextFor(ctx.extra.request),
              rootValue: root,
            };
          }
          const { schema: s, execute, subscribe, contextFactory, parse, validate } = envelop();
          const args: ExecutionArgs = {
            schema: s,
            operationName: params.operationName,
            document: parse(params.query),
            variableValues: params.variables,
            contextValue: await contextFactory(),
            rootValue: { execute, subscribe } as WsRoot,
          };
          const errors = validate(args.schema, args.document);
          if (errors.length > 0) release();
          return errors.length > 0 ? errors : args;
        } catch (err) {
          release();
          // A parse error (syntax, token limit) answers this operation; thrown, it would close the
          // socket (4500) and end every other subscription on it.
          if (err instanceof GraphQLError) return [maskAndCount(err, err.message) as GraphQLError];
          throw err;
        }
      },
      onComplete: (ctx) => {
        const socket = ctx.extra.socket;
        subscriptionsBySocket.set(socket, Math.max(0, (subscriptionsBySocket.get(socket) ?? 1) - 1));
      },
    },
    wss,
  );

  return {
    server,
    yoga,
    /** Distinct shared subscription executions (see shared-subscriptions.ts). */
    sharedSubscriptions: () => shared.size(),
    async listen(port: number, host: string): Promise<AddressInfo> {
      await new Promise<void>((resolve) => server.listen(port, host, resolve));
      return server.address() as AddressInfo;
    },
    /** Closes sockets (subscriptions end, their cleanups run) and the HTTP server. */
    async close(): Promise<void> {
      clearInterval(slowReaderCheck);
      await wsServer.dispose();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type GraphQLServer = ReturnType<typeof createGraphQLServer>;

/**
 * The request body as text ('' when the request has none), or undefined once it exceeds `limit`
 * bytes, whatever Content-Length says: reading stops there and the 413 closes the connection.
 */
function readBody(req: IncomingMessage, limit: number): Promise<string | undefined> {
  const length = req.headers['content-length'];
  if (req.headers['transfer-encoding'] === undefined && (length === undefined || length === '0'))
    return Promise.resolve('');
  if (Number(length ?? 0) > limit) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.off('data', onData);
        req.pause();
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.once('error', reject);
  });
}
