// Removing and blocking players (cheaters), wired once for the API (app.ts) and the CLI (cli/main.ts).
import type { Redis } from 'ioredis';
import type { Season } from '../domain/season.js';
import type { Logger } from '../logger.js';
import type { Sql } from '../postgres/client.js';
import { createPlayerResultsStore } from '../postgres/player-results-store.js';
import { createPlayerScopesStore } from '../postgres/player-scopes-store.js';
import { createLeaguesStore } from '../postgres/leagues-store.js';
import { withScopeBoards } from '../service/apply-scopes.js';
import { createBoardResetter } from '../redis/board-resetter.js';
import { blockPlayer, createBlockedPlayersCache, unblockPlayer, type BlockInput } from '../service/blocked-players.js';
import { createPlayerRemovals, settleDelayMs } from '../service/remove-player-results.js';
import { createHiddenPlayersStore } from '../postgres/hidden-players-store.js';
import { createPlayerHiding, keepingHiddenOff } from '../service/hidden-players.js';

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
  const blocked = createBlockedPlayersCache((id) => store.blockedIn(id), { ttlMs: deps.blockedPlayersCacheMs });
  const onChange = (seasonId: number) => blocked.invalidate(seasonId);
  const hiddenStore = createHiddenPlayersStore(deps.sql);
  // The same kind of cache: each season's (short) list of hidden players, loaded whole.
  const hidden = createBlockedPlayersCache((id) => hiddenStore.hiddenIn(id), { ttlMs: deps.blockedPlayersCacheMs });
  // A removal or a hide lowers the player's scope boards too (docs/design.md#scopes).
  const boards = withScopeBoards(
    createBoardResetter(deps.redis, deps.windowTtlSeconds),
    createPlayerScopesStore(deps.sql),
    createLeaguesStore(deps.sql),
  );
  const settleMs = deps.settleMs ?? settleDelayMs(deps.blockedPlayersCacheMs);
  const hiding = createPlayerHiding({
    seasonById: deps.seasonById,
    store: hiddenStore,
    locked: store,
    boards,
    now: Date.now,
    onChange: (seasonId) => hidden.invalidate(seasonId),
    settleMs,
    onSettleFailed: (err, seasonId) => log.error({ err, seasonId }, 'hide settle pass failed'),
  });
  const removals = createPlayerRemovals({
    seasonById: deps.seasonById,
    store,
    // A removal of a hidden player's results leaves them off the boards.
    boards: keepingHiddenOff(boards, (id) => hidden.blockedIn(id)),
    now: Date.now,
    onBlocked: onChange,
    settleMs,
    onSettled: (ticket, r) => {
      const fields = { seasonId: ticket.season.id, playerId: ticket.playerId, ...r };
      if (r.removedResults > 0 || r.boardChanges > 0)
        log.warn(fields, 'removal settle pass corrected a race with ingest');
      else log.info(fields, 'removal settled');
    },
    onSettleFailed: (err, ticket) => log.error({ err, seasonId: ticket.season.id }, 'removal settle pass failed'),
  });

  return {
    /** The cached check of the API and the consumer. */
    blocked,
    /** The cached list the consumer leaves out of its Redis writes. */
    hidden,
    hide: hiding.hide,
    unhide: hiding.unhide,
    hideAndSettle: hiding.hideAndSettle,
    unhideAndSettle: hiding.unhideAndSettle,
    remove: removals.remove,
    removeAndSettle: removals.removeAndSettle,
    block: (input: BlockInput) => blockPlayer({ store, onChange }, input),
    unblock: (input: BlockInput) => unblockPlayer({ store, onChange }, input),
    stop(): void {
      removals.stop();
      hiding.stop();
    },
  };
}

export type PlayerAdmin = ReturnType<typeof createPlayerAdmin>;
