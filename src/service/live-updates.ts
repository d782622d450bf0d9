import type { Board } from '../domain/board.js';
import { unavailable } from '../domain/errors.js';
import type { RankedStanding } from '../domain/ranking.js';
import { createCodec } from '../domain/score-codec.js';
import { seasonIdOf, type Season } from '../domain/season.js';
import type { Reward } from '../domain/rewards.js';
import type { BoardEvent } from './board-events.js';
import { pushStream } from './push-stream.js';
import type { TopSnapshot } from './top-cache.js';

export interface TopWatch {
  watch(board: Board, listener: (snap: TopSnapshot) => void): () => void;
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

/**
 * The three live streams of the contract; each counts its open subscriptions. Events reach this
 * process once (one pattern subscription, see redis/live-pubsub.ts) and are fanned out here.
 */
export function createLiveUpdates(deps: { tops: TopWatch; ranks: RankWatch; usable(): boolean }) {
  const open = { recordUpdated: 0, topChanged: 0, rankChanged: 0, rewardGranted: 0 };
  const rewardListeners = new Map<string, Set<(r: Reward) => void>>();
  const bySeason = new Map<number, Set<(e: BoardEvent) => void>>();
  const counted = (kind: keyof typeof open, stop: () => void) => {
    open[kind]++;
    return () => {
      open[kind]--;
      stop();
    };
  };
  function onSeason(seasonId: number, listener: (e: BoardEvent) => void): () => void {
    // A subscription started while events do not flow would wait in vain: say so instead.
    if (!deps.usable()) throw unavailable('live updates are unavailable right now; retry');
    let set = bySeason.get(seasonId);
    if (!set) bySeason.set(seasonId, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) bySeason.delete(seasonId);
    };
  }

  return {
    /** An update event heard from Redis. */
    note(e: BoardEvent): void {
      const set = bySeason.get(e.seasonId);
      if (set) for (const l of set) l(e);
    },

    /** Every real improvement on the season's SEASON board (of one player, or all); a LAST board's drops are not. */
    recordUpdates(season: Season, playerId?: string): AsyncIterableIterator<RecordUpdate> {
      const codec = createCodec(season);
      return pushStream<RecordUpdate>((push) =>
        counted(
          'recordUpdated',
          onSeason(season.id, (e) => {
            if (e.window !== 'SEASON' || e.scope || (e.kind !== 'raise' && e.kind !== 'set')) return;
            for (const c of e.changes) {
              if (c.score === null || (playerId !== undefined && c.playerId !== playerId)) continue;
              // A LAST board's lowered score is a change, not a record.
              if (c.old !== null && Number(c.score) < Number(c.old)) continue;
              const { points, achievedAt } = codec.decode(codec.fromRedis(c.score));
              push({ seasonId: seasonIdOf(season), playerId: c.playerId, points, achievedAt, rank: c.rank });
            }
          }),
        ),
      );
    },

    /** The board's top `limit`, now and whenever it changes (at the cache's refresh pace). */
    topChanges(board: Board, limit: number): AsyncIterableIterator<RankedStanding[]> {
      let last: readonly RankedStanding[] | undefined;
      return pushStream<RankedStanding[]>(
        (push) =>
          counted(
            'topChanged',
            deps.tops.watch(board, (snap) => {
              const top = snap.entries.slice(0, limit);
              if (last && sameTop(last, top)) return;
              last = top;
              push(top);
            }),
          ),
        { latestOnly: true },
      );
    },

    /** The player's entry, now (when ranked) and whenever their rank or score moves. */
    rankChanges(board: Board, playerId: string): AsyncIterableIterator<RankedStanding> {
      // The last entry pushed, as numbers: kept until the player's next push, so through
      // young-generation GCs, where the entry and its Date would be copied and promoted.
      let lastRank = NaN;
      let lastPoints = NaN;
      let lastAchievedAt = NaN;
      return pushStream<RankedStanding>(
        (push) =>
          counted(
            'rankChanged',
            deps.ranks.watch(board, playerId, (entry) => {
              if (
                !entry ||
                (lastRank === entry.rank &&
                  lastPoints === entry.points &&
                  lastAchievedAt === entry.achievedAt.getTime())
              )
                return;
              lastRank = entry.rank;
              lastPoints = entry.points;
              lastAchievedAt = entry.achievedAt.getTime();
              push(entry);
            }),
          ),
        { latestOnly: true },
      );
    },

    /** Rewards granted, as a close published them (redis/live-pubsub.ts). */
    granted(rewards: readonly Reward[]): void {
      for (const r of rewards) for (const l of rewardListeners.get(r.playerId) ?? []) l(r);
    },

    /** Each reward granted to the player from now on. */
    rewardsOf(playerId: string): AsyncIterableIterator<Reward> {
      if (!deps.usable()) throw unavailable('live updates are unavailable right now; retry');
      return pushStream<Reward>((push) => {
        let set = rewardListeners.get(playerId);
        if (!set) rewardListeners.set(playerId, (set = new Set()));
        set.add(push);
        return counted('rewardGranted', () => {
          set.delete(push);
          if (set.size === 0) rewardListeners.delete(playerId);
        });
      });
    },

    /** Open subscriptions by kind (for /metrics and leak checks), and in-process event listeners. */
    openSubscriptions: () => ({ ...open }),
    listeners: () => [...bySeason.values()].reduce((n, s) => n + s.size, 0),
  };
}

export type LiveUpdates = ReturnType<typeof createLiveUpdates>;

function sameTop(a: readonly RankedStanding[], b: readonly RankedStanding[]): boolean {
  return (
    a.length === b.length &&
    a.every((x, i) => {
      const y = b[i]!;
      return x.playerId === y.playerId && x.points === y.points && x.rank === y.rank;
    })
  );
}
