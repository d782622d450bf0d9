// Answers sent while the request's body is still arriving (a 413, a 503 while the process starts)
// and the lingering close that lets the client read them (RFC 9112 §9.6, "the TCP reset problem").
// Closing a socket whose peer is still sending makes the kernel answer with a reset, and a client
// busy writing its body then fails with EPIPE or ECONNRESET before it read the answer. So the
// connection is closed in stages, as nginx does: half-close once the answer is written, read and
// discard what still comes (never buffered), and close for good after a bounded number of bytes
// and of seconds, so that a hostile client holds no memory and holds the socket no longer.
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Readable } from 'node:stream';

export interface LingerLimits {
  /** Bytes read and discarded at most; then the socket is no longer read (the client's sends wait). */
  bytes: number;
  /** Then the socket is destroyed, unless the client closed it first. */
  ms: number;
}

/** Twice the request body limit (server.ts defaultLimits), for two seconds. */
const LINGER: LingerLimits = { bytes: 512 * 1024, ms: 2_000 };

/**
 * Answers `req`, whose body has not been read whole. A request already complete is answered as
 * usual (its connection may be kept alive); otherwise the answer says `connection: close` and the
 * connection lingers (lingeringClose) so that a client still sending can read it.
 */
export function answerEarly(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  headers: OutgoingHttpHeaders,
  body: string,
  limits: LingerLimits = LINGER,
): void {
  if (req.complete) {
    res.writeHead(status, headers).end(body);
    return;
  }
  res.writeHead(status, { ...headers, connection: 'close' }).end(body);
  lingeringClose(req, req.socket, limits);
}

/**
 * Closes `socket` in stages once its answer is written: half-closed (node's HTTP server would
 * destroy it with `destroySoon`, and the kernel reset the connection), then what `input` (the
 * request, or the socket itself) still brings is read and discarded up to `limits.bytes`, after
 * which it is no longer read; destroyed after `limits.ms`, or as soon as the client closes.
 */
export function lingeringClose(input: Readable, socket: Socket, limits: LingerLimits = LINGER): void {
  socket.destroySoon = () => socket.end();
  const timer = setTimeout(() => socket.destroy(), limits.ms).unref();
  socket.once('close', () => clearTimeout(timer));
  let left = limits.bytes;
  const discard = (chunk: Buffer) => {
    left -= chunk.length;
    if (left > 0) return;
    // Paused rather than destroyed: the client blocks on its full window, reads the answer, and
    // goes; destroyed now, it could still be writing and meet the reset first.
    input.off('data', discard);
    input.pause();
  };
  input.on('data', discard);
  input.resume();
}
