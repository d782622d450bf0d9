// One device of bench/live.bench.ts: a graphql-ws subscription (subprotocol graphql-transport-ws) on a
// WebSocket over a plain TCP socket, framed by hand. The bench runs its 10,000 devices on the same
// cores as ladder, so what a device costs is taken from the server being measured: the ws library
// and graphql-ws's client cost about a third more CPU than this (docs/benchmarks.md#live-pushes-npm-run-benchlive);
// most of what is left is the kernel's.
// This speaks the part of both protocols the server uses and checks it: the upgrade (status, accept
// key, subprotocol), unfragmented and uncompressed frames (ws sends each message in one frame, and
// no extension is offered), close, ping and pong at both levels. Anything else ends the socket with
// an error the bench reports.
import { createHash, randomBytes } from 'node:crypto';
import net from 'node:net';

export interface Handlers {
  /** A `next` message's payload (an execution result), and when its last byte was read (Date.now()). */
  next(result: { data?: unknown; errors?: unknown }, readAt: number): void;
  /** An `error` message, a protocol violation or a socket error. Nothing is called after it. */
  error(err: unknown): void;
  /** A `complete` message, or the socket closed by the server. Nothing is called after it. */
  end(reason: string): void;
}

export interface Subscription {
  /** Sends a close frame (1000) and ends the socket; resolves when it is closed. */
  close(): Promise<void>;
}

const ACCEPT_GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
const SUBPROTOCOL = 'graphql-transport-ws';
const OP = { text: 0x1, close: 0x8, ping: 0x9, pong: 0xa } as const;

/**
 * Chunks read in one turn of the event loop are parsed after all of them were read (setImmediate
 * runs after the poll phase): a push that reaches 500 sockets at once gives each a read time that
 * does not include the handling of the sockets read before it, which no real device waits for.
 */
let queued: Array<() => void> = [];
function handleQueued(): void {
  const batch = queued;
  queued = [];
  for (const handle of batch) handle();
}

/** A client frame: FIN, masked with a fresh key (RFC 6455 5.3). */
function frame(opcode: number, payload: Buffer): Buffer {
  const len = payload.length;
  const head = len < 126 ? 6 : len < 65_536 ? 8 : 14;
  const out = Buffer.allocUnsafe(head + len);
  out[0] = 0x80 | opcode;
  if (len < 126) out[1] = 0x80 | len;
  else if (len < 65_536) {
    out[1] = 0x80 | 126;
    out.writeUInt16BE(len, 2);
  } else {
    out[1] = 0x80 | 127;
    out.writeBigUInt64BE(BigInt(len), 2);
  }
  const mask = randomBytes(4);
  mask.copy(out, head - 4);
  for (let i = 0; i < len; i++) out[head + i] = payload[i]! ^ mask[i & 3]!;
  return out;
}

const json = (message: unknown) => frame(OP.text, Buffer.from(JSON.stringify(message)));

