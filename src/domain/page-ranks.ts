import type { RankStyle } from './season.js';

/**
 * Ranks of a contiguous run of a board, best first, given the 0-based position and the rank
 * of its first entry. ORDINAL: position + 1. COMPETITION: an entry with the same points as the
 * one before shares its rank; otherwise every player above it has strictly more points, so its
 * rank is its position + 1.
 */
export function pageRanks(
  style: RankStyle,
  firstPosition: number,
  firstRank: number,
  points: readonly number[],
): number[] {
  const ranks: number[] = [];
  for (let i = 0; i < points.length; i++) {
    if (style === 'ORDINAL') ranks.push(firstPosition + i + 1);
    else if (i === 0) ranks.push(firstRank);
    else ranks.push(points[i] === points[i - 1] ? ranks[i - 1]! : firstPosition + i + 1);
  }
  return ranks;
}
