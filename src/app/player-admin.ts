// Removing and blocking players (cheaters), wired once for the API (app.ts) and the CLI (cli/main.ts).
import type { Redis } from 'ioredis';
import type { Season } from '../domain/season.js';
import type { Logger } from '../logger.js';
import type { Sql } from '../postgres/client.js';
import { createPlayerResultsStore } from '../postgres/player-results-store.js';
import { createBoardResetter } from '../redis/board-resetter.js';
import { blockPlayer, createBlockedPlayersCache, unblockPlayer, type BlockInput } from '../service/blocked-players.js';
import {
  removePlayerResults,
  settlePlayerRemoval,
  type RemovalInput,
  type SettleTicket,
} from '../service/remove-player-results.js';

/**
 * How long after the blocked-players cache TTL the settle pass waits: an ingest chunk classified
 * just before a block became visible commits and writes Redis well within it.
 */
const SETTLE_MARGIN_MS = 1_000;

/** Builds the player administration: removals (with their settle pass), blocks, and the cached block check. */
export function createPlayerAdmin(deps: {
  sql: Sql;
  redis: Redis;
  seasonById(id: number): Promise<Season | undefined>;
  windowTtlSeconds: number;
  blockedPlayersCacheMs: number;
  logger: Logger;
  settleMs?: number;
}) {
  const log = deps.logger.child({ component: 'player-admin' });
  const store = createPlayerResultsStore(deps.sql);
  const boards = createBoardResetter(deps.redis, deps.windowTtlSeconds);
  const blocked = createBlockedPlayersCache((id) => store.blockedIn(id), { ttlMs: deps.blockedPlayersCacheMs });
  const settleMs = deps.settleMs ?? deps.blockedPlayersCacheMs + SETTLE_MARGIN_MS;
  const onChange = (seasonId: number) => blocked.invalidate(seasonId);
  const removalDeps = { seasonById: deps.seasonById, store, boards, now: Date.now, onBlocked: onChange };
  const timers = new Set<NodeJS.Timeout>();

  async function settle(ticket: SettleTicket) {
    const r = await settlePlayerRemoval(removalDeps, ticket);
    const fields = { seasonId: ticket.season.id, playerId: ticket.playerId, ...r };
    if (r.removedResults > 0 || r.boardChanges > 0)
      log.warn(fields, 'removal settle pass corrected a race with ingest');
    else log.info(fields, 'removal settled');
    return r;
  }

  return {
    /** The cached check of the API and the consumer. */
    blocked,
    settleMs,
    /** Removes results now; the settle pass runs in the background `settleMs` later (the API). */
    async remove(input: RemovalInput) {
      const { report, settle: ticket } = await removePlayerResults(removalDeps, input);
      const timer = setTimeout(() => {
        timers.delete(timer);
        settle(ticket).catch((err: unknown) =>
          log.error({ err, seasonId: report.seasonId }, 'removal settle pass failed'),
        );
      }, settleMs);
      timers.add(timer);
      return report;
    },
    /** Removes results and waits for the settle pass (the CLI, which exits right after). */
    async removeAndSettle(input: RemovalInput) {
      const { report, settle: ticket } = await removePlayerResults(removalDeps, input);
      await new Promise((r) => setTimeout(r, settleMs));
      return { ...report, settled: await settle(ticket) };
    },
    block: (input: BlockInput) => blockPlayer({ store, onChange }, input),
    unblock: (input: BlockInput) => unblockPlayer({ store, onChange }, input),
    /** Drops pending settle passes (shutdown): the removals are committed; only their race repair is skipped. */
    stop(): void {
      for (const t of timers) clearTimeout(t);
      timers.clear();
    },
  };
}

export type PlayerAdmin = ReturnType<typeof createPlayerAdmin>;
