import type postgres from 'postgres';
import type { PendingMove, PlayerScopes } from '../domain/scopes.js';
import { compareIds } from '../domain/board-deltas.js';
import type { BoardOfId } from '../domain/board.js';
import { seasonIdOf, type Season } from '../domain/season.js';
import type { Sql, Tx } from './client.js';

interface ScopeRow {
  player_id: string;
  region: string | null;
  groups: string[];
  prev_region: string | null;
  prev_groups: string[];
}

const scopes = (region: string | null, groups: readonly string[]): PlayerScopes => ({ region, groups });

/** Players' scopes in PostgreSQL (the player_scopes table: docs/design.md#scopes). */
export function createPlayerScopesStore(sql: Sql) {
  return {
    /**
     * Stores each player's scopes, one statement. Returns the players whose standings must move:
     * those whose scopes changed now, and those a crash left pending (their move never finished).
     * A change remembers the scopes left (prev_*) until the next change, so a replayed move
     * removes the player from them again: removing what is not there changes nothing.
     */
    async set(changes: ReadonlyArray<{ playerId: string; scopes: PlayerScopes }>): Promise<PendingMove[]> {
      if (changes.length === 0) return [];
      // Sorted: concurrent writers lock rows in one order and cannot deadlock.
      const sorted = [...changes].sort((a, b) => compareIds(a.playerId, b.playerId));
      const ids = sorted.map((c) => c.playerId);
      const rows = await sql<ScopeRow[]>`
        with v as (
          select * from unnest(
            ${sql.array(ids)}::int8[],
            ${sql.array(sorted.map((c) => c.scopes.region))}::text[],
            ${sql.array(sorted.map((c) => c.scopes.groups.join(',')))}::text[]) as v(player_id, region, groups)
        ), changed as (
          insert into player_scopes as p (player_id, region, groups, pending)
          select player_id, region, string_to_array(groups, ','), true from v order by player_id
          on conflict (player_id) do update
            set prev_region = p.region, prev_groups = p.groups, region = excluded.region,
                groups = excluded.groups, pending = true, updated_at = now()
            where (p.region, p.groups) is distinct from (excluded.region, excluded.groups)
          returning player_id, region, groups, prev_region, prev_groups
        )
        select player_id::text, region, groups, prev_region, prev_groups from changed
        union all
        select p.player_id::text, p.region, p.groups, p.prev_region, p.prev_groups from player_scopes p
        where p.player_id = any(${sql.array(ids)}::int8[]) and p.pending
          and p.player_id not in (select player_id from changed)`;
      return rows.map((r) => ({
        playerId: r.player_id,
        now: scopes(r.region, r.groups),
        left: scopes(r.prev_region, r.prev_groups),
      }));
    },

    /** Marks the moves of these players done (Redis holds their standings where they rank now). */
    async settled(playerIds: readonly string[]): Promise<void> {
      if (playerIds.length === 0) return;
      await sql`update player_scopes set pending = false
                where player_id = any(${sql.array([...playerIds])}::int8[]) and pending`;
    },

    /** The scopes of those of these players who have any. */
    async of(playerIds: readonly string[]): Promise<Map<string, PlayerScopes>> {
      if (playerIds.length === 0) return new Map();
      const rows = await sql<Array<Pick<ScopeRow, 'player_id' | 'region' | 'groups'>>>`
        select player_id::text, region, groups from player_scopes
        where player_id = any(${sql.array([...playerIds])}::int8[])`;
      return new Map(rows.map((r) => [r.player_id, scopes(r.region, r.groups)]));
    },
  };
}

/**
 * Whether a row is in a scope (domain/scopes.ts): `m`, a league_members row, for a cohort
 * (`c:<tier>.<cohort>`); `p`, a row with region and groups, for the others (a country holds its
 * subdivisions).
 */
