import { boardId, type Board } from '../domain/board.js';
import { compareEntries, countsAbove } from '../domain/rank-shift.js';
import type { RankedStanding } from '../domain/ranking.js';
import { createCodec, type Codec } from '../domain/score-codec.js';
import type { BoardEvent } from './board-events.js';

/** Reads some players' entries on a board at one instant, with the board's version then. */
export interface EntriesSource {
  entries(board: Board, playerIds: readonly string[]): Promise<{ version: number; value: RankedStanding[] }>;
}

type Listener = (entry: RankedStanding | null) => void;

interface Watched {
  playerId: string;
  listeners: Set<Listener>;
  /** False until the first read answered. */
  known: boolean;
  /** Composite score, null when not on the board. */
  score: number | null;
  rank: number;
  /** The board version this state reflects: events up to it are already in it. */
  version: number;
}

interface BoardWatch {
  board: Board;
  codec: Codec;
  step: number;
  players: Map<string, Watched>;
  /** The known, ranked players in board order (best first): a change moves a contiguous run of them. */
  ranked: Watched[];
  /** Reads in flight, and the events heard meanwhile (replayed onto what those reads return). */
  reading: number;
  heard: BoardEvent[];
  toLoad: Set<string>;
}

const PAGE = 500;
const PUSH_SLICE = 200;

