// API_WORKERS > 1: the API on every core. The primary forks API workers that share the port
// (node:cluster accepts in the primary and hands connections out round-robin) and keeps the
// parts that must run once: the ingest consumer, the season scheduler, the scheduled reconcile.
// Primary and workers talk over the cluster's IPC channel: a worker asks the primary for the
// cluster's /metrics and for its readiness (the ingest consumer's); the primary asks every
// worker for its registry and aggregates them with its own (prom-client's AggregatorRegistry);
// a worker that cannot start tells the primary why, and the primary prints that one line and
// exits instead of forking it again and again. Wired by main.ts.
import cluster, { type Worker } from 'node:cluster';
import { setTimeout as sleep } from 'node:timers/promises';
import { AggregatorRegistry } from 'prom-client';
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics.js';
import type { Readiness } from '../service/readiness.js';
import { messageOf } from './startup.js';

/** How an API worker reaches the cluster primary. */
export interface ClusterLink {
  /** The metrics of every process of the cluster, aggregated by the primary (Prometheus text). */
  metrics(): Promise<string>;
  /** The primary's readiness, its ingest consumer's among others. */
  readiness(): Promise<Readiness>;
}

/** The exit code of a worker that could not start (it told the primary why first). */
const WORKER_CANNOT_START = 3;
/** A worker that exits sooner than this after its fork counts towards giving up. */
const QUICK_EXIT_MS = 10_000;
/** Workers exiting quickly this many times in a row: something is wrong that forking will not fix. */
const QUICK_EXITS_TO_GIVE_UP = 3;

type Message =
  | { ladder: 'ask'; id: number; what: string }
  | { ladder: 'answer'; id: number; value?: unknown; error?: string }
  | { ladder: 'fatal'; line: string };

const isMessage = (m: unknown): m is Message => typeof m === 'object' && m !== null && 'ladder' in m;

/**
 * Questions and answers over one IPC channel: `ask` the other side; `answers` serve its
 * questions. `send` reports a closed channel to its callback (it would otherwise crash the process).
 */
function createChannel(
  send: (m: Message, done: (err: Error | null) => void) => void,
  answers: Record<string, () => Promise<unknown>>,
) {
  let nextId = 0;
  const pending = new Map<number, (err: Error | null, value?: unknown) => void>();
  return {
    ask<T>(what: string, timeoutMs: number): Promise<T> {
      const id = nextId++;
      return new Promise<T>((resolve, reject) => {
        const timer = setTimeout(
          () => settle(new Error(`no answer to "${what}" within ${timeoutMs / 1000} s`)),
          timeoutMs,
        );
        function settle(err: Error | null, value?: unknown) {
          clearTimeout(timer);
          pending.delete(id);
          if (err) reject(err);
          else resolve(value as T);
        }
        pending.set(id, settle);
        send({ ladder: 'ask', id, what }, (err) => {
          if (err) settle(err);
        });
      });
    },
    /** Feeds one message received on the channel; not ours: ignored. */
    receive(m: unknown): void {
      if (!isMessage(m)) return;
      if (m.ladder === 'ask') {
        const answer = answers[m.what] ?? (() => Promise.reject(new Error(`unknown question "${m.what}"`)));
        answer().then(
          (value) => send({ ladder: 'answer', id: m.id, value }, () => {}),
          (err: unknown) => send({ ladder: 'answer', id: m.id, error: messageOf(err) }, () => {}),
        );
      } else if (m.ladder === 'answer') {
        pending.get(m.id)?.(m.error === undefined ? null : new Error(m.error), m.value);
      }
    },
  };
}

/**
 * In the primary: forks `count` API workers (the first alone until it listens) and keeps them
 * running. A worker that exits unexpectedly is logged and forked again after a backoff;
 * `fail(line)` when a worker cannot start, or when workers keep exiting right after their fork.
 * `metrics` and `readiness` are the primary's own, folded into what workers answer.
 */