function inScopeRow(sql: Sql | Tx, scope: string): postgres.Fragment {
  const name = scope.slice(2);
  if (scope.startsWith('c:')) {
    const [tier, cohort] = name.split('.').map(Number);
    return sql`m.tier = ${tier!} and m.cohort = ${cohort!}`;
  }
  return scope.startsWith('r:')
    ? sql`(p.region = ${name} or p.region like ${`${name}-%`})`
    : sql`p.groups @> array[${name}]::text[]`;
}

/**
 * The players of a scope, as a condition on a `player_id` column: for the boards PostgreSQL ranks
 * (closed seasons, expired periods). `board` is the board ranked (a season's row or a further
 * board); with `frozen`, its players' scopes as they were at its close (season_final_scopes),
 * else as they are now. A cohort is the season's.
 */
export function inScope(
  sql: Sql | Tx,
  column: postgres.Fragment,
  scope: string,
  board: Season,
  frozen = false,
): postgres.Fragment {
  const members = scope.startsWith('c:')
    ? sql`select m.player_id from league_members m where m.season_id = ${seasonIdOf(board)} and ${inScopeRow(sql, scope)}`
    : sql`select p.player_id from ${scopeRows(sql, board, frozen)} p where ${inScopeRow(sql, scope)}`;
  return sql`${column} in (${members})`;
}

/**
 * A join keeping the standings `s` whose player is in the board's scope now, by primary key: for
 * lookups of given players (reconcile), where a condition over the whole scope would read every
 * member of it.
 */
export function scopeJoin(sql: Sql | Tx, board: BoardOfId): postgres.Fragment {
  if (!board.scope) return sql``;
  return board.scope.startsWith('c:')
    ? sql`join league_members m on m.player_id = s.player_id and ${inScopeRow(sql, board.scope)}
      and m.season_id = (select coalesce(parent_id, id) from seasons where id = ${board.season.id})`
    : sql`join player_scopes p on p.player_id = s.player_id and ${inScopeRow(sql, board.scope)}`;
}

/**
 * The scopes rows (player_id, region, groups) a board ranks its players by: as they were at its
 * close (season_final_scopes) for a final board, else as they are now (player_scopes).
 */
export function scopeRows(sql: Sql | Tx, board: Season, frozen: boolean): postgres.Fragment {
  return frozen
    ? sql`(select player_id, region, groups from season_final_scopes where season_id = ${board.id})`
    : sql`player_scopes`;
}

/**
 * Freezes the scopes of a closing board's players (in its finalize transaction, after its final
 * standings were written): its closed reads, group boards and rewards then rank them where they
 * played. Players without scopes get no row.
 */
export async function freezeScopes(tx: Tx, board: Season): Promise<void> {
  await tx`
    insert into season_final_scopes (season_id, player_id, region, groups)
    select ${board.id}, p.player_id, p.region, p.groups from player_scopes p
    where p.player_id in (select player_id from season_final_standings where season_id = ${board.id})
    on conflict do nothing`;
}

/** The cohort scope of a league_members row `m` (domain/leagues.ts cohortScope in SQL). */
export function cohortScopeOfRow(sql: Sql | Tx): postgres.Fragment {
  return sql`'c:' || m.tier || '.' || m.cohort`;
}

/**
 * The scopes of a player_scopes row `p` as a text[] (domain/scopes.ts scopesOf in SQL: a
 * subdivision's player is in its country too): its regions, its groups, or both.
 */
export function scopesOfRow(sql: Sql | Tx, kind: 'REGION' | 'GROUP' | 'ALL' = 'ALL'): postgres.Fragment {
  const regions = sql`case when p.region is null then '{}'::text[]
           when strpos(p.region, '-') > 0 then array['r:' || split_part(p.region, '-', 1), 'r:' || p.region]
           else array['r:' || p.region] end`;
  const groups = sql`array(select 'g:' || g from unnest(p.groups) g)`;
  if (kind === 'REGION') return regions;
  if (kind === 'GROUP') return groups;
  return sql`(${regions} || ${groups})`;
}
