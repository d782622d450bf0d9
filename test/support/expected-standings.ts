// What the standings table must hold, computed from raw results by the rules of
// docs/design.md#ranks-and-tie-breaks stated directly (like oracle.ts for Redis), not by folding
// src/domain/ranking.ts applyResult.
import type { Season } from '../../src/domain/season.js';
import type { Services } from './services.js';
import { expectedStanding, isoWeek, utcDay, type OracleResult } from './oracle.js';

/** Sorted 'window|period|player|points|achievedAt ISO' lines, one per standings row. */
export function expectedStandings(season: Season, results: readonly OracleResult[]): string[] {
  const groups = new Map<string, OracleResult[]>();
  for (const r of results) {
    for (const board of ['SEASON|', `DAY|${utcDay(r.endedAt)}`, `WEEK|${isoWeek(r.endedAt)}`]) {
      const k = `${board}|${r.playerId}`;
      groups.set(k, [...(groups.get(k) ?? []), r]);
    }
  }
  const lines: string[] = [];
  for (const [k, rs] of groups) {
    const { points, at } = expectedStanding(season, rs);
    lines.push(`${k}|${points}|${new Date(at).toISOString()}`);
  }
  return lines.sort();
}

/** The standings table of a season in the format of expectedStandings. */
export async function storedStandings(s: Services, seasonId: number): Promise<string[]> {
  const rows = await s.pg.sql<{ line: string }[]>`
    select "window" || '|' || period || '|' || player_id || '|' || points || '|'
           || to_char(achieved_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as line
    from standings where season_id = ${seasonId}`;
  return rows.map((r) => r.line).sort();
}
