// What a process waits for while starting (PostgreSQL, Redis, Kafka) and what its /ready checks.
import type { Redis } from 'ioredis';
import type { Config } from '../config.js';
import type { Sql } from '../postgres/client.js';
import { checkReadiness, withChecksOf, type Readiness } from '../service/readiness.js';
import type { ClusterLink } from './cluster.js';
import type { Ingest } from './ingest.js';
import { messageOf, probeKafka, whereOf, type Dependency } from './startup.js';

/** The dependencies start-up waits for, each with where it was looked for (the setting named). */
export function dependenciesOf(config: Config, pg: { sql: Sql }, redis: Redis): Dependency[] {
  let redisError: string | undefined;
  redis.on('error', (err: Error) => {
    redisError = err.message;
  });
  return [
    { name: 'postgres', where: whereOf(config.databaseUrl, 'DATABASE_URL'), probe: () => pg.sql`select 1` },
    // ioredis answers an unreachable server with "max retries per request"; its connection error says why.
    {
      name: 'redis',
      where: whereOf(config.redisUrl, 'REDIS_URL'),
      probe: () =>
        redis.ping().catch((err: unknown) => {
          throw new Error(redisError ?? messageOf(err));
        }),
    },
    {
      name: 'kafka',
      where: `${config.kafka.brokers.join(',')} (KAFKA_BROKERS)`,
      probe: () => probeKafka(config.kafka.brokers, config.kafka.clientId),
    },
  ];
}

/** What /ready reports: PostgreSQL, Redis, the ingest consumer where it runs; in an API worker, the primary's too. */
export function readinessOf(parts: { pg: { sql: Sql }; redis: Redis; ingest?: Ingest; cluster?: ClusterLink }) {
  const { pg, redis, ingest, cluster } = parts;
  return async function readiness(): Promise<Readiness> {
    const own = await checkReadiness(
      {
        postgres: () => pg.sql`select 1`,
        redis: () => redis.ping(),
        ...(ingest && {
          ingest: async () => {
            const r = ingest.readiness();
            if (!r.ok) throw new Error(r.reason);
          },
        }),
      },
      2_000,
    );
    if (!cluster) return own;
    // The ingest consumer runs in the primary: part of this API's readiness, as in one process.
    const primary = await cluster
      .readiness()
      .catch((err: unknown) => ({ ok: false, checks: { primary: messageOf(err) } }));
    return withChecksOf(own, primary);
  };
}
