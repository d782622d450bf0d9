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
import { applyScopeChanges, type ScopeMoveDeps } from '../service/apply-scopes.js';
import { createPlayerScopesStore } from '../postgres/player-scopes-store.js';
import { createLeaguesStore } from '../postgres/leagues-store.js';
import { createBoardResetter } from '../redis/board-resetter.js';
import type { SeasonsRepo } from '../postgres/seasons-repo.js';
import type { BlockedPlayersCache } from '../service/blocked-players.js';
import type { SeasonCache } from '../service/season-cache.js';
import { keepingHiddenOff } from '../service/hidden-players.js';

/** Builds the ingest consumer ({ start, stop, readiness }); nothing connects until start(). */
export function createIngest(deps: {
  config: Config;
  logger: Logger;
  metrics: Metrics;
  kafka: Kafka;
  sql: Sql;
  redis: Redis;
  seasons: SeasonCache;
  seasonsRepo: Pick<SeasonsRepo, 'list'>;
  blocked: BlockedPlayersCache;
  /** Players hidden pending review: stored, but kept out of the boards (docs/design.md#moderation). */
  hidden: BlockedPlayersCache;
}) {
  const { config, metrics } = deps;
  const store = createResultsStore(deps.sql);
  const boards = createBoardWriter(deps.redis, config.windowTtlSeconds);
  const scopes = createPlayerScopesStore(deps.sql);
  const leagues = createLeaguesStore(deps.sql);
  const scopeMoves: ScopeMoveDeps = {
    scopes,
    // Rows whose boards may be in Redis: started, and not yet finalized by their close.
    liveSeasons: async () =>
      (await deps.seasonsRepo.list()).filter((s) => !s.finalizedAt && s.startsAt.getTime() <= Date.now()),
    currentStandings: store.currentStandings,
    // A hidden player's move leaves them off their new scope boards too.
    boards: keepingHiddenOff(createBoardResetter(deps.redis, config.windowTtlSeconds), (id) =>
      deps.hidden.blockedIn(id),
    ),
    windowTtlSeconds: config.windowTtlSeconds,
    now: Date.now,
  };
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
    apply: (results, seasonOf) =>
      applyResults(
        { store, boards, scopes, leagues, hiddenIn: (id) => deps.hidden.blockedIn(id), seasonOf, now: Date.now },
        results,
      ),
    applyScopes: (changes) => applyScopeChanges(scopeMoves, changes),
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
