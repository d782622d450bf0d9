// Removing a cheater's results from a season: PostgreSQL first (one transaction), then the
// boards, then, a little later, a settle pass that closes the races with ingest.
//
// Concurrency, and why both a row lock and a settle pass:
// - The removal transaction locks the player's SEASON standing row before it writes. Every
//   ingest transaction that stores a result of this player upserts that row (a player's results
//   always count on the SEASON board; rows are locked in primary-key order, SEASON first), so
//   ingest of this player and the removal are serialised: a result committed before the lock is
//   seen by the removal's scan (and removed or kept), one committed after is combined by ingest's
//   upsert with the standing the removal wrote, never with the old one. The long scan itself runs
//   before the lock, and is redone under it only if the row changed meanwhile (see planFor in
//   src/postgres/player-results-store.ts): ingest of the player waits milliseconds, not a scan.
// - Blocking is inserted in the same transaction, so once it commits the API and the consumer
//   refuse the player (their caches see it within the block cache TTL).
// - What the lock cannot stop: a message classified before the block was visible and committed
//   after the removal; a Kafka redelivery of a removed result (deleting it also deletes its dedup
//   key); an ingest Redis write computed before the removal landing after ours. The settle pass,
//   run once those windows have passed, deletes such results again and rewrites the player's
//   boards from PostgreSQL while holding their row locks, so no ingest write can interleave.
import type { BoardRef } from '../domain/board-deltas.js';
import { sortBoardRefs } from '../domain/board-deltas.js';
import { seasonNotFound } from '../domain/errors.js';
import {
  parseReason,
  type AuditEntry,
  type BoardOutcome,
  type RemovalCommand,
  type ResultSelection,
  type StoredRemoval,
} from '../domain/player-removal.js';
import { boardsOf, type Season } from '../domain/season.js';
import { parseMatchId, parsePlayerId } from '../domain/result-message.js';
import { parseSeasonId } from './blocked-players.js';

/** The player's standings on `refs`, their rows locked while `fn` runs (postgres/player-results-store.ts). */
export interface LockedStandings {
  withLockedStandings<T>(
    seasonId: number,
    playerId: string,
    refs: readonly BoardRef[],
    fn: (current: BoardOutcome[]) => Promise<T>,
  ): Promise<T>;
}

/** The source of truth's side of a removal (src/postgres/player-results-store.ts). */
interface RemovalStore extends LockedStandings {
  remove(cmd: RemovalCommand): Promise<StoredRemoval>;
}

/** The boards' side: exact values, lower ones included (src/redis/board-resetter.ts). */
interface BoardResets {
  reset(season: Season, standings: readonly BoardOutcome[], nowMs: number): Promise<{ changed: number }>;
}

export interface RemovalDeps {
  seasonById(id: number): Promise<Season | undefined>;
  store: RemovalStore;
  boards: BoardResets;
  now(): number;
  /** Called once a block committed: local caches drop the season's blocked list. */
  onBlocked?(seasonId: number): void;
}

/** A removal as an administrator asks for it. */
export interface RemovalInput {
  seasonId: number;
  playerId: string;
  /** Only this match; all of the player's results in the season when absent. */
  matchId?: string | null;
  reason: string;
  block?: boolean | null;
  /** Who asks: an API key's name or cli:<user>. */
  actor: string;
  details?: Record<string, unknown>;
}

/** What the removal did, as committed. */
export interface PlayerRemovalReport {
  seasonId: number;
  playerId: string;
  matchId: string | null;
  removedResults: number;
  /** The player is blocked in the season (asked now, and newly or already). */
  blocked: boolean;
  auditId: number;
  /** The player's standing afterwards on every board a removed result counted on (null: off that board). */
  boards: BoardOutcome[];
  /** Board members changed in Redis. */
  boardChanges: number;
}

/** What the settle pass needs to know about a removal. */
export interface SettleTicket {
  season: Season;
  playerId: string;
  selection: ResultSelection;
  boards: BoardRef[];
  audit: AuditEntry;
}

function parseInput(input: RemovalInput) {
  return {
    seasonId: parseSeasonId(input.seasonId),
    playerId: parsePlayerId(input.playerId),
    matchId: input.matchId == null ? null : parseMatchId(input.matchId),
    reason: parseReason(input.reason),
    block: input.block === true,
  };
}

/**
 * Removes a player's results from a season (all, or one match) on each of its boards
 * (docs/design.md#boards), recomputes their standings in PostgreSQL, optionally blocks them in the
 * season, audits, then sets their boards in Redis. Returns the report and the tickets for
 * settlePlayerRemoval (one a board), which the caller runs after the settle delay.
 */
