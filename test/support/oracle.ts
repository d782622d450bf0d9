// An independent model of what the boards must hold, computed from the raw input by the rules
// of docs/design.md#ranks-and-tie-breaks stated directly (not by folding src/domain/ranking.ts
// applyResult).
import { createCodec } from '../../src/domain/score-codec.js';
import type { Season } from '../../src/domain/season.js';
import { boardKey } from '../../src/redis/keys.js';
import { seasonBoard } from '../../src/domain/board.js';

export interface OracleResult {
  matchId: string;
  playerId: string;
  points: number;
  endedAt: Date;
}

/** The UTC day of an instant, computed independently of src/domain/windows.ts. */
export const utcDay = (d: Date) => d.toISOString().slice(0, 10);
/** The ISO week of an instant, computed independently of src/domain/windows.ts. */
export function isoWeek(d: Date): string {
  const t = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
  const dayNum = t.getUTCDay() || 7;
  t.setUTCDate(t.getUTCDate() + 4 - dayNum); // the Thursday of this ISO week
  const yearStart = Date.UTC(t.getUTCFullYear(), 0, 1);
  const week = Math.ceil(((t.getTime() - yearStart) / 86_400_000 + 1) / 7);
  return `${t.getUTCFullYear()}-W${String(week).padStart(2, '0')}`;
}

/**
 * A player's standing from all their results on one board, by the rules of
 * docs/design.md#ranks-and-tie-breaks stated directly.
 */
export function expectedStanding(season: Season, rs: readonly OracleResult[]): { points: number; at: number } {
  if (season.scoring === 'SUM') {
    const points = rs.reduce((a, r) => a + r.points, 0);
    const positive = rs.filter((r) => r.points > 0).map((r) => r.endedAt.getTime());
    return { points, at: points > 0 ? Math.max(...positive) : Math.min(...rs.map((r) => r.endedAt.getTime())) };
  }
  // LAST: as BEST over the results of the latest time unit (whole units since the season start).
  const unitMs = season.split.timeUnitSeconds * 1000;
  const unit = (r: OracleResult) => Math.floor((r.endedAt.getTime() - season.startsAt.getTime()) / unitMs);
  const latest = Math.max(...rs.map(unit));
  const kept = season.scoring === 'LAST' ? rs.filter((r) => unit(r) === latest) : rs;
  const all = kept.map((r) => r.points);
  const points = season.order === 'ASC' ? Math.min(...all) : Math.max(...all);
  return { points, at: Math.min(...kept.filter((r) => r.points === points).map((r) => r.endedAt.getTime())) };
}

/** Expected ZRANGE 0 -1 WITHSCORES of every board, keyed by Redis key. */
export function expectedBoards(season: Season, results: readonly OracleResult[]): Map<string, Array<[string, string]>> {
  // Each (match, player) counts once, whatever was replayed.
  const unique = new Map<string, OracleResult>();
  for (const r of results) unique.set(`${r.matchId}|${r.playerId}`, r);

  const groups = new Map<string, OracleResult[]>();
  for (const r of unique.values()) {
    for (const key of [
      boardKey(seasonBoard(season)),
      boardKey({ season, window: 'DAY', period: utcDay(r.endedAt) }),
      boardKey({ season, window: 'WEEK', period: isoWeek(r.endedAt) }),
    ]) {
      const k = `${key}\u0000${r.playerId}`;
      groups.set(k, [...(groups.get(k) ?? []), r]);
    }
  }

  const codec = createCodec(season);
  const boards = new Map<string, Array<[string, string, number]>>();
  for (const [k, rs] of groups) {
    const [key, player] = k.split('\u0000') as [string, string];
    const { points, at } = expectedStanding(season, rs);
    const score = codec.encode(points, new Date(at));
    boards.set(key, [...(boards.get(key) ?? []), [player, codec.toRedis(score), score]]);
  }
  // ZRANGE order: score ascending, equal scores by member bytes ascending.
  const out = new Map<string, Array<[string, string]>>();
  for (const [key, entries] of boards) {
    entries.sort((a, b) => a[2] - b[2] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    out.set(
      key,
      entries.map(([m, s]) => [m, s]),
    );
  }
  return out;
}
