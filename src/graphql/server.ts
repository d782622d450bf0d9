import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { costLimitPlugin } from '@escape.tech/graphql-armor-cost-limit';
import { maxAliasesPlugin } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthPlugin } from '@escape.tech/graphql-armor-max-depth';
import { maxDirectivesPlugin } from '@escape.tech/graphql-armor-max-directives';
import { maxTokensPlugin } from '@escape.tech/graphql-armor-max-tokens';
import { renderGraphiQL } from '@graphql-yoga/render-graphiql';
import DataLoader from 'dataloader';
import { useGraphQlJit } from '@envelop/graphql-jit';
import { GraphQLError, type ExecutionArgs } from 'graphql';
import type { OperationResult } from 'graphql-ws';
import { createYoga, type Plugin } from 'graphql-yoga';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Logger } from '../logger.js';
import type { Context, Principal, Services } from './context.js';
import { maskError, useErrorCodes } from './errors.js';
import { operationTypeOf } from './operation-type.js';
import { createReadPath, readsOnlyBoards } from './read-path.js';
import type { RequestReads, ResponseCache } from './response-cache.js';
import { schema } from './schema.js';
import { createSharedSubscriptions } from './shared-subscriptions.js';

export interface ServerLimits {
  maxBodyBytes: number;
  subscriptionsPerSocket: number;
  socketsPerAddress: number;
  /** A socket whose unsent data exceeds this is a slow reader and is closed. */
  maxSocketBufferBytes: number;
}

/** Limits that are no setting. The WebSocket ones are settings (WS_*): their defaults live in config.ts. */
export const defaultLimits = {
  maxBodyBytes: 256 * 1024,
  maxSocketBufferBytes: 4 * 1024 * 1024,
} satisfies Partial<ServerLimits>;

/** Extra HTTP routes next to /graphql (readiness, metrics). */
export type Routes = Record<string, () => Promise<{ status: number; contentType: string; body: string }>>;

const addressOf = (req: IncomingMessage) => req.socket.remoteAddress ?? 'unknown';

/**
 * The HTTP and WebSocket face of the service: GraphQL over HTTP (and SSE) at /graphql,
 * graphql-ws on the same path, GraphiQL with bundled assets, /health, plus `routes`.
 */
