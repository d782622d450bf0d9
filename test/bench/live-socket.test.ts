// bench/live-socket.ts, the hand-framed graphql-ws client of bench:live, against a raw TCP server
// that writes its frames byte by byte: frames split across reads, every length encoding, both
// levels of ping, the upgrade's checks, a server's close and the client's own.
import { createHash } from 'node:crypto';
import net from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { subscribe, type Handlers } from '../../bench/live-socket.js';

interface Peer {
  /** The next frame the client sent, unmasked. */
  frame(): Promise<{ opcode: number; payload: Buffer }>;
  /** The next text frame the client sent, as JSON. */
  message(): Promise<any>;
  /** Writes server frames in pieces, a turn apart. */
  send(...frames: Buffer[]): Promise<void>;
}

const servers: net.Server[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});

/** A server frame: FIN, unmasked, with the shortest length encoding. */
function serverFrame(opcode: number, payload: Buffer | string): Buffer {
  const body = typeof payload === 'string' ? Buffer.from(payload) : payload;
  const len = body.length;
  const head = Buffer.alloc(len < 126 ? 2 : len < 65_536 ? 4 : 10);
  head[0] = 0x80 | opcode;
  if (len < 126) head[1] = len;
  else if (len < 65_536) {
    head[1] = 126;
    head.writeUInt16BE(len, 2);
  } else {
    head[1] = 127;
    head.writeBigUInt64BE(BigInt(len), 2);
  }
  return Buffer.concat([head, body]);
}
const text = (message: unknown) => serverFrame(0x1, JSON.stringify(message));

/** Listens on a free port; each connection is upgraded (with `accept` overriding the key) and handed over. */
async function server(onPeer: (peer: Peer) => Promise<void>, accept?: string): Promise<string> {
  const srv = net.createServer((socket) => {
    let buf = Buffer.alloc(0);
    let upgraded = false;
    const waiting: Array<() => void> = [];
    socket.on('data', (chunk) => {
      buf = Buffer.concat([buf, chunk]);
      if (!upgraded) {
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) return;
        const key = /sec-websocket-key: (\S+)/i.exec(buf.subarray(0, end).toString())![1]!;
        const ok = createHash('sha1').update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
        socket.write(
          'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
            `Sec-WebSocket-Accept: ${accept ?? ok}\r\nSec-WebSocket-Protocol: graphql-transport-ws\r\n\r\n`,
        );
        buf = buf.subarray(end + 4);
        upgraded = true;
      }
      for (const wake of waiting.splice(0)) wake();
    });
    const frame = async (): Promise<{ opcode: number; payload: Buffer }> => {
      for (;;) {
        if (buf.length >= 6) {
          expect(buf[1]! & 0x80).toBe(0x80); // every client frame is masked
          const len = buf[1]! & 0x7f;
          expect(len).toBeLessThan(126); // the client's frames are small
          if (buf.length >= 6 + len) {
            const mask = buf.subarray(2, 6);
            const payload = Buffer.from(buf.subarray(6, 6 + len).map((b, i) => b ^ mask[i & 3]!));
            const opcode = buf[0]! & 0x0f;
            buf = buf.subarray(6 + len);
            return { opcode, payload };
          }
        }
        await new Promise<void>((wake) => waiting.push(wake));
      }
    };
    const peer: Peer = {
      frame,
      message: async () => {
        const { opcode, payload } = await frame();
        expect(opcode).toBe(0x1);
        return JSON.parse(payload.toString());
      },
      async send(...frames) {
        const bytes = Buffer.concat(frames);
        // 7 bytes at a time through the first frames' headers and bodies, then 5,000.
        for (let i = 0; i < bytes.length; i += i < 1_000 ? 7 : 5_000) {
          socket.write(bytes.subarray(i, i + (i < 1_000 ? 7 : 5_000)));
          await new Promise((r) => setImmediate(r));
        }
      },
    };
    void onPeer(peer).catch((err: unknown) => socket.destroy(err as Error));
  });
  servers.push(srv);
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  return `ws://127.0.0.1:${(srv.address() as net.AddressInfo).port}/graphql`;
}

