// What the shard scripts of a sharded board report, and the sums over shards that turn their local
// ranks into global ones (docs/scale-out.md). Pure: redis/sharded-*.ts do the I/O.

/** A member's change on one shard, as the shard scripts report it (scores as Redis prints them). */
export interface ShardChange {
  member: string;
  old: string;
  score: string;
  shard: number;
  localRank: number;
}

/** Reads a shard script's flat reply (member, old, score, local rank)* into `out`. */
export function readChanges(reply: Array<string | number>, shard: number, out: ShardChange[]): void {
  for (let i = 0; i < reply.length; i += 4) {
    out.push({
      member: String(reply[i]),
      old: String(reply[i + 1]),
      score: String(reply[i + 2]),
      shard,
      localRank: Number(reply[i + 3]),
    });
  }
}

/**
 * Member `i`'s score as reconcile compares it: null on no shard, its score on one, and on several
 * (a mover died between its two writes) every score joined with ','. That never equals a score
 * PostgreSQL implies, so such a member counts as different and a repair leaves it on one shard.
 */
export function shownScore(held: ReadonlyArray<ReadonlyArray<string | null>>, i: number): string | null {
  const on = held.flatMap((s) => (s[i] == null ? [] : [s[i]!]));
  return on.length === 0 ? null : on.join(',');
}

/** The best score of member `i` over every shard (on several only after a mover died mid-move). */
export function bestHeld(held: ReadonlyArray<ReadonlyArray<string | null>>, i: number): string | null {
  let best: string | null = null;
  for (const s of held) if (s[i] != null && (best === null || Number(s[i]) > Number(best))) best = s[i]!;
  return best;
}

/** For each shard, how many members the better shards hold. */
export function aboveCounts(sizes: readonly number[]): number[] {
  const above = new Array<number>(sizes.length).fill(0);
  for (let k = sizes.length - 2; k >= 0; k--) above[k] = above[k + 1]! + sizes[k + 1]!;
  return above;
}

/** The members of exact writes that stay on the board (written with a score, not removed). */
export const staying = (pairs: ReadonlyArray<readonly [string, string]>) =>
  new Set(pairs.filter(([, score]) => score !== '').map(([m]) => m));

/**
 * The changes of exact writes as one "reset" event lists them: a member that changed shard left one
 * shard and was set on another, one change from its old score to its new. A member of `stays` that
 * only left a shard was on two (a mover died mid-move): it counts (`count`: the version rises,
 * others' ranks changed), but its entry did not change, so it is not `listed`.
 */
export function mergeExactChanges(
  changes: readonly ShardChange[],
  stays: ReadonlySet<string>,
): { count: number; listed: ShardChange[] } {
  const left = new Map(changes.filter((c) => c.score === '').map((c) => [c.member, c.old]));
  const set = new Set(changes.filter((c) => c.score !== '').map((c) => c.member));
  const merged = changes
    .filter((c) => c.score !== '' || !set.has(c.member))
    .map((c) => (c.score !== '' && c.old === '' ? { ...c, old: left.get(c.member) ?? '' } : c));
  return { count: merged.length, listed: merged.filter((c) => c.score !== '' || !stays.has(c.member)) };
}

/** A board event's updates: member, old score, new score, global rank (0: left the board) per change. */
export function eventUpdates(changes: readonly ShardChange[], shardSizes: readonly number[]): Array<string | number> {
  const above = aboveCounts(shardSizes);
  const u: Array<string | number> = [];
  for (const c of changes) u.push(c.member, c.old, c.score, c.localRank === 0 ? 0 : c.localRank + above[c.shard]!);
  return u;
}
