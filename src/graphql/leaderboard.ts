import {
  boardNamed,
  boardOfPeriod,
  checkPeriodsPage,
  LIMITS,
  READ_DEFAULTS,
  requestedBoard,
  scopedBoard,
} from '../domain/board.js';
import { boardName, type Season, type Window } from '../domain/season.js';
import type { GroupStanding } from '../domain/scopes.js';
import { ScopeInput, ScopeRef, scopeAsked } from './scopes.js';

type ScopeArg = { region?: string | null; group?: string | null; cohortOf?: string | null };
import { builder } from './builder.js';
import { onView, type Context, type LeaderboardValue } from './context.js';
import { CutoffRef, EntryRef, FriendsPageRef } from './entry.js';
import { WindowEnum } from './scalars.js';
import { publicSeason, SeasonRef } from './season.js';

/** What the `board` argument of every read and subscription of a board says. */
export const BOARD_ARG = {
  required: false,
  description: "one of the season's boards by name (Season.boards); default its first",
} as const;

/** What the `scope` argument of every read and subscription of a board says. */
export const SCOPE_ARG =
  'rank within a region, a group (docs/design.md#scopes) or a league cohort (#leagues); default every player';

/** The board the arguments of a leaderboard field ask for. */
async function boardAsked(
  season: Season,
  args: { board?: string | null; window?: Window | null; at?: Date | null; scope?: ScopeArg | null },
  ctx: Context,
): Promise<LeaderboardValue> {
  const board = requestedBoard(boardNamed(season, args.board), args.window ?? 'SEASON', args.at, ctx.services.now());
  return scopedBoard(board, await scopeAsked(season, args.scope, ctx));
}

export const LeaderboardRef = builder.objectRef<LeaderboardValue>('Leaderboard').implement({
  description: 'One board: a season, or one UTC day or ISO week of it.',
  fields: (t) => ({
    season: t.field({
      type: SeasonRef,
      // A further board's row is not a season: its parent is.
      resolve: async (b, _args, ctx) =>
        b.season.parentId == null ? b.season : ((await publicSeason(ctx, b.season.parentId)) ?? b.season),
    }),
    board: t.string({ description: 'its name among the season’s boards', resolve: (b) => boardName(b.season) }),
    scope: t.field({
      type: ScopeRef,
      nullable: true,
      description: 'the region or group it ranks within; null: every player',
      resolve: (b) => b.scope ?? null,
    }),
    window: t.expose('window', { type: WindowEnum }),
    periodStart: t.expose('periodStart', { type: 'DateTime' }),
    size: t.int({
      description: 'players ranked on this board',
      resolve: (b, _args, ctx) => ctx.services.boards.size(b, ctx.reads),
    }),
    top: t.field({
      type: [EntryRef],
      description: `Best first; limit 1..${LIMITS.topLimit}.`,
      args: {
        limit: t.arg.int({ required: false, defaultValue: READ_DEFAULTS.topLimit }),
        offset: t.arg.int({ required: false, defaultValue: 0 }),
      },
      resolve: async (b, args, ctx) =>
        onView(await ctx.services.boards.top(b, args.limit ?? READ_DEFAULTS.topLimit, args.offset ?? 0, ctx.reads), b),
    }),
    entry: t.field({
      type: EntryRef,
      nullable: true,
      description: 'null: no score on this board.',
      args: { playerId: t.arg.id({ required: true }) },
      resolve: async (b, args, ctx) => {
        const entry = await ctx.services.boards.entry(b, args.playerId, ctx.reads);
        return entry && onView([entry], b)[0];
      },
    }),
    around: t.field({
      type: [EntryRef],
      description: `The player and up to \`radius\` (0..${LIMITS.aroundRadius}) players on each side, filled at the edges; [] if unranked.`,
      args: {
        playerId: t.arg.id({ required: true }),
        radius: t.arg.int({ required: false, defaultValue: READ_DEFAULTS.aroundRadius }),
      },
      resolve: async (b, args, ctx) =>
        onView(
          await ctx.services.boards.around(b, args.playerId, args.radius ?? READ_DEFAULTS.aroundRadius, ctx.reads),
          b,
        ),
    }),
    friends: t.field({
      type: [EntryRef],
      description: `Up to ${LIMITS.friends} ids (as a variable: a query holds at most 1,000 tokens), by rank; unranked ids left out.`,
      args: { playerIds: t.arg.idList({ required: true }) },
      resolve: async (b, args, ctx) => onView(await ctx.services.boards.friends(b, args.playerIds, ctx.reads), b),
    }),
    friendsPage: t.field({
      type: FriendsPageRef,
      description: `friends, \`first\` (1..${LIMITS.friends}) at a time: pass the page's endCursor as \`after\` for the next.`,
      args: {
        playerIds: t.arg.idList({ required: true }),
        first: t.arg.int({ required: false, defaultValue: READ_DEFAULTS.friendsFirst }),
        after: t.arg.string({ required: false }),
      },
      resolve: async (b, args, ctx) => {
        const first = args.first ?? READ_DEFAULTS.friendsFirst;
        const page = await ctx.services.boards.friendsPage(b, args.playerIds, first, args.after ?? null, ctx.reads);
        return { ...page, entries: onView(page.entries, b) };
      },
    }),
    cutoff: t.field({
      type: CutoffRef,
      nullable: true,
      description: `What it takes to hold place \`rank\` (1..${LIMITS.topOffset + 1}): the points and time of the entry there; null when fewer players are ranked.`,
      args: { rank: t.arg.int({ required: true }) },
      resolve: async (b, args, ctx) => {
        const at = await ctx.services.boards.cutoff(b, args.rank, ctx.reads);
        return at && { place: args.rank, entry: onView([at], b)[0]! };
      },
    }),
  }),
});

