import type { Board } from '../domain/board.js';
import type { RankedStanding } from '../domain/ranking.js';

/** Reads the current entries of some players on a board in one call (Redis readEntries). */
export interface EntriesSource {
  entries(board: Board, playerIds: readonly string[]): Promise<RankedStanding[]>;
}

type Listener = (entry: RankedStanding | null) => void;

interface Watched {
  board: Board;
  players: Map<string, { last: RankedStanding | null | undefined; listeners: Set<Listener> }>;
}

const CHUNK = 500;

/**
 * rankChanged, per instance: every tick, one rank read per board (chunks of 500 players) over
 * every subscribed player, and a push to a player's listeners when their rank or score moved:
 * they climbed, or someone overtook them. Cost is O(subscribed players) per tick, not per update.
 */
export function createRankWatcher(opts: { source: EntriesSource; onError?: (err: unknown) => void }) {
  const boards = new Map<string, Watched>();

  async function check(w: Watched, ids: string[]): Promise<void> {
    for (let i = 0; i < ids.length; i += CHUNK) {
      const chunk = ids.slice(i, i + CHUNK);
      const found = new Map((await opts.source.entries(w.board, chunk)).map((e) => [e.playerId, e]));
      for (const id of chunk) {
        const p = w.players.get(id);
        if (!p) continue;
        const now = found.get(id) ?? null;
        if (p.last === undefined || now?.rank !== p.last?.rank || now?.points !== p.last?.points) {
          p.last = now;
          for (const l of p.listeners) l(now);
        }
      }
    }
  }

  return {
    /** Calls `listener` with the player's entry now, then whenever their rank moves; returns the unsubscribe. */
    watch(board: Board, playerId: string, listener: Listener): () => void {
      const key = `${board.season.id}|${board.window}|${board.period}`;
      let w = boards.get(key);
      if (!w) boards.set(key, (w = { board, players: new Map() }));
      let p = w.players.get(playerId);
      if (!p) w.players.set(playerId, (p = { last: undefined, listeners: new Set() }));
      p.listeners.add(listener);
      if (p.last !== undefined) listener(p.last);
      else check(w, [playerId]).catch((err) => opts.onError?.(err));
      const watched = w;
      return () => {
        const q = watched.players.get(playerId);
        q?.listeners.delete(listener);
        if (q && q.listeners.size === 0) watched.players.delete(playerId);
        if (watched.players.size === 0) boards.delete(key);
      };
    },

    async tick(): Promise<void> {
      await Promise.all([...boards.values()].map((w) =>
        check(w, [...w.players.keys()]).catch((err) => opts.onError?.(err))));
    },

    watchedPlayers(): number {
      let n = 0;
      for (const w of boards.values()) n += w.players.size;
      return n;
    },
  };
}

export type RankWatcher = ReturnType<typeof createRankWatcher>;
