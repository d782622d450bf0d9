// Entry points (src/main.ts, scripts/demo.ts) as real child processes, and plain HTTP to them.
import { spawn } from 'node:child_process';
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