const GroupStandingRef = builder.objectRef<GroupStanding & { board: LeaderboardValue }>('GroupStanding').implement({
  description: 'A group on a group board: its members’ total (docs/design.md#group-boards).',
  fields: (t) => ({
    rank: t.exposeInt('rank', { description: '1-based; equal totals in group id order (bytes, descending)' }),
    group: t.exposeString('group'),
    points: t.exposeInt('points', { description: "its members' points summed (its best N's: Season.groupBestOf)" }),
    members: t.exposeInt('members', { description: 'members ranked on the board' }),
    leaderboard: t.field({
      type: LeaderboardRef,
      description: 'the members behind the total: the board within this group',
      resolve: (g) => scopedBoard(g.board, `g:${g.group}`),
    }),
  }),
});

builder.objectField(LeaderboardRef, 'groups', (t) =>
  t.field({
    type: [GroupStandingRef],
    description: `Groups (clans) ranked by their members' total on this board, best first: \`first\` (1..${LIMITS.groups}). [] on an ASC board or within a scope.`,
    args: { first: t.arg.int({ required: false, defaultValue: 10 }) },
    resolve: async (b, args, ctx) => {
      if (b.scope || b.season.order === 'ASC') return [];
      const whole = scopedBoard(b, null);
      return (await ctx.services.boards.groups(b, args.first ?? 10, ctx.reads)).map((g) => ({ ...g, board: whole }));
    },
  }),
);

/** One period of a window of a season: its board, live or past (answered from PostgreSQL once its keys are gone). */
const BoardPeriodRef = builder.objectRef<LeaderboardValue>('BoardPeriod').implement({
  description: 'A period of a window that holds standings, and its board.',
  fields: (t) => ({
    window: t.expose('window', { type: WindowEnum }),
    period: t.exposeString('period', {
      description: "'' for SEASON, 'yyyy-mm-dd' for DAY, 'YYYY-Www' for WEEK (ISO week)",
    }),
    periodStart: t.expose('periodStart', { type: 'DateTime' }),
    leaderboard: t.field({ type: LeaderboardRef, resolve: (b) => b }),
  }),
});

builder.objectField(SeasonRef, 'periods', (t) =>
  t.field({
    type: [BoardPeriodRef],
    description: `The periods of \`window\` that hold standings, newest first: \`first\` (1..${LIMITS.periods}) of them, those before the period \`before\` when given. Each answers every read of a board, after its Redis keys are gone too.`,
    args: {
      board: t.arg.string(BOARD_ARG),
      window: t.arg({ type: WindowEnum, required: true }),
      first: t.arg.int({ required: false, defaultValue: READ_DEFAULTS.periodsFirst }),
      before: t.arg.string({ required: false }),
    },
    resolve: async (season, args, ctx) => {
      const first = args.first ?? READ_DEFAULTS.periodsFirst;
      const board = boardNamed(season, args.board);
      checkPeriodsPage(board, args.window, first, args.before);
      const periods = await ctx.services.periods(board.id, args.window, first, args.before ?? null);
      return periods.map((period) => boardOfPeriod(board, args.window, period));
    },
  }),
);

builder.objectField(SeasonRef, 'leaderboard', (t) =>
  t.field({
    type: LeaderboardRef,
    args: {
      board: t.arg.string(BOARD_ARG),
      window: t.arg({ type: WindowEnum, required: false, defaultValue: 'SEASON' }),
      at: t.arg({
        type: 'DateTime',
        required: false,
        description: 'picks the day or week (of the season, at most one period after now); default now',
      }),
      scope: t.arg({ type: ScopeInput, required: false, description: SCOPE_ARG }),
    },
    resolve: (season, args, ctx) => boardAsked(season, args, ctx),
  }),
);

builder.queryField('leaderboard', (t) =>
  t.field({
    type: LeaderboardRef,
    nullable: true,
    description: 'null: unknown season.',
    args: {
      seasonId: t.arg.int({ required: true }),
      board: t.arg.string(BOARD_ARG),
      window: t.arg({ type: WindowEnum, required: false, defaultValue: 'SEASON' }),
      at: t.arg({
        type: 'DateTime',
        required: false,
        description: 'picks the day or week (of the season, at most one period after now); default now',
      }),
      scope: t.arg({ type: ScopeInput, required: false, description: SCOPE_ARG }),
    },
    resolve: async (_root, args, ctx) => {
      const season = await publicSeason(ctx, args.seasonId);
      return season && boardAsked(season, args, ctx);
    },
  }),
);
