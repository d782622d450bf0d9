// `npm start`: every role of LADDER_ROLES in this process.
// A process that cannot start exits 1 with one line saying why (src/startup.ts).
import { loadConfig } from './config.js';
import { createLogger, type Logger } from './logger.js';
import { assertPortFree, messageOf, StartupError } from './startup.js';

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
      stop().then(() => process.exit(0), (err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      });
    },
  };
  process.on('SIGTERM', () => state.stopNow('SIGTERM'));
  process.on('SIGINT', () => state.stopNow('SIGINT'));
  return state;
}

const config = loadConfig();
const logger = createLogger(config.logLevel);
// Checked before the service's modules load (most of the start-up time, seconds on a busy
// machine): a busy port is reported within a second or two.
if (config.roles.includes('api')) {
  await assertPortFree(config.port, config.host).catch((err: unknown) => exitCannotStart(logger, startFailure(logger, err)));
}
const { buildApp } = await import('./app.js');

/** Every role in this one process. */
async function runSingle(): Promise<void> {
  const app = buildApp(config, { roles: config.roles, logger });
  const shutdown = exitOnSignal(logger, () => app.stop(), 30_000);
  await app.start().catch((err: unknown) => {
    if (!shutdown.stopping) exitCannotStart(logger, startFailure(logger, err));
  });
}

await runSingle();
