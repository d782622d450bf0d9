// The PostgreSQL side of removing and blocking players (cheaters). See
// src/service/remove-player-results.ts for the whole procedure and its concurrency argument.
import type { BoardRef } from '../domain/board-deltas.js';
import { seasonClosed, seasonNotFound } from '../domain/errors.js';
import { aggregatesPerKey, stateToRow } from '../domain/key-aggregates.js';
import type { Season } from '../domain/season.js';
import {
  planRemoval,
  type AuditEntry,
  type BoardOutcome,
  type PlayerResult,
  type RemovalCommand,
  type RemovalPlan,
  type StoredRemoval,
} from '../domain/player-removal.js';
import { epochMs, type Sql, type Tx } from './client.js';

// The removed results copied into the audit row: enough to see (or undo) what was taken away,
// bounded so a bot with 100k matches does not write a 10 MB jsonb value.
const AUDITED_RESULTS = 1_000;

/** Removal, blocking and unblocking of players, each in one transaction with its audit row. */
export function createPlayerResultsStore(sql: Sql) {
  return {
    /**
     * Optionally blocks the player, reads their results, locks their SEASON standing (see
     * planFor), deletes the selected results and rewrites their standing on every board those
     * results counted on, and audits; all or nothing.
     */
    async remove(cmd: RemovalCommand): Promise<StoredRemoval> {
      const { season, playerId } = cmd;
      return sql.begin(async (tx) => {
        await lockOpenSeason(tx, season.id);
        const newlyBlocked = cmd.blockReason !== null && (await insertBlock(tx, season.id, playerId, cmd.blockReason));
        const plan = await planFor(tx, cmd);
        if (plan.removed.length > 0) {
          await tx`delete from match_results
                   where season_id = ${season.id} and player_id = ${playerId}
                     and match_id = any(${tx.array(plan.removed.map((r) => r.matchId))}::uuid[])`;
          await writeStandings(tx, season.id, playerId, plan.boards, metadataRule(season));
        }
        let auditId: number | null = null;
        if (plan.removed.length > 0 || cmd.auditWhenEmpty) {
          auditId = await insertAudit(tx, season.id, playerId, { ...cmd.audit, details: removalDetails(cmd, plan) });
        }
        if (newlyBlocked) {
          await insertAudit(tx, season.id, playerId, {
            ...cmd.audit,
            action: 'block_player',
            reason: cmd.blockReason!,
            matchId: null,
          });
        }
        return { ...plan, newlyBlocked, auditId };
      }) as Promise<StoredRemoval>;
    },

    /**
     * Runs `fn` with the player's current standings on `refs` while holding their row locks, so
     * no ingest transaction of this player can commit (and then write Redis) in between.
     */
    async withLockedStandings<T>(
      seasonId: number,
      playerId: string,
      refs: readonly BoardRef[],
      fn: (current: BoardOutcome[]) => Promise<T>,
    ): Promise<T> {
      return sql.begin(async (tx) => {
        const rows = await tx<{ window: BoardRef['window']; period: string; points: string; achieved_ms: string }[]>`
          select s."window", s.period, s.points, ${epochMs(tx, 's.achieved_at')} as achieved_ms
          from standings s
          join unnest(${tx.array(refs.map((r) => r.window))}::board_window[], ${tx.array(refs.map((r) => r.period))}::text[])
            as k(w, period) on s."window" = k.w and s.period = k.period
          where s.season_id = ${seasonId} and s.player_id = ${playerId}
          order by s."window", s.period
          for update of s`;
        const found = new Map(rows.map((r) => [`${r.window}|${r.period}`, r]));
        const current = refs.map((ref) => {
          const row = found.get(`${ref.window}|${ref.period}`);
          const standing = row ? { points: Number(row.points), achievedAt: new Date(Number(row.achieved_ms)) } : null;
          return { ...ref, standing };
        });
        return fn(current);
      }) as Promise<T>;
    },

    /** Blocks a player in a season; false when they already were. Audited either way. */
    async block(seasonId: number, playerId: string, audit: AuditEntry): Promise<{ changed: boolean; auditId: number }> {
      return sql.begin(async (tx) => {
        await lockOpenSeason(tx, seasonId, { allowFinalized: true });
        const changed = await insertBlock(tx, seasonId, playerId, audit.reason);
        const auditId = await insertAudit(tx, seasonId, playerId, { ...audit, details: { ...audit.details, changed } });
        return { changed, auditId };
      }) as Promise<{ changed: boolean; auditId: number }>;
    },

    /** Lifts a block; false when the player was not blocked. Audited either way. */
    async unblock(
      seasonId: number,
      playerId: string,
      audit: AuditEntry,
    ): Promise<{ changed: boolean; auditId: number }> {
      return sql.begin(async (tx) => {
        await lockOpenSeason(tx, seasonId, { allowFinalized: true });
        const deleted =
          await tx`delete from blocked_players where season_id = ${seasonId} and player_id = ${playerId} returning 1`;
        const changed = deleted.length > 0;
        const auditId = await insertAudit(tx, seasonId, playerId, { ...audit, details: { ...audit.details, changed } });
        return { changed, auditId };
      }) as Promise<{ changed: boolean; auditId: number }>;
    },

    /** Every player blocked in a season (a short list: the caches load it whole). */
    async blockedIn(seasonId: number): Promise<Set<string>> {
      const rows = await sql<
        { player_id: string }[]
      >`select player_id from blocked_players where season_id = ${seasonId}`;
      return new Set(rows.map((r) => r.player_id));
    },
  };
}

