import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Plugin } from 'graphql-yoga';
import { badInput } from '../domain/errors.js';
import type { Logger } from '../logger.js';
import { addressOf, createContextFactory, type Principal, type Services } from './context.js';
import { createCors } from './cors.js';
import { GraphQLError } from 'graphql';
import { codeLabel, codeOf, createErrorLog } from './error-report.js';
import { errorsBody, maskError } from './errors.js';
import { answerEarly } from './lingering-close.js';
import { listCostLimit } from './list-cost.js';
import { closeAtOnce } from './close-at-once.js';
import { readBody } from './read-body.js';
import type { PersistedQueries } from './persisted-query.js';
import { createReadPath } from './read-path.js';
import { isSingleConnectionMode, refuseSingleConnectionMode } from './sse-modes.js';
import type { ResponseCache } from './response-cache.js';
import { schema } from './schema.js';
import { useConnectionLimit } from './use-connection-limit.js';
import { useGraphiQL } from './use-graphiql.js';
import { useGraphQLWs } from './use-graphql-ws.js';
import { createLadderYoga } from './yoga.js';
import { continueTrace } from '../tracing.js';
import type { SocketLimits } from './use-socket-limits.js';

export interface ServerLimits extends SocketLimits {
  maxBodyBytes: number;
  /** The largest WebSocket message a client may send (ws closes the socket past it). */
  maxMessageBytes: number;
  /** The largest operationCost (list-cost.ts) an operation may have. */
  maxCost: number;
  /** Open connections (HTTP and WebSocket) per client address; 0: no cap. */
  connectionsPerAddress: number;
  /** Serve GraphiQL at the endpoint to browsers; full loads an address may make per minute (use-graphiql.ts). */
  graphiql: boolean;
  graphiqlLoadsPerMinute: number;
  /** Origins browsers may call from: '*' (any, without credentials) or a list (with credentials). */
  corsOrigins: '*' | readonly string[];
  /** On close: how long open connections are still served, each answer closing its connection. */
  drainGraceMs: number;
}

/** How long a stopping server lets requests in flight finish, after its grace, before cutting their connections. */
const DRAIN_MS = 5_000;

/** Limits that are no setting. The others are settings: their defaults live in config.ts. */
export const defaultLimits = {
  maxBodyBytes: 256 * 1024,
  maxMessageBytes: 64 * 1024,
  maxSocketBufferBytes: 4 * 1024 * 1024,
} satisfies Partial<ServerLimits>;

/** Extra HTTP routes next to /graphql (readiness, metrics). */
export type Routes = Record<string, () => Promise<{ status: number; contentType: string; body: string }>>;

/**
 * The HTTP and WebSocket face of the service: GraphQL over HTTP (and SSE) at /graphql,
 * graphql-ws on the same path, GraphiQL with bundled assets (graphiql.ts), /health, plus `routes` and the board `page`.
 * It serves on `server` (app/startup.ts createApiServer, which owns the listener and its timeouts)
 * through `handlers`, once the process is ready.
 */
