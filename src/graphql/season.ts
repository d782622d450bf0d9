import {
  boardsOf,
  defaultSplit,
  seasonsWithBoards,
  windowsOf,
  type ScoreSplit,
  type Season,
} from '../domain/season.js';
import { newSeasonOf } from '../service/seasons.js';
import { requireScope } from './auth.js';
import type { Context } from './context.js';
import { BoardInput, BoardRef } from './boards.js';
import { builder } from './builder.js';
import { RewardRuleInput, RewardRuleRef } from './rewards.js';
import { LeagueInput } from './scopes.js';
import { MAX_REWARD_RULES } from '../domain/rewards.js';
import { RankStyleEnum, ScoringModeEnum, SeasonStatusEnum, SortOrderEnum, WindowEnum } from './scalars.js';

export const SeasonRef = builder.objectRef<Season>('Season');

SeasonRef.implement({
  description: 'The unit of a board: its rules and its leaderboards, one per window it keeps (see leaderboard.ts).',
  fields: (t) => ({
    id: t.exposeInt('id'),
    name: t.exposeString('name'),
    startsAt: t.expose('startsAt', { type: 'DateTime' }),
    endsAt: t.expose('endsAt', { type: 'DateTime' }),
    status: t.expose('status', { type: SeasonStatusEnum }),
    scoring: t.expose('scoring', { type: ScoringModeEnum }),
    order: t.expose('order', { type: SortOrderEnum }),
    rankStyle: t.expose('rankStyle', { type: RankStyleEnum }),
    groupBestOf: t.int({
      nullable: true,
      description: "a group's total on a group board counts its best N members; null: every member",
      resolve: (s) => s.groupBestOf ?? null,
    }),
    rewards: t.field({
      type: [RewardRuleRef],
      description: 'its reward rules, granted once at its close from the final ranks',
      resolve: (s) => [...(s.rewards ?? [])],
    }),
    maxPointsPerMatch: t.exposeInt('maxPointsPerMatch'),
    repeats: t.boolean({
      description: 'once it is final the next season, the same but for its dates, is created (its name numbered)',
      resolve: (s) => s.repeats === true,
    }),
    previousSeasonId: t.int({
      nullable: true,
      description: 'the repeating season this one was created to follow; null: created by an admin',
      resolve: (s) => s.follows ?? null,
    }),
    shards: t.int({
      description: 'Score-range shards of each board in Redis (1: one key per board; docs/scale-out.md)',
      resolve: (s) => s.shards?.tags.length ?? 1,
    }),
    shardBounds: t.intList({
      description:
        'Points separating the shards, ascending (DESC: points >= a bound reach a better shard; ASC: points < it)',
      resolve: (s) => s.shards?.bounds ?? [],
    }),
    windows: t.field({
      type: [WindowEnum],
      description: 'The windows whose boards it keeps (SEASON always)',
      resolve: (s) => [...windowsOf(s)],
    }),
    resetOffsetMinutes: t.int({
      description: 'Minutes after UTC midnight its DAY, WEEK and MONTH periods turn over',
      resolve: (s) => s.resetOffsetMinutes ?? 0,
    }),
    periodHours: t.int({
      nullable: true,
      description: 'Hours of each CUSTOM period of its first board, from startsAt; null: it keeps no CUSTOM window',
      resolve: (s) => s.periodHours ?? null,
    }),
    boards: t.field({
      type: [BoardRef],
      description: "Its boards, its own first ('points' unless it declared boards); a read names one with `board`.",
      resolve: (s) => [...boardsOf(s)],
    }),
  }),
});

/** A split part's default per scoring mode, for the schema's descriptions: "21 BEST, 31 SUM". */
const defaults = (part: keyof ScoreSplit) => `${defaultSplit('BEST')[part]} BEST, ${defaultSplit('SUM')[part]} SUM`;

