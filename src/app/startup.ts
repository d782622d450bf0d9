// Start-up of a ladder process, made for whoever runs it: listen first (a busy port fails at
// once, and /health answers while dependencies come up), wait for PostgreSQL, Redis and Kafka
// with one line per dependency per attempt, and give up at a deadline with one line that says
// what was missing and which setting points at it. Used by app.ts; main.ts prints the line.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { Kafka, logLevel } from 'kafkajs';
import { unavailable } from '../domain/errors.js';
import { errorsBody, maskError } from '../graphql/errors.js';
import { closeAtOnce } from '../graphql/close-at-once.js';
import { answerEarly, lingeringClose } from '../graphql/lingering-close.js';
import type { Readiness } from '../service/readiness.js';

/** A start-up failure whose message is the whole story for an operator: printed as is, no stack. */
export class StartupError extends Error {
  override name = 'StartupError';
  /** @param unavailable the dependencies (postgres, redis, kafka) that never answered, if that is why */
  constructor(
    message: string,
    readonly unavailable: readonly string[] = [],
  ) {
    super(message);
  }
}

/** Something a process needs before it can start. */
export interface Dependency {
  /** `postgres`, `redis`, `kafka`: also its key in /ready's checks. */
  name: string;
  /** Where it is looked for and the setting that says so, e.g. `127.0.0.1:9092 (KAFKA_BROKERS)`. */
  where: string;
  /** Resolves once the dependency answers; rejects with a message worth printing otherwise. */
  probe(): Promise<unknown>;
}

/** A listen error as the one line an operator needs: which address, and which setting changes it. */
export function listenFailure(err: NodeJS.ErrnoException, host: string, port: number): Error {
  switch (err.code) {
    case 'EADDRINUSE':
      return new StartupError(`port ${port} on ${host} is already in use: set PORT to another port`);
    case 'EACCES':
      return new StartupError(
        `port ${port} on ${host} needs privileges this process lacks: set PORT to a port above 1023`,
      );
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
      return new StartupError(
        `${host} is not an address of this machine: set HOST (0.0.0.0 listens on every interface)`,
      );
    default:
      return err;
  }
}

/** The message of whatever was thrown. */
export function messageOf(err: unknown): string {
  return (err as Error)?.message || String(err);
}

/** What the API serves with once it is ready (graphql/server.ts). */
export interface ServerHandlers {
  request(req: IncomingMessage, res: ServerResponse): void;
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
}

/** What GraphQL requests are told while the process starts: 503 UNAVAILABLE, through the one error translation. */
const STARTING = 'ladder is starting; retry shortly';
const startingBody = errorsBody([maskError(unavailable(STARTING), STARTING)]);

/**
 * The API's HTTP server: one server, listening from the start of the process (first thing in
 * app.start()) until it stops. Until `serve` gives it the API's handlers it answers for a process
 * that is starting: /health 200, /ready 503 with what start-up waits for (`starting`), anything
 * else 503 UNAVAILABLE with Retry-After, WebSockets closed at once with 1013 Try Again Later;
 * then the API answers, on the same
 * server and the same connections. Closing one listener and opening another would refuse or reset
 * the connections made in between, and in a cluster leave some unanswered in the primary, which
 * hands connections to a worker's listen, not to its process.
 */
export function createApiServer(limits: { requestTimeoutMs: number; headersTimeoutMs: number }) {
  const server = createServer({
    // Node's defaults hold a slow sender for 300 s (request) and 60 s (headers), checked every 30 s.
    requestTimeout: limits.requestTimeoutMs,
    headersTimeout: Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs),
    connectionsCheckingInterval: 1_000,
  });
  let api: ServerHandlers | undefined;
  let readiness = (): Readiness => ({ ok: false, checks: { startup: 'in progress' } });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (api) return api.request(req, res);
    const path = req.url?.split('?')[0];
    if (path === '/health') return answerEarly(req, res, 200, {}, '');
    const body = path === '/ready' ? JSON.stringify(readiness()) : startingBody;
    answerEarly(req, res, 503, { 'content-type': 'application/json', 'retry-after': '1' }, body);
  });
  const notYet = closeAtOnce(1013, 'starting: try again later');
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (api) return api.upgrade(req, socket, head);
    if (notYet(req, socket, head)) return;
    // A net.Socket, as node documents for a server that makes its own sockets.
    socket.end('HTTP/1.1 503 Service Unavailable\r\nretry-after: 1\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
    lingeringClose(socket, socket as Socket);
  });
  return {
    server,
    /** Rejects with a StartupError when the port cannot be had. */
    listen(port: number, host: string): Promise<void> {
      return new Promise<void>((resolve, reject) => {
        server.once('error', (err) => reject(listenFailure(err, host, port)));
        server.listen(port, host, () => resolve());
      });
    },
    /** What /ready reports until the API serves. */
    starting(report: () => Readiness): void {
      readiness = report;
    },
    /** From now on the API answers every request and upgrade (and closes the server when it stops). */
    serve(handlers: ServerHandlers): void {
      api = handlers;
    },
  };
}

