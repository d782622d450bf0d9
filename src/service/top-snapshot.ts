import type { Board } from '../domain/board.js';
import { pageRanks } from '../domain/page-ranks.js';
import { compareEntries } from '../domain/rank-shift.js';
import type { RankedStanding } from '../domain/ranking.js';
import { codecOf } from '../domain/score-codec.js';
import type { Season } from '../domain/season.js';
import type { BoardEvent } from './board-events.js';

/** A board's first entries and its size, read at one instant, at the board's `version`. */
export interface TopSnapshot {
  version: number;
  size: number;
  entries: readonly RankedStanding[];
}

/** Where the cache reads a board's best entries from (Redis readTop-2, one instant). */
export interface TopSource {
  snapshot(board: Board, limit: number): Promise<TopSnapshot>;
}

/** The composite scores of a snapshot's entries, made once per entries array (topAfter compares by them). */
const scoresOf = new WeakMap<readonly RankedStanding[], number[]>();

/**
 * The snapshot after a raise event, from the one before it (at the event's previous version),
 * without reading Redis; undefined when it cannot be known so (not a raise, not the next version,
 * a member removed or lowered). A raise only moves members up, so the first `capacity` entries
 * after it are those before it and the raised members that now sort among them, in Redis's order
 * (compareEntries); the ranks follow from that order (pageRanks), and the size grows by the
 * members new to the board. The one Lua call that raised the scores also raised the version and
 * published the event, so a snapshot read at a version holds none of the next event's changes:
 * not so for a sharded season (its shards are written before the version rises), which is read.
 */
export function topAfter(snap: TopSnapshot, e: BoardEvent, season: Season, capacity: number) {
  if (e.kind !== 'raise' || (e.previous ?? e.version - 1) !== snap.version || season.shards?.tags.length) return;
  const codec = codecOf(season);
  let scores = scoresOf.get(snap.entries);
  if (!scores) scoresOf.set(snap.entries, (scores = snap.entries.map((x) => codec.encode(x.points, x.achievedAt))));
  const full = snap.entries.length >= capacity; // else the entries are the whole board
  const last = snap.entries.length - 1;
  let size = snap.size;
  let moved = false;
  for (const c of e.changes) {
    const [old, score] = [c.old === null ? null : Number(c.old), c.score === null ? null : Number(c.score)];
    if (score === null || (old !== null && score < old)) return;
    if (old === null) size++;
    moved ||=
      !full ||
      compareEntries(score, c.playerId, scores[last]!, snap.entries[last]!.playerId) < 0 ||
      snap.entries.some((x) => x.playerId === c.playerId);
  }
  if (!moved) return { version: e.version, size, entries: snap.entries };
  // Entries that stay are kept as they are, or copied with their new rank.
  const list = snap.entries.map((entry, k) => ({ entry, score: scores[k]! }));
  for (const c of e.changes) {
    const score = Number(c.score);
    const at = list.findIndex((x) => x.entry.playerId === c.playerId);
    if (at >= 0) list.splice(at, 1);
    const i = list.findIndex((x) => compareEntries(score, c.playerId, x.score, x.entry.playerId) < 0);
    // Below a full list it is not in the top: unless it was in it (it only rose, so it is still).
    if (i < 0 && at < 0 && list.length >= capacity) continue;
    list.splice(i < 0 ? list.length : i, 0, {
      entry: { playerId: c.playerId, ...codec.decode(score), rank: 0 },
      score,
    });
    if (list.length > capacity) list.pop();
  }
  const points = list.map(({ entry }) => entry.points);
  const ranks = pageRanks(season.rankStyle, 0, 1, points);
  // Literals, not spreads: on Node 20 a spread copy costs several times as much, 1,000 times an event.
  const entries = list.map(({ entry: x }, k): RankedStanding => {
    const rank = ranks[k]!;
    return x.rank === rank ? x : { playerId: x.playerId, points: x.points, achievedAt: x.achievedAt, rank };
  });
  const sorted = list.map(({ score }) => score);
  scoresOf.set(entries, sorted);
  return { version: e.version, size, entries };
}

/** Do two lists hold the same entries in the same order (what topChanged listeners would see)? */
export function sameEntries(a: readonly RankedStanding[], b: readonly RankedStanding[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (
      x.playerId !== y.playerId ||
      x.points !== y.points ||
      x.rank !== y.rank ||
      x.achievedAt.getTime() !== y.achievedAt.getTime()
    )
      return false;
  }
  return true;
}
