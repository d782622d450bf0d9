import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { createAddressCounts, useConnectionLimit } from '../../src/graphql/use-connection-limit.js';

describe('createAddressCounts', () => {
  it.each([
    [['+a', '+a', '+b'], 2, [1, 2, 1]],
    [['+a', '-a'], 0, [1]],
    [['+a', '+a', '-a'], 1, [1, 2]],
    // A removal never goes below zero or remembers an address holding nothing.
    [['-a', '-a', '+a'], 1, [1]],
  ])('%j leaves %d addresses, counting %j', (ops, addresses, counts) => {
    const c = createAddressCounts();
    const seen: number[] = [];
    for (const op of ops) {
      if (op[0] === '+') seen.push(c.add(op.slice(1)));
      else c.remove(op.slice(1));
    }
    expect([c.addresses(), seen]).toEqual([addresses, counts]);
  });
});

describe('useConnectionLimit', () => {
  const socketFrom = (remoteAddress: string) =>
    Object.assign(new EventEmitter(), {
      remoteAddress,
      destroyed: false,
      destroy() {
        this.destroyed = true;
      },
    });

  it('destroys the connections past the cap per address and counts a closed one out', () => {
    const server = new EventEmitter();
    const counts = useConnectionLimit(server as never, 2);
    const [a1, a2, a3, b1] = [socketFrom('a'), socketFrom('a'), socketFrom('a'), socketFrom('b')];
    for (const s of [a1, a2, a3, b1]) server.emit('connection', s);
    expect([a1, a2, a3, b1].map((s) => s.destroyed)).toEqual([false, false, true, false]);
    a1.emit('close');
    const a4 = socketFrom('a');
    server.emit('connection', a4);
    expect(a4.destroyed).toBe(false);
    expect(counts.addresses()).toBe(2);
  });

  it('caps nothing with a cap of 0', () => {
    const server = new EventEmitter();
    useConnectionLimit(server as never, 0);
    const sockets = Array.from({ length: 5 }, () => socketFrom('a'));
    for (const s of sockets) server.emit('connection', s);
    expect(sockets.some((s) => s.destroyed)).toBe(false);
  });
});