export function startApiWorkers(opts: {
  count: number;
  logger: Logger;
  metrics: Metrics;
  readiness(): Promise<Readiness>;
  fail(line: string): void;
}) {
  const log = opts.logger.child({ component: 'cluster' });
  const channels = new Map<number, ReturnType<typeof createChannel>>();
  const forkedAt = new Map<number, number>();
  const timers = new Set<NodeJS.Timeout>();
  let stopping = false;
  let quickExits = 0;

  /** Every registry of the cluster, aggregated: counters and histograms add up; see metrics.ts for gauges. */
  async function clusterMetrics(): Promise<string> {
    const theirs = await Promise.all(
      [...channels.values()].map((c) =>
        c.ask<object[]>('registry', 3_000).catch((err: unknown) => {
          log.warn({ err: messageOf(err) }, 'an API worker left out of /metrics');
          return [];
        }),
      ),
    );
    return AggregatorRegistry.aggregate([await opts.metrics.registry.getMetricsAsJSON(), ...theirs]).metrics();
  }

  function fork(): void {
    const worker = cluster.fork();
    forkedAt.set(worker.id, Date.now());
    const channel = createChannel((m, done) => worker.send(m, done), {
      metrics: clusterMetrics,
      ready: () => opts.readiness(),
    });
    channels.set(worker.id, channel);
    worker.on('message', (m: unknown) => {
      if (isMessage(m) && m.ladder === 'fatal') opts.fail(m.line);
      else channel.receive(m);
    });
    worker.once('exit', (code, signal) => onExit(worker, code, signal));
    opts.metrics.apiWorkers.set(channels.size);
  }

  function onExit(worker: Worker, code: number | null, signal: string | null): void {
    channels.delete(worker.id);
    opts.metrics.apiWorkers.set(channels.size);
    if (stopping) return;
    const pid = worker.process.pid;
    const how = signal ? `signal ${signal}` : `exit code ${code}`;
    if (code === WORKER_CANNOT_START) {
      // Its "fatal" message says why; should the exit overtake it, this line stands in.
      const t = setTimeout(() => opts.fail(`an API worker could not start (pid ${pid}, ${how})`), 200);
      timers.add(t);
      return;
    }
    quickExits = Date.now() - forkedAt.get(worker.id)! < QUICK_EXIT_MS ? quickExits + 1 : 0;
    if (quickExits >= QUICK_EXITS_TO_GIVE_UP) {
      opts.fail(
        `API workers keep exiting within ${QUICK_EXIT_MS / 1000} s of starting (last: pid ${pid}, ${how}); giving up`,
      );
      return;
    }
    const restartInMs = 500 * 2 ** quickExits; // 0.5 s, then 1 s, 2 s while they keep dying young
    log.error({ pid, code, signal, restartInMs }, 'API worker exited unexpectedly; starting another');
    opts.metrics.apiWorkerRestarts.inc();
    const t = setTimeout(() => {
      timers.delete(t);
      if (!stopping) fork();
    }, restartInMs);
    timers.add(t);
  }

  // The first worker opens the port (app.start()); the others are forked once it listens, and join
  // the same listener. A busy port thus stops the instance with one line, no other worker
  // started for nothing; and the port, once open, stays open while any worker listens.
  fork();
  cluster.once('listening', () => {
    if (stopping) return;
    for (let i = 1; i < opts.count; i++) fork();
    log.info({ workers: opts.count }, 'API workers forked');
  });

  return {
    /**
     * SIGTERM to every worker (each drains: closes sockets and subscriptions, exits), waits
     * `timeoutMs` for them to exit, then SIGKILLs the rest. Nothing is forked afterwards.
     */
    async stop(timeoutMs: number): Promise<void> {
      stopping = true;
      for (const t of timers) clearTimeout(t);
      const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined && !w.isDead());
      const exited = Promise.all(
        workers.map(
          (w) =>
            new Promise((resolve) => {
              if (w.isDead()) resolve(undefined);
              else w.once('exit', resolve);
            }),
        ),
      );
      // process.kill, not worker.kill(): that would cut the IPC channel before the worker drains.
      for (const w of workers) w.process.kill('SIGTERM');
      const late = await Promise.race([exited.then(() => false), sleep(timeoutMs, true, { ref: false })]);
      if (late) {
        const stuck = workers.filter((w) => !w.isDead());
        log.warn(
          { pids: stuck.map((w) => w.process.pid) },
          `API workers did not stop within ${timeoutMs / 1000} s; killing them`,
        );
        for (const w of stuck) w.process.kill('SIGKILL');
        await exited;
      }
    },
  };
}

/**
 * In an API worker: the link to the primary (buildApp's `cluster` option), answering the
 * primary's requests for this worker's registry with `registry()`.
 */
export function connectToPrimary(registry: () => Promise<object[]>) {
  const send = (m: Message, done: (err: Error | null) => void) => {
    process.send!(m, undefined, {}, done);
  };
  const channel = createChannel(send, { registry });
  process.on('message', (m: unknown) => channel.receive(m));
  const link: ClusterLink = {
    metrics: () => channel.ask<string>('metrics', 10_000),
    readiness: () => channel.ask<Readiness>('ready', 3_000),
  };
  return {
    link,
    /** Tells the primary why this worker cannot start, then exits: the primary prints the line. */
    cannotStart(line: string): void {
      send({ ladder: 'fatal', line }, () => process.exit(WORKER_CANNOT_START));
    },
  };
}
