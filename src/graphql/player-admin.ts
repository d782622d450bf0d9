import type { BoardOutcome } from '../domain/player-removal.js';
import type { BlockReport } from '../service/blocked-players.js';
import type { HideReport } from '../service/hidden-players.js';
import type { PlayerRemovalReport } from '../service/remove-player-results.js';
import { requireScope } from './auth.js';
import { boardName } from '../domain/season.js';
import { builder } from './builder.js';
import { WindowEnum } from './scalars.js';

const RemovePlayerResultsInput = builder.inputType('RemovePlayerResultsInput', {
  fields: (t) => ({
    seasonId: t.int({ required: true }),
    playerId: t.id({ required: true }),
    matchId: t.id({
      required: false,
      description: 'only this match (a UUID); every result of the player in the season when omitted',
    }),
    reason: t.string({ required: true, description: 'why, for the audit log: 1..500 characters' }),
    block: t.boolean({
      required: false,
      defaultValue: false,
      description: "also refuse the player's later results in this season",
    }),
  }),
});

const PlayerBlockInput = builder.inputType('PlayerBlockInput', {
  fields: (t) => ({
    seasonId: t.int({ required: true }),
    playerId: t.id({ required: true }),
    reason: t.string({ required: true, description: 'why, for the audit log: 1..500 characters' }),
  }),
});

const PlayerBoardStandingRef = builder.objectRef<BoardOutcome>('PlayerBoardStanding').implement({
  description: "A player's standing on one board after a removal.",
  fields: (t) => ({
    board: t.string({
      description: "the board's name among the season's boards",
      resolve: async (b, _args, ctx) => {
        const board = await ctx.services.season(b.seasonId);
        return board ? boardName(board) : 'points';
      },
    }),
    window: t.expose('window', { type: WindowEnum }),
    period: t.exposeString('period', { description: "'' for SEASON, yyyy-mm-dd for DAY, YYYY-Www for WEEK" }),
    removed: t.boolean({
      description: 'no result of the player is left on this board',
      resolve: (b) => b.standing === null,
    }),
    points: t.int({ nullable: true, resolve: (b) => b.standing?.points ?? null }),
    achievedAt: t.field({ type: 'DateTime', nullable: true, resolve: (b) => b.standing?.achievedAt ?? null }),
  }),
});

const PlayerRemovalReportRef = builder.objectRef<PlayerRemovalReport>('PlayerRemovalReport').implement({
  fields: (t) => ({
    seasonId: t.exposeInt('seasonId'),
    playerId: t.exposeID('playerId'),
    matchId: t.exposeID('matchId', { nullable: true }),
    removedResults: t.exposeInt('removedResults', { description: 'results deleted from the season' }),
    blocked: t.exposeBoolean('blocked', { description: 'the player is now blocked in the season (block was asked)' }),
    auditId: t.exposeInt('auditId', { description: 'the admin_audit row of this removal' }),
    boards: t.field({
      type: [PlayerBoardStandingRef],
      description: 'every board a removed result counted on, with the standing left there',
      resolve: (r) => r.boards,
    }),
  }),
});

const PlayerBlockReportRef = builder.objectRef<BlockReport>('PlayerBlockReport').implement({
  fields: (t) => ({
    seasonId: t.exposeInt('seasonId'),
    playerId: t.exposeID('playerId'),
    blocked: t.exposeBoolean('blocked'),
    changed: t.exposeBoolean('changed', { description: 'false: the player already was in that state' }),
    auditId: t.exposeInt('auditId'),
  }),
});

const PlayerHideReportRef = builder.objectRef<HideReport>('PlayerHideReport').implement({
  fields: (t) => ({
    seasonId: t.exposeInt('seasonId'),
    playerId: t.exposeID('playerId'),
    hidden: t.exposeBoolean('hidden', { description: "whether the player is now hidden from the season's boards" }),
    changed: t.exposeBoolean('changed', { description: 'false: the player already was in that state' }),
    auditId: t.exposeInt('auditId'),
    boardChanges: t.exposeInt('boardChanges', { description: 'board members removed or restored in Redis' }),
  }),
});

builder.mutationFields((t) => ({
  removePlayerResults: t.field({
    type: PlayerRemovalReportRef,
    description:
      "Scope: admin. Removes a player's results from a season (all, or one match), recomputes their standings and every board; audited.",
    args: { input: t.arg({ type: RemovePlayerResultsInput, required: true }) },
    resolve: async (_root, { input }, ctx) => {
      const principal = await requireScope(ctx, 'admin');
      return ctx.services.playerAdmin.remove({ ...input, actor: principal.name, details: { keyId: principal.keyId } });
    },
  }),
  blockPlayer: t.field({
    type: PlayerBlockReportRef,
    description:
      "Scope: admin. Refuses the player's later results in the season (API: PLAYER_BLOCKED; in-flight ones go to the DLQ); audited.",
    args: { input: t.arg({ type: PlayerBlockInput, required: true }) },
    resolve: async (_root, { input }, ctx) => {
      const principal = await requireScope(ctx, 'admin');
      return ctx.services.playerAdmin.block({ ...input, actor: principal.name, details: { keyId: principal.keyId } });
    },
  }),
  unblockPlayer: t.field({
    type: PlayerBlockReportRef,
    description: 'Scope: admin. Lifts a block; audited.',
    args: { input: t.arg({ type: PlayerBlockInput, required: true }) },
    resolve: async (_root, { input }, ctx) => {
      const principal = await requireScope(ctx, 'admin');
      return ctx.services.playerAdmin.unblock({ ...input, actor: principal.name, details: { keyId: principal.keyId } });
    },
  }),
  hidePlayer: t.field({
    type: PlayerHideReportRef,
    description:
      'Scope: admin. Hides the player from every board of the season pending review (ranks close up); their results are still stored; audited.',
    args: { input: t.arg({ type: PlayerBlockInput, required: true }) },
    resolve: async (_root, { input }, ctx) => {
      const principal = await requireScope(ctx, 'admin');
      return ctx.services.playerAdmin.hide({ ...input, actor: principal.name, details: { keyId: principal.keyId } });
    },
  }),
  unhidePlayer: t.field({
    type: PlayerHideReportRef,
    description:
      'Scope: admin. Shows a hidden player again with every result stored meanwhile (ranks reopen); audited.',
    args: { input: t.arg({ type: PlayerBlockInput, required: true }) },
    resolve: async (_root, { input }, ctx) => {
      const principal = await requireScope(ctx, 'admin');
      return ctx.services.playerAdmin.unhide({ ...input, actor: principal.name, details: { keyId: principal.keyId } });
    },
  }),
}));
