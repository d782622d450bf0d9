import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { turnBatchedConnection } from '../../src/redis/client.js';
import { preloadScript } from '../../src/redis/scripts.js';
import { testConfig } from '../support/env.js';
import { openServices, type Services } from '../support/services.js';

// The API's read connection: the commands of one event-loop turn leave in one write.
let s: Services;
let conn: Redis;
beforeAll(() => {
  s = openServices(testConfig());
  conn = turnBatchedConnection(s.redis);
});
afterAll(async () => {
  conn?.disconnect();
  await s?.close();
});

it('answers commands sent before it connected (lazily) and after', async () => {
  const key = `test:turn-batched:${process.pid}`;
  await s.redis.set(key, 'v', 'EX', 60);
  // lazyConnect: the first commands wait in ioredis's offline queue until the connection is ready.
  expect(await Promise.all([conn.get(key), conn.ping(), conn.exists(key)])).toEqual(['v', 'PONG', 1]);
  expect(conn.status).toBe('ready');
  expect(await conn.get(key)).toBe('v');
});

it('is a client of its own with the scripts, built from the options of the one it was made from', async () => {
  expect(conn).not.toBe(s.redis);
  expect(conn.options.db).toBe(s.redis.options.db);
  // ioredis's scripts option, copied with the options: no defineCommand needed on this connection.
  expect(conn.options.scripts).toBe(s.redis.options.scripts);
  expect(typeof conn.readTop).toBe('function');
  // ioredis's public sendCommand(command, stream), which the connection overrides to cork its socket.
  expect(Object.getPrototypeOf(Object.getPrototypeOf(conn)).sendCommand.length).toBe(2);
});

it('sends the commands of one turn in one write, each answered in order', async () => {
  await conn.ping();
  // In Redis's script cache: a NOSCRIPT's EVAL would be one more write, in a later turn.
  await preloadScript(s.redis, 'readTop');
  const socket = conn.stream as unknown as { _writev: (...a: unknown[]) => void; _write: (...a: unknown[]) => void };
  const calls = { writev: 0, write: 0 };
  const [writev, write] = [socket._writev.bind(socket), socket._write.bind(socket)];
  socket._writev = (...a) => (calls.writev++, writev(...a));
  socket._write = (...a) => (calls.write++, write(...a));
  try {
    const replies = await Promise.all(Array.from({ length: 20 }, (_, i) => conn.echo(`m${i}`)));
    expect(replies).toEqual(Array.from({ length: 20 }, (_, i) => `m${i}`));
    expect(calls).toEqual({ writev: 1, write: 0 });
    // The next turn's commands are a write of their own.
    expect(await Promise.all([conn.echo('a'), conn.echo('b')])).toEqual(['a', 'b']);
    expect(calls).toEqual({ writev: 2, write: 0 });
    // A script's EVALSHA takes the same road: with plain commands, one write.
    const board = `test:turn-batched:board:${process.pid}`;
    const [top, size] = await Promise.all([
      conn.readTop(board, `${board}:versions`, '0', '10', '0', 'SEASON'),
      conn.zcard(board),
    ]);
    expect([top, size]).toEqual([['0', 0, 1], 0]);
    expect(calls.writev).toBe(3);
  } finally {
    Object.assign(socket, { _writev: writev, _write: write });
  }
});