export type ApiServer = ReturnType<typeof createApiServer>;

/**
 * Probes every dependency until it answers, all at once: one `report` line per failed attempt,
 * `status` (name → 'ok' or the last failure) kept current for /ready. Rejects with a
 * StartupError naming what is still missing at `deadline`, or when `signal` aborts.
 */
export async function waitForDependencies(
  deps: readonly Dependency[],
  opts: {
    deadline: number;
    /** STARTUP_TIMEOUT_MS, for the message. */
    timeoutMs: number;
    signal: AbortSignal;
    status: Record<string, string>;
    report(line: string): void;
    retryMs?: number;
    attemptTimeoutMs?: number;
  },
): Promise<void> {
  const retryMs = opts.retryMs ?? 2_000;
  const attemptTimeoutMs = opts.attemptTimeoutMs ?? 5_000;
  // Ends every probe loop at the deadline or when the process stops.
  const done = AbortSignal.any([opts.signal, AbortSignal.timeout(Math.max(0, opts.deadline - Date.now()))]);
  const ended = new Promise<void>((resolve) => done.addEventListener('abort', () => resolve(), { once: true }));

  async function waitFor(dep: Dependency): Promise<void> {
    while (!done.aborted) {
      try {
        await Promise.race([
          dep.probe(),
          sleep(attemptTimeoutMs, undefined, { ref: false }).then(() => {
            throw new Error(`no answer within ${attemptTimeoutMs / 1000} s`);
          }),
        ]);
        opts.status[dep.name] = 'ok';
        return;
      } catch (err) {
        opts.status[dep.name] = messageOf(err);
      }
      if (done.aborted) return;
      const left = Math.max(0, Math.round((opts.deadline - Date.now()) / 1000));
      opts.report(
        `waiting for ${dep.name} at ${dep.where}: ${opts.status[dep.name]}; next try in ${retryMs / 1000} s, giving up in ${left} s`,
      );
      await sleep(retryMs, undefined, { signal: done }).catch(() => {});
    }
  }

  for (const dep of deps) opts.status[dep.name] = 'waiting';
  await Promise.race([Promise.all(deps.map(waitFor)), ended]);
  if (opts.signal.aborted) throw new StartupError('start-up cancelled: the process is stopping');
  const missing = deps.filter((d) => opts.status[d.name] !== 'ok');
  if (missing.length > 0) {
    throw new StartupError(
      missing
        .map(
          (d) =>
            `${d.name} at ${d.where} was not available within ${opts.timeoutMs / 1000} s (STARTUP_TIMEOUT_MS): ${opts.status[d.name]}`,
        )
        .join('; '),
      missing.map((d) => d.name),
    );
  }
}

/** `work`, unless `deadline` passes first: then a StartupError saying what start-up was doing. */
export async function beforeDeadline<T>(
  work: Promise<T>,
  deadline: number,
  timeoutMs: number,
  doing: () => string,
): Promise<T> {
  const timer = new AbortController();
  const late = sleep(Math.max(0, deadline - Date.now()), undefined, { signal: timer.signal, ref: false }).then(
    () => {
      throw new StartupError(
        `start-up did not finish within ${timeoutMs / 1000} s (STARTUP_TIMEOUT_MS): stuck ${doing()}`,
      );
    },
    () => undefined as never,
  );
  try {
    return await Promise.race([work, late]);
  } finally {
    timer.abort();
  }
}

/**
 * Connects a throwaway Kafka admin that neither retries nor logs: the dependency wait reports
 * a broker that does not answer once per attempt instead of kafkajs' retry chatter.
 */
export async function probeKafka(brokers: readonly string[], clientId: string): Promise<void> {
  const admin = new Kafka({
    brokers: [...brokers],
    clientId,
    logLevel: logLevel.NOTHING,
    retry: { retries: 0 },
    connectionTimeout: 3_000,
  }).admin();
  try {
    await admin.connect();
  } finally {
    await admin.disconnect().catch(() => {});
  }
}

/** `host:port/path` of a URL: where a dependency is, without its credentials. */
export function whereOf(url: string, setting: string): string {
  // A Redis Cluster's seed nodes (config.ts clusterUrl) come from their own setting.
  const cluster = /^redis-cluster:\/\/(.*)$/.exec(url);
  if (cluster) return `${cluster[1]} (REDIS_CLUSTER_NODES)`;
  try {
    const u = new URL(url);
    return `${u.host}${u.pathname === '/' ? '' : u.pathname} (${setting})`;
  } catch {
    return `(${setting})`;
  }
}
