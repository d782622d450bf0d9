// The WebSocket limits: sockets per address, subscriptions per socket, and slow readers (a
// client that does not read its socket must not make the server buffer forever).
import type { IncomingMessage } from 'node:http';
import type { WebSocket, WebSocketServer } from 'ws';
import { createAddressCounts } from './use-connection-limit.js';

export interface SocketLimits {
  socketsPerAddress: number;
  subscriptionsPerSocket: number;
  /** A socket whose unsent data exceeds this is a slow reader and is closed. */
  maxSocketBufferBytes: number;
}

/** The close code of a socket over its address's share (4429: "too many requests", graphql-ws style). */
export const TOO_MANY_SOCKETS = 4429;

/**
 * Applies the socket limits to `wss`: a socket over its address's share is closed with
 * TOO_MANY_SOCKETS, slow readers are terminated (checked every `sweepMs`). Subscriptions are
 * counted by the caller: `take` before one starts (false: over the limit), `release` after.
 */
export function useSocketLimits(
  wss: Pick<WebSocketServer, 'on' | 'clients'>,
  limits: SocketLimits,
  addressOf: (req: IncomingMessage) => string,
  sweepMs = 1_000,
) {
  const sockets = createAddressCounts();
  const subscriptions = new WeakMap<WebSocket, number>();

  wss.on('connection', (socket: WebSocket, req: IncomingMessage) => {
    const address = addressOf(req);
    const n = sockets.add(address);
    socket.once('close', () => sockets.remove(address));
    if (n > limits.socketsPerAddress) socket.close(TOO_MANY_SOCKETS, 'too many sockets from this address');
  });

  const sweep = setInterval(() => {
    for (const socket of wss.clients) {
      if (socket.bufferedAmount > limits.maxSocketBufferBytes) socket.terminate();
    }
  }, sweepMs);
  sweep.unref();

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
    },
  };
}