export function createGraphQLServer(deps: {
  services: Services;
  authenticate(authorization: string | undefined): Promise<Principal | null>;
  logger: Logger;
  routes?: Routes;
  limits: Pick<ServerLimits, 'subscriptionsPerSocket' | 'socketsPerAddress'> & Partial<ServerLimits>;
  plugins?: Plugin[];
  /** Compile queries with graphql-jit (default on). */
  jit?: boolean;
  /** Cacheable reads: the response cache and the Cache-Control max-age of its answers by GET. */
  responses: { cache: ResponseCache; maxAgeSeconds: number };
}) {
  const limits: ServerLimits = { ...defaultLimits, ...deps.limits };
  const log = deps.logger.child({ component: 'graphql' });

  function contextFor(req: IncomingMessage, reads?: RequestReads): Context {
    let principal: Promise<Principal | null> | undefined;
    return {
      reads,
      services: deps.services,
      principal: () => (principal ??= deps.authenticate(req.headers.authorization)),
      clientAddress: addressOf(req),
      players: new DataLoader(async (ids: readonly string[]) => {
        const names = await deps.services.playerNames(ids);
        return ids.map((id) => ({ id, displayName: names.get(id) ?? null }));
      }),
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

  const yoga = createYoga<{ req: IncomingMessage; reads?: RequestReads }, Context>({
    schema,
    graphqlEndpoint: '/graphql',
    healthCheckEndpoint: '/health',
    landingPage: false,
    batching: false,
    renderGraphiQL,
    graphiql: { title: 'ladder', defaultQuery: '{ seasons { id name status } }' },
    maskedErrors: { maskError },
    logging: {
      debug: (...a) => log.debug(a.map(String).join(' ')),
      info: (...a) => log.info(a.map(String).join(' ')),
      warn: (...a) => log.warn(a.map(String).join(' ')),
      error: (...a) => log.error(a.map(String).join(' ')),
    },
    context: ({ req, reads }) => contextFor(req, reads),
    plugins: [
      maxDepthPlugin({ n: 8 }),
      maxAliasesPlugin({ n: 15 }),
      maxTokensPlugin({ n: 1_000 }),
      maxDirectivesPlugin({ n: 10 }),
      costLimitPlugin({ maxCost: 5_000 }),
      useErrorCodes(),
      rateLimitReads,
      // Queries run as compiled functions (graphql-jit): several times cheaper per request than
      // the interpreter on this schema (docs/benchmarks.md). Mutations and subscriptions are rare
      // and stay on graphql-js.
      ...(deps.jit === false ? [] : [useGraphQlJit({}, { enableIf: (args) => operationTypeOf(args.document, args.operationName) === 'query' })]),
      ...(deps.plugins ?? []),
    ],
  });

  const readPath = createReadPath({
    yoga,
    schema,
    cache: deps.responses.cache,
    rateLimit: (address) => deps.services.rateLimit('read', address),
    maxBodyBytes: limits.maxBodyBytes,
    maxAgeSeconds: deps.responses.maxAgeSeconds,
  });

  const server: Server = createServer((req, res) => {
    const route = req.url ? deps.routes?.[req.url.split('?')[0]!] : undefined;
    if (route) {
      route().then(({ status, contentType, body }) => {
        res.writeHead(status, { 'content-type': contentType }).end(body);
      }, (err) => {
        log.error({ err }, 'route failed');
        res.writeHead(500).end();
      });
      return;
    }
    if (Number(req.headers['content-length'] ?? 0) > limits.maxBodyBytes) {
      res.writeHead(413, { 'content-type': 'application/json' })
        .end(JSON.stringify({ errors: [{ message: 'request body too large', extensions: { code: 'BAD_USER_INPUT' } }] }));
      req.resume();
      return;
    }
    if (req.url === yoga.graphqlEndpoint || req.url?.startsWith(`${yoga.graphqlEndpoint}?`)) {
      readPath.handle(req, res).catch((err: unknown) => {
        log.error({ err }, 'request failed');
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
        res.end();
      });
      return;
    }
    void yoga.requestListener(req, res);
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

  type WsRoot = { execute(args: ExecutionArgs): OperationResult; subscribe(args: ExecutionArgs): OperationResult; shareKey?: string };
  const shared = createSharedSubscriptions();
  const wsServer = useServer<Record<string, unknown>, { request: IncomingMessage; socket: WebSocket }>({
    execute: (args) => (args.rootValue as WsRoot).execute(args),
    subscribe: (args) => {
      const root = args.rootValue as WsRoot;
      return root.shareKey ? shared.subscribe(root.shareKey, () => root.subscribe(args) as never) : root.subscribe(args);
    },
    onSubscribe: async (ctx, _id, params) => {
      const socket = ctx.extra.socket;
      // Counted before the first await: a burst of subscribe messages must not all see the old count.
      const count = (subscriptionsBySocket.get(socket) ?? 0) + 1;
      if (count > limits.subscriptionsPerSocket) {
        return [new GraphQLError(`at most ${limits.subscriptionsPerSocket} subscriptions per socket`, {
          extensions: { code: 'RATE_LIMITED' },
        })];
      }
      subscriptionsBySocket.set(socket, count);
      const release = () => subscriptionsBySocket.set(socket, Math.max(0, (subscriptionsBySocket.get(socket) ?? 1) - 1));
      try {
        // Runs the same envelop plugins (limits, error codes, masking) as HTTP.
        const { schema: s, execute, subscribe, contextFactory, parse, validate } = yoga.getEnveloped({
          ...ctx, req: ctx.extra.request, socket, params,
        });
        const args: ExecutionArgs = {
          schema: s,
          operationName: params.operationName,
          document: parse(params.query),
          variableValues: params.variables,
          contextValue: await contextFactory(),
          rootValue: { execute, subscribe } as WsRoot,
        };
        const errors = validate(args.schema, args.document);
        if (errors.length === 0 && readsOnlyBoards(args.schema, args.document, 'subscription')) {
          (args.rootValue as WsRoot).shareKey = JSON.stringify([params.query, params.operationName ?? null, params.variables ?? null]);
        }
        if (errors.length > 0) release();
        return errors.length > 0 ? errors : args;
      } catch (err) {
        release();
        throw err;
      }
    },
    onComplete: (ctx) => {
      const socket = ctx.extra.socket;
      subscriptionsBySocket.set(socket, Math.max(0, (subscriptionsBySocket.get(socket) ?? 1) - 1));
    },
  }, wss);

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
