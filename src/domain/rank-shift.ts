import { compareBytes } from './ranking.js';
import type { RankStyle } from './season.js';

/**
 * Whose rank a board change moves, computed from the change alone: the rule behind event-driven
 * rankChanged (service/rank-watcher.ts). Scores are composite scores (score-codec.ts) as numbers
 * (exact: below 2^53); null means "not on the board".
 *
 * ORDINAL: rank = 1 + members above, where A is above B when A's score is higher, or equal and
 * A's member bytes are greater (Redis's ZREVRANGE order). COMPETITION: rank = 1 + members with
 * strictly more points, points = floor(score / step) with step = 2^timeBits.
 */

/** Negative when (scoreA, memberA) ranks above (scoreB, memberB) in Redis's order. */
export function compareEntries(scoreA: number, memberA: string, scoreB: number, memberB: string): number {
  if (scoreA !== scoreB) return scoreB - scoreA;
  return memberA === memberB ? 0 : compareBytes(memberB, memberA);
}

/** Does member `m` at `score` count against a player at (`score`x, `x`) for their rank? */
export function countsAbove(
  style: RankStyle,
  step: number,
  m: string,
  score: number | null,
  x: string,
  scoreX: number,
): boolean {
  if (score === null) return false;
  if (style === 'COMPETITION') return Math.floor(score / step) > Math.floor(scoreX / step);
  return compareEntries(score, m, scoreX, x) < 0;
}

/**
 * How the rank of the player (x, scoreX) moves when member m (not x) goes from `old` to `score`:
 * +1 overtaken, -1 no longer behind m, 0 unchanged.
 */
export function rankShift(
  style: RankStyle,
  step: number,
  m: string,
  old: number | null,
  score: number | null,
  x: string,
  scoreX: number,
): -1 | 0 | 1 {
  const before = countsAbove(style, step, m, old, x, scoreX);
  const after = countsAbove(style, step, m, score, x, scoreX);
  return before === after ? 0 : after ? 1 : -1;
}
