// graphql-ws on the HTTP server's WebSocket path, bridged to the same envelop as HTTP (limits,
// error codes, masking), with the socket limits, prepared board subscriptions and shared executions.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { GraphQLError, type ExecutionArgs, type GraphQLSchema } from 'graphql';
import type { OperationResult } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import type { YogaServerInstance } from 'graphql-yoga';
import { WebSocketServer, type WebSocket } from 'ws';
import { rateLimited } from '../domain/errors.js';
import type { Logger } from '../logger.js';
import { createBoardSubscriptions } from './board-subscriptions.js';
import { upgradeRequest, type Context, type RequestInfo } from './context.js';
import type { CostArgs } from './list-cost.js';
import { createSharedSubscriptions } from './shared-subscriptions.js';
import { useSocketLimits, type SocketLimits } from './use-socket-limits.js';

/** What onSubscribe hands graphql-ws as rootValue: how to run the operation it prepared. */
type WsRoot = {
  execute?(args: ExecutionArgs): OperationResult;
  subscribe(args: ExecutionArgs): OperationResult;
  /** A board subscription: shared by key, its results written by `send` (shared-subscriptions.ts). */
  shared?: { key: string; send(json: string): void };
};

/**
 * Serves graphql-ws on the upgrades to `path` given to its `upgrade`; `translate` is the one error
 * translation (errors.ts, counted).
 */
export function useGraphQLWs(deps: {
  path: string;
  /** The largest message a client may send (ws closes the socket past it). */
  maxPayload: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- yoga's server context type is the caller's
  yoga: YogaServerInstance<any, Context>;
  schema: GraphQLSchema;
  context(req: RequestInfo): Context;
  limits: SocketLimits;
  addressOf(req: RequestInfo): string;
  listCost: { over(args: CostArgs): boolean };
  jit: boolean;
  translate(error: unknown, message: string): GraphQLError;
  log: Pick<Logger, 'debug' | 'error'>;
}) {
  const { yoga, schema } = deps;
  // The upgrade is handled here rather than by ws (`noServer`) so that a socket keeps only what its
  // subscriptions read of its request (upgradeRequest), not the IncomingMessage: ws and graphql-ws
  // would hold that for the socket's life (memory per idle socket, docs/benchmarks.md).
  const wss = new WebSocketServer({ noServer: true, path: deps.path, maxPayload: deps.maxPayload });
  const upgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) =>
    wss.handleUpgrade(req, socket, head, (ws) => {
      wss.emit('connection', ws, upgradeRequest(req));
      // Replaces graphql-ws's listener (added on 'connection' above), which prints every error with
      // console.error and a stack: most are a client breaking the protocol, which ws answers itself.
      ws.removeAllListeners('error');
      ws.on('error', (err) => onSocketError(ws, err, deps.log));
    });
  const limits = useSocketLimits(wss, deps.limits, deps.addressOf);
  const shared = createSharedSubscriptions();
  const boardSubscriptions = createBoardSubscriptions({
    schema,
    jit: deps.jit,
    overCost: (args) => deps.listCost.over(args),
    translate: deps.translate,
  });
  const wsServer = useServer<Record<string, unknown>, { request: RequestInfo; socket: WebSocket }>(
    {
      execute: (args) => (args.rootValue as WsRoot).execute!(args),
      subscribe: (args) => {
        const root = args.rootValue as WsRoot;
        return root.shared
          ? shared.subscribe(root.shared.key, () => root.subscribe(args) as never, root.shared.send)
          : root.subscribe(args);
      },
      onSubscribe: async (ctx, id, params) => {
        const socket = ctx.extra.socket;
        // Counted before the first await: a burst of subscribe messages must not all see the old count.
        if (!limits.take(socket)) {
          return [deps.translate(rateLimited(limits.overLimitMessage), limits.overLimitMessage)];
        }
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
            // graphql-ws's Next message, with the shared result's text as its payload.
            const next = `{"id":${JSON.stringify(id)},"type":"next","payload":`;
            const root: WsRoot = {
              shared: {
                key: JSON.stringify([params.query, params.operationName ?? null, params.variables ?? null]),
                send: (json) => {
                  if (socket.readyState === socket.OPEN) socket.send(`${next}${json}}`);
                },
              },
              subscribe: (args) => boardSubscriptions.subscribe(board, args, () => fallback(args)) as never,
            };
            return {
              schema,
              document: board.document,
              operationName: params.operationName,
              variableValues: params.variables,
              contextValue: deps.context(ctx.extra.request),
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
          if (errors.length > 0) limits.release(socket);
          return errors.length > 0 ? errors : args;
        } catch (err) {
          limits.release(socket);
          // A parse error (syntax, token limit) answers this operation; thrown, it would close the
          // socket (4500) and end every other subscription on it.
          if (err instanceof GraphQLError) return [deps.translate(err, err.message)];
          throw err;
        }
      },
      onComplete: (ctx) => limits.release(ctx.extra.socket),
    },
    wss,
    0, // keep-alive runs in useSocketLimits: one timer for every socket
  );

  return {
    /** Takes an HTTP upgrade of the server (a path other than `path` is refused by ws). */
    upgrade,
    /** Distinct shared subscription executions (see shared-subscriptions.ts). */
    sharedSubscriptions: () => shared.size(),
    /** Closes every socket: subscriptions end, their cleanups run. */
    async dispose(): Promise<void> {
      limits.dispose();
      await wsServer.dispose();
    },
  };
}

/**
 * An error ws emitted on a socket. Its receiver's errors (coded WS_ERR_*: a message over maxPayload,
 * a bad frame or UTF-8) come after ws itself closed the socket with their status (1009, 1002,
 * 1007): the client's doing, logged at debug. Anything else is ours: logged, and the socket closed
 * with graphql-ws's 4500 as its own listener did.
 */
function onSocketError(ws: WebSocket, err: Error & { code?: string }, log: Pick<Logger, 'debug' | 'error'>): void {
  if (err.code?.startsWith('WS_ERR_')) {
    log.debug({ code: err.code, reason: err.message }, 'WebSocket closed: the client broke the protocol');
    return;
  }
  log.error({ err }, 'WebSocket error');
  ws.close(4500, 'Internal server error');
}
