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

/**
 * A TCP load balancer on 127.0.0.1 in front of ladder processes, as a Kubernetes Service or nginx
 * stream proxy would be: each new connection goes to the next backend in turn; one that refuses
 * the connection is skipped for the next (nginx's proxy_next_upstream error); with none left,
 * the client's connection is closed. The backends can change at any time (a restart's new port).
 */
export async function startBalancer() {
  const backends: number[] = [];
  const sockets = new Set<net.Socket>();
  let next = 0;
  const connect = (client: net.Socket, tried: number) => {
    if (tried >= backends.length || client.destroyed) return client.destroy();
    const port = backends[next++ % backends.length]!;
    const upstream = net.connect({ host: '127.0.0.1', port });
    let connected = false;
    upstream.once('error', () => {
      if (!connected) connect(client, tried + 1); // refused: the next one
    });
    upstream.once('connect', () => {
      connected = true;
      for (const [a, b] of [
        [client, upstream],
        [upstream, client],
      ] as const) {
        sockets.add(a);
        a.on('error', () => b.destroy());
        a.on('close', () => {
          sockets.delete(a);
          b.end();
        });
        a.pipe(b);
      }
    });
  };
  const server = net.createServer((client) => {
    client.on('error', () => {});
    connect(client, 0);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    port,
    url: `http://127.0.0.1:${port}/graphql`,
    add(backend: number) {
      backends.push(backend);
    },
    remove(backend: number) {
      backends.splice(backends.indexOf(backend), 1);
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}