export function createGraphQLServer(deps: {
  server: Server;
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
  /** Automatic persisted queries shared with the other API processes (redis/persisted-queries.ts). */
  persistedQueries: PersistedQueries;
}) {
  const limits: ServerLimits = { ...defaultLimits, ...deps.limits };
  const log = deps.logger.child({ component: 'graphql' });
  const logError = createErrorLog({ log });
  const codes = new Set<string>();
  /** The one error translation (errors.ts), counting each code a client gets. */
  const maskAndCount = (error: unknown, message: string): GraphQLError => {
    const masked = maskError(error, message);
    deps.onErrorCode?.(codeLabel(codeOf(masked), codes));
    return masked;
  };

  const contextFor = createContextFactory(deps.services, deps.authenticate);

  // The list-cost limit, also asked by the paths that run prepared operations (read path, board subscriptions).
  const listCost = listCostLimit(limits.maxCost);

  const yoga = createLadderYoga({
    log,
    logError,
    translate: maskAndCount,
    context: contextFor,
    listCost,
    jit: deps.jit !== false,
    plugins: deps.plugins ?? [],
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
    persistedQueries: deps.persistedQueries,
    // What yoga's maskedErrors does with each error: translate it, and report it when it changed.
    maskError: (error) => {
      const masked = maskAndCount(error, 'Unexpected error.');
      if (masked !== error) logError(error);
      return masked;
    },
    mutations: { onExecuted: deps.onMutationExecuted },
  });

  const graphiql = limits.graphiql
    ? useGraphiQL({ endpoint: yoga.graphqlEndpoint, loadsPerMinute: limits.graphiqlLoadsPerMinute })
    : undefined;

  const cors = createCors(limits.corsOrigins);

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // Every body is read here, bounded on the bytes actually read (a chunked body has no
    // Content-Length to check), before any route or yoga sees the request.
    const body = await readBody(req, limits.maxBodyBytes);
    if (body === undefined) {
      const message = `request body over ${limits.maxBodyBytes} bytes`;
      const refusal = errorsBody([maskAndCount(badInput(undefined, message), message)]);
      // The rest of the body may still be arriving: answered so that the client can read it.
      answerEarly(req, res, 413, { 'content-type': 'application/json; charset=utf-8' }, refusal);
      return;
    }
    // yoga (@whatwg-node/server) takes a request's `body` as already read instead of reading the stream.
    if (body) (req as IncomingMessage & { body?: string }).body = body;
    if (deps.page?.(req, res)) return;
    if (cors.preflight(req, res)) return;
    cors.apply(req, res);
    if (graphiql && (await graphiql(req, res))) return;
    const route = req.url ? deps.routes?.[req.url.split('?')[0]!] : undefined;
    if (route) {
      const { status, contentType, body: out } = await route();
      res.writeHead(status, { 'content-type': contentType }).end(out);
      return;
    }
    if (req.url === yoga.graphqlEndpoint || req.url?.startsWith(`${yoga.graphqlEndpoint}?`)) {
      if (isSingleConnectionMode(req)) {
        refuseSingleConnectionMode(req, res);
        return;
      }
      await readPath.handle(req, res, body);
      return;
    }
    // eslint-disable-next-line @typescript-eslint/await-thenable -- typed void, a promise at run time (read-path.ts)
    await yoga.requestListener(req, res);
  }

  const restarting = closeAtOnce(1012, 'restarting: try again');
  /** Responses not yet sent: once close() starts, each is the last of its connection. */
  const inFlight = new Set<ServerResponse>();
  let draining = false;
  const lastOnItsConnection = (res: ServerResponse) => {
    if (!res.headersSent) res.setHeader('connection', 'close');
    // Sent: its connection is idle, and closeIdleConnections closes it.
    res.once('finish', () => setImmediate(() => server.closeIdleConnections()));
  };

  function request(req: IncomingMessage, res: ServerResponse): void {
    inFlight.add(res);
    res.once('close', () => inFlight.delete(res));
    if (draining) lastOnItsConnection(res);
    // Under the trace of the request's `traceparent`, if any: its spans and log lines continue it.
    continueTrace(req.headers, () => handle(req, res)).catch((err: unknown) => {
      // A client gone mid-request (or cut by the request timeout): nothing to answer, no fault here.
      if (req.destroyed) {
        log.debug({ err: (err as Error).message, url: req.url }, 'request aborted by the client');
        return;
      }
      log.error({ err, url: req.url }, 'request failed');
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end();
    });
  }

  const { server } = deps;
  useConnectionLimit(server, limits.connectionsPerAddress);
  const ws = useGraphQLWs({
    path: yoga.graphqlEndpoint,
    maxPayload: limits.maxMessageBytes,
    yoga,
    schema,
    context: (req) => contextFor(req),
    limits,
    addressOf,
    listCost,
    jit: deps.jit !== false,
    translate: maskAndCount,
    log,
  });

  return {
    server,
    yoga,
    /** What `server` answers with once the process is ready. */
    handlers: {
      request,
      // While stopping: 1012 Service Restart, which a client retries (through a balancer, elsewhere).
      upgrade: (req: IncomingMessage, socket: Duplex, head: Buffer) =>
        draining ? restarting(req, socket, head) || socket.destroy() : ws.upgrade(req, socket, head),
    },
    /** Distinct shared subscription executions (see shared-subscriptions.ts). */
    sharedSubscriptions: ws.sharedSubscriptions,
    /**
     * Closes sockets (subscriptions end, their cleanups run) and the HTTP server, draining it.
     * For `drainGraceMs`, connections are still served, each answer with `Connection: close`:
     * a client's next request on a keep-alive connection gets an answer and a closed connection
     * instead of meeting a connection closed under it. Then no new connection is accepted, idle
     * ones close, a request in flight gets its answer and its connection closes after it; what
     * is still open DRAIN_MS later is cut.
     */
    async close(): Promise<void> {
      await ws.dispose();
      draining = true;
      for (const res of inFlight) lastOnItsConnection(res);
      if (limits.drainGraceMs > 0) await new Promise((r) => setTimeout(r, limits.drainGraceMs));
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const cut = setTimeout(() => server.closeAllConnections(), DRAIN_MS);
      await closed;
      clearTimeout(cut);
    },
  };
}
