import type { Board } from '../domain/board.js';
import { compareEntries, countsAbove, rankShift } from '../domain/rank-shift.js';
import type { RankedStanding } from '../domain/ranking.js';
import { createCodec, type Codec } from '../domain/score-codec.js';
import type { BoardEvent } from './board-events.js';
import { createRankBlocks, isBefore, type Block, type Pos, type RankBlocks } from './rank-blocks.js';

export type Listener = (entry: RankedStanding | null) => void;

/** A watched player of a board: their state as this process knows it, and who listens. */
export interface Watched {
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

/** The watched players of one board, in board order, and the reads and events in flight for it. */
export interface BoardWatch {
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

/** A board with nobody watched yet; `blockSize` is the watched players per block of its order. */
export function createBoardWatch(board: Board, blockSize?: number): BoardWatch {
  const codec = createCodec(board.season);
  return {
    board,
    codec,
    step: codec.maxTime + 1,
    players: new Map(),
    ranked: createRankBlocks<Watched>(blockSize),
    lastVersion: 0,
    fresh: new Set(),
    reading: 0,
    heard: [],
    toLoad: new Set(),
  };
}

/** A player the board starts watching: unknown until read. */
export const newWatched = (playerId: string): Watched => ({
  playerId,
  listeners: new Set(),
  known: false,
  score: null,
  rank: 0,
  version: 0,
});

/** The player's entry as known here (null: not on the board). */
export function entryOf(bw: BoardWatch, w: Watched): RankedStanding | null {
  if (w.score === null) return null;
  const { points, achievedAt } = bw.codec.decode(w.score);
  return { playerId: w.playerId, points, achievedAt, rank: bw.ranked.rankOf(w) };
}

/** Tells the player's listeners their entry, unless it is what they were last told. */
export function notify(bw: BoardWatch, w: Watched): void {
  const rank = bw.ranked.rankOf(w);
  if (w.sentScore === w.score && w.sentRank === rank) return;
  w.sentScore = w.score;
  w.sentRank = rank;
  const entry = entryOf(bw, w);
  for (const l of w.listeners) l(entry);
}

/** Takes the player out of the board's order (they left it, or nobody watches them any more). */
export const unplace = (bw: BoardWatch, w: Watched): void => bw.ranked.remove(w);

/** Sets a player's state (an absolute rank) and their place in board order. */
function setState(bw: BoardWatch, w: Watched, score: number | null, rank: number): void {
  unplace(bw, w);
  w.score = score;
  w.rank = rank;
  if (score !== null) bw.ranked.insert(w, (x) => compareEntries(x.score!, x.playerId, w.score!, w.playerId) > 0);
}

const scoreOf = (s: string | null) => (s === null ? null : Number(s));

/**
 * Applies one event to the watched players: their own changes to `own`, ranks others moved to
 * `shifted` (one by one) or to whole blocks of `ranked`; returns whether a whole block moved.
 * Cost: O(blocks + block size) per change, however many watched players it passes.
 */
export function applyEvent(bw: BoardWatch, e: BoardEvent, own: Set<Watched>, shifted: Set<Watched>): boolean {
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
function replayEvent(bw: BoardWatch, e: BoardEvent, loaded: Set<Watched>): void {
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

/**
 * Takes the answer of a read of `ids` (at `version`): sets the players still watched, replays the
 * events heard since onto them. Returns the players whose entry is new (a first read) or changed
 * (what a resync found wrong), and how many of them were known: the drift.
 */
export function takeRead(
  bw: BoardWatch,
  ids: readonly string[],
  read: { version: number; value: readonly RankedStanding[] },
): { changed: Watched[]; drift: number } {
  const { version } = read;
  const found = new Map(read.value.map((e) => [e.playerId, e]));
  const loaded = new Set<Watched>();
  const before = new Map<Watched, readonly [score: number | null, rank: number] | undefined>();
  for (const id of ids) {
    const w = bw.players.get(id);
    if (!w) continue;
    const e = found.get(id);
    before.set(w, w.known ? [w.score, bw.ranked.rankOf(w)] : undefined);
    w.known = true;
    setState(bw, w, e ? bw.codec.encode(e.points, e.achievedAt) : null, e?.rank ?? 0);
    w.version = version;
    loaded.add(w);
  }
  for (const e of bw.heard) if (e.version > version) replayEvent(bw, e, loaded);
  // Events up to `version` that are still on their way must not move these players again.
  if (version > bw.lastVersion) for (const w of loaded) bw.fresh.add(w);
  const changed: Watched[] = [];
  let drift = 0;
  for (const [w, was] of before) {
    if (was !== undefined && was[0] === w.score && was[1] === bw.ranked.rankOf(w)) continue;
    if (was !== undefined) drift++;
    changed.push(w);
  }
  return { changed, drift };
}
