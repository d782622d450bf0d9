// Hiding a player from a season's public boards pending review, and showing them again
// (docs/design.md#moderation). Their results are still accepted and stored, their standings kept
// exact in PostgreSQL; only the boards leave them out: ranks close up while hidden and reopen after.
//
// The order, and the race it closes:
// - PostgreSQL first (hidden_players, audited, in one transaction): from then on every reader of
//   standings for a board (rebuild, reconcile, snapshots, final standings) leaves the player out.
// - Then the player's boards are made to match: each of their standings on every board of the
//   season (and, through the resetter, their scope, cohort and clan boards) removed, or set back
//   to what PostgreSQL holds, under the standing rows' locks so no ingest commit interleaves.
// - Ingest leaves hidden players out of its Redis writes (service/apply-results.ts), seeing a
//   change within the hidden-players cache TTL. A chunk that read the list just before the change
//   may still write the old way, so the same sync runs again once every cache has expired: the
//   settle pass. Each sync reads the state anew, so two quick changes end as the last one says.
import type { BoardRef } from '../domain/board-deltas.js';
import { seasonNotFound } from '../domain/errors.js';
import type { AuditEntry, BoardOutcome } from '../domain/player-removal.js';
import { parseReason } from '../domain/player-removal.js';
import { parsePlayerId } from '../domain/result-message.js';
import { boardsOf, seasonIdOf, type Season } from '../domain/season.js';
import { parseSeasonId, type BlockInput } from './blocked-players.js';
import type { LockedStandings } from './remove-player-results.js';

interface HiddenStore {
  hide(seasonId: number, playerId: string, audit: AuditEntry): Promise<{ changed: boolean; auditId: number }>;
  unhide(seasonId: number, playerId: string, audit: AuditEntry): Promise<{ changed: boolean; auditId: number }>;
  hiddenIn(seasonId: number): Promise<ReadonlySet<string>>;
  /** The boards (window, period) of a board row on which the player has a standing. */
  boardsOf(boardId: number, playerId: string): Promise<BoardRef[]>;
}

export interface HideDeps {
  seasonById(id: number): Promise<Season | undefined>;
  store: HiddenStore;
  locked: LockedStandings;
  /** Exact board writes, scope boards included (redis/board-resetter.ts through withScopeBoards). */
  boards: { reset(season: Season, standings: readonly BoardOutcome[], nowMs: number): Promise<{ changed: number }> };
  now(): number;
  /** Called once a change committed: local caches drop the season's list. */
  onChange?(seasonId: number): void;
}

/** The outcome of hidePlayer / unhidePlayer. */
export interface HideReport {
  seasonId: number;
  playerId: string;
  /** Whether the player is hidden in the season now. */
  hidden: boolean;
  /** False when the player already was in that state (the request is still audited). */
  changed: boolean;
  auditId: number;
  /** Board members added, changed or removed in Redis. */
  boardChanges: number;
}

/**
 * Makes the player's boards in the season match PostgreSQL: absent while hidden, their stored
 * standings otherwise. Idempotent; returns the members changed.
 */
async function syncHiddenPlayer(deps: HideDeps, season: Season, playerId: string): Promise<number> {
  const hidden = (await deps.store.hiddenIn(season.id)).has(playerId);
  let changed = 0;
  for (const board of boardsOf(season)) {
    const refs = await deps.store.boardsOf(board.id, playerId);
    if (refs.length === 0) continue;
    changed += await deps.locked.withLockedStandings(board.id, playerId, refs, async (current) => {
      const standings = hidden ? current.map((c) => ({ ...c, standing: null })) : current;
      return (await deps.boards.reset(board, standings, deps.now())).changed;
    });
  }
  return changed;
}

/**
 * Board resets that never show a player hidden in the season: their standings are written as
 * removals. For the other paths that set standings exactly (a removal and its settle pass, a scope
 * move), so neither puts a hidden player back on a board.
 */
export function keepingHiddenOff<R>(
  boards: { reset(season: Season, standings: readonly BoardOutcome[], nowMs: number): Promise<R> },
  hiddenIn: (seasonId: number) => Promise<ReadonlySet<string>>,
) {
  return {
    async reset(season: Season, standings: readonly BoardOutcome[], nowMs: number): Promise<R> {
      const hidden = await hiddenIn(seasonIdOf(season));
      const shown =
        hidden.size === 0
          ? standings
          : standings.map((s) => (s.standing && hidden.has(s.playerId) ? { ...s, standing: null } : s));
      return boards.reset(season, shown, nowMs);
    },
  };
}

async function setHidden(deps: HideDeps, input: BlockInput, hide: boolean): Promise<HideReport> {
  const seasonId = parseSeasonId(input.seasonId);
  const playerId = parsePlayerId(input.playerId);
  const reason = parseReason(input.reason);
  const season = await deps.seasonById(seasonId);
  if (!season) throw seasonNotFound(seasonId);
  const audit = { actor: input.actor, action: hide ? 'hide_player' : 'unhide_player', reason, details: input.details };
  const { changed, auditId } = await (hide ? deps.store.hide : deps.store.unhide)(seasonId, playerId, audit);
  deps.onChange?.(seasonId);
  const boardChanges = await syncHiddenPlayer(deps, season, playerId);
  return { seasonId, playerId, hidden: hide, changed, auditId, boardChanges };
}

/**
 * Hide and unhide with their settle pass `settleMs` later: in the background for a server (`stop`
 * drops the pending ones at shutdown; reconcile repairs what a dropped pass would have), or awaited.
 */
export function createPlayerHiding(
  deps: HideDeps & { settleMs: number; onSettleFailed?(err: unknown, seasonId: number): void },
) {
  const timers = new Set<NodeJS.Timeout>();
  const resync = async (r: HideReport) => {
    const season = await deps.seasonById(r.seasonId);
    return season ? syncHiddenPlayer(deps, season, r.playerId) : 0;
  };
  /** The change now, its settle pass in the background. */
  const change = async (input: BlockInput, hide: boolean) => {
    const report = await setHidden(deps, input, hide);
    const timer = setTimeout(() => {
      timers.delete(timer);
      resync(report).catch((err: unknown) => deps.onSettleFailed?.(err, report.seasonId));
    }, deps.settleMs);
    timers.add(timer);
    return report;
  };
  /** The change and its settle pass, awaited (a process that exits right after: the CLI). */
  const changeAndSettle = async (input: BlockInput, hide: boolean) => {
    const report = await setHidden(deps, input, hide);
    await new Promise((r) => setTimeout(r, deps.settleMs));
    return { ...report, boardChanges: report.boardChanges + (await resync(report)) };
  };
  return {
    hide: (input: BlockInput) => change(input, true),
    unhide: (input: BlockInput) => change(input, false),
    hideAndSettle: (input: BlockInput) => changeAndSettle(input, true),
    unhideAndSettle: (input: BlockInput) => changeAndSettle(input, false),
    stop(): void {
      for (const t of timers) clearTimeout(t);
      timers.clear();
    },
  };
}
