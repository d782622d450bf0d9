import { badInput } from '../domain/errors.js';
import { parseReason, type AuditEntry } from '../domain/player-removal.js';
import { parsePlayerId } from '../domain/result-message.js';

/** Where blocks live (PostgreSQL blocked_players, each change audited in the same transaction). */
export interface BlockStore {
  block(seasonId: number, playerId: string, audit: AuditEntry): Promise<{ changed: boolean; auditId: number }>;
  unblock(seasonId: number, playerId: string, audit: AuditEntry): Promise<{ changed: boolean; auditId: number }>;
  /** Every player blocked in the season. */
  blockedIn(seasonId: number): Promise<ReadonlySet<string>>;
}

/** A block or unblock as requested by an administrator. */
export interface BlockInput {
  seasonId: number;
  playerId: string;
  reason: string;
  /** Who asks: an API key's name or cli:<user>. */
  actor: string;
  details?: Record<string, unknown>;
}

/** The outcome of blockPlayer / unblockPlayer. */
export interface BlockReport {
  seasonId: number;
  playerId: string;
  /** Whether the player is blocked in the season now. */
  blocked: boolean;
  /** False when the player already was in that state (the request is still audited). */
  changed: boolean;
  auditId: number;
}

/** Checks an id the way GraphQL's Int and the CLI let it through: SEASON_NOT_FOUND comes from the store. */
export function parseSeasonId(id: number): number {
  if (!Number.isInteger(id) || id < 1 || id > 2 ** 31 - 1) {
    throw badInput('seasonId', 'seasonId must be an integer in 1..2147483647');
  }
  return id;
}

/**
 * Which players are blocked, per season, cached for `ttlMs`: the whole (short) list of a season
 * is loaded at once, so the ingest hot path costs one query per season per `ttlMs`, not one per
 * message. Failed loads are not cached. A block made by another process is seen within `ttlMs`.
 */
export function createBlockedPlayersCache(
  load: (seasonId: number) => Promise<ReadonlySet<string>>,
  opts: { ttlMs: number; now?: () => number },
) {
  const now = opts.now ?? Date.now;
  const entries = new Map<number, { players: Promise<ReadonlySet<string>>; expires: number }>();

  function playersOf(seasonId: number): Promise<ReadonlySet<string>> {
    const hit = entries.get(seasonId);
    if (hit && hit.expires > now()) return hit.players;
    // The promise is cached: concurrent lookups of a cold season share one query.
    const entry = { players: load(seasonId), expires: now() + opts.ttlMs };
    entries.set(seasonId, entry);
    entry.players.catch(() => {
      if (entries.get(seasonId) === entry) entries.delete(seasonId);
    });
    return entry.players;
  }

  return {
    /** Whether the player is blocked in the season (rejects when the list cannot be loaded). */
    async isBlocked(seasonId: number, playerId: string): Promise<boolean> {
      return (await playersOf(seasonId)).has(playerId);
    },
    /** Every player blocked in the season (rejects when the list cannot be loaded). */
    blockedIn(seasonId: number): Promise<ReadonlySet<string>> {
      return playersOf(seasonId);
    },
    /** The blocked ones among `playerIds`, in their order. */
    async blockedAmong(seasonId: number, playerIds: readonly string[]): Promise<string[]> {
      const blocked = await playersOf(seasonId);
      return playerIds.filter((id) => blocked.has(id));
    },
    /** Forgets a season's list: this process sees its own block or unblock at once. */
    invalidate(seasonId: number): void {
      entries.delete(seasonId);
    },
  };
}

export type BlockedPlayersCache = ReturnType<typeof createBlockedPlayersCache>;

function parseBlockInput(input: BlockInput) {
  return {
    seasonId: parseSeasonId(input.seasonId),
    playerId: parsePlayerId(input.playerId),
    reason: parseReason(input.reason),
  };
}

/** Blocks a player's later results in a season: the API refuses them, the consumer dead-letters them. */
export async function blockPlayer(
  deps: { store: BlockStore; onChange?(seasonId: number): void },
  input: BlockInput,
): Promise<BlockReport> {
  const { seasonId, playerId, reason } = parseBlockInput(input);
  const { changed, auditId } = await deps.store.block(seasonId, playerId, {
    actor: input.actor,
    action: 'block_player',
    reason,
    details: input.details ?? {},
  });
  deps.onChange?.(seasonId);
  return { seasonId, playerId, blocked: true, changed, auditId };
}

/** Lifts a block; results refused meanwhile stay refused (they are in the DLQ). */
export async function unblockPlayer(
  deps: { store: BlockStore; onChange?(seasonId: number): void },
  input: BlockInput,
): Promise<BlockReport> {
  const { seasonId, playerId, reason } = parseBlockInput(input);
  const { changed, auditId } = await deps.store.unblock(seasonId, playerId, {
    actor: input.actor,
    action: 'unblock_player',
    reason,
    details: input.details ?? {},
  });
  deps.onChange?.(seasonId);
  return { seasonId, playerId, blocked: false, changed, auditId };
}
