// start(): a process comes up in order (listen, wait for the dependencies, prepare them, start
// the roles), each step bounded by STARTUP_TIMEOUT_MS.
import type { Redis } from 'ioredis';
import type { Config } from '../config.js';
import { ensureTopicsExist } from '../kafka/client.js';
import type { Kafka } from 'kafkajs';
import type { Logger } from '../logger.js';
import { migrateDatabase } from '../postgres/client.js';
import { assertNoBoardEviction } from '../redis/client.js';
import type { Readiness } from '../service/readiness.js';
import {
  beforeDeadline,
  messageOf,
  StartupError,
  waitForDependencies,
  type ApiServer,
  type Dependency,
} from './startup.js';

/** While start() runs: what /ready reports, how stop() cuts it short. */
export interface Starting {
  status: Record<string, string>;
  abort: AbortController;
}

type Step = readonly [doing: string, step: () => Promise<unknown>];

/**
 * Listens (API role), waits for PostgreSQL, Redis and Kafka, prepares them, starts the roles.
 * Rejects with a StartupError (a one-line message) when the port is taken or STARTUP_TIMEOUT_MS
 * passes first. `onWaiting` gets each "waiting for ..." line (default: warn log).
 */
export async function startProcess(
  run: Starting,
  parts: {
    config: Config;
    logger: Logger;
    redis: Redis;
    kafka: Kafka;
    apiServer?: ApiServer;
    dependencies: Dependency[];
    /** Once the dependencies answered: the start-up's quiet Redis log speaks again. */
    onDependencies(): void;
    roles: ReadonlyArray<readonly [doing: string, start: () => Promise<void>]>;
  },
  onWaiting?: (line: string) => void,
): Promise<void> {
  const { config, logger, redis, apiServer } = parts;
  const timeoutMs = config.startupTimeoutMs;
  const deadline = Date.now() + timeoutMs;
  // Listen first: a busy port fails at once, and /health answers while dependencies come up.
  // The same server serves the API once it starts (startup.ts createApiServer).
  if (apiServer) {
    apiServer.starting((): Readiness => ({ ok: false, checks: { ...run.status, startup: 'in progress' } }));
    await apiServer.listen(config.port, config.host);
  }
  await waitForDependencies(parts.dependencies, {
    deadline,
    timeoutMs,
    signal: run.abort.signal,
    status: run.status,
    report: onWaiting ?? ((line) => logger.warn(line)),
  });
  parts.onDependencies();
  const steps: Step[] = [
    [
      'checking the Redis eviction policy',
      () =>
        assertNoBoardEviction(redis).catch((err: unknown) => {
          throw new StartupError(messageOf(err));
        }),
    ],
    ['migrating PostgreSQL', () => migrateDatabase(config.databaseUrl)],
    ['creating the Kafka topics', () => ensureTopicsExist(parts.kafka, config.kafka)],
    ...parts.roles,
  ];
  for (const [doing, step] of steps) {
    if (run.abort.signal.aborted) throw new StartupError('start-up cancelled: the process is stopping');
    await beforeDeadline(step(), deadline, timeoutMs, () => doing);
  }
}
