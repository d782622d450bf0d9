import type postgres from 'postgres';
import type { PendingMove, PlayerScopes } from '../domain/scopes.js';
import { compareIds } from '../domain/board-deltas.js';
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
 * The players of a scope (domain/scopes.ts), as a condition on a `player_id` column: for the
 * boards PostgreSQL ranks (closed seasons, expired periods). A country holds its subdivisions.
 */
export function inScope(sql: Sql | Tx, column: postgres.Fragment, scope: string, seasonId: number): postgres.Fragment {
  const name = scope.slice(2);
  if (scope.startsWith('c:')) {
    // A league cohort (domain/leagues.ts cohortScope): `c:<tier>.<cohort>` of this season.
    const [tier, cohort] = name.split('.').map(Number);
    return sql`${column} in (select player_id from league_members
                             where season_id = ${seasonId} and tier = ${tier!} and cohort = ${cohort!})`;
  }
  const members = scope.startsWith('r:')
    ? sql`select player_id from player_scopes where region = ${name} or region like ${`${name}-%`}`
    : sql`select player_id from player_scopes where groups @> array[${name}]::text[]`;
  return sql`${column} in (${members})`;
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