/**
 * rankChanged, driven by the update events: each event carries every changed member's old and
 * new score, so this process knows exactly whose rank moved among the players it watches (those
 * the member passed) without asking Redis. Redis is read only when a player starts being watched,
 * on `resync()` (a low-rate check that corrects drift) and after a board was swapped or its
 * history lost. Cost: O(log watched + moved) per change, nothing while idle.
 *
 * Pushes: a player's own new score goes out at the end of the event loop turn; a rank moved by
 * others at most once per `othersEveryMs` with the rank then. On a busy board nearly every watched
 * player is passed every second: pushing each pass would cost a GraphQL execution and a socket
 * write per player per result.
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
}) {
  const boards = new Map<string, BoardWatch>();

  const entryOf = (bw: BoardWatch, w: Watched): RankedStanding | null => {
    if (w.score === null) return null;
    const { points, achievedAt } = bw.codec.decode(w.score);
    return { playerId: w.playerId, points, achievedAt, rank: w.rank };
  };
  const notify = (bw: BoardWatch, w: Watched) => {
    const entry = entryOf(bw, w);
    for (const l of w.listeners) l(entry);
  };
  const othersEveryMs = opts.othersEveryMs ?? 1_000;
  const soon = new Map<Watched, BoardWatch>();
  const later = new Map<Watched, BoardWatch>();
  let soonScheduled = false;
  let laterTimer: NodeJS.Timeout | undefined;
  function flush(): void {
    soonScheduled = false;
    for (const [w, bw] of soon) {
      later.delete(w);
      notify(bw, w);
    }
    soon.clear();
  }
  /**
   * Pushes the ranks others moved, a slice per turn: thousands at once would stall the event loop
   * (and the own-score pushes behind it).
   */
  function flushLater(): void {
    laterTimer = undefined;
    let n = 0;
    for (const [w, bw] of later) {
      later.delete(w);
      notify(bw, w);
      if (++n === PUSH_SLICE && later.size > 0) {
        laterTimer = setTimeout(flushLater, 0);
        laterTimer.unref();
        return;
      }
    }
  }
  function schedule(bw: BoardWatch, own: Set<Watched>, shifted: Set<Watched>): void {
    for (const w of own) soon.set(w, bw);
    for (const w of shifted) if (!soon.has(w)) later.set(w, bw);
    if (soon.size > 0 && !soonScheduled) {
      soonScheduled = true;
      setImmediate(flush);
    }
    if (later.size > 0 && !laterTimer) {
      laterTimer = setTimeout(flushLater, othersEveryMs);
      laterTimer.unref();
    }
  }

  const cmp = (a: Watched, score: number, member: string) => compareEntries(a.score!, a.playerId, score, member);
  /** First index of `ranked` at or after which `pred` holds (pred is false, then true). */
  function firstWhere(ranked: Watched[], pred: (w: Watched) => boolean): number {
    let lo = 0;
    let hi = ranked.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (pred(ranked[mid]!)) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }
  const place = (bw: BoardWatch, w: Watched) => {
    bw.ranked.splice(
      firstWhere(bw.ranked, (x) => cmp(x, w.score!, w.playerId) > 0),
      0,
      w,
    );
  };
  const unplace = (bw: BoardWatch, w: Watched) => {
    const i = firstWhere(bw.ranked, (x) => cmp(x, w.score!, w.playerId) >= 0);
    if (bw.ranked[i] === w) bw.ranked.splice(i, 1);
  };

  /**
   * Applies one event to the watched players it concerns: their own changes to `own`, ranks others
   * moved to `shifted`.
   */
  function apply(
    bw: BoardWatch,
    e: BoardEvent,
    only: Set<Watched> | undefined,
    own: Set<Watched>,
    shifted: Set<Watched>,
  ): void {
    const style = bw.board.season.rankStyle;
    for (const c of e.changes) {
      const old = c.old === null ? null : Number(c.old);
      const score = c.score === null ? null : Number(c.score);
      const counted = (s: number | null) => (w: Watched) =>
        countsAbove(style, bw.step, c.playerId, s, w.playerId, w.score!);
      const iOld = old === null ? bw.ranked.length : firstWhere(bw.ranked, counted(old));
      const iNew = score === null ? bw.ranked.length : firstWhere(bw.ranked, counted(score));
      const [from, to, shift] = iNew < iOld ? [iNew, iOld, 1] : [iOld, iNew, -1];
      for (let i = from; i < to; i++) {
        const w = bw.ranked[i]!;
        if (w.playerId === c.playerId || w.version >= e.version || (only && !only.has(w))) continue;
        w.rank += shift;
        shifted.add(w);
      }
      const self = bw.players.get(c.playerId);
      if (self?.known && self.version < e.version && (!only || only.has(self))) {
        if (self.score !== null) unplace(bw, self);
        self.score = score;
        self.rank = c.rank;
        if (score !== null) place(bw, self);
        own.add(self);
      }
    }
  }

  /** Reads players' entries and replays the events heard since onto them; pushes what changed. */
  async function load(bw: BoardWatch, ids: string[]): Promise<void> {
    bw.reading++;
    try {
      for (let i = 0; i < ids.length; i += PAGE) {
        const page = ids.slice(i, i + PAGE);
        opts.onRead?.();
        const { version, value } = await opts.source.entries(bw.board, page);
        const found = new Map(value.map((e) => [e.playerId, e]));
        const loaded = new Set<Watched>();
        const before = new Map<Watched, string | undefined>();
        for (const id of page) {
          const w = bw.players.get(id);
          if (!w) continue;
          const e = found.get(id);
          before.set(w, w.known ? `${w.score}|${w.rank}` : undefined);
          if (w.known && w.score !== null) unplace(bw, w);
          w.known = true;
          w.score = e ? bw.codec.encode(e.points, e.achievedAt) : null;
          w.rank = e?.rank ?? 0;
          w.version = version;
          if (w.score !== null) place(bw, w);
          loaded.add(w);
        }
        for (const e of bw.heard) if (e.version > version) apply(bw, e, loaded, new Set(), new Set());
        // Push the first entry of a new watcher, and what a resync found different (drift).
        let drift = 0;
        for (const [w, was] of before) {
          if (was === `${w.score}|${w.rank}`) continue;
          if (was !== undefined) drift++;
          notify(bw, w);
        }
        if (drift > 0) opts.onDrift?.(drift);
      }
    } finally {
      if (--bw.reading === 0) bw.heard = [];
    }
  }

  function scheduleLoad(bw: BoardWatch, id: string): void {
    if (bw.toLoad.size === 0) {
      // Batch the players that subscribe in the same turn into one read.
      setImmediate(() => {
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
      const key = boardId(board.season.id, board.window, board.period);
      let bw = boards.get(key);
      if (!bw) {
        const codec = createCodec(board.season);
        bw = {
          board,
          codec,
          step: codec.maxTime + 1,
          players: new Map(),
          ranked: [],
          reading: 0,
          heard: [],
          toLoad: new Set(),
        };
        boards.set(key, bw);
      }
      let w = bw.players.get(playerId);
      if (!w)
        bw.players.set(
          playerId,
          (w = { playerId, listeners: new Set(), known: false, score: null, rank: 0, version: 0 }),
        );
      w.listeners.add(listener);
      if (w.known) listener(entryOf(bw, w));
      else scheduleLoad(bw, playerId);
      const [watched, player] = [bw, w];
      return () => {
        player.listeners.delete(listener);
        if (player.listeners.size > 0) return;
        watched.players.delete(playerId);
        if (player.known && player.score !== null) unplace(watched, player);
        if (watched.players.size === 0) boards.delete(key);
      };
    },

    /** An update event: pushes to every watched player whose rank or score it moved. */
    note(e: BoardEvent): void {
      if (e.kind === 'close') {
        void resync(e.seasonId);
        return;
      }
      const bw = boards.get(boardId(e.seasonId, e.window, e.period));
      if (!bw) return;
      if (bw.reading > 0) bw.heard.push(e);
      if (e.kind === 'swap') {
        void resyncBoard(bw);
        return;
      }
      const [own, shifted] = [new Set<Watched>(), new Set<Watched>()];
      apply(bw, e, undefined, own, shifted);
      for (const w of own) w.version = e.version;
      for (const w of shifted) w.version = e.version;
      schedule(bw, own, shifted);
    },

    resync,

    /** Pushes every pending change now (tests; a stopping process). */
    flush(): void {
      flush();
      if (laterTimer) clearTimeout(laterTimer);
      laterTimer = undefined;
      for (const [w, bw] of later) notify(bw, w);
      later.clear();
    },

    watchedPlayers(): number {
      let n = 0;
      for (const bw of boards.values()) n += bw.players.size;
      return n;
    },
  };
}

export type RankWatcher = ReturnType<typeof createRankWatcher>;
