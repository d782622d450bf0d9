// A private, real redis-server for tests that must FLUSHALL or stop Redis without touching
// the shared one other test files use.
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { Redis } from 'ioredis';

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export async function startRedisServer() {
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  let proc: ChildProcess | undefined;

  async function start(): Promise<void> {
    proc = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--maxmemory-policy',
        'noeviction',
      ],
      { stdio: 'ignore' },
    );
    const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    probe.on('error', () => {}); // refused until the server listens: expected
    const deadline = Date.now() + 10_000;
    for (;;) {
      try {
        await probe.connect();
        await probe.ping();
        probe.disconnect();
        return;
      } catch (err) {
        if (Date.now() > deadline) throw err;
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  }

  async function stop(): Promise<void> {
    if (!proc || proc.exitCode !== null) return;
    const exited = new Promise((r) => proc!.once('exit', r));
    proc.kill('SIGKILL');
    await exited;
  }

  await start();
  return { url, port, start, stop };
}
