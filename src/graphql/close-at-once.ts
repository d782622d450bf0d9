import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';

/**
 * Answers WebSocket upgrades by accepting each and closing it at once with `code` (1012 Service
 * Restart, 1013 Try Again Later): a close event, which graphql-ws's client retries by default,
 * where a refused upgrade (503) is an error event to it, and it gives up. Returns false for a
 * request that is no WebSocket upgrade (left to the caller).
 */
export function closeAtOnce(code: 1012 | 1013, reason: string) {
  const wss = new WebSocketServer({ noServer: true });
  return (req: IncomingMessage, socket: Duplex, head: Buffer): boolean => {
    if (req.headers.upgrade?.toLowerCase() !== 'websocket' || !req.headers['sec-websocket-key']) return false;
    wss.handleUpgrade(req, socket, head, (ws) => ws.close(code, reason));
    return true;
  };
}
