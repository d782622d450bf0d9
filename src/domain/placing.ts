// Where a player stands relative to a board: percentile, and the order and pages of a friends list.
import { badInput } from './errors.js';
import { compareBytes, type RankedStanding } from './ranking.js';

/** A ranked standing, with the size of its board at the instant it was ranked when the read knew it. */
export type PlacedStanding = RankedStanding & { boardSize?: number };

/**
 * "Top x%": the share of the board's `size` players ranked at or above `rank`, in (0, 100].
 * Equal points share a COMPETITION rank, so they share a percentile; the one player of a board of
 * one is in the top 100%. Computed from the exact rank and size of one instant, not estimated.
 */
export function percentile(rank: number, size: number): number {
  if (!Number.isInteger(rank) || !Number.isInteger(size) || rank < 1 || size < 1) {
    throw new RangeError(`percentile of rank ${rank} on a board of ${size}`);
  }
  return (100 * Math.min(rank, size)) / size;
}

/**
 * The order of a friends list: by rank, then as the board orders a tie (earlier first, then
 * playerId bytes descending, like ZREVRANGE). Total: no two entries of one board compare equal.
 */
export function friendsOrder(x: RankedStanding, y: RankedStanding): number {
  return x.rank - y.rank || x.achievedAt.getTime() - y.achievedAt.getTime() || compareBytes(y.playerId, x.playerId);
}

/** A page of a friends list and where the next one starts. */
export interface FriendsPage {
  entries: RankedStanding[];
  /** The last entry's cursor; null on an empty page. */
  endCursor: string | null;
  hasNextPage: boolean;
  /** How many of the ids are ranked on the board. */
  ranked: number;
}

/** The cursor of an entry: its place in friendsOrder, opaque to clients (base64url). */
export function friendsCursor(e: RankedStanding): string {
  return Buffer.from(`${e.rank}:${e.achievedAt.getTime()}:${e.playerId}`).toString('base64url');
}

function parseCursor(cursor: string): RankedStanding {
  const m = /^([1-9]\d{0,9}):(-?\d{1,16}):(\d{1,20})$/.exec(Buffer.from(cursor, 'base64url').toString());
  if (!m) throw badInput('after', 'after must be an endCursor this API returned');
  return { rank: Number(m[1]), achievedAt: new Date(Number(m[2])), playerId: m[3]!, points: 0 };
}

/**
 * The `first` entries of `ranked` (sorted by friendsOrder) after the cursor `after`. A cursor
 * names a place, not an index: when ranks move between two pages, the next page still starts
 * right after the last entry's place, so an entry that did not move is never shown twice.
 */
export function friendsPage(ranked: readonly RankedStanding[], first: number, after: string | null): FriendsPage {
  const from = after === null ? 0 : upperBound(ranked, parseCursor(after));
  const entries = ranked.slice(from, from + first);
  const last = entries.at(-1);
  return {
    entries,
    endCursor: last ? friendsCursor(last) : null,
    hasNextPage: from + entries.length < ranked.length,
    ranked: ranked.length,
  };
}

/** The index of the first entry of `sorted` that comes after `place`. */
function upperBound(sorted: readonly RankedStanding[], place: RankedStanding): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (friendsOrder(sorted[mid]!, place) <= 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
