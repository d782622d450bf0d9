import type { IncomingMessage } from 'node:http';
import DataLoader from 'dataloader';
import type { PlayerScopes } from '../domain/scopes.js';
import type { Reward } from '../domain/rewards.js';
import { idOfBoard, type Board, type BoardOfId } from '../domain/board.js';
import type { RankPoint } from '../domain/rank-history.js';
import type { PlacedStanding } from '../domain/placing.js';
import type { Season, SeasonDefinition, SeasonStatus, Window } from '../domain/season.js';
import type { SubmissionInput } from '../domain/submission.js';
import type { BoardView, LeaderboardReads } from '../service/leaderboard-reads.js';
import type { RequestReads } from './response-cache.js';
import type { LiveUpdates } from '../service/live-updates.js';
import type { RebuildReport } from '../service/rebuild-season.js';
import type { ReconcileReport } from '../service/reconcile-season.js';
import type { BlockInput, BlockReport } from '../service/blocked-players.js';
import type { HideReport } from '../service/hidden-players.js';
import type { PlayerRemovalReport, RemovalInput } from '../service/remove-player-results.js';

import type { AuditEntry, AuditFilter } from '../service/audit-trail.js';
import type { Principal } from '../service/api-keys.js';

import type { ShardChoice } from '../service/seasons.js';

export type { Principal };

/** What the resolvers can do: the use cases, wired in app.ts. */
export interface Services {
  now(): Date;
  season(id: number): Promise<Season | undefined>;
  seasons(status?: SeasonStatus): Promise<Season[]>;
  createSeason(def: SeasonDefinition & { shards?: ShardChoice }): Promise<Season>;
  /** Runs the whole close procedure (final standings, Redis keys removed); `by` is audited. */
  closeSeason(id: number, by: { actor: string; reason: string }): Promise<Season>;
  /** `onProgress`: the members written so far (the console's progress). */
  rebuild(seasonId: number, onProgress?: (members: number) => void): Promise<RebuildReport>;
  /**
   * Compares the season's boards with PostgreSQL; with repair, makes them equal (SEASON_NOT_FOUND,
   * SEASON_CLOSED, REBUILD_IN_PROGRESS).
   */
  reconcile(seasonId: number, repair: boolean, onProgress?: (compared: number) => void): Promise<ReconcileReport>;
  submit(input: SubmissionInput, principal: Principal): Promise<{ matchId: string; accepted: number }>;
  /** Queues a change of a player's scopes (Kafka, in order with their results); UNAVAILABLE without Kafka. */
  setPlayerScopes(playerId: string, scopes: PlayerScopes): Promise<void>;
  /** Rewards granted at closes (postgres/rewards-store.ts): a player's, and claims. */
  rewards: {
    forPlayer(playerId: string, seasonId: number | null, limit: number): Promise<Reward[]>;
    claim(key: string): Promise<Reward | undefined>;
  };
  /** Leagues (postgres/leagues-store.ts): a player's cohort, who a close moved. */
  leagues: {
    memberOf(seasonId: number, playerId: string): Promise<{ tier: number; cohort: number } | undefined>;
    moves(
      seasonId: number,
    ): Promise<Array<{ playerId: string; cohort: number; rank: number; fromTier: number; toTier: number }>>;
  };
  /** The player's scopes as ingest last applied them; null: none set. */
  playerScopes(playerId: string): Promise<PlayerScopes | null>;
  boards: LeaderboardReads;
  live: LiveUpdates;
  playerNames(ids: readonly string[]): Promise<Map<string, string | null>>;
  /** The periods of a window of the season that hold standings, newest first (BoardPeriods in season.ts). */
  periods(seasonId: number, window: Window, first: number, before: string | null): Promise<string[]>;
  /** Runs an admin action and records it, with its outcome, in the audit trail under the principal's key. */
  audited<T>(
    principal: Principal,
    entry: { action: string; seasonId?: number | null; details?: Record<string, unknown> | null },
    action: () => Promise<T>,
  ): Promise<T>;
  /** The audit trail, newest first (service/audit-trail.ts). */
  auditLog(filter: AuditFilter): Promise<AuditEntry[]>;
  /** The metadata of these players' standings on a board (none: left out). */
  entryMetadata(board: BoardOfId, playerIds: readonly string[]): Promise<Map<string, unknown>>;
  /** Each player's rank at the season's last `last` daily snapshots, oldest first. */
  rankHistory(seasonId: number, playerIds: readonly string[], last: number): Promise<Map<string, RankPoint[]>>;
  /** Throws RATE_LIMITED when `key` spent its budget. */
  rateLimit(kind: 'read' | 'submit', key: string): void;
  /** Cheaters: remove a player's results, block, unblock, hide, unhide; each audited under `actor`. */
  playerAdmin: {
    remove(input: RemovalInput): Promise<PlayerRemovalReport>;
    block(input: BlockInput): Promise<BlockReport>;
    unblock(input: BlockInput): Promise<BlockReport>;
    /** Hide from the season's boards pending review, and show again (docs/design.md#moderation). */
    hide(input: BlockInput): Promise<HideReport>;
    unhide(input: BlockInput): Promise<HideReport>;
  };
}

