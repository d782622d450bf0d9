// buildApp(config): the one place that creates clients and wires them together.
import type { Config } from './config.js';
import { createKafka, ensureTopics } from './kafka/client.js';
import { createIngestConsumer } from './kafka/ingest-consumer.js';
import { createLogger, type Logger } from './logger.js';
import { createPostgres, migrateDatabase } from './postgres/client.js';
import { createResultsStore } from './postgres/results-store.js';
import { createSeasonsRepo } from './postgres/seasons-repo.js';
import { createBoardWriter } from './redis/board-writer.js';
import { assertNoBoardEviction, createRedis } from './redis/client.js';
import { applyResults } from './service/apply-results.js';
import { createSeasonCache } from './service/season-cache.js';

export type Role = 'api' | 'ingest';

/** Wires the service; nothing connects until start(). */
export function buildApp(config: Config, opts: { roles: readonly Role[]; logger?: Logger }) {
  const logger = opts.logger ?? createLogger(config.logLevel);
  const pg = createPostgres(config.databaseUrl, config.databasePoolSize);
  const redis = createRedis(config.redisUrl, logger);
  const kafka = createKafka({ brokers: config.kafka.brokers, clientId: config.kafka.clientId, logger });
  const seasonsRepo = createSeasonsRepo(pg.db);
  const seasons = createSeasonCache((id) => seasonsRepo.get(id));
  const store = createResultsStore(pg.sql);
  const boards = createBoardWriter(redis, config.windowTtlSeconds);

  const ingest = opts.roles.includes('ingest')
    ? createIngestConsumer({
      kafka,
      topic: config.kafka.topic,
      dlqTopic: config.kafka.dlqTopic,
      groupId: config.kafka.groupId,
      partitionsConsumedConcurrently: config.kafka.partitionsConsumedConcurrently,
      sessionTimeoutMs: config.kafka.sessionTimeoutMs,
      seasonById: (id) => seasons.get(id),
      apply: (results, seasonOf) => applyResults({ store, boards, seasonOf, now: Date.now }, results),
      logger,
    })
    : undefined;

  return {
    logger, pg, redis, kafka, seasonsRepo, seasons, ingest,
    async start(): Promise<void> {
      await assertNoBoardEviction(redis);
      await migrateDatabase(config.databaseUrl);
      const admin = kafka.admin();
      await admin.connect();
      try {
        await ensureTopics(admin, config.kafka.topic, config.kafka.dlqTopic, config.kafka.partitions);
      } finally {
        await admin.disconnect();
      }
      await ingest?.start();
      logger.info({ roles: opts.roles }, 'ladder started');
    },
    /** Graceful: stop consuming (the running chunk finishes or stays unresolved), then close clients. */
    async stop(): Promise<void> {
      await ingest?.stop();
      redis.disconnect();
      await pg.close();
      logger.info('ladder stopped');
    },
  };
}

export type App = ReturnType<typeof buildApp>;
