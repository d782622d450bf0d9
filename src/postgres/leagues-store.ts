import { cohortScope, seededCohort, type League } from '../domain/leagues.js';
import { compareIds } from '../domain/board-deltas.js';
import type { Season } from '../domain/season.js';
import { ADVISORY_LOCKS } from './advisory-lock.js';
import type { Sql, Tx } from './client.js';

/** A player's place in a league season. */
export interface LeagueMember {
  tier: number;
  cohort: number;
}

/** Leagues in PostgreSQL (docs/design.md#leagues). */
export function createLeaguesStore(sql: Sql) {
  return {
    /**
     * Each player's cohort in the league season, placing those who have none yet (their first
     * result) in their tier (the league's record, else the lowest): by arrival, `cohortSize` to a
     * cohort; with placement RANK a player seeded by the last close takes the cohort of their seed
     * (domain/leagues.ts seededCohort), and the others fill the cohorts after the seeded ones. One
     * transaction, one at a time per season (an advisory lock), so concurrent chunks never
     * overfill a cohort nor count a player twice. A replayed chunk finds its players placed. Returns player →
     * cohort scope.
     */
    async place(seasonId: number, league: League, playerIds: readonly string[]): Promise<Map<string, string>> {
      return sql.begin(async (tx) => {
        const ids = [...new Set(playerIds)].sort(compareIds);
        let found = await members(tx, seasonId, ids);
        // Placing is serialised per season, and who is placed read again under the lock: two
        // chunks with the same newcomer (a replay beside a zombie consumer) would both count them
        // in the tier's counter otherwise, and leave a cohort short.
        if (found.size < ids.length) {
          await tx`select pg_advisory_xact_lock(${ADVISORY_LOCKS.leaguePlace}, ${seasonId})`;
          found = await members(tx, seasonId, ids);
        }
        const missing = ids.filter((id) => !found.has(id));
        if (missing.length > 0) {
          const known = await tx<Array<{ id: string; tier: number; seed: number | null }>>`
            select player_id::text as id, tier, seed from league_tiers
            where league = ${league.name} and player_id = any(${tx.array(missing)}::int8[])`;
          const top = league.tiers.length - 1;
          const record = new Map(known.map((t) => [t.id, { tier: Math.min(t.tier, top), seed: t.seed }]));
          const byTier = new Map<number, string[]>();
          for (const id of missing) {
            const tier = record.get(id)?.tier ?? 0;
            byTier.set(tier, [...(byTier.get(tier) ?? []), id]);
          }
          const ranked = league.placement === 'RANK';
          for (const [tier, list] of [...byTier].sort((a, b) => a[0] - b[0])) {
            const seedOf = (id: string) => (ranked && record.get(id)?.tier === tier ? record.get(id)?.seed : null);
            const arrivals = list.filter((id) => seedOf(id) == null);
            // The seeded cohorts are fixed when the tier's first player is placed (the seeds of the
            // league's last close), so every later placement counts arrivals after the same ones.
            const seeded = ranked
              ? tx`(select ceil(coalesce(max(seed), 0) / ${league.cohortSize}::float8)::int4
                    from league_tiers where league = ${league.name} and tier = ${tier})`
              : tx`0`;
            const [row] = await tx<Array<{ placed: number; seeded: number }>>`
              insert into league_cohorts (season_id, tier, placed, seeded_cohorts)
              values (${seasonId}, ${tier}, ${arrivals.length}, ${seeded})
              on conflict (season_id, tier) do update set placed = league_cohorts.placed + excluded.placed
              returning placed, seeded_cohorts as seeded`;
            const first = row!.placed - arrivals.length;
            const cohortOf = new Map(
              arrivals.map((id, k) => [id, row!.seeded + Math.floor((first + k) / league.cohortSize)]),
            );
            const cohorts = list.map((id) => cohortOf.get(id) ?? seededCohort(league, seedOf(id)!));
            await tx`
              insert into league_members (season_id, player_id, tier, cohort)
              select ${seasonId}, id, ${tier}, cohort
              from unnest(${tx.array(list)}::int8[], ${tx.array(cohorts)}::int4[]) as t(id, cohort)
              on conflict do nothing`;
            list.forEach((id, k) => found.set(id, { tier, cohort: cohorts[k]! }));
          }
        }
        return new Map([...found].map(([id, m]) => [id, cohortScope(m.tier, m.cohort)]));
      }) as Promise<Map<string, string>>;
    },

    /** The cohort scopes of those of these players placed in the league season (no placing). */
    async cohorts(seasonId: number, playerIds: readonly string[]): Promise<Map<string, string>> {
      const found = await members(sql, seasonId, playerIds);
      return new Map([...found].map(([id, m]) => [id, cohortScope(m.tier, m.cohort)]));
    },

    /** A player's tier and cohort in a league season; undefined before their first result. */
    async memberOf(seasonId: number, playerId: string): Promise<LeagueMember | undefined> {
      return (await members(sql, seasonId, [playerId])).get(playerId);
    },

    /** Who the season's close moved, by tier and cohort, best first. */
    async moves(seasonId: number) {
      return sql<Array<{ playerId: string; cohort: number; rank: number; fromTier: number; toTier: number }>>`
        select player_id::text as "playerId", cohort, rank, from_tier as "fromTier", to_tier as "toTier"
        from league_moves where season_id = ${seasonId} order by from_tier, cohort, rank`;
    },
  };
}

