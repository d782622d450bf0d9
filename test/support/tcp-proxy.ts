// A TCP proxy in front of a real PostgreSQL or Redis that a test can cut and restore, to
// simulate an outage of a shared service without stopping it for other test files.
import net from 'node:net';

export async function startTcpProxy(upstreamHost: string, upstreamPort: number) {
  const sockets = new Set<net.Socket>();
  let cut = false;
  const server = net.createServer((client) => {
    if (cut) {
      client.destroy();
      return;
    }
    const upstream = net.connect({ host: upstreamHost, port: upstreamPort });
    for (const [a, b] of [[client, upstream], [upstream, client]] as const) {
      sockets.add(a);
      a.on('error', () => b.destroy());
      a.on('close', () => { sockets.delete(a); b.destroy(); });
      a.pipe(b);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    port,
    /** Drops every open connection and refuses new ones. */
    cut() {
      cut = true;
      for (const s of sockets) s.destroy();
    },
    restore() {
      cut = false;
    },
    async close() {
      this.cut();
      await new Promise((r) => server.close(r));
    },
  };
}