/**
 * SEASON_NOT_FOUND, or SEASON_CLOSED once final standings were written. FOR SHARE: closing
 * cannot finalize the season while this transaction changes its standings (ingest takes no lock
 * on the season row, so it is not held up).
 */
export async function lockOpenSeason(tx: Tx, seasonId: number, opts: { allowFinalized?: boolean } = {}): Promise<void> {
  const [row] = await tx<{ finalized: boolean }[]>`
    select finalized_at is not null as finalized from seasons where id = ${seasonId} for share`;
  if (!row) throw seasonNotFound(seasonId);
  if (row.finalized && !opts.allowFinalized) {
    throw seasonClosed(seasonId, 'is closed and its final standings are written; they are not changed');
  }
}

async function insertBlock(tx: Tx, seasonId: number, playerId: string, reason: string): Promise<boolean> {
  const rows = await tx`
    insert into blocked_players (season_id, player_id, reason) values (${seasonId}, ${playerId}, ${reason})
    on conflict do nothing returning 1`;
  return rows.length > 0;
}

const nothing: RemovalPlan = { removed: [], kept: [], boards: [] };

/**
 * The removal plan from the player's results, with their SEASON standing row locked on return.
 *
 * That row is the serialisation point with ingest: every ingest statement that stores a new
 * result of the player rewrites it (a new row version, even when the result does not raise it:
 * results-store.ts SEASON_ROW) before committing. The scan reads every day partition of the
 * season, so it runs BEFORE the lock, optimistically: if the row's version (xmin) is
 * the same once locked, no result of the player committed since the scan and the plan stands;
 * otherwise (the player is playing right now) it scans again, under the lock. Ingest of this
 * player thus waits milliseconds, not a whole scan, in the common case.
 *
 * Removing given matches without blocking first probes the player index for them: when none exists (a
 * repeated request, a settle pass with nothing to take back) no scan is needed at all.
 */
async function planFor(tx: Tx, cmd: RemovalCommand): Promise<RemovalPlan> {
  const { season, playerId, selection } = cmd;
  if (selection.kind === 'only' && cmd.blockReason === null) {
    const [hit] = await tx`select 1 from match_results
      where match_id = any(${tx.array([...selection.matchIds])}::uuid[]) and player_id = ${playerId} and season_id = ${season.id}
      limit 1`;
    if (!hit) return nothing;
  }
  const version = async (lock: boolean) =>
    (
      await tx<{ v: string }[]>`
    select xmin::text as v from standings
    where season_id = ${season.id} and "window" = 'SEASON' and period = '' and player_id = ${playerId}
    ${lock ? tx`for update` : tx``}`
    )[0]?.v;
  const before = await version(false);
  let results = await readResults(tx, season.id, playerId);
  if ((await version(true)) !== before) results = await readResults(tx, season.id, playerId);
  return planRemoval(season, playerId, results, selection);
}

/**
 * Every result of the player in the season: one probe of the player index in each of the
 * season's day partitions (drizzle/0005_partitioned_history.sql), milliseconds however long the
 * history. The index's cost to ingest is measured in docs/benchmarks.md (bench:history).
 */
async function readResults(tx: Tx, seasonId: number, playerId: string): Promise<PlayerResult[]> {
  const rows = await tx<{ match_id: string; points: number; ended_ms: string }[]>`
    select match_id::text as match_id, points, ${epochMs(tx, 'ended_at')} as ended_ms
    from match_results where season_id = ${seasonId} and player_id = ${playerId}`;
  return rows.map((r) => ({ matchId: r.match_id, points: r.points, endedAt: new Date(Number(r.ended_ms)) }));
}