export async function removePlayerResults(
  deps: RemovalDeps,
  input: RemovalInput,
): Promise<{ report: PlayerRemovalReport; settle: SettleTicket[] }> {
  const { seasonId, playerId, matchId, reason, block } = parseInput(input);
  const season = await deps.seasonById(seasonId);
  if (!season) throw seasonNotFound(seasonId);
  const audit: AuditEntry = {
    actor: input.actor,
    action: 'remove_results',
    reason,
    matchId,
    details: input.details ?? {},
  };
  const report: PlayerRemovalReport = {
    seasonId,
    playerId,
    matchId,
    removedResults: 0,
    blocked: block,
    auditId: 0,
    boards: [],
    boardChanges: 0,
  };
  const settle: SettleTicket[] = [];
  for (const [i, board] of boardsOf(season).entries()) {
    // The season's own board audits the removal (always) and holds the block; a further board
    // audits only what it removed.
    const stored = await deps.store.remove({
      season: board,
      playerId,
      selection: matchId ? { kind: 'only', matchIds: [matchId] } : { kind: 'all' },
      blockReason: block && i === 0 ? reason : null,
      audit,
      auditWhenEmpty: i === 0,
    });
    if (stored.newlyBlocked) deps.onBlocked?.(seasonId);
    const { changed } = await deps.boards.reset(board, stored.boards, deps.now());
    if (i === 0) report.auditId = stored.auditId!;
    report.removedResults += stored.removed.length;
    report.boards.push(...stored.boards);
    report.boardChanges += changed;
    // Blocked: nothing of the player but what the removal kept may stay. Not blocked: only
    // redeliveries of the removed results are taken back; new results are the player's own.
    const selection: ResultSelection = block
      ? { kind: 'allBut', matchIds: stored.kept.map((r) => r.matchId) }
      : { kind: 'only', matchIds: stored.removed.map((r) => r.matchId) };
    settle.push({
      season: board,
      playerId,
      selection,
      boards: stored.boards,
      audit: { ...audit, action: 'remove_results_settle' },
    });
  }
  return { report, settle };
}

/**
 * The settle pass (see the top of this file): deletes what slipped in again, then rewrites the
 * player's boards from PostgreSQL while holding their standing rows. Idempotent, cheap when
 * nothing slipped in. Returns how many results it removed and how many board members changed.
 */
export async function settlePlayerRemoval(
  deps: Pick<RemovalDeps, 'store' | 'boards' | 'now'>,
  t: SettleTicket,
): Promise<{ removedResults: number; boardChanges: number }> {
  const nothingToTakeBack = t.selection.kind === 'only' && t.selection.matchIds.length === 0;
  const pass = nothingToTakeBack
    ? undefined
    : await deps.store.remove({
        season: t.season,
        playerId: t.playerId,
        selection: t.selection,
        blockReason: null,
        audit: t.audit,
        auditWhenEmpty: false,
      });
  const refs = new Map<string, BoardRef>();
  for (const b of [...t.boards, ...(pass?.boards ?? [])]) {
    refs.set(`${b.window}|${b.period}`, {
      seasonId: b.seasonId,
      window: b.window,
      period: b.period,
      playerId: b.playerId,
    });
  }
  if (refs.size === 0) return { removedResults: 0, boardChanges: 0 };
  const boardChanges = await deps.store.withLockedStandings(
    t.season.id,
    t.playerId,
    sortBoardRefs([...refs.values()]),
    async (current) => (await deps.boards.reset(t.season, current, deps.now())).changed,
  );
  return { removedResults: pass?.removed.length ?? 0, boardChanges };
}

/**
 * How long after the blocked-players cache TTL the settle pass waits: an ingest chunk classified
 * just before a block became visible commits and writes Redis well within it.
 */
const SETTLE_MARGIN_MS = 1_000;

/** The settle pass's delay: once every process's block cache (`blockedCacheMs`) has seen a block. */
export function settleDelayMs(blockedCacheMs: number): number {
  return blockedCacheMs + SETTLE_MARGIN_MS;
}

type SettleResult = Awaited<ReturnType<typeof settlePlayerRemoval>>;

/**
 * Removals with their settle pass `settleMs` later: in the background for a server (`remove`,
 * pending passes dropped by `stop`), or awaited by a process that exits right after
 * (`removeAndSettle`, the CLI).
 */
export function createPlayerRemovals(
  deps: RemovalDeps & {
    settleMs: number;
    onSettled?(ticket: SettleTicket, result: SettleResult): void;
    onSettleFailed?(err: unknown, ticket: SettleTicket): void;
  },
) {
  const timers = new Set<NodeJS.Timeout>();
  /** Settles each board's ticket; the results summed. */
  async function settle(tickets: readonly SettleTicket[]): Promise<SettleResult> {
    const sum: SettleResult = { removedResults: 0, boardChanges: 0 };
    for (const ticket of tickets) {
      const r = await settlePlayerRemoval(deps, ticket);
      deps.onSettled?.(ticket, r);
      sum.removedResults += r.removedResults;
      sum.boardChanges += r.boardChanges;
    }
    return sum;
  }
  return {
    /** Removes results now; the settle pass runs in the background `settleMs` later. */
    async remove(input: RemovalInput): Promise<PlayerRemovalReport> {
      const { report, settle: tickets } = await removePlayerResults(deps, input);
      const timer = setTimeout(() => {
        timers.delete(timer);
        settle(tickets).catch((err: unknown) => deps.onSettleFailed?.(err, tickets[0]!));
      }, deps.settleMs);
      timers.add(timer);
      return report;
    },
    /** Removes results and waits for the settle pass. */
    async removeAndSettle(input: RemovalInput): Promise<PlayerRemovalReport & { settled: SettleResult }> {
      const { report, settle: tickets } = await removePlayerResults(deps, input);
      await new Promise((r) => setTimeout(r, deps.settleMs));
      return { ...report, settled: await settle(tickets) };
    },
    /** Drops pending settle passes (shutdown): the removals are committed; only their race repair is skipped. */
    stop(): void {
      for (const t of timers) clearTimeout(t);
      timers.clear();
    },
  };
}
