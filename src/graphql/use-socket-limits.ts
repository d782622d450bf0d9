// The WebSocket limits: sockets per address, subscriptions per socket, and slow readers (a
// client that does not read its socket must not make the server buffer forever).
import { WebSocket, type WebSocketServer } from 'ws';
import type { RequestInfo } from './context.js';
import { createAddressCounts } from './use-connection-limit.js';

export interface SocketLimits {
  socketsPerAddress: number;
  subscriptionsPerSocket: number;
  /** A socket whose unsent data exceeds this is a slow reader and is closed. */
  maxSocketBufferBytes: number;
}

/** The close code of a socket over its address's share (4429: "too many requests", graphql-ws style). */
export const TOO_MANY_SOCKETS = 4429;

/** A socket that answered no ping since the last keep-alive round (ws calls listeners with `this` = the socket). */
const awaitingPong = new WeakSet<WebSocket>();
function ponged(this: WebSocket): void {
  awaitingPong.delete(this);
}

/**
 * Applies the socket limits to `wss`: a socket over its address's share is closed with
 * TOO_MANY_SOCKETS, slow readers are terminated (checked every `sweepMs`), and a peer that did not
 * answer its last ping by the next one (`keepAliveMs` later) is terminated: a dead client's
 * subscriptions end. Keep-alive is one timer for every socket, instead of graphql-ws's interval
 * and pong timeout per socket (memory per idle socket: docs/benchmarks.md): every `pingEveryMs` it
 * pings one of keepAliveMs / pingEveryMs buckets of sockets, so a few at a time rather than a large
 * share at once (a ping is a write: pinging many in one turn held the event loop under bench:live).
 * Subscriptions are counted by the caller: `take` before one starts (false:
 * over the limit), `release` after.
 */
export function useSocketLimits(
  wss: Pick<WebSocketServer, 'on' | 'clients'>,
  limits: SocketLimits,
  addressOf: (req: RequestInfo) => string,
  {
    sweepMs = 1_000,
    keepAliveMs = 12_000,
    pingEveryMs = 100,
  }: { sweepMs?: number; keepAliveMs?: number; pingEveryMs?: number } = {},
) {
  const sockets = createAddressCounts();
  const subscriptions = new WeakMap<WebSocket, number>();
  const buckets = Array.from(
    { length: Math.max(1, Math.round(keepAliveMs / pingEveryMs)) },
    () => new Set<WebSocket>(),
  );
  let connected = 0;
  let due = 0;

  wss.on('connection', (socket: WebSocket, req: RequestInfo) => {
    const address = addressOf(req);
    const n = sockets.add(address);
    const bucket = buckets[connected++ % buckets.length]!;
    bucket.add(socket);
    socket.once('close', () => {
      sockets.remove(address);
      bucket.delete(socket);
    });
    socket.on('pong', ponged);
    if (n > limits.socketsPerAddress) socket.close(TOO_MANY_SOCKETS, 'too many sockets from this address');
  });

  const sweep = setInterval(() => {
    for (const socket of wss.clients) if (socket.bufferedAmount > limits.maxSocketBufferBytes) socket.terminate();
  }, sweepMs);
  const keepAlive = setInterval(() => {
    for (const socket of buckets[due++ % buckets.length]!) {
      if (socket.readyState !== WebSocket.OPEN) continue;
      if (awaitingPong.has(socket)) socket.terminate();
      else {
        awaitingPong.add(socket);
        socket.ping();
      }
    }
  }, pingEveryMs);
  sweep.unref();
  keepAlive.unref();

  return {
    /** Counts a subscription on `socket` unless it has its share (false). Synchronous: bursts count exactly. */
    take(socket: WebSocket): boolean {
      const count = (subscriptions.get(socket) ?? 0) + 1;
      if (count > limits.subscriptionsPerSocket) return false;
      subscriptions.set(socket, count);
      return true;
    },
    /** A subscription taken on `socket` ended (or never started). */
    release(socket: WebSocket): void {
      subscriptions.set(socket, Math.max(0, (subscriptions.get(socket) ?? 1) - 1));
    },
    /** Message of the error a subscription over the limit gets. */
    overLimitMessage: `at most ${limits.subscriptionsPerSocket} subscriptions per socket`,
    dispose(): void {
      clearInterval(sweep);
      clearInterval(keepAlive);
    },
  };
}
