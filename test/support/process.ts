// Entry points (src/main.ts, scripts/demo.ts) as real child processes, and plain HTTP to them.
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The node arguments that run `script` as operators do: a file of src/ as built, the way
 * `npm start` runs dist/main.js (the integration tests' global setup runs `npm run build`
 * first); any other script (scripts/, test/) through tsx.
 */
export function nodeArgsFor(script: string): string[] {
  const src = /^src\/(.+)\.ts$/.exec(script);
  return src ? ['--enable-source-maps', `dist/${src[1]}.js`] : ['--import', 'tsx', script];
}

/** Runs `script` (see nodeArgsFor), `env` on top of this process's; collects its output. */
export function spawnEntry(script: string, env: Record<string, string>) {
  const started = Date.now();
  const child = spawn(process.execPath, nodeArgsFor(script), {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out = { stdout: '', stderr: '' };
  child.stdout.on('data', (d: Buffer) => {
    out.stdout += d.toString();
  });
  child.stderr.on('data', (d: Buffer) => {
    out.stderr += d.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal, ms: Date.now() - started }));
  });
  return {
    child,
    exited,
    get stdout() {
      return out.stdout;
    },
    get stderr() {
      return out.stderr;
    },
    /** The JSON log lines on stdout. */
    logs(): Array<Record<string, any>> {
      return out.stdout
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, any>);
    },
    /** Kills it if still running (afterAll). */
    kill(): void {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}

export type Entry = ReturnType<typeof spawnEntry>;

/** A port nobody listens on right now. */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * A port `p` with `p + 1` free too (the demo's second process listens on the next port), drawn
 * below the kernel's ephemeral range (32768 and up), where freePort's ports of other tests are.
 */
export async function freePortPair(): Promise<number> {
  const free = (port: number) =>
    new Promise<boolean>((resolve) => {
      const server = net.createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '0.0.0.0', () => server.close(() => resolve(true)));
    });
  for (;;) {
    const port = 20_000 + 2 * Math.floor(Math.random() * 6_000);
    if ((await free(port)) && (await free(port + 1))) return port;
  }
}

