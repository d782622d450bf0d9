// The use cases GraphQL calls (graphql/context.ts Services), wired to the API's parts. Built by api.ts.
import { isDomainError, rateLimited, unavailable } from '../domain/errors.js';
import { scopesMessage } from '../domain/scopes.js';
import { createPlayerScopesStore } from '../postgres/player-scopes-store.js';
import { createRewardsStore } from '../postgres/rewards-store.js';
import { createLeaguesStore } from '../postgres/leagues-store.js';
import { createGroupStandings } from '../postgres/group-standings.js';
import { readGroupBoard } from '../redis/group-board-reader.js';
import { boardExpireAt } from '../domain/board.js';
import type { Services } from '../graphql/context.js';
import type { ResultProducer } from '../kafka/producer.js';
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics.js';
import { bounded } from '../postgres/deadline.js';
import { createAuditLog } from '../postgres/audit-log.js';
import { createMatchClaims } from '../postgres/match-claims.js';
import { createRankSnapshots } from '../postgres/rank-snapshots.js';
import { createStandingsRanker } from '../postgres/ranked-standings.js';
import { createStandingsPages } from '../postgres/standings-pages.js';
import { boardPeriods } from '../postgres/standings-reader.js';
import { createLeaderboardReads } from '../service/leaderboard-reads.js';
import { audited } from '../service/audit-trail.js';
import { createRateLimiter } from '../service/rate-limiter.js';
import { createSeason, listSeasons, requireSeason, withCurrentStatus } from '../service/seasons.js';
import { submitMatchResult, withTimeout } from '../service/submit-match-result.js';
import { createSubmissionBatcher } from '../service/submission-batcher.js';
import type { ApiDeps } from './api.js';
import type { ReadSide } from './api-reads.js';

export function createServices(
  deps: ApiDeps,
  reads: ReadSide,
  producer: ResultProducer,
  log: Logger,
  metrics: Metrics,
): Services {
  const { config } = deps;
  const { deadline, seasonById } = reads;
  const seasonStore = bounded(deps.seasonStore, deadline);
  // Concurrent submissions share one matchId claim statement and one produce request.
  const submissions = createSubmissionBatcher({
    queue: producer,
    claims: bounded(createMatchClaims(deps.sql), deadline),
  });
  const limiters = {
    read: createRateLimiter(config.rateLimits.reads),
    submit: createRateLimiter(config.rateLimits.submits),
  };
  const now = () => new Date();
  const rankSnapshots = createRankSnapshots(deps.sql);
  const periods = boardPeriods(deps.sql);
  const standings = createStandingsPages(deps.sql);
  const auditLog = bounded(createAuditLog(deps.sql), deadline);
  const scopeStore = createPlayerScopesStore(deps.sql);
  const submitDeps: Parameters<typeof submitMatchResult>[0] = {
    seasonById,
    queue: submissions,
    scopes: { send: (m) => producer.sendScopes(m) },
    names: { upsert: async (n) => reads.livePubSub.publishNames(await reads.players.upsert(n)) },
    now,
    skewMs: config.submitSkewMs,
    sendTimeoutMs: config.submitTimeoutMs,
    onNamesFailed: (err) => log.warn({ err }, 'display names not stored'),
    blocked: { blockedAmong: (s, ids) => deadline(() => deps.playerAdmin.blocked.blockedAmong(s, ids)) },
    onBlockedCheckFailed: (err) => log.warn({ err }, 'blocked players not checked; the consumer checks again'),
  };

  return {
    now,
    season: async (id) => {
      const s = await seasonById(id);
      return s && withCurrentStatus(s, now());
    },
    seasons: (status) => listSeasons(seasonStore, status, now()),
    createSeason: (def) => createSeason(seasonStore, def, now()),
    closeSeason: async (id, by) => {
      await deps.seasonJobs.close(id, by);
      return withCurrentStatus(await requireSeason(seasonStore, id), now());
    },
    rebuild: async (seasonId, onProgress) => {
      // Looked up within DATABASE_TIMEOUT_MS first: an unknown season or an outage answers at once.
      await requireSeason(seasonStore, seasonId);
      return deps.boards.rebuild(seasonId, onProgress);
    },
    reconcile: deps.boards.reconcileAndRecord,
    playerAdmin: deps.playerAdmin,
    setPlayerScopes: async (playerId, scopes) => {
      await withTimeout(producer.sendScopes([scopesMessage(playerId, scopes)]), config.submitTimeoutMs).catch((err) => {
        throw unavailable('the result queue is unavailable; retry', err);
      });
    },
    rewards: bounded(createRewardsStore(deps.sql), deadline),
    leagues: bounded(createLeaguesStore(deps.sql), deadline),
    playerScopes: async (playerId) => (await deadline(() => scopeStore.of([playerId]))).get(playerId) ?? null,
    submit: async (input) => {
      try {
        const result = await submitMatchResult(submitDeps, input);
        metrics.submissions.inc({ outcome: 'accepted' });
        return result;
      } catch (err) {
        const unavailable = isDomainError(err) && err.code === 'UNAVAILABLE';
        metrics.submissions.inc({ outcome: unavailable ? 'unavailable' : 'rejected' });
        throw err;
      }
    },
    boards: createLeaderboardReads({
      live: reads.reader,
      top: reads.topCache,
      archive: reads.archive,
      history: bounded(createStandingsRanker(deps.sql), deadline),
      expiresAt: (b) => boardExpireAt(b, config.windowTtlSeconds),
      groups: {
        live: (b, first) => readGroupBoard(deps.redis, b, first),
        ...bounded(createGroupStandings(deps.sql), deadline),
      },
    }),
    live: reads.live,
    playerNames: (ids) => reads.names.names(ids),
    periods: (seasonId, window, first, before) => deadline(() => periods(seasonId, window, first, before)),
    entryMetadata: (board, ids) => deadline(() => standings.metadata(board, ids)),
    audited: (principal, entry, action) =>
      audited(
        auditLog,
        { ...entry, actor: principal.name, reason: `GraphQL (API key ${principal.keyId})` },
        action,
        (err) => log.error({ err, action: entry.action }, 'admin action not recorded in the audit trail'),
      ),
    auditLog: (filter) => auditLog.list(filter),
    rankHistory: (seasonId, ids, last) => deadline(() => rankSnapshots.history(seasonId, ids, last)),
    rateLimit: (kind, key) => {
      if (!limiters[kind].take(key)) throw rateLimited(`too many ${kind} requests; slow down`);
    },
  };
}
