import { boardNamed, scopedBoard, type Board } from '../domain/board.js';
import { unpackKeys } from '../domain/board-keys.js';
import { badInput } from '../domain/errors.js';
import { percentile, type FriendsPage } from '../domain/placing.js';
import { RANK_HISTORY_MAX, rankDelta, type RankPoint } from '../domain/rank-history.js';
import { turnoverOf } from '../domain/season.js';
import { periodOf } from '../domain/windows.js';
import { builder } from './builder.js';
import type { Context, EntryValue } from './context.js';

const RankPointRef = builder.objectRef<RankPoint>('RankPoint').implement({
  description: "A player's rank on a season's board at one daily snapshot.",
  fields: (t) => ({
    at: t.expose('at', { type: 'DateTime', description: 'the UTC midnight the snapshot stands for' }),
    takenAt: t.expose('takenAt', {
      type: 'DateTime',
      description: 'when it was taken: the board as ingest had applied results then',
    }),
    rank: t.exposeInt('rank', { nullable: true, description: 'null: not on the board then' }),
  }),
});

const PlayerRef = builder.objectRef<{ id: string; displayName: string | null }>('Player').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    displayName: t.exposeString('displayName', { nullable: true }),
  }),
});

/** The board an entry is on: the one its read named, or a subscription's season and window now. */
function boardOf(entry: EntryValue, ctx: Context): Promise<Board | undefined> {
  const { on } = entry;
  if (!on) return Promise.resolve(undefined);
  if (on.board) return Promise.resolve(on.board);
  on.found ??= ctx.services.season(on.seasonId).then((found) => {
    const season = found && boardNamed(found, on.boardName);
    const period = season && periodOf(on.window, ctx.services.now(), turnoverOf(season));
    return season && scopedBoard({ season, window: on.window, period: period! }, on.scope);
  });
  return on.found;
}

/** The id of the row of an entry's board (a further board's differs from its season's). */
async function boardIdOf(entry: EntryValue, ctx: Context): Promise<number> {
  const on = entry.on!; // a rank history is read on a SEASON board, which the entry names
  if (on.board) return on.board.season.id;
  return on.boardName == null ? on.seasonId : ((await boardOf(entry, ctx))?.season.id ?? on.seasonId);
}

/**
 * The size of an entry's board when its read did not tell it: a subscription's entry (its board
 * now), or a closed or expired board read from PostgreSQL (which no longer changes).
 */
async function boardSizeOf(entry: EntryValue, ctx: Context): Promise<number> {
  const board = await boardOf(entry, ctx);
  return board ? ctx.services.boards.size(board, ctx.reads) : entry.rank;
}

/** Is the entry on a SEASON board of every player (the boards rank history snapshots)? */
const onWholeSeasonBoard = (e: EntryValue) => e.on?.window === 'SEASON' && !e.on.scope && !e.on.board?.scope;

/** A scoped board's whole board, one per board object: the globalRank of its entries is one read. */
const wholeBoards = new WeakMap<Board, Board>();

