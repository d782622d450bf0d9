// Runs wrk (the C HTTP load generator) with bench/wrk/requests.lua and parses the JSON line its
// done() prints. wrk runs as its own process on its own threads, so the load generator never
// shares an event loop with the server it measures, and costs far less CPU per request than a
// Node client would on the same 2 cores.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const SCRIPT = fileURLToPath(new URL('./wrk/requests.lua', import.meta.url));

/** One kind of request; in `path` and `body`, {{player}} and {{players}} are random per request. */
export interface RequestKind {
  weight: number;
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export interface WrkRun {
  baseUrl: string;
  kinds: RequestKind[];
  seconds: number;
  connections: number;
  threads: number;
  /** Highest player id for {{player}}. */
  maxPlayer: number;
  /**
   * > 0: the offered rate in requests/s, open loop (Poisson arrivals, requests.lua), shared by the
   * threads; otherwise every connection sends its next request as soon as it has an answer.
   */
  rate?: number;
  /**
   * Check every response (status 200/304, no "errors" in the body): exact failure counts, at the
   * price of wrk copying each response into Lua. Otherwise only statuses >= 400 count as failed.
   */
  checkResponses?: boolean;
}

/** What done() in requests.lua prints; latencies in ms. */
export interface WrkResult {
  seconds: number;
  requests: number;
  rps: number;
  /** Responses with a status >= 400 (wrk's "non-2xx or 3xx"). */
  non2xx3xx: number;
  /** With checkResponses: responses other than 200/304 or with errors in the body; else -1. */
  badResponses: number;
  /** With a rate: requests sent more than 1 ms after they were due (every connection was waiting). */
  late: number;
  errors: { connect: number; read: number; write: number; timeout: number };
  p50: number;
  p90: number;
  p99: number;
  /** wrk's own CPU (user + system) over the run. */
  cpuSeconds: number;
}

function onPath(command: string): boolean {
  return (process.env.PATH ?? '').split(path.delimiter).some((dir) => {
    try {
      accessSync(path.join(dir, command), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** Installs wrk with apt-get when it is not on PATH; throws with what to do when that fails. */
export function ensureWrk(): void {
  if (onPath('wrk')) return;
  console.log('wrk is not on PATH: running `apt-get install -y wrk` (Debian package wrk)');
  let r = spawnSync('apt-get', ['install', '-y', 'wrk'], { stdio: 'inherit' });
  if (r.status !== 0) {
    // A fresh image often has no package lists yet.
    console.log('apt-get install failed: running `apt-get update`, then trying once more');
    spawnSync('apt-get', ['update'], { stdio: 'inherit' });
    r = spawnSync('apt-get', ['install', '-y', 'wrk'], { stdio: 'inherit' });
  }
  if (r.status !== 0 || !onPath('wrk')) {
    throw new Error(
      `could not install wrk (apt-get exited with ${r.status ?? r.error?.message}); ` +
        'install it yourself (apt-get install wrk, or build github.com/wg/wrk) and put it on PATH',
    );
  }
}

/** The wrk process running now, if any: killed on SIGINT by the caller. */
export let currentWrk: ChildProcess | undefined;

export function runWrk(run: WrkRun): Promise<WrkResult> {
  const args = [
    `-t${run.threads}`,
    `-c${run.connections}`,
    `-d${run.seconds}s`,
    '--latency',
    '-s',
    SCRIPT,
    run.baseUrl,
    '--',
    String((run.rate ?? 0) / run.threads),
    run.checkResponses ? '1' : '0',
    String(run.maxPlayer),
    ...run.kinds.flatMap((k) => [
      String(k.weight),
      k.method,
      k.path,
      Object.entries(k.headers)
        .map(([name, value]) => `${name}: ${value}`)
        .join('\n'),
      k.body ?? '',
    ]),
  ];
  return runWrkArgs<WrkResult>(args);
}

/**
 * Runs wrk with `args` (a `-s` script whose done() prints one JSON line starting with {"wrk":) and
 * resolves with that line parsed.
 */
export function runWrkArgs<T>(args: string[]): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    currentWrk = child;
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    child.once('error', reject);
    child.once('close', (code) => {
      currentWrk = undefined;
      // wrk prints its own report first; ours is the line starting with {"wrk":.
      const line = stdout.split('\n').find((l) => l.startsWith('{"wrk":'));
      if (code !== 0 || !line) {
        reject(new Error(`wrk exited with ${code}: ${stderr.trim() || stdout.trim()}`));
        return;
      }
      resolve(JSON.parse(line) as T);
    });
  });
}
