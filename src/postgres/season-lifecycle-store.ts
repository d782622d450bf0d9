import { asc, gt, isNull, or } from 'drizzle-orm';
import { seasonNotFound } from '../domain/errors.js';
import type { Season, Window } from '../domain/season.js';
import type { CloseRequest, CloseStore, FinalizeReport } from '../service/close-season.js';
import type { SchedulerStore } from '../service/season-scheduler.js';
import type { Db, Sql, Tx } from './client.js';
import { rankedStandings } from './ranked-standings.js';
import { grantBoardRewards } from './rewards-store.js';
import { applyLeagueMoves } from './leagues-store.js';
import { freezeScopes } from './player-scopes-store.js';
import { seasons } from './schema.js';
import { createSeasonsRepo, toSeason } from './seasons-repo.js';

/** Season lifecycle state in PostgreSQL: what the scheduler and the close procedure read and write. */
export function createSeasonLifecycleStore(pg: { sql: Sql; db: Db }): CloseStore & SchedulerStore {
  const repo = createSeasonsRepo(pg.db);
  return {
    get: (id) => repo.get(id),

    async listUnfinished(finalizedSince: Date): Promise<Season[]> {
      const rows = await pg.db
        .select()
        .from(seasons)
        .where(or(isNull(seasons.finalizedAt), gt(seasons.finalizedAt, finalizedSince)))
        .orderBy(asc(seasons.id));
      return rows.map(toSeason);
    },

    async ensurePartitions(plan) {
      // One statement per partition: each creation holds its locks only for itself.
      for (const { seasonId, day } of plan.results)
        await pg.sql`select ladder_results_partition(${seasonId}, ${day}::date)`;
      for (const day of plan.claims) await pg.sql`select ladder_claims_partition(${day}::date)`;
    },
    async activate(id: number): Promise<boolean> {
      // Conditional: a season an admin closed between the scheduler's read and this write stays closed.
      const rows =
        await pg.sql`update seasons set status = 'ACTIVE' where id = ${id} and status = 'SCHEDULED' returning id`;
      return rows.length > 0;
    },

    async markClosed(id: number, by: CloseRequest): Promise<void> {
      await pg.sql.begin(async (tx) => {
        const rows =
          await tx`update seasons set status = 'CLOSED' where id = ${id} and status <> 'CLOSED' returning id`;
        if (rows.length > 0) await audit(tx, id, 'close_season', by, null);
      });
    },

    async finalize(season: Season, by: CloseRequest): Promise<FinalizeReport | undefined> {
      return pg.sql.begin(async (tx) => {
        // FOR NO KEY UPDATE serialises concurrent closes (the second then sees finalized_at and does
        // nothing) and waits for player removals (FOR SHARE), yet never blocks ingest, which takes no
        // lock on the season row (no foreign key since drizzle/0003): a stalled partition would be
        // evicted from its group.
        const [row] = await tx<Array<{ finalized: boolean }>>`
          select finalized_at is not null as finalized from seasons where id = ${season.id} for no key update`;
        if (!row) throw seasonNotFound(season.id);
        if (row.finalized) return undefined;
        const written = await writeFinalStandings(tx, season);
        // Where its players stood (regions, groups) at the close: its scoped reads stay as they were.
        await freezeScopes(tx, season);
        // Rewards from the final standings, in this transaction: granted exactly when the season
        // is final, and exactly once (docs/design.md#rewards).
        written.rewards = await grantBoardRewards(tx, season);
        // A league season's promotions and relegations, once, from the same final standings.
        written.leagueMoves = await applyLeagueMoves(tx, season);
        // Readers switch to this table the moment the close ends: with statistics from before these
        // rows, the planner takes a board for a handful of rows and scans it (position index plus a
        // filter) to find 200 friends, a time that grows with the board. ANALYZE sees this
        // transaction's own rows and samples a fixed number of them, whatever the table's size.
        await tx`analyze season_final_standings`;
        await tx`update seasons set finalized_at = now(), status = 'CLOSED' where id = ${season.id}`;
        await audit(tx, season.id, 'finalize_season', by, written);
        return written;
      }) as Promise<FinalizeReport | undefined>;
    },
  };
}

/**
 * Every board's final standings, one INSERT ... SELECT per board: each statement's sort (and
 * foreign-key checks, queued per row until the statement ends) then hold one board, not the season.
 */
async function writeFinalStandings(tx: Tx, season: Season): Promise<FinalizeReport> {
  // Sorting a whole board: in memory rather than on disk where it fits, for this transaction only.
  await tx`set local work_mem = '256MB'`;
  const boards = await tx<Array<{ window: Window; period: string }>>`
    select distinct "window", period from standings where season_id = ${season.id}`;
  let rows = 0;
  for (const board of boards) {
    const result = await tx`
      insert into season_final_standings (season_id, "window", period, player_id, position, rank, points, achieved_at)
      select ${season.id}, r."window", r.period, r.player_id, r.position, r.rank, r.points, r.achieved_at
      from (${rankedStandings(tx, { season, ...board })}) r`;
    rows += result.count;
  }
  return { boards: boards.length, rows };
}

// details as JSON text: Drizzle replaces postgres.js's json serializer on the shared client, so
// tx.json() would not encode.
async function audit(
  tx: Tx,
  seasonId: number,
  action: string,
  by: CloseRequest,
  details: FinalizeReport | null,
): Promise<void> {
  await tx`
    insert into admin_audit (actor, action, season_id, reason, details)
    values (${by.actor}, ${action}, ${seasonId}, ${by.reason}, ${details ? JSON.stringify(details) : null}::jsonb)`;
}
