import { boardId, type Board } from '../domain/board.js';
import { compareEntries, countsAbove, rankShift } from '../domain/rank-shift.js';
import type { RankedStanding } from '../domain/ranking.js';
import { createCodec, type Codec } from '../domain/score-codec.js';
import type { BoardEvent } from './board-events.js';
import { createRankBlocks, isBefore, type Block, type Pos, type RankBlocks } from './rank-blocks.js';

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
  /** The rank, relative to `block` while in the board's list (rank-blocks.ts: read it with `rankOf`). */
  rank: number;
  block?: Block<Watched>;
  /** The board version this state reflects: events up to it are already in it. */
  version: number;
  /**
   * What the listeners were last told, so a rank that moved and came back is not pushed. Numbers,
   * not a string made per push: a watched player's state lives until its next push, through
   * young-generation GCs (docs/benchmarks-history.md).
   */
  sentScore?: number | null;
  sentRank?: number;
}

interface BoardWatch {
  board: Board;
  codec: Codec;
  step: number;
  players: Map<string, Watched>;
  /** The known, ranked players in board order (best first): a change moves a contiguous run of them. */
  ranked: RankBlocks<Watched>;
  /** The newest event version applied, and the players read at a newer one (they already count the events up to it). */
  lastVersion: number;
  fresh: Set<Watched>;
  /** Reads in flight, and the events heard meanwhile (replayed onto what those reads return). */
  reading: number;
  heard: BoardEvent[];
  toLoad: Set<string>;
}