const CreateSeasonInput = builder.inputType('CreateSeasonInput', {
  fields: (t) => ({
    name: t.string({ required: true }),
    startsAt: t.field({ type: 'DateTime', required: true }),
    endsAt: t.field({ type: 'DateTime', required: true }),
    scoring: t.field({ type: ScoringModeEnum, required: false, description: 'default BEST' }),
    order: t.field({ type: SortOrderEnum, required: false, defaultValue: 'DESC' }),
    rankStyle: t.field({ type: RankStyleEnum, required: false, defaultValue: 'ORDINAL' }),
    maxPointsPerMatch: t.int({ required: false, description: 'the range of points, 0..max (required without boards)' }),
    boards: t.field({
      type: [BoardInput],
      required: false,
      description:
        "Its boards, each ranking a stat or several (docs/design.md#boards); absent: one board, 'points', by the rules above",
    }),
    pointsBits: t.int({
      required: false,
      description: `Bits of the composite score for points (default: ${defaults('pointsBits')})`,
    }),
    timeBits: t.int({
      required: false,
      description: `Bits for the time since season start (default: ${defaults('timeBits')})`,
    }),
    timeUnitSeconds: t.int({
      required: false,
      description: `Tie-break clock resolution (default: ${defaults('timeUnitSeconds')})`,
    }),
    shardBounds: t.intList({
      required: false,
      description:
        'Split each board into score-range shards (Redis Cluster; docs/scale-out.md) at these points, ascending. ' +
        'Default: one key per board',
    }),
    shards: t.int({
      required: false,
      description: 'How many shards, with shardsFromSeasonId: bounds that split that season evenly',
    }),
    shardsFromSeasonId: t.int({
      required: false,
      description: "A previous season whose SEASON board's points histogram sizes the shards",
    }),
    windows: t.field({
      type: [WindowEnum],
      required: false,
      description:
        'The windows whose boards it keeps, SEASON among them (default: SEASON, DAY, WEEK); a result writes one board per window',
    }),
    resetOffsetMinutes: t.int({
      required: false,
      description:
        'When DAY, WEEK and MONTH turn over, in minutes after UTC midnight, 0..1439 (default 0: midnight UTC)',
    }),
    periodHours: t.int({
      required: false,
      description:
        'Hours of each CUSTOM period (1..8784, a day is 24), consecutive from startsAt; required with the CUSTOM window and only with it',
    }),
    league: t.field({
      type: LeagueInput,
      required: false,
      description: 'League mode: each player placed in a cohort of their tier at their first result',
    }),
    repeats: t.boolean({
      required: false,
      description:
        'Repeat it: once it is final the scheduler creates the next one, as long, starting at its end, named "<name> #2", "#3"... ' +
        '(docs/season-lifecycle.md#repeating-seasons); closing it before its end ends the series',
    }),
    groupBestOf: t.int({
      required: false,
      description: "Group boards total each group's best N members (1..1000); default every member",
    }),
    rewards: t.field({
      type: [RewardRuleInput],
      required: false,
      description: `Up to ${MAX_REWARD_RULES} rules granted once at the close from the final ranks (docs/design.md#rewards)`,
    }),
  }),
});

/** A season by id; a further board's own row is not one (its season's `boards` lists it). */
export async function publicSeason(ctx: Context, id: number): Promise<Season | undefined> {
  const season = await ctx.services.season(id);
  return season?.parentId == null ? season : undefined;
}

const RebuildReportRef = builder
  .objectRef<{
    seasonId: number;
    boards: number;
    members: number;
    expiredBoardsSkipped: number;
    durationMs: number;
  }>('RebuildReport')
  .implement({
    fields: (t) => ({
      seasonId: t.exposeInt('seasonId'),
      boards: t.exposeInt('boards', { description: 'boards rebuilt (SEASON plus live DAY and WEEK boards)' }),
      members: t.exposeInt('members', { description: 'board entries written' }),
      expiredBoardsSkipped: t.exposeInt('expiredBoardsSkipped', {
        description: 'DAY/WEEK boards past their expiry, left in PostgreSQL only',
      }),
      durationMs: t.exposeInt('durationMs'),
    }),
  });

builder.queryFields((t) => ({
  season: t.field({
    type: SeasonRef,
    nullable: true,
    args: { id: t.arg.int({ required: true }) },
    resolve: (_root, { id }, ctx) => publicSeason(ctx, id),
  }),
  seasons: t.field({
    type: [SeasonRef],
    args: { status: t.arg({ type: SeasonStatusEnum, required: false }) },
    resolve: async (_root, { status }, ctx) => seasonsWithBoards(await ctx.services.seasons(status ?? undefined)),
  }),
}));

builder.mutationFields((t) => ({
  createSeason: t.field({
    type: SeasonRef,
    description: 'Scope: admin.',
    args: { input: t.arg({ type: CreateSeasonInput, required: true }) },
    resolve: async (_root, { input }, ctx) => {
      const principal = await requireScope(ctx, 'admin');
      return ctx.services.audited(principal, { action: 'create_season', details: { input } }, () =>
        ctx.services.createSeason(newSeasonOf(input)),
      );
    },
  }),
  closeSeason: t.field({
    type: SeasonRef,
    description:
      'Scope: admin. Ends the season now: results already in Kafka are applied, every final rank is ' +
      'written to PostgreSQL (reads of the season come from there), and its Redis boards are removed. ' +
      'Takes a few seconds (caches expire, ingest catches up); UNAVAILABLE if ingest lags too long ' +
      '(the season stays CLOSED and the scheduler finishes the close). Idempotent.',
    args: { id: t.arg.int({ required: true }) },
    resolve: async (_root, { id }, ctx) => {
      const principal = await requireScope(ctx, 'admin');
      return ctx.services.closeSeason(id, {
        actor: principal.name,
        reason: `closeSeason mutation (API key ${principal.keyId})`,
      });
    },
  }),
  rebuildLeaderboard: t.field({
    type: RebuildReportRef,
    description: "Scope: admin. Rebuilds the season's Redis boards from PostgreSQL; one at a time per season.",
    args: { seasonId: t.arg.int({ required: true }) },
    resolve: async (_root, { seasonId }, ctx) => {
      const principal = await requireScope(ctx, 'admin');
      return ctx.services.audited(principal, { action: 'rebuild', seasonId }, () => ctx.services.rebuild(seasonId));
    },
  }),
}));