async function members(db: Sql | Tx, seasonId: number, ids: readonly string[]): Promise<Map<string, LeagueMember>> {
  const rows = await db<Array<{ id: string; tier: number; cohort: number }>>`
    select player_id::text as id, tier, cohort from league_members
    where season_id = ${seasonId} and player_id = any(${db.array([...ids])}::int8[])`;
  return new Map(rows.map((r) => [r.id, { tier: r.tier, cohort: r.cohort }]));
}

/**
 * The close of a league season, in its finalize transaction (season-lifecycle-store.ts), so once:
 * every member's final rank in their cohort on the season's first board (ties by who got there
 * first: the final position), the best `promote` of each cohort up a tier, the worst `relegate`
 * down, recorded in league_tiers for the league's next season and in league_moves (the report).
 * Each player's seed is their place in their new tier by final position (1: best), for a next
 * season placed by rank; seeds of an earlier close are cleared. Returns how many moved.
 */
export async function applyLeagueMoves(tx: Tx, season: Season): Promise<number> {
  const league = season.league;
  if (!league || season.parentId != null) return 0;
  const top = league.tiers.length - 1;
  await tx`update league_tiers set seed = null where league = ${league.name} and seed is not null`;
  await tx`
    with ranked as (
      select m.player_id, m.tier, m.cohort, f.position,
             row_number() over (partition by m.tier, m.cohort order by f.position) as rank,
             count(*) over (partition by m.tier, m.cohort) as size
      from season_final_standings f join league_members m on m.season_id = f.season_id and m.player_id = f.player_id
      where f.season_id = ${season.id} and f."window" = 'SEASON' and f.period = ''),
    moved as (
      select *, case when rank <= ${league.promote} and tier < ${top} then tier + 1
                     when rank > size - ${league.relegate} and tier > 0 then tier - 1
                     else tier end as to_tier
      from ranked),
    report as (
      insert into league_moves (season_id, player_id, cohort, rank, from_tier, to_tier)
      select ${season.id}, player_id, cohort, rank, tier, to_tier from moved where to_tier <> tier)
    insert into league_tiers (league, player_id, tier, seed)
    select ${league.name}, player_id, to_tier, row_number() over (partition by to_tier order by position) from moved
    on conflict (league, player_id) do update set tier = excluded.tier, seed = excluded.seed`;
  const [row] = await tx<Array<{ n: number }>>`
    select count(*)::int4 as n from league_moves where season_id = ${season.id}`;
  return row!.n;
}
