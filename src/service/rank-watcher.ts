import { boardId, idOfBoard, type Board } from '../domain/board.js';
import type { RankedStanding } from '../domain/ranking.js';
import type { BoardEvent } from './board-events.js';
import { systemClock, type Clock } from './clock.js';
import { createPushPacer } from './push-pacer.js';
import {
  applyEvent,
  createBoardWatch,
  entryOf,
  newWatched,
  notify,
  takeRead,
  unplace,
  type BoardWatch,
  type Listener,
  type Watched,
} from './watched-board.js';

/** Reads some players' entries on a board at one instant, with the board's version then. */
export interface EntriesSource {
  entries(board: Board, playerIds: readonly string[]): Promise<{ version: number; value: RankedStanding[] }>;
}

const PAGE = 500;

/**
 * rankChanged, driven by the update events: each event carries every changed member's old and
 * new score, so this process knows exactly whose rank moved among the players it watches (those
 * the member passed) without asking Redis. Redis is read only when a player starts being watched,
 * on `resync()` (a low-rate check that corrects drift) and after a board was swapped or its
 * history lost. Cost per change: O(√watched) however many watched players it passes (the run it
 * passes shifts as whole blocks, rank-blocks.ts), nothing while idle. On a board of a million
 * players a random result passes about a third of the watched players: adding one to each of
 * them was most of the API's CPU under load (bench:live).
 *
 * The rules of a board's watched players are in watched-board.ts; when pushes go out (a player's
 * own new score at the end of the turn, a rank moved by others at most once per `othersEveryMs`,
 * spread over it) in push-pacer.ts. This owner holds the boards and does the reads.
 */
export function createRankWatcher(opts: {
  source: EntriesSource;
  /** How often ranks moved by other players are pushed (default 1 s; 0: at the end of the turn). */
  othersEveryMs?: number;
  onError?: (err: unknown) => void;
  /** Called once per Redis read (metrics). */
  onRead?: () => void;
  /** Called when a resync found a player's state wrong (drift). */
  onDrift?: (n: number) => void;
  /** Watched players per block of a board's order (rank-blocks.ts; small in tests). */
  blockSize?: number;
  clock?: Clock;
}) {
  const boards = new Map<string, BoardWatch>();
  const clock = opts.clock ?? systemClock;
  const pacer = createPushPacer<Watched, BoardWatch>({
    everyMs: opts.othersEveryMs ?? 1_000,
    clock,
    push: (w, bw) => notify(bw, w),
    *takeShifted() {
      for (const bw of boards.values()) for (const w of bw.ranked.takeShifted()) yield [w, bw] as const;
    },
  });

  /** Reads players' entries and replays the events heard since onto them; pushes what changed. */
  async function load(bw: BoardWatch, ids: string[]): Promise<void> {
    bw.reading++;
    try {
      for (let i = 0; i < ids.length; i += PAGE) {
        const page = ids.slice(i, i + PAGE);
        opts.onRead?.();
        const read = await opts.source.entries(bw.board, page);
        // Push the first entry of a new watcher, and what a resync found different (drift).
        const { changed, drift } = takeRead(bw, page, read);
        for (const w of changed) notify(bw, w);
        if (drift > 0) opts.onDrift?.(drift);
      }
    } finally {
      if (--bw.reading === 0) bw.heard = [];
    }
  }

  function scheduleLoad(bw: BoardWatch, id: string): void {
    if (bw.toLoad.size === 0) {
      // Batch the players that subscribe in the same turn into one read.
      clock.soon(() => {
        const ids = [...bw.toLoad].filter((x) => bw.players.has(x));
        bw.toLoad.clear();
        if (ids.length > 0) load(bw, ids).catch((err) => opts.onError?.(err));
      });
    }
    bw.toLoad.add(id);
  }

  const resyncBoard = (bw: BoardWatch) => load(bw, [...bw.players.keys()]).catch((err) => opts.onError?.(err));
  /** Reads every watched player again (all boards, or one season's); pushes what was wrong. */
  const resync = async (seasonId?: number): Promise<void> => {
    await Promise.all(
      [...boards.values()].filter((bw) => seasonId === undefined || bw.board.season.id === seasonId).map(resyncBoard),
    );
  };

  return {
    /**
     * Calls `listener` with the player's entry now (null: unranked), then whenever their rank or
     * score moves; returns the unsubscribe.
     */
    watch(board: Board, playerId: string, listener: Listener): () => void {
      const key = idOfBoard(board);
      let bw = boards.get(key);
      if (!bw) boards.set(key, (bw = createBoardWatch(board, opts.blockSize)));
      let w = bw.players.get(playerId);
      if (!w) bw.players.set(playerId, (w = newWatched(playerId)));
      w.listeners.add(listener);
      if (w.known) {
        listener(entryOf(bw, w));
        w.sentScore = undefined; // the others may not have been told this state yet
      } else scheduleLoad(bw, playerId);
      const [watched, player] = [bw, w];
      return () => {
        player.listeners.delete(listener);
        if (player.listeners.size > 0) return;
        watched.players.delete(playerId);
        watched.fresh.delete(player);
        unplace(watched, player);
        if (watched.players.size === 0) boards.delete(key);
      };
    },

    /** An update event: pushes to every watched player whose rank or score it moved. */
    note(e: BoardEvent): void {
      if (e.kind === 'close') {
        void resync(e.seasonId);
        return;
      }
      const bw = boards.get(boardId(e.seasonId, e.window, e.period, e.scope));
      if (!bw) return;
      if (bw.reading > 0) bw.heard.push(e);
      if (e.kind === 'swap') {
        void resyncBoard(bw);
        return;
      }
      const [own, shifted] = [new Set<Watched>(), new Set<Watched>()];
      const blocksShifted = applyEvent(bw, e, own, shifted);
      pacer.schedule(bw, own, shifted, blocksShifted);
    },

    resync,

    /** Pushes every pending change now (tests; a stopping process). */
    flush: pacer.flush,

    watchedPlayers(): number {
      let n = 0;
      for (const bw of boards.values()) n += bw.players.size;
      return n;
    },
  };
}