type MetadataRule = 'best' | 'sum' | 'latest';

/** Which kept result a rewritten standing shows the metadata of (results-store.ts's rules). */
const metadataRule = (season: Season): MetadataRule =>
  aggregatesPerKey(season.keys) ? 'latest' : season.scoring === 'SUM' ? 'sum' : 'best';

/**
 * Absolute values, not deltas: this is the one path that may lower a standing. Each standing's
 * metadata is then the kept result's that set it (results-store.ts): the one whose endedAt is
 * its achievedAt, with its points for BEST and LAST, a positive one for SUM (any, when the total
 * is 0); on a board whose keys aggregate, the latest result's (key_state's last element).
 */
async function writeStandings(
  tx: Tx,
  seasonId: number,
  playerId: string,
  boards: readonly BoardOutcome[],
  rule: MetadataRule,
): Promise<void> {
  const set = boards.filter((b) => b.standing !== null);
  const gone = boards.filter((b) => b.standing === null);
  if (set.length > 0) {
    const states = set.map((b) => (b.keyState ? `{${stateToRow(b.keyState).join(',')}}` : null));
    await tx`
      insert into standings as st (season_id, "window", period, player_id, points, achieved_at, key_state)
      select ${seasonId}, k.w, k.period, ${playerId}, k.points, k.achieved_at, k.key_state::int8[]
      from unnest(
        ${tx.array(set.map((b) => b.window))}::board_window[],
        ${tx.array(set.map((b) => b.period))}::text[],
        ${tx.array(set.map((b) => b.standing!.points))}::int8[],
        ${tx.array(set.map((b) => b.standing!.achievedAt.toISOString()))}::timestamptz[],
        ${tx.array(states)}::text[]) as k(w, period, points, achieved_at, key_state)
      on conflict (season_id, "window", period, player_id) do update set
        points = excluded.points, achieved_at = excluded.achieved_at, key_state = excluded.key_state, updated_at = now()`;
    const which = {
      best: tx`m.ended_at = st.achieved_at and m.points = st.points`,
      sum: tx`m.ended_at = st.achieved_at and (m.points > 0 or st.points = 0)`,
      latest: tx`m.ended_at = timestamptz 'epoch' + st.key_state[array_length(st.key_state, 1)] * interval '1 millisecond'`,
    }[rule];
    await tx`
      update standings st set metadata = (
        select m.metadata from match_results m
        where m.season_id = st.season_id and m.player_id = st.player_id and ${which}
        order by m.match_id limit 1)
      from unnest(${tx.array(set.map((b) => b.window))}::board_window[], ${tx.array(set.map((b) => b.period))}::text[]) as k(w, period)
      where st.season_id = ${seasonId} and st.player_id = ${playerId} and st."window" = k.w and st.period = k.period`;
  }
  if (gone.length > 0) {
    await tx`
      delete from standings s
      using unnest(${tx.array(gone.map((b) => b.window))}::board_window[], ${tx.array(gone.map((b) => b.period))}::text[]) as k(w, period)
      where s.season_id = ${seasonId} and s.player_id = ${playerId} and s."window" = k.w and s.period = k.period`;
  }
}

function removalDetails(cmd: RemovalCommand, plan: RemovalPlan): Record<string, unknown> {
  return {
    ...cmd.audit.details,
    selection: cmd.selection.kind,
    removedCount: plan.removed.length,
    keptCount: plan.kept.length,
    removed: plan.removed
      .slice(0, AUDITED_RESULTS)
      .map((r) => ({ matchId: r.matchId, points: r.points, endedAt: r.endedAt.toISOString() })),
    boards: plan.boards.map((b) => ({
      window: b.window,
      period: b.period,
      points: b.standing?.points ?? null,
      achievedAt: b.standing?.achievedAt.toISOString() ?? null,
    })),
  };
}

// JSON text cast to jsonb: Drizzle replaces postgres.js's json serializer on the shared client.
export async function insertAudit(tx: Tx, seasonId: number, playerId: string, entry: AuditEntry): Promise<number> {
  const [row] = await tx<{ id: number }[]>`
    insert into admin_audit (actor, action, season_id, player_id, match_id, reason, details)
    values (${entry.actor}, ${entry.action}, ${seasonId}, ${playerId}, ${entry.matchId ?? null}, ${entry.reason},
            ${entry.details ? JSON.stringify(entry.details) : null}::jsonb)
    returning id`;
  return row!.id;
}