/** Opens a socket to `url` (ws://host:port/path) and starts one subscription on it. */
export function subscribe(url: string, query: string, variables: unknown, on: Handlers): Subscription {
  const { hostname, port, pathname } = new URL(url);
  const key = randomBytes(16).toString('base64');
  const accept = createHash('sha1')
    .update(key + ACCEPT_GUID)
    .digest('base64');
  const socket = net.connect({ host: hostname, port: Number(port), noDelay: true });
  let pending: Buffer | undefined;
  let upgraded = false;
  let done = false;
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));

  const finish = (err: unknown, reason = '') => {
    if (done) return;
    done = true;
    socket.destroy();
    if (err === undefined) on.end(reason);
    else on.error(err);
  };
  const send = (bytes: Buffer) => {
    if (!socket.destroyed) socket.write(bytes);
  };

  socket.once('connect', () =>
    socket.write(
      `GET ${pathname} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
        `Sec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: ${SUBPROTOCOL}\r\n\r\n`,
    ),
  );
  socket.on('data', (chunk: Buffer) => {
    const at = Date.now();
    if (queued.length === 0) setImmediate(handleQueued);
    queued.push(() => read(chunk, at));
  });
  socket.on('error', (err) => finish(err));
  socket.on('close', () => finish(undefined, 'socket closed'));

  function read(chunk: Buffer, at: number): void {
    if (done) return;
    let buf = pending ? Buffer.concat([pending, chunk]) : chunk;
    if (!upgraded) {
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) {
        pending = buf;
        return;
      }
      const problem = checkUpgrade(buf.subarray(0, end).toString('latin1'), accept);
      if (problem) return finish(new Error(problem));
      upgraded = true;
      send(json({ type: 'connection_init' }));
      buf = buf.subarray(end + 4);
    }
    let off = 0;
    while (!done && buf.length - off >= 2) {
      const b0 = buf[off]!;
      const b1 = buf[off + 1]!;
      // Checked before waiting for the body: a masked frame's length is not where it is read below.
      if ((b0 & 0xf0) !== 0x80 || b1 & 0x80) {
        return finish(new Error(`unexpected frame header ${b0.toString(16)} ${b1.toString(16)}`));
      }
      let len = b1 & 0x7f;
      let head = 2;
      if (len === 126) {
        if (buf.length - off < 4) break;
        len = buf.readUInt16BE(off + 2);
        head = 4;
      } else if (len === 127) {
        if (buf.length - off < 10) break;
        len = Number(buf.readBigUInt64BE(off + 2));
        head = 10;
      }
      if (buf.length - off < head + len) break;
      onFrame(b0 & 0x0f, buf.subarray(off + head, off + head + len), at);
      off += head + len;
    }
    pending = off === buf.length ? undefined : Buffer.from(buf.subarray(off));
  }

  function onFrame(opcode: number, payload: Buffer, at: number): void {
    if (opcode === OP.ping) return send(frame(OP.pong, payload));
    if (opcode === OP.pong) return;
    if (opcode === OP.close) {
      const code = payload.length >= 2 ? payload.readUInt16BE(0) : 1005;
      send(frame(OP.close, payload.subarray(0, 2)));
      return finish(new Error(`socket closed: ${code} ${payload.subarray(2).toString()}`));
    }
    if (opcode !== OP.text) return finish(new Error(`unexpected opcode ${opcode}`));
    let message: { type: string; id?: string; payload?: any };
    try {
      message = JSON.parse(payload.toString()) as typeof message;
    } catch {
      return finish(new Error('a text frame that is not JSON'));
    }
    switch (message.type) {
      case 'connection_ack':
        return send(json({ id: '1', type: 'subscribe', payload: { query, variables } }));
      case 'next':
        return on.next(message.payload, at);
      case 'error':
        return finish(message.payload);
      case 'complete':
        return finish(undefined, 'complete');
      case 'ping':
        return send(json({ type: 'pong' }));
      case 'pong':
        return;
      default:
        return finish(new Error(`unexpected message ${message.type}`));
    }
  }

  return {
    close() {
      if (!done) {
        done = true;
        send(frame(OP.close, Buffer.from([0x03, 0xe8])));
        socket.end();
      }
      return closed;
    },
  };
}

/** Why an upgrade response is not the one asked for, or undefined when it is. */
function checkUpgrade(head: string, accept: string): string | undefined {
  const [status, ...lines] = head.split('\r\n');
  if (!/^HTTP\/1\.1 101 /.test(status ?? '')) return `upgrade refused: ${status}`;
  const headers = new Map(
    lines.map((line) => {
      const colon = line.indexOf(':');
      return [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()];
    }),
  );
  if (headers.get('sec-websocket-accept') !== accept) return 'upgrade: wrong Sec-WebSocket-Accept';
  if (headers.get('sec-websocket-protocol') !== SUBPROTOCOL) return 'upgrade: subprotocol not accepted';
  if (headers.has('sec-websocket-extensions')) return 'upgrade: an extension was not offered';
  return undefined;
}
