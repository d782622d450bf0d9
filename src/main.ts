// `npm start`. One process runs every role of LADDER_ROLES; with the api role and API_WORKERS > 1
// it becomes a cluster: API workers on every core, the rest in the primary (src/app/cluster.ts).
// A process that cannot start exits 1 with one line saying why (src/app/startup.ts).
import cluster from 'node:cluster';
import { loadConfig } from './config.js';
import { createLogger, type Logger } from './logger.js';
import { messageOf, StartupError } from './app/startup.js';
import { surviveTypeFetchFailures, TYPE_FETCH_WARNING } from './postgres/type-fetch-guard.js';
import { startTracing } from './tracing-sdk.js';

/** The one line for a failed start; an unexpected error is logged with its stack as well. */
function startFailure(logger: Logger, err: unknown): string {
  if (!(err instanceof StartupError)) logger.fatal({ err }, 'unexpected error while starting');
  return messageOf(err);
}

/** Prints why the process could not start (stderr for whoever ran it, the log for the rest) and exits 1. */
function exitCannotStart(logger: Logger, line: string): never {
  logger.fatal(`could not start: ${line}`);
  console.error(`ladder could not start: ${line}`);
  process.exit(1);
}

/**
 * On the first SIGTERM or SIGINT (or `stopNow`): `stop`, then exit 0; a stop that fails, or
 * takes longer than `forceAfterMs`, exits 1. `stopping` tells a failing start to stay quiet.
 */
function exitOnSignal(logger: Logger, stop: () => Promise<void>, forceAfterMs: number) {
  const state = {
    stopping: false,
    stopNow(reason: string): void {
      if (state.stopping) return;
      state.stopping = true;
      logger.info({ signal: reason }, 'shutting down');
      setTimeout(() => process.exit(1), forceAfterMs).unref();
      // Spans still buffered are flushed to the collector before the process exits.
      stop()
        .finally(() => stopTracing().catch(() => {}))
        .then(
          () => process.exit(0),
          (err: unknown) => {
            logger.error({ err }, 'shutdown failed');
            process.exit(1);
          },
        );
    },
  };
  process.on('SIGTERM', () => state.stopNow('SIGTERM'));
  process.on('SIGINT', () => state.stopNow('SIGINT'));
  return state;
}

const config = loadConfig();
const logger = createLogger(config.logLevel);
// Off unless OTEL_TRACES_EXPORTER / OTEL_EXPORTER_OTLP_ENDPOINT ask for it (docs/operations.md#traces).
const stopTracing = await startTracing();
// In every process (cluster workers run this file too): see postgres/type-fetch-guard.ts.
surviveTypeFetchFailures((err) => logger.warn({ err }, TYPE_FETCH_WARNING));
// The port is opened by the process that serves it (one process, or each API worker), first thing
// in app.start(), and kept until it stops (app/startup.ts createApiServer): a busy port is reported
// before any dependency is waited for. Not before the service's modules load: evaluating them
// holds the event loop for a moment (seconds on a busy machine), and connections accepted
// meanwhile would wait for it. A cluster primary does not check the port: a listener of its own,
// closed before node:cluster listens for the first worker, would reset the connections it caught.
const { buildApp } = await import('./app/app.js');

/** Every role in this one process. */
async function runSingle(): Promise<void> {
  const app = buildApp(config, { roles: config.roles, logger });
  const shutdown = exitOnSignal(logger, () => app.stop(), 30_000);
  await app.start().catch((err: unknown) => {
    if (!shutdown.stopping) exitCannotStart(logger, startFailure(logger, err));
  });
}

/** The cluster primary: forks the API workers, runs the other roles, the scheduler and the reconcile job. */
async function runPrimary(): Promise<void> {
  const { startApiWorkers } = await import('./app/cluster.js');
  const app = buildApp(config, { roles: config.roles.filter((r) => r !== 'api'), logger });
  const workers = startApiWorkers({
    count: config.apiWorkers,
    logger,
    metrics: app.metrics,
    readiness: () => app.readiness(),
    fail: (line) => void fail(line),
  });
  // Workers first (no request reaches a stopping ingest), then this process's own roles.
  const shutdown = exitOnSignal(
    logger,
    async () => {
      await workers.stop(30_000);
      await app.stop();
    },
    60_000,
  );
  async function fail(line: string): Promise<void> {
    if (shutdown.stopping) return;
    shutdown.stopping = true;
    // Nothing started is worth draining: workers get a few seconds, this process just exits.
    await workers.stop(5_000);
    exitCannotStart(logger, line);
  }
  await app.start().catch((err: unknown) => fail(startFailure(logger, err)));
}

/** An API worker: the api role only; a start that fails is reported to the primary, which prints it. */
async function runWorker(): Promise<void> {
  const log = logger.child({ worker: cluster.worker!.id, pid: process.pid });
  const { connectToPrimary } = await import('./app/cluster.js');
  const primary = connectToPrimary(async () => {
    app.api?.collectGauges();
    return app.metrics.registry.getMetricsAsJSON();
  });
  const app = buildApp(config, { roles: ['api'], logger: log, jobs: false, cluster: primary.link });
  const shutdown = exitOnSignal(log, () => app.stop(), 30_000);
  // The primary is gone (killed): nobody supervises this worker or can hand it connections.
  process.once('disconnect', () => shutdown.stopNow('primary gone'));
  // The primary reports waiting for the same dependencies: one line per attempt is enough.
  await app.start({ onWaiting: (line) => log.debug(line) }).catch((err: unknown) => {
    if (!shutdown.stopping) primary.cannotStart(startFailure(log, err));
  });
}

if (cluster.isWorker) await runWorker();
else if (config.roles.includes('api') && config.apiWorkers > 1) await runPrimary();
else await runSingle();