/** Holds `port` (default: any free one) on 127.0.0.1, as another program would; close() lets it go. */
export async function occupyPort(port = 0): Promise<{ port: number; close(): Promise<void> }> {
  const server = net.createServer((socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  return {
    port: (server.address() as net.AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * One HTTP request to 127.0.0.1:`port`, failing after 10 s without an answer. Without an
 * `agent`, on a connection of its own: with API_WORKERS > 1 each new connection goes to the
 * next worker.
 */
export function request(
  port: number,
  path: string,
  opts: { method?: string; body?: string; agent?: http.Agent } = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: opts.method ?? 'GET',
        agent: opts.agent ?? false,
        timeout: 10_000,
        headers: opts.body ? { 'content-type': 'application/json' } : {},
      },
      (res) => {
        let body = '';
        res.on('data', (d: Buffer) => {
          body += d.toString();
        });
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.on('timeout', () => req.destroy(new Error(`no answer to ${path} within 10 s`)));
    req.end(opts.body);
  });
}

/** Polls `check` every 100 ms until it returns a value; fails after `timeoutMs` or when `entry` exits. */
export async function until<T>(
  what: string,
  timeoutMs: number,
  check: () => Promise<T | undefined>,
  entry?: Entry,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    if (entry && entry.child.exitCode !== null)
      throw new Error(`exited (${entry.child.exitCode}) before ${what}:\n${entry.stdout}\n${entry.stderr}`);
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  // The process's last output says what it was doing (a slow CI machine, or stuck).
  const tail = entry ? `\n${entry.stdout.slice(-2_000)}\n${entry.stderr.slice(-2_000)}` : '';
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last error: ${String(last)}${tail}`);
}

/** Lines of a stack trace ("    at f (file:1:2)"), which an operator-facing failure must not print. */
export const STACK_LINE = /^\s+at /m;

/** What one connection made by `connectAndAsk` got: the status of its answer, or why none came. */
export interface Asked {
  kind: RequestKind;
  /** When the connection was attempted, in ms since `since`. */
  at: number;
  /**
   * `200`, `503`, ... or the socket error (`ECONNREFUSED`, `EPIPE`, ...), `closed` or `no answer`;
   * a WebSocket closed by the server right after its `101` (within 300 ms): the close code (`1013`).
   */
  outcome: string;
  /** From the connection attempt to the status line (or the failure). */
  ms: number;
}

export type RequestKind = 'ready' | 'query' | 'large' | 'ws';

/**
 * One new connection to 127.0.0.1:`port` with one request of `kind`: GET /ready; a small GraphQL
 * POST; an 8 MB chunked POST written as fast as the socket takes it, without waiting for an
 * answer or 100 Continue; a graphql-ws upgrade. Resolves at the status line (then closes the
 * socket), at a socket error, or after `giveUpMs` with `no answer`.
 */
export function connectAndAsk(port: number, kind: RequestKind, since: number, giveUpMs = 10_000): Promise<Asked> {
  const at = Date.now();
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    let got = '';
    let done = false;
    let answeredAt: number | undefined;
    const finish = (outcome: string) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ kind, at: at - since, outcome, ms: (answeredAt ?? Date.now()) - at });
    };
    let timer = setTimeout(() => finish('no answer'), giveUpMs);
    socket.on('data', (d: Buffer) => {
      got += d.toString('latin1');
      const status = /^HTTP\/1\.1 (\d{3})/.exec(got);
      if (!status) return;
      if (status[1] !== '101') return finish(status[1]!);
      // Upgraded: a close frame (0x88, length, 2-byte code) that follows at once names the outcome.
      if (answeredAt === undefined) {
        answeredAt = Date.now();
        clearTimeout(timer);
        timer = setTimeout(() => finish('101'), 300);
      }
      const frame = got.slice(got.indexOf('\r\n\r\n') + 4);
      if (frame.length >= 4 && frame.charCodeAt(0) === 0x88) {
        finish(String((frame.charCodeAt(2) << 8) | frame.charCodeAt(3)));
      }
    });
    socket.on('error', (err: NodeJS.ErrnoException) => finish(err.code ?? err.message));
    socket.on('close', () => finish('closed'));
    socket.on('connect', () => {
      const head = (lines: string[]) => socket.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (kind === 'ready') head(['GET /ready HTTP/1.1', 'host: ladder']);
      else if (kind === 'query') {
        const body = JSON.stringify({ query: '{ __typename }' });
        head([
          'POST /graphql HTTP/1.1',
          'host: ladder',
          'content-type: application/json',
          `content-length: ${body.length}`,
        ]);
        socket.write(body);
      } else if (kind === 'ws') {
        head([
          'GET /graphql HTTP/1.1',
          'host: ladder',
          'connection: upgrade',
          'upgrade: websocket',
          'sec-websocket-version: 13',
          'sec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==',
          'sec-websocket-protocol: graphql-transport-ws',
        ]);
      } else {
        head([
          'POST /graphql HTTP/1.1',
          'host: ladder',
          'content-type: application/json',
          'transfer-encoding: chunked',
        ]);
        const chunk = ' '.repeat(64 * 1024);
        const frame = `${chunk.length.toString(16)}\r\n${chunk}\r\n`;
        let sent = 0;
        const pump = () => {
          while (!done && sent < 8 * 1024 * 1024) {
            sent += chunk.length;
            if (!socket.write(frame)) return void socket.once('drain', pump);
          }
          if (!done) socket.write('0\r\n\r\n');
        };
        socket.write(`1\r\n{\r\n`);
        pump();
      }
    });
  });
}

/**
 * TCP sockets on `port` on this machine held open by some process, listeners aside (each line of
 * /proc/net/tcp: local address, state, and the inode, 0 once no process holds the socket).
 */
export async function serverSockets(port: number): Promise<number> {
  const hexPort = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  let held = 0;
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    const text = await readFile(file, 'utf8').catch(() => '');
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      const [local, state, inode] = [fields[1], fields[3], fields[9]];
      if (local?.endsWith(hexPort) && state !== '0A' && inode !== undefined && inode !== '0') held++;
    }
  }
  return held;
}