interface PlayerName {
  id: string;
  displayName: string | null;
}

/** The per-request context. */
export interface Context {
  services: Services;
  /** The caller's principal; null without an Authorization header; throws UNAUTHENTICATED for a bad one. */
  principal(): Promise<Principal | null>;
  clientAddress: string;
  /** A player's display name, lookups of one turn batched. */
  players: { load(id: string): Promise<PlayerName> };
  /** The metadata of a player's standing on a board (Services.entryMetadata), lookups of one turn batched. */
  metadata: { load(board: BoardOfId, playerId: string): Promise<unknown> };
  /** A player's rank history (Services.rankHistory), lookups of one turn batched. */
  rankHistory: { load(seasonId: number, playerId: string, last: number): Promise<RankPoint[]> };
  /** Set when the answer may be cached: told every board version the request read. */
  reads?: RequestReads;
}

/** A resolved leaderboard: the board plus when its period started. */
export interface LeaderboardValue extends BoardView {
  periodStart: Date;
}

/**
 * An entry, and the board it is on when a field of it needs to know (rankHistory, rankDelta,
 * percentile): a query's entries know the board itself, a subscription's its season and window.
 */
/**
 * An entry and the board it is on: the one its read named (`board`), or a subscription's season,
 * board name and window, whose board is the one of now.
 */
export type EntryValue = PlacedStanding & {
  on?: {
    seasonId: number;
    window: Window;
    board?: BoardView;
    boardName?: string | null | undefined;
    /** A subscription's scope (domain/scopes.ts); absent: the whole board. */
    scope?: string | null;
    /** A subscription's board now, looked up once for every entry of a push (graphql/entry.ts). */
    found?: Promise<Board | undefined>;
  };
};

/** `entries` told which board they are on. */
export const onBoard = (
  entries: readonly PlacedStanding[],
  seasonId: number,
  window: Window,
  boardName?: string | null,
  scope?: string | null,
): EntryValue[] => {
  // One `on` for the push's entries: the board they need is looked up once.
  const on = { seasonId, window, boardName, scope };
  return entries.map((e) => ({ ...e, on }));
};

/** A query's `entries` told the board they were read from. */
export const onView = (entries: readonly PlacedStanding[], board: BoardView): EntryValue[] =>
  entries.map((e) => ({ ...e, on: { seasonId: board.season.id, window: board.window, board } }));

/**
 * What a context reads of its HTTP request. An IncomingMessage is one; a WebSocket keeps only
 * this much of its upgrade request (`upgradeRequest`), so the request itself can be collected.
 */
