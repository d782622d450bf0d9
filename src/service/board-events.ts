import { boardId, idOfBoard, LIMITS, type Board } from '../domain/board.js';
import type { Window } from '../domain/season.js';

/** One member's change inside a board event. Scores are composite integer strings; null: absent. */
export interface MemberChange {
  playerId: string;
  old: string | null;
  score: string | null;
  /** Rank right after this change (0 when removed). */
  rank: number;
}

/**
 * Everything one script call changed on one board, under the board's new version (the Redis
 * scripts applyStandings-5, setStandings-4 and swapBoard-4 raise a board's version by one per
 * call and publish one event). `raise`: ingest improvements; `set`: ingest's changes to a LAST
 * board, some score lowered (docs/design.md#last); `reset`: explicit lowering or removal; `swap`:
 * a rebuilt copy replaced the board (anything may have changed); `close`: the season closed and
 * all its boards left Redis (window and period say nothing then).
 */
export interface BoardEvent {
  seasonId: number;
  window: Window;
  period: string;
  /** The scope board the event is about (keys.ts boardLabel); absent: the whole board. */
  scope?: string;
  version: number;
  /**
   * The board's version before this change (absent: version - 1). Versions are not consecutive
   * (at least the clock in µs, so none repeats after a failover): a skipped event shows as a
   * `previous` above the last version heard, lost history (a failover brought an older value
   * back) as one below it.
   */
  previous?: number;
  kind: 'raise' | 'set' | 'reset' | 'swap' | 'close';
  changes: MemberChange[];
}

/**
 * What this process has heard of a board: the highest version announced (`seen`) and the highest
 * that may have changed the first LIMITS.topLimit entries or the size (`topSeen`). A value read
 * from Redis at version v reflects every change up to v, so it is current for this process while
 * `seen` (or `topSeen`, for the top and size) is at most v.
 *
 * The object itself is the epoch: it is replaced when the board's history was lost (a version
 * went down: Redis restarted or was flushed) and all are dropped when events may have been missed
 * (the pub/sub connection dropped). A cached value keeps the object it was read under and is
 * only valid while that object is still the board's.
 */
export interface BoardVersion {
  readonly id: string;
  seen: number;
  topSeen: number;
  /** The highest version heard or read: the next event should be the one after it. */
  known: number;
}

/** Could this event have changed the board's first `capacity` entries or its size? */
function touchesTop(e: BoardEvent, capacity: number = LIMITS.topLimit): boolean {
  if (e.kind !== 'raise') return true;
  // A raise moves a member up to `rank`: entries above it keep their places. A new member grows the size.
  return e.changes.some((c) => c.rank <= capacity || c.old === null);
}

/** Board versions of this process, fed by the update events. */
export function createBoardVersions() {
  const boards = new Map<string, BoardVersion>();
  const fresh = (id: string, version: number): BoardVersion => {
    const v = { id, seen: version, topSeen: version, known: version };
    boards.set(id, v);
    return v;
  };

  return {
    /** The board's current epoch object. */
    of(b: Board): BoardVersion {
      const id = idOfBoard(b);
      return boards.get(id) ?? fresh(id, 0);
    },

    /**
     * Records a version read from Redis; returns the epoch it belongs to. A version below what
     * was announced means Redis lost the board's history: a new epoch starts.
     */
    observe(b: Board, version: number): BoardVersion {
      const v = this.of(b);
      if (version < v.seen) return fresh(v.id, version);
      v.known = Math.max(v.known, version);
      return v;
    },

    /** Records an event; returns false when it starts a new epoch (its version went down). */
    note(e: BoardEvent): boolean {
      if (e.kind === 'close') {
        for (const id of boards.keys()) if (id.startsWith(`${e.seasonId}|`)) boards.delete(id);
        return true;
      }
      const id = boardId(e.seasonId, e.window, e.period, e.scope);
      const v = boards.get(id);
      const previous = e.previous ?? e.version - 1;
      if (!v || e.version <= v.seen || previous < v.seen) {
        // Equal or lower, or after an older one than the last heard: Redis lost the board's history
        // (a restart, a failover). Unknown board: nothing cached under it.
        fresh(id, e.version);
        return v === undefined;
      }
      // A version skipped is an event missed (pub/sub is at most once): it may have changed the top.
      const missed = previous > v.known;
      v.seen = e.version;
      v.known = Math.max(v.known, e.version);
      if (missed || touchesTop(e)) v.topSeen = e.version;
      return true;
    },

    /** Events may have been missed (pub/sub reconnected): every epoch ends. */
    forgetAll(): void {
      boards.clear();
    },
  };
}

export type BoardVersions = ReturnType<typeof createBoardVersions>;
