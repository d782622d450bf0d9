// Open connections per client address (HTTP and WebSocket alike): one client cannot take every
// socket of the process.
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/** How many things each address holds open; an address holding none is forgotten. */
export function createAddressCounts() {
  const counts = new Map<string, number>();
  return {
    /** Counts one more for `address`; returns its count now. */
    add(address: string): number {
      const n = (counts.get(address) ?? 0) + 1;
      counts.set(address, n);
      return n;
    },
    remove(address: string): void {
      const left = (counts.get(address) ?? 1) - 1;
      if (left <= 0) counts.delete(address);
      else counts.set(address, left);
    },
    /** Addresses holding something (a Map's size: for tests and metrics). */
    addresses: () => counts.size,
  };
}

/** Destroys every connection past `perAddress` open ones from the same address (0: no cap). */
export function useConnectionLimit(server: Pick<Server, 'on'>, perAddress: number) {
  const counts = createAddressCounts();
  if (perAddress === 0) return counts;
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? 'unknown';
    if (counts.add(address) > perAddress) {
      counts.remove(address);
      socket.destroy();
      return;
    }
    socket.once('close', () => counts.remove(address));
  });
  return counts;
}
