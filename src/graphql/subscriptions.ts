import { LIMITS, READ_DEFAULTS } from '../domain/board.js';
import { badInput, seasonNotFound } from '../domain/errors.js';
import { parsePlayerId } from '../domain/result-message.js';
import { builder } from './builder.js';
import { onBoard, type Context } from './context.js';
import { EntryRef } from './entry.js';
import { boardAt, boardNamed, requestedBoard, scopedBoard } from '../domain/board.js';
import { requestedScope } from '../domain/scopes.js';
import { ScopeInput, scopeAsked } from './scopes.js';
import { BOARD_ARG, SCOPE_ARG } from './leaderboard.js';
import { publicSeason } from './season.js';
import { WindowEnum } from './scalars.js';

const RecordUpdateRef = builder
  .objectRef<{
    seasonId: number;
    playerId: string;
    points: number;
    achievedAt: Date;
    rank: number;
  }>('RecordUpdate')
  .implement({
    description: "A player's score on the SEASON board rose.",
    fields: (t) => ({
      seasonId: t.exposeInt('seasonId'),
      playerId: t.exposeID('playerId'),
      points: t.exposeInt('points'),
      achievedAt: t.expose('achievedAt', { type: 'DateTime' }),
      rank: t.exposeInt('rank', { description: 'rank right after the update' }),
    }),
  });

/** Each subscription's cohort scopes (its context is its own), looked up once: a placement is final for the season. */
const cohortScopes = new WeakMap<Context, Map<string, Promise<string | null>>>();

/**
 * The scope of a subscription's events, as its subscribe resolver found it: a region or a group
 * as asked (no promise: no await per push); a league cohort (`cohortOf`) looked up once per
 * subscription, since the scope string names the cohort, not the player.
 */
function eventScope(
  ctx: Context,
  seasonId: number,
  scope: { region?: string | null; group?: string | null; cohortOf?: string | null } | null | undefined,
): string | null | Promise<string | null> {
  if (scope?.cohortOf == null) return requestedScope(scope);
  const mine = cohortScopes.get(ctx) ?? cohortScopes.set(ctx, new Map()).get(ctx)!;
  const key = `${seasonId}/${scope.cohortOf}`;
  let found = mine.get(key);
  if (!found) {
    found = publicSeason(ctx, seasonId).then((season) => (season ? scopeAsked(season, scope, ctx) : null));
    mine.set(key, found);
  }
  return found;
}

/** `entries` told their board; a cohort's scope once it is known. */
function onScopedBoard(
  entries: Parameters<typeof onBoard>[0],
  on: { seasonId: number; window: Parameters<typeof onBoard>[2]; board?: string | null },
  scope: string | null | Promise<string | null>,
) {
  return scope instanceof Promise
    ? scope.then((s) => onBoard(entries, on.seasonId, on.window, on.board, s))
    : onBoard(entries, on.seasonId, on.window, on.board, scope);
}

/** The board a subscription names: its season's first, or the one of `board`. */
async function boardOrFail(ctx: Context, seasonId: number, board: string | null | undefined) {
  const season = await publicSeason(ctx, seasonId);
  if (!season) throw seasonNotFound(seasonId);
  return boardNamed(season, board);
}

builder.subscriptionType({
  fields: (t) => ({
    topChanged: t.field({
      type: [EntryRef],
      description: `The top \`limit\` (1..${LIMITS.topChangedLimit}) now, then whenever it changes (a few times a second at most).`,
      args: {
        seasonId: t.arg.int({ required: true }),
        board: t.arg.string(BOARD_ARG),
        window: t.arg({ type: WindowEnum, required: false, defaultValue: 'SEASON' }),
        limit: t.arg.int({ required: false, defaultValue: READ_DEFAULTS.topChangedLimit }),
        scope: t.arg({ type: ScopeInput, required: false, description: SCOPE_ARG }),
      },
      subscribe: async (_root, args, ctx) => {
        const limit = args.limit ?? READ_DEFAULTS.topChangedLimit;
        if (!Number.isInteger(limit) || limit < 1 || limit > LIMITS.topChangedLimit) {
          throw badInput('limit', `limit must be an integer in 1..${LIMITS.topChangedLimit}`);
        }
        const season = await boardOrFail(ctx, args.seasonId, args.board);
        const board = requestedBoard(season, args.window ?? 'SEASON', null, ctx.services.now());
        return ctx.services.live.topChanges(scopedBoard(board, await scopeAsked(season, args.scope, ctx)), limit);
      },
      resolve: (entries, args, ctx) =>
        onScopedBoard(
          entries,
          { seasonId: args.seasonId, window: args.window ?? 'SEASON', board: args.board },
          eventScope(ctx, args.seasonId, args.scope),
        ),
    }),
    recordUpdated: t.field({
      type: RecordUpdateRef,
      description: "Every improvement on the season's board; of one player when playerId is given.",
      args: {
        seasonId: t.arg.int({ required: true }),
        board: t.arg.string(BOARD_ARG),
        playerId: t.arg.id({ required: false }),
      },
      subscribe: async (_root, args, ctx) => {
        const playerId = args.playerId == null ? undefined : parsePlayerId(args.playerId);
        return ctx.services.live.recordUpdates(await boardOrFail(ctx, args.seasonId, args.board), playerId);
      },
      resolve: (update) => update,
    }),
    rankChanged: t.field({
      type: EntryRef,
      description:
        "The player's entry now (when ranked), then whenever their rank moves (checked about once a second).",
      args: {
        seasonId: t.arg.int({ required: true }),
        board: t.arg.string(BOARD_ARG),
        playerId: t.arg.id({ required: true }),
        scope: t.arg({ type: ScopeInput, required: false, description: SCOPE_ARG }),
      },
      subscribe: async (_root, args, ctx) => {
        const playerId = parsePlayerId(args.playerId);
        const season = await boardOrFail(ctx, args.seasonId, args.board);
        const board = boardAt(season, 'SEASON', ctx.services.now());
        return ctx.services.live.rankChanges(scopedBoard(board, await scopeAsked(season, args.scope, ctx)), playerId);
      },
      resolve: (entry, args, ctx) => {
        const on = { seasonId: args.seasonId, window: 'SEASON' as const, board: args.board };
        const entries = onScopedBoard([entry], on, eventScope(ctx, args.seasonId, args.scope));
        return entries instanceof Promise ? entries.then((e) => e[0]!) : entries[0]!;
      },
    }),
  }),
});
