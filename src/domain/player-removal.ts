// Removing a player's results (cheaters): which results go, and what the player's standings
// become on every board those results counted on. Pure: the store runs it inside its transaction.
import { boardsOf, sortBoardRefs, type BoardRef } from './board-deltas.js';
import { badInput } from './errors.js';
import { unpackKeys } from './board-keys.js';
import { aggregatesPerKey, foldKeys, packState, type KeyState } from './key-aggregates.js';
import { applyResult, type StandingValue } from './ranking.js';
import type { Season } from './season.js';

/** One stored result of the player, as read back from match_results. */
export interface PlayerResult {
  matchId: string;
  points: number;
  endedAt: Date;
}

/**
 * Which of the player's results to remove: all of them, only some matches, or all but some
 * matches (the settle pass of a blocking removal: everything that arrived after the first pass).
 */
export type ResultSelection =
  { kind: 'all' } | { kind: 'only'; matchIds: readonly string[] } | { kind: 'allBut'; matchIds: readonly string[] };

/** A board the removal touched, with the player's standing on it afterwards (null: no row left). */
export interface BoardOutcome extends BoardRef {
  standing: StandingValue | null;
  /** On a board whose keys aggregate: the state the standing packs (domain/key-aggregates.ts). */
  keyState?: KeyState;
}

/** What a removal does: the results it deletes, those it keeps, and the boards it rewrites. */
export interface RemovalPlan {
  removed: PlayerResult[];
  kept: PlayerResult[];
  /** Only boards a removed result counted on, sorted by the standings primary key. */
  boards: BoardOutcome[];
}

/** One admin_audit row: who (API key name or cli:<user>), what, and why. */
export interface AuditEntry {
  actor: string;
  action: string;
  reason: string;
  /** The one match a removal is about, when it is about one. */
  matchId?: string | null;
  details?: Record<string, unknown>;
}

/** A removal to run in one transaction. */
export interface RemovalCommand {
  season: Season;
  playerId: string;
  selection: ResultSelection;
  /** Block the player in the season too, with this reason (null: no block). */
  blockReason: string | null;
  audit: AuditEntry;
  /** Write the audit row even when nothing was removed (the first pass: the request itself is recorded). */
  auditWhenEmpty: boolean;
}

/** What a removal transaction committed. */
export interface StoredRemoval extends RemovalPlan {
  /** True when this transaction inserted the block (false: not asked, or already blocked). */
  newlyBlocked: boolean;
  /** The removal's admin_audit id; null when nothing was removed and auditWhenEmpty was false. */
  auditId: number | null;
}

/** Longest reason an administrator may give, in Unicode code points. */
const MAX_REASON_LENGTH = 500;

/** The reason as stored in admin_audit, or BAD_USER_INPUT 'reason' when blank, too long or with control characters. */
export function parseReason(reason: unknown): string {
  const trimmed = typeof reason === 'string' ? reason.trim() : '';
  if (trimmed.length === 0 || [...trimmed].length > MAX_REASON_LENGTH) {
    throw badInput('reason', `reason must be 1..${MAX_REASON_LENGTH} characters and not blank`);
  }
  // Reasons are read in admin tools and logs; a control character there is never intended.
  if (/\p{Cc}/u.test(trimmed)) throw badInput('reason', 'reason must not contain control characters');
  return trimmed;
}

function selects(selection: ResultSelection): (r: PlayerResult) => boolean {
  if (selection.kind === 'all') return () => true;
  const ids = new Set(selection.matchIds);
  return selection.kind === 'only' ? (r) => ids.has(r.matchId) : (r) => !ids.has(r.matchId);
}

const refKey = (b: BoardRef) => `${b.window}|${b.period}`;

/**
 * Splits the player's results by `selection` and recomputes their standing on each board a
 * removed result counted on, from the kept results of that board, by folding applyResult: the
 * very rule ingest applies, so a removal leaves exactly what ingesting the kept results would.
 */
export function planRemoval(
  season: Season,
  playerId: string,
  results: readonly PlayerResult[],
  selection: ResultSelection,
): RemovalPlan {
  const isRemoved = selects(selection);
  const removed = results.filter(isRemoved);
  const kept = results.filter((r) => !isRemoved(r));
  const boards = new Map<string, BoardOutcome>();
  for (const r of removed) {
    for (const ref of boardsOf({ seasonId: season.id, playerId, endedAt: r.endedAt }, season)) {
      boards.set(refKey(ref), { ...ref, standing: null });
    }
  }
  for (const r of kept) {
    for (const ref of boardsOf({ seasonId: season.id, playerId, endedAt: r.endedAt }, season)) {
      const board = boards.get(refKey(ref));
      if (!board) continue; // a board no removed result counted on stays as it is
      if (aggregatesPerKey(season.keys)) {
        board.keyState = foldKeys(season.keys, board.keyState, unpackKeys(season.keys, r.points), r.endedAt.getTime());
        board.standing = packState(season.keys, board.keyState);
      } else board.standing = applyResult(board.standing ?? undefined, r, season);
    }
  }
  return { removed, kept, boards: sortBoardRefs([...boards.values()]) };
}
