// What the standings table must hold, computed from raw results by the rules of DESIGN §2 stated
// directly (like oracle.ts for Redis), not by folding src/domain/ranking.ts applyResult.
import type { Season } from '../../src/domain/season.js';
import type { Services } from './services.js';
import type { OracleResult } from './oracle.js';

const utcDay = (d: Date) => d.toISOString().slice(0, 10);
function isoWeek(d: Date): string {
  const t = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
  t.setUTCDate(t.getUTCDate() + 4 - (t.getUTCDay() || 7)); // the Thursday of this ISO week
  const week = Math.ceil(((t.getTime() - Date.UTC(t.getUTCFullYear(), 0, 1)) / 86_400_000 + 1) / 7);
  return `${t.getUTCFullYear()}-W${String(week).padStart(2, '0')}`;
}

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
    let points: number;
    let at: number;
    if (season.scoring === 'SUM') {
      points = rs.reduce((a, r) => a + r.points, 0);
      const positive = rs.filter((r) => r.points > 0).map((r) => r.endedAt.getTime());
      at = points > 0 ? Math.max(...positive) : Math.min(...rs.map((r) => r.endedAt.getTime()));
    } else {
      const all = rs.map((r) => r.points);
      points = season.order === 'ASC' ? Math.min(...all) : Math.max(...all);
      at = Math.min(...rs.filter((r) => r.points === points).map((r) => r.endedAt.getTime()));
    }
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
