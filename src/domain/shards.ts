// Score-range shards of a season's boards (docs/scale-out.md): shard k holds the members whose
// points fall in its range, shard 0 the worst range, the last shard the best. Boundaries are on
// points, never inside them, so players with equal points always share a shard (COMPETITION ties
// never straddle a boundary) and a player's global rank is their rank inside their shard plus the
// sizes of every better shard.
import { badInput } from './errors.js';
import { codecOf } from './score-codec.js';
import type { Season, SortOrder } from './season.js';

/** Most shards a season may have. */
const MAX_SHARDS = 64;

/**
 * A season's shard layout, fixed at creation. `bounds` (ascending points) separate the shards:
 * with DESC order points >= bounds[k-1] reach shard k or better; with ASC points < bounds[k-1] do
 * (fewer points rank better). `tags[k]` is the Redis hash tag of shard k's keys, chosen so that
 * the shards of a season sit on different cluster masters (redis/shard-placement.ts).
 */
export interface ShardLayout {
  bounds: number[];
  tags: string[];
}

/** Checks shard bounds chosen for a season with these points; throws BAD_USER_INPUT on `shardBounds`. */
export function validateShardBounds(bounds: readonly number[], maxPoints: number): void {
  if (bounds.length + 1 > MAX_SHARDS) {
    throw badInput('shardBounds', `at most ${MAX_SHARDS} shards (${MAX_SHARDS - 1} bounds)`);
  }
  bounds.forEach((b, i) => {
    if (!Number.isInteger(b) || b < 1 || b > maxPoints) {
      throw badInput('shardBounds', `every bound must be an integer in 1..${maxPoints}`);
    }
    if (i > 0 && b <= bounds[i - 1]!) throw badInput('shardBounds', 'bounds must be strictly ascending');
  });
}

/**
 * The lowest composite score of each shard but the first, ascending: shard k holds the composites
 * in [lowers[k-1], lowers[k]). A bound is a points value, so it maps to the first composite of
 * those points (score-codec pointsFloor) and never separates two equal points.
 */
export function shardLowers(season: Season & { shards: ShardLayout }): number[] {
  const codec = codecOf(season);
  const lowers = season.shards.bounds.map((b) =>
    season.order === 'DESC' ? codec.pointsFloor(b) : codec.pointsFloor(b - 1),
  );
  return season.order === 'DESC' ? lowers : lowers.reverse();
}

/** The shard of a composite score, given the season's shardLowers. */
export function shardOf(lowers: readonly number[], composite: number): number {
  let k = 0;
  while (k < lowers.length && composite >= lowers[k]!) k++;
  return k;
}

/**
 * Bounds that split a previous season's players into `count` shards of about equal size, from its
 * score histogram (points -> players, any order). A bound never splits a points value, so a heavy
 * value can make shards uneven; fewer bounds come back when there are fewer distinct values.
 */
export function boundsFromHistogram(
  histogram: ReadonlyArray<{ points: number; players: number }>,
  count: number,
  order: SortOrder,
): number[] {
  if (!Number.isInteger(count) || count < 1 || count > MAX_SHARDS) {
    throw badInput('shards', `shards must be an integer in 1..${MAX_SHARDS}`);
  }
  // Walk from the worst points up, cutting each time a shard's share is reached.
  const rows = [...histogram]
    .filter((r) => r.players > 0)
    .sort((a, b) => (order === 'DESC' ? a.points - b.points : b.points - a.points));
  const total = rows.reduce((n, r) => n + r.players, 0);
  const bounds: number[] = [];
  let seen = 0;
  for (const [i, r] of rows.entries()) {
    const next = rows[i + 1];
    seen += r.players;
    if (!next || bounds.length === count - 1) break;
    // Cut between r and next once the players so far reach the next shard's share.
    if (seen >= ((bounds.length + 1) * total) / count) {
      bounds.push(order === 'DESC' ? next.points : r.points);
    }
  }
  return bounds.sort((a, b) => a - b);
}
