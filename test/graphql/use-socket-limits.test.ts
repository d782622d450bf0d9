import { EventEmitter, once } from 'node:events';
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { TOO_MANY_SOCKETS, useSocketLimits } from '../../src/graphql/use-socket-limits.js';

afterEach(() => vi.useRealTimers());

const limits = { socketsPerAddress: 2, subscriptionsPerSocket: 3, maxSocketBufferBytes: 100 };

function fakeServer() {
  const wss = Object.assign(new EventEmitter(), { clients: new Set<FakeSocket>() });
  return {
    wss,
    connect(address: string, bufferedAmount = 0) {
      const socket = new FakeSocket(bufferedAmount);
      wss.clients.add(socket);
      wss.emit('connection', socket, { socket: { remoteAddress: address } });
      return socket;
    },
  };
}

class FakeSocket extends EventEmitter {
  closedWith?: number;
  terminated = false;
  readyState = WebSocket.OPEN;
  pings = 0;
  constructor(public bufferedAmount: number) {
    super();
  }
  close(code: number) {
    this.closedWith = code;
  }
  terminate() {
    this.terminated = true;
  }
  ping() {
    this.pings++;
  }
}

const addressOf = (req: { socket: { remoteAddress?: string } }) => req.socket.remoteAddress ?? 'unknown';

describe('useSocketLimits', () => {
  it('closes a socket past its address share, and lets one in again once another closed', () => {
    const { wss, connect } = fakeServer();
    const l = useSocketLimits(wss as never, limits, addressOf as never);
    const [a1, a2, a3, b1] = [connect('a'), connect('a'), connect('a'), connect('b')];
    expect([a1, a2, a3, b1].map((s) => s.closedWith)).toEqual([undefined, undefined, TOO_MANY_SOCKETS, undefined]);
    a1.emit('close');
    a3.emit('close');
    expect(connect('a').closedWith).toBeUndefined();
    l.dispose();
  });

  it.each([
    [
      ['take', 'take', 'take', 'take'],
      [true, true, true, false],
    ],
    [
      ['take', 'take', 'take', 'release', 'take'],
      [true, true, true, true],
    ],
    // A release without a take never makes room for more than the limit.
    [
      ['release', 'take', 'take', 'take', 'take'],
      [true, true, true, false],
    ],
  ] as const)('subscriptions on one socket: %j → %j', (ops, expected) => {
    const { wss, connect } = fakeServer();
    const l = useSocketLimits(wss as never, limits, addressOf as never);
    const socket = connect('a');
    const taken: boolean[] = [];
    for (const op of ops) {
      if (op === 'take') taken.push(l.take(socket as never));
      else l.release(socket as never);
    }
    expect(taken).toEqual(expected);
    expect(l.overLimitMessage).toBe('at most 3 subscriptions per socket');
    l.dispose();
  });

  it('terminates the sockets holding more unsent data than allowed at each sweep', async () => {
    vi.useFakeTimers();
    const { wss, connect } = fakeServer();
    const l = useSocketLimits(wss as never, limits, addressOf as never, { sweepMs: 1_000 });
    const [fast, slow] = [connect('a', 100), connect('b', 101)];
    await vi.advanceTimersByTimeAsync(1_000);
    expect([fast.terminated, slow.terminated]).toEqual([false, true]);
    l.dispose();
  });

  it('pings every socket once per keep-alive period, a bucket at a time, never all at once', async () => {
    vi.useFakeTimers();
    const { wss, connect } = fakeServer();
    const l = useSocketLimits(wss as never, { ...limits, socketsPerAddress: 1_000 }, addressOf as never, {
      keepAliveMs: 1_000,
      pingEveryMs: 100,
    });
    const sockets = Array.from({ length: 95 }, () => connect('a'));
    const pinged = () => sockets.filter((s) => s.pings > 0).length;
    const counts: number[] = [];
    for (let i = 0; i < 10; i++) {
      await vi.advanceTimersByTimeAsync(100);
      counts.push(pinged());
    }
    // 95 sockets in 10 buckets: 10 of them (the first five buckets) or 9 pinged per tick.
    expect(counts).toEqual([10, 20, 30, 40, 50, 59, 68, 77, 86, 95]);
    expect(sockets.every((s) => s.pings === 1)).toBe(true);
    // Every peer answers; a closed socket leaves its bucket: the next period pings the others only.
    for (const s of sockets) s.emit('pong');
    sockets[0]!.emit('close');
    await vi.advanceTimersByTimeAsync(1_000);
    expect(sockets.map((s) => s.pings)).toEqual([1, ...Array<number>(94).fill(2)]);
    expect(sockets.some((s) => s.terminated)).toBe(false);
    l.dispose();
  });

  it('terminates a peer that answered no ping by the next keep-alive round, and keeps one that does', async () => {
    const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    await once(wss, 'listening');
    const l = useSocketLimits(wss, limits, (req) => req.socket.remoteAddress ?? 'unknown', {
      keepAliveMs: 100,
      pingEveryMs: 25,
    });
    const url = `ws://127.0.0.1:${(wss.address() as { port: number }).port}`;
    const closedOnServer: string[] = [];
    wss.on('connection', (socket, req) => socket.on('close', () => closedOnServer.push(req.url!)));
    const live = new WebSocket(`${url}/live`);
    const dead = new WebSocket(`${url}/dead`);
    await Promise.all([once(live, 'open'), once(dead, 'open')]);
    // The dead peer stops reading its socket: it never sees a ping, so never answers one.
    (dead as unknown as { _socket: Socket })._socket.pause();
    await vi.waitFor(() => expect(closedOnServer).toEqual(['/dead']), { timeout: 2_000 });
    // Three more rounds, counted by the pings the live peer gets (one a round): each one kept it.
    let pings = 0;
    live.on('ping', () => pings++);
    await vi.waitFor(() => expect(pings).toBeGreaterThanOrEqual(3), { timeout: 2_000 });
    expect(closedOnServer).toEqual(['/dead']);
    expect(live.readyState).toBe(WebSocket.OPEN);
    live.terminate();
    dead.terminate();
    l.dispose();
    wss.close();
  });
});