export interface RequestInfo {
  headers: { authorization?: string };
  socket: { remoteAddress?: string };
}

/** The parts of an upgrade request a WebSocket's subscriptions need, for as long as it is open. */
export const upgradeRequest = (req: IncomingMessage): RequestInfo => ({
  headers: { authorization: req.headers.authorization },
  socket: { remoteAddress: req.socket.remoteAddress },
});

/** The client's address as the socket reports it. */
export const addressOf = (req: RequestInfo): string => req.socket.remoteAddress ?? 'unknown';

/** Builds each request's (or subscription's) context; its principal is authenticated when first asked for. */
export function createContextFactory(
  services: Services,
  authenticate: (authorization: string | undefined) => Promise<Principal | null>,
) {
  return function contextFor(req: RequestInfo, reads?: RequestReads): Context {
    let principal: Promise<Principal | null> | undefined;
    let loader: DataLoader<string, PlayerName> | undefined;
    let history: DataLoader<string, RankPoint[]> | undefined;
    let metadata: DataLoader<readonly [BoardOfId, string], unknown, string> | undefined;
    // Plain data properties only: a getter in this literal (`get players()`) made every context a
    // dictionary-mode object, which V8 kept alive, with the request it reaches, through
    // young-generation GCs, lengthening every pause on the entry path (docs/benchmarks.md).
    return {
      reads,
      services,
      principal: () => (principal ??= authenticate(req.headers.authorization)),
      clientAddress: addressOf(req),
      players: {
        // The loader is made when a name is first asked for: most reads and subscriptions never do.
        // It batches one turn's lookups and keeps nothing: names come from the name cache (RAM), and a
        // subscription's context lives as long as it does, so a cache here would show a name
        // changed since forever.
        load: (id) =>
          (loader ??= new DataLoader(
            async (ids: readonly string[]) => {
              const names = await services.playerNames(ids);
              return ids.map((id) => ({ id, displayName: names.get(id) ?? null }));
            },
            { cache: false },
          )).load(id),
      },
      metadata: {
        // One query per board asked in a turn; keys are board and player.
        load: (board, playerId) =>
          (metadata ??= new DataLoader(
            async (keys: ReadonlyArray<readonly [BoardOfId, string]>) => {
              const byBoard = new Map<string, { board: BoardOfId; ids: string[] }>();
              for (const [b, id] of keys) {
                const k = idOfBoard(b);
                (byBoard.get(k) ?? byBoard.set(k, { board: b, ids: [] }).get(k)!).ids.push(id);
              }
              const found = new Map<string, unknown>();
              for (const [k, { board: b, ids }] of byBoard)
                for (const [id, value] of await services.entryMetadata(b, ids)) found.set(`${k}|${id}`, value);
              return keys.map(([b, id]) => found.get(`${idOfBoard(b)}|${id}`) ?? null);
            },
            { cache: false, cacheKeyFn: ([b, id]) => `${idOfBoard(b)}|${id}` },
          )).load([board, playerId]),
      },
      rankHistory: {
        // Keys 'season/last/player'; one query per season and length asked in a turn.
        load: (seasonId, playerId, last) =>
          (history ??= new DataLoader(
            async (keys: readonly string[]) => {
              const asked = new Map<string, string[]>();
              for (const k of keys) {
                const cut = k.lastIndexOf('/');
                asked.set(k.slice(0, cut), [...(asked.get(k.slice(0, cut)) ?? []), k.slice(cut + 1)]);
              }
              const found = new Map<string, RankPoint[]>();
              for (const [group, ids] of asked) {
                const [season, last] = group.split('/').map(Number);
                for (const [id, points] of await services.rankHistory(season!, ids, last!))
                  found.set(`${group}/${id}`, points);
              }
              return keys.map((k) => found.get(k) ?? []);
            },
            { cache: false },
          )).load(`${seasonId}/${last}/${playerId}`),
      },
    };
  };
}
