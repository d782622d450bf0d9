import type { Board } from '../domain/board.js';
import type { RankedStanding } from '../domain/ranking.js';
import { createCodec } from '../domain/score-codec.js';
import type { Season } from '../domain/season.js';
import { pushStream } from './push-stream.js';

/** A board update as published by ingest (see redis/lua/applyStandings-3.lua). */
/** k = "reset": an explicit lowering or removal (setStandings-3.lua), not an improvement. */
export interface BoardUpdate { b: string; m: string; s: string; r: number; seasonId: number; k?: 'reset' }

export interface UpdateEvents {
  onSeasonUpdate(seasonId: number, onUpdate: (u: BoardUpdate) => void): Promise<() => void>;
}
export interface TopWatch {
  watch(board: Board, listener: (entries: readonly RankedStanding[]) => void): () => void;
}
export interface RankWatch {
  watch(board: Board, playerId: string, listener: (entry: RankedStanding | null) => void): () => void;
}

export interface RecordUpdate {
  seasonId: number;
  playerId: string;
  points: number;
  achievedAt: Date;
  rank: number;
}

/** The three live streams of the contract; each counts its open subscriptions. */
export function createLiveUpdates(deps: { events: UpdateEvents; tops: TopWatch; ranks: RankWatch }) {
  const open = { recordUpdated: 0, topChanged: 0, rankChanged: 0 };
  const counted = (kind: keyof typeof open, stop: () => void) => {
    open[kind]++;
    return () => { open[kind]--; stop(); };
  };

  return {
    /** Every real improvement on the season's SEASON board (of one player, or all). */
    recordUpdates(season: Season, playerId?: string): AsyncIterableIterator<RecordUpdate> {
      const codec = createCodec(season);
      return pushStream<RecordUpdate>(async (push) => counted('recordUpdated', await deps.events.onSeasonUpdate(season.id, (u) => {
        if (u.b !== 'SEASON' || u.k === 'reset' || (playerId !== undefined && u.m !== playerId)) return;
        const { points, achievedAt } = codec.decode(codec.fromRedis(u.s));
        push({ seasonId: season.id, playerId: u.m, points, achievedAt, rank: u.r });
      })));
    },

    /** The board's top `limit`, now and whenever it changes (at the cache's refresh pace). */
    topChanges(board: Board, limit: number): AsyncIterableIterator<RankedStanding[]> {
      let last: RankedStanding[] | undefined;
      return pushStream<RankedStanding[]>((push) => counted('topChanged', deps.tops.watch(board, (entries) => {
        const top = entries.slice(0, limit);
        if (last && sameTop(last, top)) return;
        last = top;
        push(top);
      })), { latestOnly: true });
    },

    /** The player's entry, now (when ranked) and whenever their rank or score moves. */
    rankChanges(board: Board, playerId: string): AsyncIterableIterator<RankedStanding> {
      return pushStream<RankedStanding>((push) => counted('rankChanged', deps.ranks.watch(board, playerId, (entry) => {
        if (entry) push(entry);
      })), { latestOnly: true });
    },

    /** Open subscriptions by kind (for /metrics and leak checks). */
    openSubscriptions: () => ({ ...open }),
  };
}

export type LiveUpdates = ReturnType<typeof createLiveUpdates>;

function sameTop(a: readonly RankedStanding[], b: readonly RankedStanding[]): boolean {
  return a.length === b.length && a.every((x, i) => {
    const y = b[i]!;
    return x.playerId === y.playerId && x.points === y.points && x.rank === y.rank;
  });
}