const PAGE = 500;
/** The most pushes of ranks moved by others in one turn, and how often a slice of them goes out. */
const PUSH_SLICE = 200;
const SLICE_EVERY_MS = 10;

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
 * Pushes: a player's own new score goes out at the end of the event loop turn; a rank moved by
 * others at most once per period (periods start `othersEveryMs` apart, their pushes spread over
 * them) with the rank then, and only if it differs from the last one pushed. On a busy board
 * nearly every watched player is passed every second: pushing each pass would cost a GraphQL
 * execution and a socket write per player per result.
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
}) {
  const boards = new Map<string, BoardWatch>();

  const rankOf = (bw: BoardWatch, w: Watched) => bw.ranked.rankOf(w);
  const entryOf = (bw: BoardWatch, w: Watched): RankedStanding | null => {
    if (w.score === null) return null;
    const { points, achievedAt } = bw.codec.decode(w.score);
    return { playerId: w.playerId, points, achievedAt, rank: rankOf(bw, w) };
  };
  const stateOf = (bw: BoardWatch, w: Watched) => `${w.score}|${rankOf(bw, w)}`;
  const notify = (bw: BoardWatch, w: Watched) => {
    const rank = rankOf(bw, w);
    if (w.sentScore === w.score && w.sentRank === rank) return;
    w.sentScore = w.score;
    w.sentRank = rank;
    const entry = entryOf(bw, w);
    for (const l of w.listeners) l(entry);
  };
  const othersEveryMs = opts.othersEveryMs ?? 1_000;
  const soon = new Map<Watched, BoardWatch>();
  /** Ranks moved by others: `pushing` goes out in this period's slices, `later` in the next period's. */
  let pushing = new Map<Watched, BoardWatch>();
  let later = new Map<Watched, BoardWatch>();
  /** Whole blocks shifted since the last period began (their players are collected when it begins). */
  let blocksPending = false;
  let soonScheduled = false;
  let othersTimer: NodeJS.Timeout | undefined;
  /** Slices per period, and when this period started and how many of its slices went out. */
  const slices = Math.max(1, Math.floor(othersEveryMs / SLICE_EVERY_MS));
  const period = { start: -Infinity, done: 0 };
  const at = (ms: number, fn: () => void) => {
    othersTimer = setTimeout(fn, Math.max(0, ms - Date.now()));
    othersTimer.unref();
  };
  function flush(): void {
    soonScheduled = false;
    for (const [w, bw] of soon) {
      pushing.delete(w);
      later.delete(w);
      notify(bw, w);
    }
    soon.clear();
  }
  /** The players of the blocks shifted as a whole join the ones shifted one by one. */
  function collectShifted(): void {
    blocksPending = false;
    for (const bw of boards.values()) {
      for (const w of bw.ranked.takeShifted()) if (!soon.has(w) && !pushing.has(w)) later.set(w, bw);
    }
  }
  /**
   * Starts a period of pushes of ranks moved by others: the players shifted since the last one go
   * out in slices spread evenly over the period, not at once. On a busy board nearly every watched
   * player moves each second: 9,000 pushes in one go held a core for 0.4 s every second, and every
   * other process on the machine (and the own-score pushes) waited behind them (bench:live).
   * A player is pushed at most once per period: one shifted again after its push waits in `later`
   * for the next period, where it comes about where it came in this one (the order of `later`).
   */
  function startPeriod(): void {
    collectShifted();
    [pushing, later] = [later, pushing]; // `pushing` is empty: the last period pushed all of it
    period.start = Date.now();
    period.done = 0;
    pushSlice();
  }
  function pushSlice(): void {
    othersTimer = undefined;
    const quota = Math.min(PUSH_SLICE, Math.ceil(pushing.size / Math.max(1, slices - period.done)));
    period.done++;
    let n = 0;
    for (const [w, bw] of pushing) {
      if (n++ === quota) break;
      pushing.delete(w);
      notify(bw, w);
    }
    if (pushing.size > 0) at(period.start + (period.done * othersEveryMs) / slices, pushSlice);
    else if (later.size > 0 || blocksPending) at(period.start + othersEveryMs, startPeriod);
  }
  function schedule(bw: BoardWatch, own: Set<Watched>, shifted: Set<Watched>, blocksShifted: boolean): void {
    for (const w of own) soon.set(w, bw);
    for (const w of shifted) if (!soon.has(w) && !pushing.has(w)) later.set(w, bw);
    blocksPending ||= blocksShifted;
    if (soon.size > 0 && !soonScheduled) {
      soonScheduled = true;
      setImmediate(flush);
    }
    if ((later.size > 0 || blocksPending) && !othersTimer) at(period.start + othersEveryMs, startPeriod);
  }

  const place = (bw: BoardWatch, w: Watched) =>
    bw.ranked.insert(w, (x) => compareEntries(x.score!, x.playerId, w.score!, w.playerId) > 0);
  const unplace = (bw: BoardWatch, w: Watched) => bw.ranked.remove(w);
  /** Sets a player's state (an absolute rank) and their place in board order. */
  function setState(bw: BoardWatch, w: Watched, score: number | null, rank: number): void {
    unplace(bw, w);
    w.score = score;
    w.rank = rank;
    if (score !== null) place(bw, w);
  }

  const scoreOf = (s: string | null) => (s === null ? null : Number(s));

  /**
   * Applies one event to the watched players: their own changes to `own`, ranks others moved to
   * `shifted` (one by one) or to whole blocks of `ranked`; returns whether a whole block moved.
   * Cost: O(blocks + block size) per change, however many watched players it passes.
   */
  function apply(bw: BoardWatch, e: BoardEvent, own: Set<Watched>, shifted: Set<Watched>): boolean {
    const style = bw.board.season.rankStyle;
    // Players read at a version this event is already in: it must not move them again.
    const counted = [...bw.fresh].filter((w) => w.version >= e.version);
    let blocksShifted = false;
    for (const c of e.changes) {
      const [old, score] = [scoreOf(c.old), scoreOf(c.score)];
      const at = (s: number | null): Pos =>
        s === null
          ? bw.ranked.end()
          : bw.ranked.firstWhere((w) => countsAbove(style, bw.step, c.playerId, s, w.playerId, w.score!));
      const [pOld, pNew] = [at(old), at(score)];
      const up = isBefore(pNew, pOld);
      blocksShifted =
        bw.ranked.shift(up ? pNew : pOld, up ? pOld : pNew, up ? 1 : -1, (w) => shifted.add(w)) || blocksShifted;
      const self = bw.players.get(c.playerId);
      // The run may hold the changed player and players that already count this event: undo theirs.
      for (const w of new Set(self?.block ? [self, ...counted] : counted)) {
        if (w.block) w.rank -= rankShift(style, bw.step, c.playerId, old, score, w.playerId, w.score!);
      }
      if (self?.known && self.version < e.version) {
        setState(bw, self, score, c.rank);
        own.add(self);
      }
    }
    for (const w of own) w.version = e.version;
    for (const w of bw.fresh) if (w.version <= e.version) bw.fresh.delete(w);
    bw.lastVersion = Math.max(bw.lastVersion, e.version);
    return blocksShifted;
  }

  /** Replays an event heard while a read was out onto the players it returned (read at an older version). */
  function replay(bw: BoardWatch, e: BoardEvent, loaded: Set<Watched>): void {
    const style = bw.board.season.rankStyle;
    for (const c of e.changes) {
      const [old, score] = [scoreOf(c.old), scoreOf(c.score)];
      for (const w of loaded) {
        if (w.block && w.playerId !== c.playerId)
          w.rank += rankShift(style, bw.step, c.playerId, old, score, w.playerId, w.score!);
      }
      const self = bw.players.get(c.playerId);
      if (self && loaded.has(self)) setState(bw, self, score, c.rank);
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
          before.set(w, w.known ? stateOf(bw, w) : undefined);
          w.known = true;
          setState(bw, w, e ? bw.codec.encode(e.points, e.achievedAt) : null, e?.rank ?? 0);
          w.version = version;
          loaded.add(w);
        }
        for (const e of bw.heard) if (e.version > version) replay(bw, e, loaded);
        // Events up to `version` that are still on their way must not move these players again.
        if (version > bw.lastVersion) for (const w of loaded) bw.fresh.add(w);
        // Push the first entry of a new watcher, and what a resync found different (drift).
        let drift = 0;
        for (const [w, was] of before) {
          if (was === stateOf(bw, w)) continue;
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
          ranked: createRankBlocks<Watched>(opts.blockSize),
          lastVersion: 0,
          fresh: new Set(),
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
      const bw = boards.get(boardId(e.seasonId, e.window, e.period));
      if (!bw) return;
      if (bw.reading > 0) bw.heard.push(e);
      if (e.kind === 'swap') {
        void resyncBoard(bw);
        return;
      }
      const [own, shifted] = [new Set<Watched>(), new Set<Watched>()];
      const blocksShifted = apply(bw, e, own, shifted);
      schedule(bw, own, shifted, blocksShifted);
    },

    resync,

    /** Pushes every pending change now (tests; a stopping process). */
    flush(): void {
      flush();
      if (othersTimer) clearTimeout(othersTimer);
      othersTimer = undefined;
      collectShifted();
      for (const waiting of [pushing, later]) {
        for (const [w, bw] of waiting) notify(bw, w);
        waiting.clear();
      }
    },

    watchedPlayers(): number {
      let n = 0;
      for (const bw of boards.values()) n += bw.players.size;
      return n;
    },
  };
}

export type RankWatcher = ReturnType<typeof createRankWatcher>;
