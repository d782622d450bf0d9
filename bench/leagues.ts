// Scenario l of the ingest bench: a league season (docs/design.md#leagues).
import type { League } from '../src/domain/leagues.js';
import type { Sql } from '../src/postgres/client.js';

/**
 * The league of a bench season: cohorts of 50 over three tiers, the demo's shape. Named per run
 * and round, so no tier a past close recorded (league_tiers) applies: every player starts in
 * the lowest tier, and the cohorts fill one after another as players arrive.
 */
export function benchLeague(runId: string, round: number): League {
  return {
    name: `bench-${runId}-${round}`,
    tiers: ['bronze', 'silver', 'gold'],
    cohortSize: 50,
    promote: 5,
    relegate: 5,
  };
}

/** How many players the season placed, in how many cohorts (league_members). */
export async function leagueCounts(sql: Sql, seasonId: number): Promise<{ players: number; cohorts: number }> {
  const [row] = await sql<Array<{ players: number; cohorts: number }>>`
    select count(*)::int4 as players, count(distinct (tier, cohort))::int4 as cohorts
    from league_members where season_id = ${seasonId}`;
  return row ?? { players: 0, cohorts: 0 };
}
