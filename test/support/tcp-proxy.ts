// A TCP proxy in front of a real PostgreSQL or Redis that a test can cut and restore, to
// simulate an outage of a shared service without stopping it for other test files.
import net from 'node:net';

export async function startTcpProxy(upstreamHost: string, upstreamPort: number) {
  const sockets = new Set<net.Socket>();
  const held = new Set<net.Socket>();
  let mode: 'open' | 'cut' | 'hung' = 'open';
  const server = net.createServer((client) => {
    if (mode === 'cut') {
      client.destroy();
      return;
    }
    if (mode === 'hung') {
      // Accepted and never answered, as by a host that stopped (SIGSTOP) or a dropped route.
      held.add(client);
      client.on('error', () => {});
      client.on('close', () => held.delete(client));
      return;
    }
    const upstream = net.connect({ host: upstreamHost, port: upstreamPort });
    for (const [a, b] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      sockets.add(a);
      a.on('error', () => b.destroy());
      a.on('close', () => {
        sockets.delete(a);
        b.destroy();
      });
      a.pipe(b);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    port,
    /** Drops every open connection and refuses new ones. */
    cut() {
      mode = 'cut';
      for (const s of sockets) s.destroy();
    },
    /**
     * Stops forwarding without closing anything: open connections go silent, new ones are
     * accepted and never answered. Clients see no error, only no answer.
     */
    hang() {
      mode = 'hung';
      for (const s of sockets) {
        s.unpipe();
        s.pause();
      }
    },
    /** Forwards new connections again; connections cut or held while hung are closed. */
    restore() {
      if (mode === 'hung') for (const s of [...sockets, ...held]) s.destroy();
      mode = 'open';
    },
    async close() {
      this.cut();
      for (const s of held) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}
