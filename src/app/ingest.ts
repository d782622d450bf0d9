// The ingest role, wired: the consumer group that applies match results to PostgreSQL and Redis.
import type { Redis } from 'ioredis';
import type { Kafka } from 'kafkajs';
import type { Config } from '../config.js';
import { createIngestConsumer } from '../kafka/ingest-consumer.js';
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics.js';
import type { Sql } from '../postgres/client.js';
import { createResultsStore } from '../postgres/results-store.js';
import { createBoardWriter } from '../redis/board-writer.js';
import { applyResults } from '../service/apply-results.js';
import type { BlockedPlayersCache } from '../service/blocked-players.js';
import type { SeasonCache } from '../service/season-cache.js';

/** Builds the ingest consumer ({ start, stop, readiness }); nothing connects until start(). */
export function createIngest(deps: {
  config: Config;
  logger: Logger;
  metrics: Metrics;
  kafka: Kafka;
  sql: Sql;
  redis: Redis;
  seasons: SeasonCache;
  blocked: BlockedPlayersCache;
}) {
  const { config, metrics } = deps;
  const store = createResultsStore(deps.sql);
  const boards = createBoardWriter(deps.redis, config.windowTtlSeconds);
  return createIngestConsumer({
    kafka: deps.kafka,
    topic: config.kafka.topic,
    dlqTopic: config.kafka.dlqTopic,
    groupId: config.kafka.groupId,
    partitions: config.kafka.partitions,
    appliesInFlight: config.kafka.appliesInFlight,
    sessionTimeoutMs: config.kafka.sessionTimeoutMs,
    seasonById: (id) => deps.seasons.get(id),
    // Fails closed: a list that cannot be read retries the chunk, never lets a blocked player in.
    blockedIn: (seasonId) => deps.blocked.blockedIn(seasonId),
    apply: (results, seasonOf) => applyResults({ store, boards, seasonOf, now: Date.now }, results),
    logger: deps.logger,
    onApplied: (r) => {
      metrics.resultsIngested.inc(r.inserted);
      metrics.recordUpdates.inc(r.changed);
      metrics.consumerLagSeconds.set(r.lagMs / 1000);
    },
    onPoison: (code) => metrics.poisonMessages.inc({ code }),
  });
}

export type Ingest = ReturnType<typeof createIngest>;