export const EntryRef = builder.objectRef<EntryValue>('Entry').implement({
  description: "A player's place on a board.",
  fields: (t) => ({
    rank: t.exposeInt('rank', { description: "1-based, in the season's rank style" }),
    playerId: t.exposeID('playerId'),
    points: t.exposeInt('points'),
    achievedAt: t.expose('achievedAt', {
      type: 'DateTime',
      description: "When the player reached these points, truncated to the season's time unit",
    }),
    keys: t.intList({
      nullable: true,
      description:
        "A multi-key board: the standing's value of each key, most significant first (Board.keys); null on a one-stat board",
      // Without a promise when the read named its board (every query; a subscription looks it up).
      resolve: (entry, _args, ctx) => {
        const keysOf = (board: Board | undefined) =>
          board?.season.keys ? unpackKeys(board.season.keys, entry.points) : null;
        return entry.on?.board ? keysOf(entry.on.board) : boardOf(entry, ctx).then(keysOf);
      },
    }),
    rankHistory: t.field({
      type: [RankPointRef],
      description: `SEASON board: the player's rank at its last \`last\` (1..${RANK_HISTORY_MAX}) daily snapshots, oldest first. [] on DAY and WEEK boards and within a scope.`,
      args: { last: t.arg.int({ required: false, defaultValue: 30 }) },
      resolve: async (entry, args, ctx) => {
        const last = args.last ?? 30;
        if (!Number.isInteger(last) || last < 1 || last > RANK_HISTORY_MAX)
          throw badInput('last', `last must be an integer in 1..${RANK_HISTORY_MAX}`);
        if (!onWholeSeasonBoard(entry)) return [];
        return ctx.rankHistory.load(await boardIdOf(entry, ctx), entry.playerId, last);
      },
    }),
    rankDelta: t.int({
      nullable: true,
      description:
        'SEASON board: places gained since the last daily snapshot (12: up twelve; -3: down three); null when not ranked then, or on DAY and WEEK boards and within a scope.',
      resolve: async (entry, _args, ctx) => {
        if (!onWholeSeasonBoard(entry)) return null;
        const [then] = await ctx.rankHistory.load(await boardIdOf(entry, ctx), entry.playerId, 1);
        return rankDelta(then?.rank, entry.rank);
      },
    }),
    globalRank: t.int({
      nullable: true,
      description: 'on a board read within a scope, the rank on the whole board; elsewhere the rank itself',
      resolve: async (e, _args, ctx) => {
        const board = await boardOf(e, ctx);
        if (!board?.scope) return e.rank;
        const whole = wholeBoards.get(board) ?? wholeBoards.set(board, scopedBoard(board, null)).get(board)!;
        return (await ctx.services.boards.entry(whole, e.playerId, ctx.reads))?.rank ?? null;
      },
    }),
    percentile: t.float({
      description:
        'Top x%: 100 × rank / the players ranked on the board, at the instant of the rank (0.4: top 0.4%; tied COMPETITION ranks share it; a board of one: 100).',
      resolve: async (entry, _args, ctx) => percentile(entry.rank, entry.boardSize ?? (await boardSizeOf(entry, ctx))),
    }),
    metadata: t.field({
      type: 'JSONObject',
      nullable: true,
      description:
        "What the game server attached to the result that set this standing (BEST: that result's; SUM: the latest counted one's); null: none. Read from PostgreSQL, one query per board, only when selected.",
      resolve: async (entry, _args, ctx) => {
        const board = await boardOf(entry, ctx);
        return board ? ctx.metadata.load(board, entry.playerId) : null;
      },
    }),
    // Batched: one PostgreSQL query per request, whatever the number of entries.
    player: t.field({
      type: PlayerRef,
      nullable: true,
      resolve: (entry, _args, ctx) => {
        if (ctx.reads) ctx.reads.usesNames = true;
        return ctx.players.load(entry.playerId);
      },
    }),
  }),
});

export const CutoffRef = builder.objectRef<{ place: number; entry: EntryValue }>('Cutoff').implement({
  description:
    'What it takes to hold a place: better points than `points`, or as many reached no later than `achievedAt` (COMPETITION: as many points share the rank at or above it).',
  fields: (t) => ({
    place: t.exposeInt('place', { description: 'the place asked for' }),
    points: t.int({ resolve: (c) => c.entry.points }),
    achievedAt: t.field({ type: 'DateTime', resolve: (c) => c.entry.achievedAt }),
    entry: t.field({ type: EntryRef, description: 'who holds the place now', resolve: (c) => c.entry }),
  }),
});

export const FriendsPageRef = builder
  .objectRef<Omit<FriendsPage, 'entries'> & { entries: EntryValue[] }>('FriendsPage')
  .implement({
    description: 'A page of friends by rank.',
    fields: (t) => ({
      entries: t.field({ type: [EntryRef], resolve: (p) => p.entries }),
      endCursor: t.exposeString('endCursor', { nullable: true, description: 'pass as `after` for the next page' }),
      hasNextPage: t.exposeBoolean('hasNextPage'),
      ranked: t.exposeInt('ranked', { description: 'how many of the ids are ranked on the board' }),
    }),
  });