/** Runs one subscription to its end; what its handlers were called with, in order. */
function run(url: string) {
  return new Promise<Array<[string, unknown]>>((resolve) => {
    const calls: Array<[string, unknown]> = [];
    const handlers: Handlers = {
      next: (result, readAt) => {
        expect(Math.abs(Date.now() - readAt)).toBeLessThan(5_000);
        calls.push(['next', result]);
      },
      error: (err) => resolve([...calls, ['error', err instanceof Error ? err.message : err]]),
      end: (reason) => resolve([...calls, ['end', reason]]),
    };
    subscribe(url, 'subscription { x }', { a: 1 }, handlers);
  });
}

it('subscribes, reads frames split across reads in all three length encodings, answers both pings', async () => {
  const big = 'x'.repeat(70_000);
  const url = await server(async (peer) => {
    expect(await peer.message()).toEqual({ type: 'connection_init' });
    await peer.send(text({ type: 'connection_ack' }));
    expect(await peer.message()).toEqual({
      id: '1',
      type: 'subscribe',
      payload: { query: 'subscription { x }', variables: { a: 1 } },
    });
    await peer.send(
      text({ id: '1', type: 'next', payload: { data: { x: 1 } } }),
      text({ id: '1', type: 'next', payload: { data: { x: 'y'.repeat(300) } } }),
      text({ id: '1', type: 'next', payload: { data: { x: big } } }),
      serverFrame(0x9, 'hi'),
    );
    expect(await peer.frame()).toEqual({ opcode: 0xa, payload: Buffer.from('hi') });
    await peer.send(text({ type: 'ping' }));
    expect(await peer.message()).toEqual({ type: 'pong' });
    await peer.send(text({ id: '1', type: 'complete' }));
  });
  expect(await run(url)).toEqual([
    ['next', { data: { x: 1 } }],
    ['next', { data: { x: 'y'.repeat(300) } }],
    ['next', { data: { x: big } }],
    ['end', 'complete'],
  ]);
});

it('reports GraphQL errors, a frame that is not JSON, a refused upgrade and a server close as errors', async () => {
  const graphqlError = await server(async (peer) => {
    await peer.message();
    await peer.send(text({ type: 'connection_ack' }));
    await peer.message();
    await peer.send(text({ id: '1', type: 'error', payload: [{ message: 'unknown season' }] }));
  });
  expect(await run(graphqlError)).toEqual([['error', [{ message: 'unknown season' }]]]);

  const notJson = await server(async (peer) => {
    await peer.message();
    await peer.send(serverFrame(0x1, 'not json'));
  });
  expect(await run(notJson)).toEqual([['error', 'a text frame that is not JSON']]);

  const wrongKey = await server(async () => {}, 'bm90IHRoZSBrZXk=');
  expect(await run(wrongKey)).toEqual([['error', 'upgrade: wrong Sec-WebSocket-Accept']]);

  const closing = await server(async (peer) => {
    await peer.message();
    const close = Buffer.alloc(2);
    close.writeUInt16BE(4403);
    await peer.send(serverFrame(0x8, Buffer.concat([close, Buffer.from('Forbidden')])));
    // The client answers with the same status code.
    expect(await peer.frame()).toEqual({ opcode: 0x8, payload: close });
  });
  expect(await run(closing)).toEqual([['error', 'socket closed: 4403 Forbidden']]);
});

it('close() sends a 1000 close frame and ends the socket', async () => {
  let sawClose!: Promise<{ opcode: number; payload: Buffer }>;
  let subscribed!: () => void;
  const ready = new Promise<void>((resolve) => (subscribed = resolve));
  const url = await server(async (peer) => {
    await peer.message();
    await peer.send(text({ type: 'connection_ack' }));
    await peer.message();
    sawClose = peer.frame();
    subscribed();
  });
  const calls: unknown[] = [];
  const sub = subscribe(
    url,
    'subscription { x }',
    {},
    {
      next: (result) => calls.push(result),
      error: (err) => calls.push(err),
      end: (reason) => calls.push(reason),
    },
  );
  await ready;
  await sub.close();
  expect(await sawClose).toEqual({ opcode: 0x8, payload: Buffer.from([0x03, 0xe8]) });
  expect(calls).toEqual([]); // closing by itself calls no handler
});
